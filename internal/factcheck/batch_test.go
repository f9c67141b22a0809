package factcheck

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// Statements of a report's paragraph about the Rhine, written for these
// tests.
var rhine = []Query{
	{Claim: "The Rhine is about 1,230 km long [4].", Context: "## Rivers\n\nThe Rhine is about 1,230 km long. It flows into the North Sea."},
	{Claim: "It flows into the North Sea.", Context: "## Rivers\n\nThe Rhine is about 1,230 km long. It flows into the North Sea."},
	{Claim: "Basel lies on the Rhine knee.", Context: "## Cities\n\nBasel lies on the Rhine knee."},
}

var batchStatementRE = regexp.MustCompile(`<statement n="(\d+)">\nStatement: ([^\n]*)\n`)

// batchReply answers every numbered statement of a batched prompt: true,
// except statements containing drop (left out of the answer) or flip
// (false).
func batchReply(prompt, drop, flip string) llmtest.Reply {
	var items []string
	for _, m := range batchStatementRE.FindAllStringSubmatch(prompt, -1) {
		if drop != "" && strings.Contains(m[2], drop) {
			continue
		}
		verdict := "true"
		if flip != "" && strings.Contains(m[2], flip) {
			verdict = "false"
		}
		items = append(items, fmt.Sprintf(`{"statement": %s, "verdict": %q, "reason": "checked %s", "sources": [1]}`, m[1], verdict, m[1]))
	}
	return llmtest.Text(`{"verdicts": [` + strings.Join(items, ", ") + `]}`)
}

func TestSearchCheckerBatch(t *testing.T) {
	s := &fakeSearch{results: []SearchResult{{Title: "Rhine", URL: "https://en.wikipedia.org/wiki/Rhine", Snippet: "The Rhine is 1,230 km long and flows into the North Sea."}}}
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return batchReply(c.Prompt, "Basel", "") })
	sc, err := NewSearchChecker(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}), s, "searxng", 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	qs := append([]Query(nil), rhine...)
	for i := range qs {
		qs[i].Vote, qs[i].Cutoff = 2, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	votes, err := sc.CheckBatch(t.Context(), qs)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Fatalf("%d model calls for a batch of 3, want 1", n)
	}
	p := srv.Calls()[0].Prompt
	for _, want := range []string{
		`<statement n="1">` + "\nStatement: The Rhine is about 1,230 km long.\n", // the marker removed
		"Context: the same paragraph as statement 1.",                            // the shared paragraph shown once
		"## Cities", "knowledge cutoff of 2025-01-01", "https://en.wikipedia.org/wiki/Rhine",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Count(p, "It flows into the North Sea.\n</context>") != 1 {
		t.Errorf("the shared paragraph is not shown exactly once:\n%s", p)
	}
	want := []claimtrace.Vote{
		{Checker: sc.Name(), Label: claimtrace.FactTrue, Reason: "checked 1", URLs: []string{"https://en.wikipedia.org/wiki/Rhine"}},
		{Checker: sc.Name(), Label: claimtrace.FactTrue, Reason: "checked 2", URLs: []string{"https://en.wikipedia.org/wiki/Rhine"}},
		// Left out of the answer: a failed vote, never a guess.
		{Checker: sc.Name(), Err: "fact check search:searxng+openai:gpt-4o-mini: the batched answer has no verdict for statement 3 of 3"},
	}
	if diff := cmp.Diff(want, votes); diff != "" {
		t.Errorf("votes (-want +got):\n%s", diff)
	}
}

// TestSearchCheckerBatchFailures: a claim whose search fails gets a failed
// vote and one without results abstains, both without a model call; the
// others are still checked.
func TestSearchCheckerBatchFailures(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		if !strings.Contains(c.Prompt, `<statement n="`) {
			return llmtest.Text(`{"verdict": "true", "reason": "single", "sources": [1]}`)
		}
		return batchReply(c.Prompt, "", "")
	})
	search := searchFunc(func(ctx context.Context, q string, n int) ([]SearchResult, error) {
		switch {
		case strings.Contains(q, "Basel"):
			return nil, errors.New("searxng: http 502")
		case strings.Contains(q, "North Sea"):
			return []SearchResult{}, nil
		}
		return []SearchResult{{Title: "Rhine", URL: "https://example.org/rhine", Snippet: "1,230 km"}}, nil
	})
	sc, err := NewSearchChecker(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}), search, "searxng", 5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	votes, err := sc.CheckBatch(t.Context(), append([]Query{{Claim: "  "}}, rhine...))
	if err != nil {
		t.Fatal(err)
	}
	if votes[0].Err == "" || votes[3].Err == "" || !strings.Contains(votes[3].Err, "502") {
		t.Errorf("empty claim and failed search: %+v, %+v; want failed votes", votes[0], votes[3])
	}
	if votes[2].Label != claimtrace.FactUndecided || votes[2].Err != "" {
		t.Errorf("no results: %+v, want an abstention", votes[2])
	}
	if votes[1].Label != claimtrace.FactTrue {
		t.Errorf("searched claim: %+v, want its verdict", votes[1])
	}
	// One claim left to ask: the single-statement prompt.
	if n := len(srv.Calls()); n != 1 || strings.Contains(srv.Calls()[0].Prompt, `<statement n="`) {
		t.Errorf("%d calls; want one single-statement call", n)
	}
}

type searchFunc func(ctx context.Context, q string, n int) ([]SearchResult, error)

func (f searchFunc) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	return f(ctx, q, n)
}

// countingSearch counts searches by query.
type countingSearch struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *countingSearch) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	s.mu.Lock()
	s.n[q]++
	s.mu.Unlock()
	time.Sleep(5 * time.Millisecond) // let concurrent askers meet
	return []SearchResult{{Title: "t", URL: "https://example.org/" + q, Snippet: "s"}}, nil
}

// TestEnsembleBatchesAndSharesSearches: two models with one search API,
// three votes each, early stop, three claims in a batch: each claim is
// searched once in all, and each round costs one call per vote of each
// checker instead of one per claim.
func TestEnsembleBatchesAndSharesSearches(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return batchReply(c.Prompt, "", "") })
	search := &countingSearch{n: map[string]int{}}
	var checkers []Checker
	for _, m := range []string{"model-a", "model-b"} {
		sc, err := NewSearchChecker(srv.Client(t, llm.OpenAI, m, llm.Options{}), search, "searxng", 5, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkers = append(checkers, sc)
	}
	facts, errs := Ensemble{Checkers: checkers, EarlyStop: true, Batch: 5}.CheckAll(t.Context(), rhine)
	for i, f := range facts {
		if errs[i] != nil || f.Label != claimtrace.FactTrue || len(f.Votes) != 4 {
			t.Errorf("claim %d: %+v, %v; want true on four votes", i, f, errs[i])
		}
	}
	// Round one: votes 1 and 2 of each model, each one call for the three
	// claims.
	if n := len(srv.Calls()); n != 4 {
		t.Errorf("%d model calls, want 4 (2 votes × 2 models, 3 claims a call)", n)
	}
	if len(search.n) != 3 {
		t.Errorf("searched %d distinct queries, want 3", len(search.n))
	}
	for q, n := range search.n {
		if n != 1 {
			t.Errorf("query %q searched %d times, want once for both models", q, n)
		}
	}
}

// TestEnsembleBatchRoundsOnlyUndecided: a claim settled in the first round
// is not sent again; the one that is not gets its next vote alone.
func TestEnsembleBatchRoundsOnlyUndecided(t *testing.T) {
	srv := llmtest.NewServer(t)
	var mu sync.Mutex
	calls := map[string]int{} // model → calls
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		mu.Lock()
		calls[c.Model]++
		n := calls[c.Model]
		mu.Unlock()
		if c.Model == "model-b" && n == 1 {
			return batchReply(c.Prompt, "", "Basel") // b's first vote: Basel false
		}
		if strings.Contains(c.Prompt, `<statement n="`) {
			return batchReply(c.Prompt, "", "")
		}
		return llmtest.Text(`{"verdict": "true", "reason": "single", "sources": [1]}`)
	})
	search := &countingSearch{n: map[string]int{}}
	var checkers []Checker
	for _, m := range []string{"model-a", "model-b"} {
		sc, _ := NewSearchChecker(srv.Client(t, llm.OpenAI, m, llm.Options{}), search, "searxng", 5, Options{})
		checkers = append(checkers, sc)
	}
	facts, errs := Ensemble{Checkers: checkers, EarlyStop: true, Batch: 5}.CheckAll(t.Context(), rhine)
	if errs[2] != nil || facts[2].Label != claimtrace.FactTrue || len(facts[2].Votes) != 5 {
		t.Errorf("Basel claim: %+v, %v; want true on five votes", facts[2], errs[2])
	}
	for i := range 2 {
		if len(facts[i].Votes) != 4 {
			t.Errorf("claim %d: %d votes, want 4", i, len(facts[i].Votes))
		}
	}
	// Four batched calls, then one single-statement call (vote 3 of
	// model a) for the Basel claim.
	if n := len(srv.Calls()); n != 5 {
		t.Errorf("%d model calls, want 5", n)
	}
	last := srv.Calls()[4]
	if last.Model != "model-a" || !strings.Contains(last.Prompt, "Basel") || strings.Contains(last.Prompt, "Rhine is about") {
		t.Errorf("fifth call to %s about:\n%s\nwant model-a about the Basel claim alone", last.Model, last.Prompt)
	}
}

// TestWebCheckerBatch: one grounded call for several claims; each vote
// keeps only the URLs its verdict names that the search returned.
func TestWebCheckerBatch(t *testing.T) {
	srv := llmtest.NewServer(t)
	text := `{"verdicts": [{"statement": 1, "verdict": "true", "reason": "length confirmed", "sources": ["https://en.wikipedia.org/wiki/Rhine", "https://made-up.example/rhine"]},` +
		` {"statement": 2, "verdict": "false", "reason": "wrong sea", "sources": []}]}`
	srv.Enqueue(llmtest.Web(text, llmtest.Citation{URL: "https://en.wikipedia.org/wiki/Rhine", Title: "Rhine", Start: 10, End: 40}))
	w, err := NewWebChecker(srv.Client(t, llm.Gemini, "gemini-2.5-flash", llm.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	votes, err := w.CheckBatch(t.Context(), rhine[:2])
	if err != nil {
		t.Fatal(err)
	}
	want := []claimtrace.Vote{
		{Checker: w.Name(), Label: claimtrace.FactTrue, Reason: "length confirmed", URLs: []string{"https://en.wikipedia.org/wiki/Rhine"}},
		{Checker: w.Name(), Label: claimtrace.FactFalse, Reason: "wrong sea"},
	}
	if diff := cmp.Diff(want, votes); diff != "" {
		t.Errorf("votes (-want +got):\n%s", diff)
	}
	if c := srv.Calls(); len(c) != 1 || !strings.Contains(string(c[0].Body), `"googleSearch"`) {
		t.Errorf("want one grounded call, got %d", len(c))
	}
}

// TestBatchErrorFailsItsVotes: a failed batched call is a failed vote for
// each of its claims, not a verdict.
func TestBatchErrorFailsItsVotes(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return llmtest.Fail(llmtest.BadRequest) })
	sc, _ := NewSearchChecker(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}), &countingSearch{n: map[string]int{}}, "searxng", 5, Options{})
	facts, errs := Ensemble{Checkers: []Checker{sc}, Votes: 1, Batch: 3}.CheckAll(t.Context(), rhine)
	for i := range facts {
		if errs[i] == nil || !errors.Is(errs[i], llm.ErrBadRequest) && !strings.Contains(errs[i].Error(), "400") {
			t.Errorf("claim %d: err = %v, want the call's error", i, errs[i])
		}
		if facts[i].Label != claimtrace.FactUndecided || len(facts[i].Votes) != 1 || facts[i].Votes[0].Err == "" {
			t.Errorf("claim %d: %+v, want one failed vote", i, facts[i])
		}
	}
}
