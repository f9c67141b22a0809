package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// TestDryRunClient: a dry client goes through GenerateJSON without a
// model, records and prices the request under its stage, answers a value
// that passes the schema, and spends nothing: no budget, no ledger, no
// cache entry. A cached answer is used and counted as cached.
func TestDryRunClient(t *testing.T) {
	schema := &llm.Schema{Name: "v", JSON: json.RawMessage(`{"type": "object", "properties": {
		"label": {"type": "string", "enum": ["true", "false", "unverifiable"]},
		"ok": {"type": "boolean"}, "n": {"type": "integer", "minimum": 1},
		"items": {"type": "array", "items": {"type": "string"}, "minItems": 2}},
		"required": ["label", "ok", "n", "items"], "additionalProperties": false}`)}
	dry := &llm.DryRun{}
	led := &memLedger{}
	cache := llm.NewMemoryCache()
	budget := llm.NewBudget(0.0000001, 1)
	ep := llm.Endpoint{Name: "openai:gpt-4o-mini", Provider: llm.OpenAI, Model: "gpt-4o-mini"}
	c := llm.NewClient(ep, nil, llm.Options{DryRun: dry, Ledger: led, Cache: cache, Budget: budget})
	req := llm.Request{Stage: "fact_check", Messages: []llm.Message{llm.UserMessage("Is it so?")}, Schema: schema, MaxTokens: 100, WebSearch: true}
	var ans struct {
		Label string   `json:"label"`
		OK    bool     `json:"ok"`
		N     int      `json:"n"`
		Items []string `json:"items"`
	}
	for range 2 {
		if _, err := c.GenerateJSON(t.Context(), req, &ans); err != nil {
			t.Fatal(err)
		}
	}
	if ans.Label != "unverifiable" || ans.OK || ans.N != 1 || len(ans.Items) != 2 {
		t.Errorf("answer = %+v, want the neutral one", ans)
	}
	e := c.Estimate(req)
	got := dry.Stages()["fact_check"]
	if got.Calls != 2 || got.InputTokens != 2*e.InputTokens || got.OutputTokens != 200 || got.Cost != 2*e.Cost || got.Cost < 0.02 {
		t.Errorf("recorded %+v, want twice %+v (with the web-search fee)", got, e)
	}
	if calls, cost := budget.Spent(); calls != 0 || cost != 0 {
		t.Errorf("budget spent %d calls, $%g", calls, cost)
	}
	if n := len(led.all()); n != 0 {
		t.Errorf("%d ledger records", n)
	}
	if _, ok, _ := cache.Get(t.Context(), c.Key(req)); ok {
		t.Error("a dry answer was cached")
	}

	// What the cache holds is the answer a real run would use.
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(`{"label": "true", "ok": true, "n": 3, "items": ["a", "b"]}`))
	real, err := llm.Open(t.Context(), endpoint(srv, openAIChat, "gpt-4o-mini"), llm.Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := real.GenerateJSON(t.Context(), req, &ans); err != nil {
		t.Fatal(err)
	}
	dry2 := &llm.DryRun{}
	c2 := llm.NewClient(real.Endpoint(), nil, llm.Options{DryRun: dry2, Cache: cache})
	if _, err := c2.GenerateJSON(t.Context(), req, &ans); err != nil || ans.Label != "true" {
		t.Fatalf("cached answer: %+v, %v", ans, err)
	}
	if got := dry2.Stages()["fact_check"]; got.Calls != 0 || got.Cached != 1 {
		t.Errorf("recorded %+v, want one cached answer", got)
	}
}

func TestNeutralJSON(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type": "object", "properties": {"a_to_b": {"type": "object", "properties": {"label": {"type": "string", "enum": ["entailment", "neutral", "contradiction"]}, "confidence": {"type": "number"}}, "required": ["label", "confidence"]}}, "required": ["a_to_b"]}`,
			`{"a_to_b":{"confidence":0,"label":"neutral"}}`},
		{`{"type": "array", "items": {"type": "object"}}`, `[]`},
		{`{"type": ["string", "null"]}`, `null`},
		{`{"type": "integer", "enum": [1, 2, 3]}`, `1`},
		{`{"anyOf": [{"type": "boolean"}, {"type": "string"}]}`, `false`},
		{`not json`, `{}`},
	} {
		if got := llm.NeutralJSON(json.RawMessage(tc.schema)); got != tc.want {
			t.Errorf("NeutralJSON(%s) = %s, want %s", tc.schema, got, tc.want)
		}
	}
}

// TestDryRunWithoutSchema: a GenerateJSON request without a schema gets
// the neutral value of the type it decodes into, so it is priced once and
// never asked again.
func TestDryRunWithoutSchema(t *testing.T) {
	dry := &llm.DryRun{}
	c := llm.NewClient(llm.Endpoint{Provider: llm.OpenAI, Model: "gpt-4o"}, nil, llm.Options{DryRun: dry})
	var list []struct {
		Statement string `json:"statement"`
	}
	if _, err := c.GenerateJSON(t.Context(), ask("extract"), &list); err != nil || list == nil || len(list) != 0 {
		t.Fatalf("list = %#v, %v", list, err)
	}
	var obj struct {
		Reason string `json:"reason"`
		Match  bool   `json:"match"`
	}
	if _, err := c.GenerateJSON(t.Context(), ask("verify"), &obj); err != nil || obj.Match {
		t.Fatalf("obj = %+v, %v", obj, err)
	}
	if got := dry.Stages()["test"].Calls; got != 2 {
		t.Errorf("%d calls recorded, want 2 (no re-ask)", got)
	}
}
