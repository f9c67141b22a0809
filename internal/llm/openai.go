package llm

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// openAIModel speaks chat completions and the Responses API through
// openai-go. The services are built without the SDK's environment defaults
// (no OPENAI_* variables are read here) and with its retries off.
type openAIModel struct {
	ep    Endpoint
	chat  openai.ChatCompletionService
	resps responses.ResponseService
}

func newOpenAIModel(ep Endpoint) *openAIModel {
	opts := []option.RequestOption{
		option.WithBaseURL(ep.baseURL()),
		option.WithHTTPClient(ep.httpClient()),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(ep.timeout()),
	}
	if ep.APIKey != "" {
		opts = append(opts, option.WithAPIKey(ep.APIKey))
	}
	return &openAIModel{
		ep:    ep,
		chat:  openai.NewChatCompletionService(opts...),
		resps: responses.NewResponseService(opts...),
	}
}

func (m *openAIModel) Generate(ctx context.Context, req Request) (Response, error) {
	useResponses := m.ep.API == APIResponses || m.ep.API == APIAuto && req.WebSearch
	if useResponses {
		return m.generateResponses(ctx, req)
	}
	return m.generateChat(ctx, req)
}

func (m *openAIModel) fail(ctx context.Context, err error, tr *attemptTrace) error {
	return classify(ctx, OpenAI, m.ep.Model, err, tr, m.ep.APIKey)
}

func (m *openAIModel) generateChat(ctx context.Context, req Request) (Response, error) {
	params := openai.ChatCompletionNewParams{Model: m.ep.Model}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				a.Content.OfString = param.NewOpt(msg.Content)
			}
			for _, tc := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: argumentsString(tc.Arguments)},
					},
				})
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleTool:
			params.Messages = append(params.Messages, openai.ToolMessage(msg.Content, msg.ToolCallID))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(msg.Content))
		}
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schemaMap(t.Parameters)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	if req.Schema != nil && !m.ep.NoStructuredOutput {
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: schemaName(req.Schema), Schema: schemaMap(req.Schema.JSON)}
		if req.Schema.Strict {
			js.Strict = param.NewOpt(true)
		}
		if req.Schema.Description != "" {
			js.Description = param.NewOpt(req.Schema.Description)
		}
		params.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	}
	if req.WebSearch {
		// Only search models (gpt-4o-search-preview…) and some compatible
		// routers honour this on chat completions; APIAuto uses Responses.
		params.WebSearchOptions = openai.ChatCompletionNewParamsWebSearchOptions{}
	}
	if req.Temperature != nil && !fixedTemperature(m.ep.Model) {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		// Reasoning models on the public API reject max_tokens; compatible
		// servers (vLLM, Ollama, llama.cpp) know max_tokens best.
		if m.ep.public() {
			params.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if req.Seed != nil {
		params.Seed = param.NewOpt(int64(*req.Seed))
	}
	if req.TopLogprobs > 0 {
		params.Logprobs = param.NewOpt(true)
		params.TopLogprobs = param.NewOpt(int64(req.TopLogprobs))
	}

	tctx, tr := withTrace(ctx)
	c, err := m.chat.New(tctx, params)
	if err != nil {
		return Response{}, m.fail(ctx, err, tr)
	}
	if len(c.Choices) == 0 {
		return Response{}, &Error{Provider: OpenAI, Model: m.ep.Model, Kind: ErrTransient, Status: 200, msg: "answer has no choices"}
	}
	ch := c.Choices[0]
	out := Response{
		Text:  ch.Message.Content,
		Model: c.Model,
		Usage: Usage{
			InputTokens:     c.Usage.PromptTokens,
			OutputTokens:    c.Usage.CompletionTokens,
			CachedTokens:    c.Usage.PromptTokensDetails.CachedTokens,
			ReasoningTokens: c.Usage.CompletionTokensDetails.ReasoningTokens,
		},
		FinishReason: openAIFinish(ch.FinishReason),
	}
	for _, tl := range ch.Logprobs.Content {
		t := TokenLogprob{Token: tl.Token, Logprob: tl.Logprob}
		for _, alt := range tl.TopLogprobs {
			t.Top = append(t.Top, TokenLogprob{Token: alt.Token, Logprob: alt.Logprob})
		}
		out.Logprobs = append(out.Logprobs, t)
	}
	if ch.Message.Refusal != "" && out.Text == "" {
		out.Text = ch.Message.Refusal
		out.FinishReason = FinishFiltered
	}
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: rawArguments(tc.Function.Arguments)})
	}
	for _, a := range ch.Message.Annotations {
		u := a.URLCitation
		start, end := runeSpan(out.Text, 0, int(u.StartIndex), int(u.EndIndex))
		out.Citations = append(out.Citations, WebCitation{URL: u.URL, Title: u.Title, Start: start, End: end})
	}
	return out, nil
}

func (m *openAIModel) generateResponses(ctx context.Context, req Request) (Response, error) {
	params := responses.ResponseNewParams{Model: m.ep.Model, Store: param.NewOpt(false)}
	if req.System != "" {
		params.Instructions = param.NewOpt(req.System)
	}
	var items responses.ResponseInputParam
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleAssistant:
			if msg.Content != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRoleAssistant))
			}
			for _, tc := range msg.ToolCalls {
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(argumentsString(tc.Arguments), tc.ID, tc.Name))
			}
		case RoleTool:
			item := responses.ResponseInputItemParamOfFunctionCallOutput(msg.Content)
			item.OfFunctionCallOutput.CallID = param.NewOpt(msg.ToolCallID)
			items = append(items, item)
		default:
			items = append(items, responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRoleUser))
		}
	}
	params.Input.OfInputItemList = items
	for _, t := range req.Tools {
		tool := responses.ToolParamOfFunction(t.Name, schemaMap(t.Parameters), false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, tool)
	}
	if req.WebSearch {
		params.Tools = append(params.Tools, responses.ToolParamOfWebSearch(responses.WebSearchToolTypeWebSearch))
		params.Include = append(params.Include, responses.ResponseIncludableWebSearchCallActionSources)
		if req.MaxSearches > 0 {
			params.MaxToolCalls = param.NewOpt(int64(req.MaxSearches))
		}
	}
	if req.Schema != nil && !m.ep.NoStructuredOutput {
		js := &responses.ResponseFormatTextJSONSchemaConfigParam{Name: schemaName(req.Schema), Schema: schemaMap(req.Schema.JSON)}
		if req.Schema.Strict {
			js.Strict = param.NewOpt(true)
		}
		if req.Schema.Description != "" {
			js.Description = param.NewOpt(req.Schema.Description)
		}
		params.Text.Format.OfJSONSchema = js
	}
	if req.Temperature != nil && !fixedTemperature(m.ep.Model) {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		params.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}

	tctx, tr := withTrace(ctx)
	r, err := m.resps.New(tctx, params)
	if err != nil {
		return Response{}, m.fail(ctx, err, tr)
	}
	if r.Error.Message != "" {
		return Response{}, &Error{Provider: OpenAI, Model: m.ep.Model, Kind: ErrTransient, Status: 200, Code: string(r.Error.Code), msg: scrub(r.Error.Message, m.ep.APIKey)}
	}
	out := Response{
		Model: r.Model,
		Usage: Usage{
			InputTokens:     r.Usage.InputTokens,
			OutputTokens:    r.Usage.OutputTokens,
			CachedTokens:    r.Usage.InputTokensDetails.CachedTokens,
			ReasoningTokens: r.Usage.OutputTokensDetails.ReasoningTokens,
		},
		FinishReason: FinishStop,
	}
	var text strings.Builder
	for _, item := range r.Output {
		switch item.Type {
		case "message":
			for _, c := range item.Content {
				if c.Type != "output_text" {
					continue
				}
				base := text.Len()
				text.WriteString(c.Text)
				for _, a := range c.Annotations {
					if a.Type != "url_citation" {
						continue
					}
					start, end := runeSpan(c.Text, base, int(a.StartIndex), int(a.EndIndex))
					out.Citations = append(out.Citations, WebCitation{URL: a.URL, Title: a.Title, Start: start, End: end})
				}
			}
		case "function_call":
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: item.CallID, Name: item.Name, Arguments: rawArguments(item.Arguments.OfString)})
		case "web_search_call":
			out.Usage.WebSearches++
			act := item.Action
			if act.Query != "" {
				out.Searches = append(out.Searches, act.Query)
			}
			for _, q := range act.Queries {
				if q != act.Query {
					out.Searches = append(out.Searches, q)
				}
			}
			for _, s := range act.Sources {
				out.Sources = append(out.Sources, WebSource{URL: s.URL})
			}
			if act.Type == "open_page" && act.URL != "" {
				out.Sources = append(out.Sources, WebSource{URL: act.URL})
			}
		}
	}
	out.Text = text.String()
	if len(out.ToolCalls) > 0 {
		out.FinishReason = FinishToolUse
	}
	if r.Status == "incomplete" {
		switch r.IncompleteDetails.Reason {
		case "max_output_tokens":
			out.FinishReason = FinishLength
		case "content_filter":
			out.FinishReason = FinishFiltered
		}
	}
	return out, nil
}

// fixedTemperature reports OpenAI reasoning models, which reject any
// temperature but the default: the configured one is not sent to them (it
// still counts in the cache key).
func fixedTemperature(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4"} {
		if m == p || strings.HasPrefix(m, p+"-") {
			return true
		}
	}
	return strings.HasPrefix(m, "gpt-5") && !strings.Contains(m, "chat")
}

func openAIFinish(s string) string {
	switch s {
	case "stop", "":
		return FinishStop
	case "length":
		return FinishLength
	case "tool_calls", "function_call":
		return FinishToolUse
	case "content_filter":
		return FinishFiltered
	}
	return s
}

// runeSpan converts a [start, end) span counted in Unicode code points of
// text into byte offsets, shifted by base, clamped to the text.
func runeSpan(text string, base, start, end int) (int, int) {
	if end < start {
		end = start
	}
	bs, be := len(text), len(text)
	i := 0
	for pos := range text {
		if i == start {
			bs = pos
		}
		if i == end {
			be = pos
			break
		}
		i++
	}
	if start < 0 {
		bs = 0
	}
	if bs > be {
		bs = be
	}
	return base + bs, base + be
}

// schemaMap turns a JSON Schema document into the map the SDKs marshal.
// An empty or invalid document becomes an empty object schema.
func schemaMap(raw json.RawMessage) map[string]any {
	m := map[string]any{}
	if len(raw) > 0 && json.Unmarshal(raw, &m) == nil {
		return m
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

func schemaName(s *Schema) string {
	if s.Name != "" {
		return s.Name
	}
	return "answer"
}

// argumentsString renders tool-call arguments as the JSON text the
// providers exchange; empty arguments are an empty object.
func argumentsString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(raw)
}

// rawArguments keeps a model's argument text as JSON when it is valid and
// as a JSON string otherwise, so a malformed call reaches the caller
// instead of failing the whole answer.
func rawArguments(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
