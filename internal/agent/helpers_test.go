package agent_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/search/searchtest"
)

// flavour is one provider protocol the agent runs on.
type flavour struct {
	name     string
	provider llm.Provider
	proto    llmtest.Protocol
}

var flavours = []flavour{
	{"openai", llm.OpenAI, llmtest.OpenAIChat},
	{"gemini", llm.Gemini, llmtest.Gemini},
	{"anthropic", llm.Anthropic, llmtest.Anthropic},
}

// fixture is a fake model server, a fake SerpAPI and a page server read
// through the real SSRF-safe fetcher (loopback allowed).
type fixture struct {
	t      *testing.T
	llm    *llmtest.Server
	search *searchtest.Server
	pages  *pageServer
	client *llm.Client
	f      flavour
}

func newFixture(t *testing.T, f flavour) *fixture {
	t.Helper()
	fx := &fixture{t: t, llm: llmtest.NewServer(t), search: searchtest.NewServer(t, searchtest.SerpAPI), pages: newPageServer(t), f: f}
	fx.client = fx.openClient(llm.Options{})
	return fx
}

func (fx *fixture) openClient(opts llm.Options) *llm.Client {
	fx.t.Helper()
	base := fx.llm.URL
	api := ""
	if fx.f.provider == llm.OpenAI {
		base, api = fx.llm.OpenAIBaseURL(), llm.APIAuto
	}
	ep := llm.Endpoint{Name: fx.f.name, Provider: fx.f.provider, Model: "test-model", BaseURL: base, APIKey: "sk-test-key-0123456789", API: api, Timeout: 10 * time.Second}
	opts.Retry = llm.Retry{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	c, err := llm.Open(fx.t.Context(), ep, opts)
	if err != nil {
		fx.t.Fatalf("llm.Open: %v", err)
	}
	return c
}

func (fx *fixture) searcher() search.Searcher {
	s, err := search.NewSerpAPI(search.Options{BaseURL: fx.search.URL, APIKey: "serp-key", Retries: -1, Timeout: 5 * time.Second})
	if err != nil {
		fx.t.Fatal(err)
	}
	return s
}

func (fx *fixture) reader() search.Reader {
	return search.NewBuiltin(fetch.New(fetch.Options{AllowHosts: []string{"127.0.0.1"}, PerHostRPS: -1, Retries: -1, Timeout: 5 * time.Second}))
}

// agent returns an agent with budget tool calls; mod adjusts options.
func (fx *fixture) agent(budget int, mod ...func(*agent.Options)) *agent.Agent {
	fx.t.Helper()
	o := agent.Options{
		Model: fx.client, ModelName: fx.f.name + ":test-model",
		Searcher: fx.searcher(), Reader: fx.reader(), SearchName: "serpapi", ReaderName: "builtin",
		MaxToolCalls: budget, SearchResults: 3,
	}
	for _, m := range mod {
		m(&o)
	}
	a, err := agent.New(o)
	if err != nil {
		fx.t.Fatalf("agent.New: %v", err)
	}
	return a
}

// pageServer serves small HTML articles at /paper/<n> and 404 elsewhere,
// counting hits.
type pageServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newPageServer(t *testing.T) *pageServer {
	p := &pageServer{hits: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits[r.URL.Path]++
		p.mu.Unlock()
		n, ok := strings.CutPrefix(r.URL.Path, "/paper/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		body := fmt.Sprintf("Paper %s studies radar point clouds for autonomous driving and reports a detection accuracy of 71.%s percent on the nuScenes benchmark. ", n, n)
		if strings.HasPrefix(n, "long") {
			body = strings.Repeat(body, 200)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Radar Paper %s</title></head><body><main><article><h1>Radar Paper %s</h1><p>%s</p><p>The method fuses radar and camera features in bird's-eye view.</p></article></main></body></html>`, n, n, body)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *pageServer) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, v := range p.hits {
		n += v
	}
	return n
}

func task(id string) claimtrace.Task {
	return claimtrace.Task{
		ArXivID: id, Title: "Exploring Radar Data Representations in Autonomous Driving: A Comprehensive Review",
		Prompt: "Please help me research the academic advancements in different radar data representation methods in the field of autonomous driving, and ensure only papers published before April 2025 are referenced. [task " + id + "]",
	}
}

func search1(id, q string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "search", Arguments: fmt.Sprintf(`{"query":%q}`, q)}
}

func read1(id, u string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "read", Arguments: fmt.Sprintf(`{"url":%q}`, u)}
}

// body decodes a recorded model request.
func body(t *testing.T, c llmtest.Call) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Body, &m); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return m
}

// declaredTools lists the function names a request declares.
func declaredTools(t *testing.T, c llmtest.Call) []string {
	t.Helper()
	b := body(t, c)
	var names []string
	tools, _ := b["tools"].([]any)
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		switch c.Protocol {
		case llmtest.OpenAIChat:
			if fn, ok := m["function"].(map[string]any); ok {
				names = append(names, fmt.Sprint(fn["name"]))
			}
		case llmtest.Gemini:
			decls, _ := m["functionDeclarations"].([]any)
			for _, d := range decls {
				names = append(names, fmt.Sprint(d.(map[string]any)["name"]))
			}
		case llmtest.Anthropic:
			if n, ok := m["name"].(string); ok && (m["type"] == nil || m["type"] == "custom") {
				names = append(names, n)
			}
		}
	}
	return names
}

// hasToolBlocks reports whether a request carries structured tool calls
// or results in its conversation.
func hasToolBlocks(c llmtest.Call) bool {
	s := string(c.Body)
	for _, k := range []string{`"tool_calls"`, `"tool_call_id"`, `"tool_use"`, `"tool_result"`, `"functionCall"`, `"functionResponse"`} {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}
