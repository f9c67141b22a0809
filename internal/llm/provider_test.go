package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/google/go-cmp/cmp"
)

const testKey = "sk-test-0123456789abcdefSECRET"

// flavour is one wire protocol under test.
type flavour struct {
	name     string
	provider llm.Provider
	api      string
	proto    llmtest.Protocol
}

var flavours = []flavour{
	{"openai-chat", llm.OpenAI, llm.APIChat, llmtest.OpenAIChat},
	{"openai-responses", llm.OpenAI, llm.APIResponses, llmtest.OpenAIResponses},
	{"gemini", llm.Gemini, "", llmtest.Gemini},
	{"anthropic", llm.Anthropic, "", llmtest.Anthropic},
}

func endpoint(srv *llmtest.Server, f flavour, model string) llm.Endpoint {
	base := srv.URL
	if f.provider == llm.OpenAI {
		base = srv.OpenAIBaseURL()
	}
	return llm.Endpoint{Name: f.name, Provider: f.provider, Model: model, BaseURL: base, APIKey: testKey, API: f.api, Timeout: 5 * time.Second}
}

func newModel(t *testing.T, srv *llmtest.Server, f flavour, model string) llm.Model {
	t.Helper()
	m, err := llm.NewModel(t.Context(), endpoint(srv, f, model))
	if err != nil {
		t.Fatalf("NewModel: %v", err)
	}
	return m
}

// body decodes a recorded request body.
func body(t *testing.T, c llmtest.Call) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Body, &m); err != nil {
		t.Fatalf("request body: %v\n%s", err, c.Body)
	}
	return m
}

// path walks decoded JSON: keys for objects, ints for arrays.
func path(v any, steps ...any) any {
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestGenerateText(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "Paris is the capital.", Model: "served-model-001", Usage: &llmtest.Usage{Input: 120, Output: 30, Cached: 100, Reasoning: 10}})
			m := newModel(t, srv, f, "test-model")
			temp := 0.0
			got, err := m.Generate(t.Context(), llm.Request{
				System:      "Answer briefly.",
				Messages:    []llm.Message{llm.UserMessage("What is the capital of France?")},
				Temperature: &temp,
				MaxTokens:   64,
			})
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			want := llm.Response{
				Text: "Paris is the capital.", Model: "served-model-001", FinishReason: llm.FinishStop,
				Usage: llm.Usage{InputTokens: 120, OutputTokens: 30, CachedTokens: 100, ReasoningTokens: 10},
			}
			if f.provider == llm.Anthropic {
				want.Usage.ReasoningTokens = 0 // not reported separately
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}

			calls := srv.Calls()
			if len(calls) != 1 {
				t.Fatalf("server got %d requests, want 1", len(calls))
			}
			c := calls[0]
			if c.Protocol != f.proto || c.Model != "test-model" || c.APIKey != testKey || c.Prompt != "What is the capital of France?" {
				t.Errorf("request: protocol %s model %q key ok %v prompt %q", c.Protocol, c.Model, c.APIKey == testKey, c.Prompt)
			}
			b := body(t, c)
			var system, maxTok, temperature any
			switch f.proto {
			case llmtest.OpenAIChat:
				system = path(b, "messages", 0, "content")
				maxTok, temperature = b["max_tokens"], b["temperature"]
			case llmtest.OpenAIResponses:
				system = b["instructions"]
				maxTok, temperature = b["max_output_tokens"], b["temperature"]
				if b["store"] != false {
					t.Errorf("responses request store = %v, want false", b["store"])
				}
			case llmtest.Gemini:
				system = path(b, "systemInstruction", "parts", 0, "text")
				maxTok, temperature = path(b, "generationConfig", "maxOutputTokens"), path(b, "generationConfig", "temperature")
			case llmtest.Anthropic:
				system = path(b, "system", 0, "text")
				maxTok, temperature = b["max_tokens"], b["temperature"]
			}
			if diff := cmp.Diff([]any{"Answer briefly.", 64.0, 0.0}, []any{system, maxTok, temperature}); diff != "" {
				t.Errorf("system, max tokens, temperature in the request (-want +got):\n%s\nbody: %s", diff, c.Body)
			}
		})
	}
}

func TestGenerateToolRoundTrip(t *testing.T) {
	weather := llm.Tool{Name: "get_weather", Description: "Weather for a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Tools(llmtest.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}), llmtest.Text("Sunny."))
			m := newModel(t, srv, f, "test-model")
			req := llm.Request{Messages: []llm.Message{llm.UserMessage("Weather in Paris?")}, Tools: []llm.Tool{weather}}
			first, err := m.Generate(t.Context(), req)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if len(first.ToolCalls) != 1 {
				t.Fatalf("tool calls = %+v, want one", first.ToolCalls)
			}
			tc := first.ToolCalls[0]
			if tc.ID != "call_1" || tc.Name != "get_weather" || string(tc.Arguments) != `{"city":"Paris"}` || first.FinishReason != llm.FinishToolUse {
				t.Errorf("tool call = %+v (args %s), finish %q", tc, tc.Arguments, first.FinishReason)
			}
			if f.provider == llm.Gemini && string(tc.Signature) != "signature" {
				t.Errorf("gemini thought signature = %q, want it kept", tc.Signature)
			}

			req.Messages = append(req.Messages, llm.AssistantMessage("", first.ToolCalls...), llm.ToolResultMessage(tc, `{"temp_c":21}`))
			second, err := m.Generate(t.Context(), req)
			if err != nil {
				t.Fatalf("Generate with tool result: %v", err)
			}
			if second.Text != "Sunny." {
				t.Errorf("answer = %q", second.Text)
			}

			b0 := body(t, srv.Calls()[0])
			b := body(t, srv.Calls()[1])
			var declared, callBack, result []any
			switch f.proto {
			case llmtest.OpenAIChat:
				declared = []any{path(b0, "tools", 0, "type"), path(b0, "tools", 0, "function", "name"), path(b0, "tools", 0, "function", "parameters", "required", 0)}
				callBack = []any{path(b, "messages", 1, "role"), path(b, "messages", 1, "tool_calls", 0, "id"), path(b, "messages", 1, "tool_calls", 0, "function", "arguments")}
				result = []any{path(b, "messages", 2, "role"), path(b, "messages", 2, "tool_call_id"), path(b, "messages", 2, "content")}
				callBack[2] = compact(t, callBack[2])
				want := [][]any{{"function", "get_weather", "city"}, {"assistant", "call_1", `{"city":"Paris"}`}, {"tool", "call_1", `{"temp_c":21}`}}
				checkTriples(t, want, declared, callBack, result)
			case llmtest.OpenAIResponses:
				declared = []any{path(b0, "tools", 0, "type"), path(b0, "tools", 0, "name"), path(b0, "tools", 0, "parameters", "required", 0)}
				callBack = []any{path(b, "input", 1, "type"), path(b, "input", 1, "call_id"), compact(t, path(b, "input", 1, "arguments"))}
				result = []any{path(b, "input", 2, "type"), path(b, "input", 2, "call_id"), path(b, "input", 2, "output")}
				want := [][]any{{"function", "get_weather", "city"}, {"function_call", "call_1", `{"city":"Paris"}`}, {"function_call_output", "call_1", `{"temp_c":21}`}}
				checkTriples(t, want, declared, callBack, result)
			case llmtest.Gemini:
				declared = []any{path(b0, "tools", 0, "functionDeclarations", 0, "name"), path(b0, "tools", 0, "functionDeclarations", 0, "parametersJsonSchema", "required", 0), nil}
				callBack = []any{path(b, "contents", 1, "role"), path(b, "contents", 1, "parts", 0, "functionCall", "args", "city"), path(b, "contents", 1, "parts", 0, "thoughtSignature")}
				result = []any{path(b, "contents", 2, "role"), path(b, "contents", 2, "parts", 0, "functionResponse", "name"), path(b, "contents", 2, "parts", 0, "functionResponse", "response", "temp_c")}
				want := [][]any{{"get_weather", "city", nil}, {"model", "Paris", "c2lnbmF0dXJl"}, {"user", "get_weather", 21.0}}
				checkTriples(t, want, declared, callBack, result)
			case llmtest.Anthropic:
				declared = []any{path(b0, "tools", 0, "name"), path(b0, "tools", 0, "input_schema", "type"), path(b0, "tools", 0, "input_schema", "required", 0)}
				callBack = []any{path(b, "messages", 1, "role"), path(b, "messages", 1, "content", 0, "type"), path(b, "messages", 1, "content", 0, "input", "city")}
				result = []any{path(b, "messages", 2, "role"), path(b, "messages", 2, "content", 0, "tool_use_id"), path(b, "messages", 2, "content", 0, "content", 0, "text")}
				want := [][]any{{"get_weather", "object", "city"}, {"assistant", "tool_use", "Paris"}, {"user", "call_1", `{"temp_c":21}`}}
				checkTriples(t, want, declared, callBack, result)
			}
		})
	}
}

func compact(t *testing.T, v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	var x any
	if err := json.Unmarshal([]byte(s), &x); err != nil {
		return s
	}
	b, _ := json.Marshal(x)
	return string(b)
}

func checkTriples(t *testing.T, want [][]any, got ...[]any) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool declaration, call sent back, result sent back (-want +got):\n%s", diff)
	}
}

func TestGenerateWebSearch(t *testing.T) {
	// Non-ASCII text before the citations checks offset conversions (OpenAI
	// counts code points, Gemini bytes, Anthropic cites whole blocks).
	text := "Überblick: Spain won Euro 2024. England lost the final."
	s1 := strings.Index(text, "Spain")
	e1 := s1 + len("Spain won Euro 2024.")
	s2 := strings.Index(text, "England")
	e2 := len(text)
	reply := llmtest.Reply{
		Text:     text,
		Searches: []string{"euro 2024 winner"},
		Citations: []llmtest.Citation{
			{URL: "https://www.uefa.com/euro2024/", Title: "UEFA", Start: s1, End: e1, Quote: "Spain beat England 2-1"},
			{URL: "https://en.wikipedia.org/wiki/UEFA_Euro_2024_final", Title: "Final", Start: s2, End: e2, Quote: "England lost"},
		},
	}
	for _, f := range flavours {
		if f.proto == llmtest.OpenAIChat {
			continue
		}
		f := f
		if f.provider == llm.OpenAI {
			f.api = llm.APIAuto // web search picks the Responses API
		}
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(reply)
			m := newModel(t, srv, f, "test-model")
			got, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("Who won Euro 2024?")}, WebSearch: true})
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if c := srv.Calls()[0]; c.Protocol != f.proto {
				t.Errorf("protocol = %s, want %s", c.Protocol, f.proto)
			}
			want := []llm.WebCitation{
				{URL: "https://www.uefa.com/euro2024/", Title: "UEFA", Start: s1, End: e1},
				{URL: "https://en.wikipedia.org/wiki/UEFA_Euro_2024_final", Title: "Final", Start: s2, End: e2},
			}
			switch f.provider {
			case llm.Gemini:
				want[0].Text, want[1].Text = text[s1:e1], text[s2:e2]
			case llm.Anthropic:
				want[0].Text, want[1].Text = "Spain beat England 2-1", "England lost"
			}
			if diff := cmp.Diff(want, got.Citations); diff != "" {
				t.Errorf("citations (-want +got):\n%s", diff)
			}
			for _, c := range got.Citations {
				if got.Text[c.Start:c.End] == "" {
					t.Errorf("citation %s locates an empty span", c.URL)
				}
			}
			if diff := cmp.Diff([]string{"euro 2024 winner"}, got.Searches); diff != "" {
				t.Errorf("searches (-want +got):\n%s", diff)
			}
			if got.Usage.WebSearches != 1 || len(got.Sources) != 2 {
				t.Errorf("web searches = %d, sources = %+v", got.Usage.WebSearches, got.Sources)
			}
			b := body(t, srv.Calls()[0])
			var tool any
			switch f.proto {
			case llmtest.OpenAIResponses:
				tool = path(b, "tools", 0, "type")
			case llmtest.Gemini:
				tool = path(b, "tools", 0)
			case llmtest.Anthropic:
				tool = path(b, "tools", 0, "type")
			}
			wantTool := map[llmtest.Protocol]any{llmtest.OpenAIResponses: "web_search", llmtest.Gemini: map[string]any{"googleSearch": map[string]any{}}, llmtest.Anthropic: "web_search_20250305"}[f.proto]
			if diff := cmp.Diff(wantTool, tool); diff != "" {
				t.Errorf("search tool in the request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWebSearchBudget checks that a cap on the provider's own searches
// reaches the wire where the protocol has one (OpenAI Responses
// max_tool_calls, Anthropic max_uses) and that Anthropic keeps its default
// cap without one.
func TestWebSearchBudget(t *testing.T) {
	for _, f := range flavours {
		if f.proto == llmtest.OpenAIChat || f.proto == llmtest.Gemini {
			continue
		}
		f := f
		if f.provider == llm.OpenAI {
			f.api = llm.APIAuto
		}
		t.Run(f.name, func(t *testing.T) {
			for _, tt := range []struct{ max, want int }{{3, 3}, {0, 5}} {
				srv := llmtest.NewServer(t)
				m := newModel(t, srv, f, "test-model")
				if _, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("Search.")}, WebSearch: true, MaxSearches: tt.max}); err != nil {
					t.Fatalf("Generate: %v", err)
				}
				b := body(t, srv.Calls()[0])
				var got any
				if f.proto == llmtest.Anthropic {
					got = path(b, "tools", 0, "max_uses")
				} else {
					got = path(b, "max_tool_calls")
					if tt.max == 0 {
						tt.want = -1 // not sent
					}
				}
				want := any(float64(tt.want))
				if tt.want < 0 {
					want = nil
				}
				if got != want {
					t.Errorf("MaxSearches %d: cap on the wire = %v, want %v; body: %s", tt.max, got, want, srv.Calls()[0].Body)
				}
			}
		})
	}
	// The cap is part of the cache key: a cached answer searched under
	// another budget is not reused.
	a := llm.Request{Messages: []llm.Message{llm.UserMessage("q")}, WebSearch: true}
	b := a
	b.MaxSearches = 3
	if llm.Key(llm.OpenAI, "m", a) == llm.Key(llm.OpenAI, "m", b) {
		t.Error("MaxSearches does not change the cache key")
	}
}

func TestGenerateStructuredOutput(t *testing.T) {
	schema := &llm.Schema{Name: "verdict", JSON: json.RawMessage(`{"type":"object","properties":{"match":{"type":"boolean"}},"required":["match"]}`)}
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			m := newModel(t, srv, f, "test-model")
			if _, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("Judge.")}, Schema: schema}); err != nil {
				t.Fatalf("Generate: %v", err)
			}
			b := body(t, srv.Calls()[0])
			var got any
			switch f.proto {
			case llmtest.OpenAIChat:
				got = path(b, "response_format", "json_schema", "schema", "required", 0)
			case llmtest.OpenAIResponses:
				got = path(b, "text", "format", "schema", "required", 0)
			case llmtest.Gemini:
				got = path(b, "generationConfig", "responseJsonSchema", "required", 0)
			case llmtest.Anthropic:
				got = path(b, "output_config", "format", "schema", "required", 0)
			}
			if got != "match" {
				t.Errorf("schema not sent natively; body: %s", srv.Calls()[0].Body)
			}
		})
	}
}

func TestClassifyFaults(t *testing.T) {
	type want struct {
		kind       error
		retryAfter time.Duration
	}
	tests := []struct {
		reply llmtest.Reply
		want  map[llm.Provider]want // by provider; missing = same as OpenAI
	}{
		{llmtest.RateLimited(1500 * time.Millisecond), map[llm.Provider]want{llm.OpenAI: {llm.ErrRateLimit, 1500 * time.Millisecond}}},
		{llmtest.Fail(llmtest.RateLimit), map[llm.Provider]want{llm.OpenAI: {llm.ErrRateLimit, 0}}},
		{llmtest.Fail(llmtest.Overloaded), map[llm.Provider]want{llm.OpenAI: {llm.ErrTransient, 0}, llm.Anthropic: {llm.ErrRateLimit, 0}}},
		{llmtest.Fail(llmtest.ServerError), map[llm.Provider]want{llm.OpenAI: {llm.ErrTransient, 0}}},
		{llmtest.Fail(llmtest.BadGateway), map[llm.Provider]want{llm.OpenAI: {llm.ErrTransient, 0}}},
		{llmtest.Fail(llmtest.ContextLength), map[llm.Provider]want{llm.OpenAI: {llm.ErrContextLength, 0}}},
		{llmtest.Fail(llmtest.Unauthorized), map[llm.Provider]want{llm.OpenAI: {llm.ErrAuth, 0}}},
		{llmtest.Fail(llmtest.QuotaExceeded), map[llm.Provider]want{llm.OpenAI: {llm.ErrQuota, 0}, llm.Gemini: {llm.ErrRateLimit, time.Hour}}},
		{llmtest.Fail(llmtest.ModelNotFound), map[llm.Provider]want{llm.OpenAI: {llm.ErrModelNotFound, 0}}},
		{llmtest.Fail(llmtest.BadRequest), map[llm.Provider]want{llm.OpenAI: {llm.ErrBadRequest, 0}}},
		{llmtest.Fail(llmtest.DropConnection), map[llm.Provider]want{llm.OpenAI: {llm.ErrTransient, 0}}},
		{llmtest.Fail(llmtest.Truncated), map[llm.Provider]want{llm.OpenAI: {llm.ErrTransient, 0}}},
		{llmtest.Fail(llmtest.NonJSON), map[llm.Provider]want{llm.OpenAI: {llm.ErrTransient, 0}}},
	}
	faultNames := []string{"none", "rate_limit", "overloaded", "server_error", "bad_gateway", "context_length", "unauthorized", "quota", "not_found", "bad_request", "drop", "truncated", "non_json"}
	for _, tt := range tests {
		name := faultNames[tt.reply.Fault]
		if tt.reply.RetryAfter > 0 {
			name += "_retry_after"
		}
		for _, f := range flavours {
			t.Run(name+"/"+f.name, func(t *testing.T) {
				w, ok := tt.want[f.provider]
				if !ok {
					w = tt.want[llm.OpenAI]
				}
				srv := llmtest.NewServer(t)
				srv.Enqueue(tt.reply)
				m := newModel(t, srv, f, "test-model")
				_, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("error = %v (%T), want *llm.Error", err, err)
				}
				if !errors.Is(err, w.kind) {
					t.Errorf("error = %v, want kind %v", err, w.kind)
				}
				if e.RetryAfter != w.retryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, w.retryAfter)
				}
				if retry := w.kind == llm.ErrRateLimit || w.kind == llm.ErrTransient; e.Retryable() != retry {
					t.Errorf("Retryable = %v, want %v", e.Retryable(), retry)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error leaks the key: %v", err)
				}
				if w.kind == llm.ErrModelNotFound && !errors.Is(err, claimtrace.ErrNotFound) {
					t.Errorf("model-not-found error does not match claimtrace.ErrNotFound")
				}
				if n := len(srv.Calls()); n != 1 {
					t.Errorf("server got %d requests, want 1 (the SDK must not retry)", n)
				}
			})
		}
	}
}

func TestNewModelNeedsKey(t *testing.T) {
	tests := []struct {
		ep      llm.Endpoint
		wantErr string // "" means no error
	}{
		{llm.Endpoint{Provider: llm.OpenAI, Model: "gpt-4o"}, "set OPENAI_API_KEY"},
		{llm.Endpoint{Provider: llm.OpenAI, Model: "gpt-4o", BaseURL: "https://api.openai.com/v1/"}, "set OPENAI_API_KEY"},
		{llm.Endpoint{Provider: llm.Gemini, Model: "gemini-2.5-pro"}, "set GEMINI_API_KEY or GOOGLE_API_KEY"},
		{llm.Endpoint{Provider: llm.Anthropic, Model: "claude-sonnet-4-5", KeyEnv: "MY_CLAUDE_KEY"}, "set MY_CLAUDE_KEY"},
		{llm.Endpoint{Provider: llm.OpenAI, Model: "llama3.1:8b", BaseURL: "http://localhost:11434/v1"}, ""},
	}
	for _, tt := range tests {
		_, err := llm.NewModel(context.Background(), tt.ep)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("NewModel(%s at %q) = %v, want no error", tt.ep, tt.ep.BaseURL, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, llm.ErrAuth)):
			t.Errorf("NewModel(%s) = %v, want ErrAuth saying %q", tt.ep, err, tt.wantErr)
		}
	}
}

func TestGenerateTruncated(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: `{"reason": "the source`, Finish: "length"})
			m := newModel(t, srv, f, "m")
			got, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("q")}, MaxTokens: 5})
			if err != nil {
				t.Fatal(err)
			}
			if !got.Truncated() || got.Text != `{"reason": "the source` {
				t.Errorf("finish %q, text %q; want a truncated answer", got.FinishReason, got.Text)
			}
		})
	}
}

func TestEndpointNeverPrintsKey(t *testing.T) {
	ep := llm.Endpoint{Name: "judge", Provider: llm.OpenAI, Model: "gpt-4o", APIKey: testKey}
	for _, s := range []string{fmt.Sprint(ep), fmt.Sprintf("%v %+v %#v %s", ep, ep, ep, ep)} {
		if strings.Contains(s, testKey) {
			t.Errorf("endpoint printed its key: %s", s)
		}
	}
}

func TestReasoningModelsGetNoTemperature(t *testing.T) {
	temp := 0.0
	for _, tt := range []struct {
		model string
		sent  bool
	}{{"gpt-4o", true}, {"gpt-5-chat-latest", true}, {"o3", false}, {"o4-mini-2025-04-16", false}, {"gpt-5-mini", false}} {
		srv := llmtest.NewServer(t)
		m := newModel(t, srv, openAIChat, tt.model)
		if _, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("q")}, Temperature: &temp}); err != nil {
			t.Fatal(err)
		}
		if _, sent := body(t, srv.Calls()[0])["temperature"]; sent != tt.sent {
			t.Errorf("%s: temperature sent = %v, want %v", tt.model, sent, tt.sent)
		}
	}
}
