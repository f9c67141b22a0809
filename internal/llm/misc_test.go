package llm_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/google/go-cmp/cmp"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		spec     string
		provider llm.Provider
		model    string
		wantErr  bool
	}{
		{"openai:gpt-4o", llm.OpenAI, "gpt-4o", false},
		{"gemini:gemini-2.5-pro", llm.Gemini, "gemini-2.5-pro", false},
		{"google:gemini-2.5-flash", llm.Gemini, "gemini-2.5-flash", false},
		{"anthropic:claude-sonnet-4-5", llm.Anthropic, "claude-sonnet-4-5", false},
		{"OpenAI:llama3.1:8b", llm.OpenAI, "llama3.1:8b", false},
		{" openai:gpt-4o-mini ", llm.OpenAI, "gpt-4o-mini", false},
		{"gpt-4o", "", "", true},
		{"openai:", "", "", true},
		{"mistral:large", "", "", true},
		{"", "", "", true},
	}
	for _, tt := range tests {
		p, m, err := llm.ParseSpec(tt.spec)
		if tt.wantErr {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("ParseSpec(%q) = %v, want ErrInvalid", tt.spec, err)
			}
			continue
		}
		if err != nil || p != tt.provider || m != tt.model {
			t.Errorf("ParseSpec(%q) = %q, %q, %v; want %q, %q", tt.spec, p, m, err, tt.provider, tt.model)
		}
	}
}

func TestLookupPrice(t *testing.T) {
	tests := []struct {
		provider llm.Provider
		model    string
		input    float64 // 0: not found
	}{
		{llm.OpenAI, "gpt-4o", 2.50},
		{llm.OpenAI, "gpt-4o-2024-08-06", 2.50},
		{llm.OpenAI, "gpt-4o-mini", 0.15},
		{llm.OpenAI, "gpt-4o-mini-2024-07-18", 0.15},
		{llm.OpenAI, "gpt-4o-audio-preview-2024-12-17", 0},
		{llm.OpenAI, "o3-2025-04-16", 2.00},
		{llm.Gemini, "gemini-2.5-pro-preview-06-05", 1.25},
		{llm.Gemini, "models/gemini-2.5-flash", 0.30},
		{llm.Gemini, "gemini-2.5-flash-lite", 0.10},
		{llm.Gemini, "gemini-2.0-flash-001", 0.10},
		{llm.Anthropic, "claude-sonnet-4-5-20250929", 3.00},
		{llm.Anthropic, "claude-opus-4-1-20250805", 15.00},
		{llm.Anthropic, "claude-3-7-sonnet-latest", 3.00},
		{llm.OpenAI, "llama3.1:8b", 0},
		{llm.Anthropic, "gpt-4o", 0},
	}
	for _, tt := range tests {
		p, ok := llm.LookupPrice(tt.provider, tt.model)
		if ok != (tt.input != 0) || p.Input != tt.input {
			t.Errorf("LookupPrice(%s, %s) = %+v, %v; want input %v", tt.provider, tt.model, p, ok, tt.input)
		}
	}
}

func TestPriceCost(t *testing.T) {
	p := llm.Price{Input: 2.5, Output: 10, Cached: 1.25, WebSearchPer1K: 10}
	got := p.Cost(llm.Usage{InputTokens: 1_000_000, CachedTokens: 400_000, OutputTokens: 100_000, ReasoningTokens: 50_000, WebSearches: 3})
	want := 0.6*2.5 + 0.4*1.25 + 0.1*10 + 0.03
	if diff := cmp.Diff(want, got, cmpFloat); diff != "" {
		t.Errorf("Cost (-want +got):\n%s", diff)
	}
}

func TestKey(t *testing.T) {
	temp0, temp1 := 0.0, 1.0
	base := llm.Request{
		Stage: "judge", System: "sys", Messages: []llm.Message{llm.UserMessage("claim")},
		Schema:      &llm.Schema{Name: "v", JSON: json.RawMessage(`{"type": "object"}`)},
		Temperature: &temp0,
	}
	key := llm.Key(llm.OpenAI, "gpt-4o", base)
	same := base
	same.Stage = "other stage"
	same.Schema = &llm.Schema{Name: "v", JSON: json.RawMessage("{\n  \"type\":\"object\"\n}")}
	if got := llm.Key(llm.OpenAI, "gpt-4o", same); got != key {
		t.Errorf("stage or schema formatting changed the key")
	}
	variants := map[string]func(r *llm.Request){
		"temperature": func(r *llm.Request) { r.Temperature = &temp1 },
		"no temp":     func(r *llm.Request) { r.Temperature = nil },
		"system":      func(r *llm.Request) { r.System = "sys2" },
		"message":     func(r *llm.Request) { r.Messages = []llm.Message{llm.UserMessage("claim.")} },
		"tag":         func(r *llm.Request) { r.CacheTag = "vote-1" },
		"web":         func(r *llm.Request) { r.WebSearch = true },
		"max tokens":  func(r *llm.Request) { r.MaxTokens = 10 },
		"tools":       func(r *llm.Request) { r.Tools = []llm.Tool{{Name: "search"}} },
		"schema":      func(r *llm.Request) { r.Schema = nil },
		"logprobs":    func(r *llm.Request) { r.TopLogprobs = 5 },
	}
	seen := map[string]string{key: "base"}
	for name, mutate := range variants {
		r := base
		mutate(&r)
		k := llm.Key(llm.OpenAI, "gpt-4o", r)
		if prev, dup := seen[k]; dup {
			t.Errorf("%s gives the same key as %s", name, prev)
		}
		seen[k] = name
	}
	if llm.Key(llm.Gemini, "gpt-4o", base) == key || llm.Key(llm.OpenAI, "gpt-4o-mini", base) == key {
		t.Errorf("provider or model not in the key")
	}
}

func TestFileCache(t *testing.T) {
	dir := t.TempDir()
	c, err := llm.NewFileCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	key := llm.Key(llm.OpenAI, "m", ask("q"))
	if _, ok, err := c.Get(ctx, key); ok || err != nil {
		t.Fatalf("Get on empty cache = %v, %v", ok, err)
	}
	if err := c.Put(ctx, key, []byte(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, key, []byte(`{"v":2}`)); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.Get(ctx, key)
	if !ok || err != nil || string(got) != `{"v":2}` {
		t.Errorf("Get = %s, %v, %v", got, ok, err)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Join(dir, key[:2]))
	if len(entries) != 1 {
		t.Errorf("cache dir holds %d files, want 1", len(entries))
	}
	for _, bad := range []string{"../etc/passwd", "a/b", ".x", ""} {
		if err := c.Put(ctx, bad, nil); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("Put(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}
