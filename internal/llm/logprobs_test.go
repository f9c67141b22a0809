package llm_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// TestLogprobs: a chat request with TopLogprobs asks the server for
// logprobs and top_logprobs, the answer's are read token by token, and a
// cache hit gives them back; a request without it asks for none.
func TestLogprobs(t *testing.T) {
	srv := llmtest.NewServer(t)
	scripted := llmtest.Reply{Text: "Yes", Logprobs: []llmtest.Logprob{{Token: "Yes", Logprob: -0.105, Top: []llmtest.Logprob{
		{Token: "Yes", Logprob: -0.105}, {Token: "No", Logprob: -2.3}, {Token: "yes", Logprob: -6.1}, {Token: " Yes", Logprob: -7.5},
	}}}}
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return scripted })
	c, _, _ := testClient(t, srv, llm.Options{Cache: llm.NewMemoryCache()})

	req := ask("Document: the bridge opened in 1932.\nClaim: the bridge opened in 1932.")
	req.TopLogprobs = 3
	resp, err := c.Generate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Calls()[0].Chat(t)
	if !body.Logprobs || body.TopLogprobs == nil || *body.TopLogprobs != 3 {
		t.Errorf("request: logprobs %v, top_logprobs %v: want true and 3", body.Logprobs, body.TopLogprobs)
	}
	want := []llm.TokenLogprob{{Token: "Yes", Logprob: -0.105, Top: []llm.TokenLogprob{
		{Token: "Yes", Logprob: -0.105}, {Token: "No", Logprob: -2.3}, {Token: "yes", Logprob: -6.1},
	}}}
	if d := cmp.Diff(want, resp.Logprobs); d != "" {
		t.Errorf("logprobs (-want +got):\n%s", d)
	}
	again, err := c.Generate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !again.CacheHit || !cmp.Equal(want, again.Logprobs) {
		t.Errorf("cache hit %v, logprobs %+v: want the same logprobs from the cache", again.CacheHit, again.Logprobs)
	}

	plain, err := c.Generate(t.Context(), ask("Document: x\nClaim: y"))
	if err != nil {
		t.Fatal(err)
	}
	if b := srv.Calls()[1].Chat(t); b.Logprobs || b.TopLogprobs != nil || plain.Logprobs != nil {
		t.Errorf("request without TopLogprobs: logprobs %v, top_logprobs %v, answer %+v: want none", b.Logprobs, b.TopLogprobs, plain.Logprobs)
	}
	for _, n := range []int{-1, llm.MaxTopLogprobs + 1} {
		bad := ask("x")
		bad.TopLogprobs = n
		if _, err := c.Generate(t.Context(), bad); err == nil {
			t.Errorf("TopLogprobs %d: no error", n)
		}
	}
}
