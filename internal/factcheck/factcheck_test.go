package factcheck

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

func vote(l claimtrace.FactLabel) claimtrace.Vote {
	return claimtrace.Vote{Label: l, Reason: string(l)}
}

var (
	yes     = vote(claimtrace.FactTrue)
	no      = vote(claimtrace.FactFalse)
	abstain = vote(claimtrace.FactUndecided)
	failed  = claimtrace.Vote{Err: "gemini:gemini-2.5-pro: rate limited (http 429) (after 5 attempts)"}
)

func TestEnsemble(t *testing.T) {
	tests := []struct {
		name     string
		a, b     []claimtrace.Vote // votes 1..3 of each checker
		label    claimtrace.FactLabel
		conf     float64
		errVotes int
		wantErr  bool
	}{
		{"unanimous", []claimtrace.Vote{yes, yes, yes}, []claimtrace.Vote{yes, yes, yes}, claimtrace.FactTrue, 1, 0, false},
		{"5-1", []claimtrace.Vote{yes, yes, yes}, []claimtrace.Vote{yes, no, yes}, claimtrace.FactTrue, 5.0 / 6, 0, false},
		{"3-3 tie is undecided", []claimtrace.Vote{yes, yes, yes}, []claimtrace.Vote{no, no, no}, claimtrace.FactUndecided, 0.5, 0, false},
		{"errors are not false votes", []claimtrace.Vote{no, yes, yes}, []claimtrace.Vote{failed, failed, failed}, claimtrace.FactTrue, 2.0 / 3, 3, false},
		{"errors leave a tie a tie", []claimtrace.Vote{yes, no, failed}, []claimtrace.Vote{failed, failed, failed}, claimtrace.FactUndecided, 0.5, 4, false},
		{"abstentions do not count", []claimtrace.Vote{abstain, abstain, no}, []claimtrace.Vote{abstain, abstain, abstain}, claimtrace.FactFalse, 1, 0, false},
		{"every vote failed: an error, not a decision", []claimtrace.Vote{failed, failed, failed}, []claimtrace.Vote{failed, failed, failed}, claimtrace.FactUndecided, 0, 6, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &scriptedChecker{name: "a", votes: map[int]claimtrace.Vote{1: tt.a[0], 2: tt.a[1], 3: tt.a[2]}}
			b := &scriptedChecker{name: "b", votes: map[int]claimtrace.Vote{1: tt.b[0], 2: tt.b[1], 3: tt.b[2]}}
			f, err := Ensemble{Checkers: []Checker{a, b}}.Check(t.Context(), Query{Claim: "c"})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if f.Label != tt.label || f.Confidence != tt.conf {
				t.Errorf("fact = %s %.3f, want %s %.3f", f.Label, f.Confidence, tt.label, tt.conf)
			}
			// Votes are listed checker by checker, vote by vote, errors kept.
			var got []string
			nerr := 0
			for _, v := range f.Votes {
				got = append(got, v.Checker)
				if v.Err != "" {
					nerr++
					if v.Label != "" {
						t.Errorf("failed vote carries label %q", v.Label)
					}
				}
			}
			if diff := cmp.Diff([]string{"a", "a", "a", "b", "b", "b"}, got); diff != "" {
				t.Errorf("vote order (-want +got):\n%s", diff)
			}
			if nerr != tt.errVotes {
				t.Errorf("%d failed votes recorded, want %d", nerr, tt.errVotes)
			}
		})
	}
}

func TestEnsembleEarlyStop(t *testing.T) {
	all := func(v claimtrace.Vote) map[int]claimtrace.Vote { return map[int]claimtrace.Vote{1: v, 2: v, 3: v} }
	a, b := &scriptedChecker{name: "a", votes: all(yes)}, &scriptedChecker{name: "b", votes: all(yes)}
	f, err := Ensemble{Checkers: []Checker{a, b}, EarlyStop: true}.Check(t.Context(), Query{Claim: "c"})
	if err != nil || f.Label != claimtrace.FactTrue || len(f.Votes) != 4 || a.calls()+b.calls() != 4 {
		t.Errorf("unanimous first round: %+v, %v, %d calls; want true on 4 votes", f, err, a.calls()+b.calls())
	}
	// Both checkers speak in the first round.
	if a.calls() != 2 || b.calls() != 2 {
		t.Errorf("first round asked a %d and b %d times, want 2 and 2", a.calls(), b.calls())
	}
	// 3–1 after the first round: one more vote for the leader settles it.
	a, b = &scriptedChecker{name: "a", votes: all(yes)}, &scriptedChecker{name: "b", votes: map[int]claimtrace.Vote{1: no, 2: yes, 3: yes}}
	f, err = Ensemble{Checkers: []Checker{a, b}, EarlyStop: true}.Check(t.Context(), Query{Claim: "c"})
	if err != nil || f.Label != claimtrace.FactTrue || len(f.Votes) != 5 || f.Confidence != 4.0/5 {
		t.Errorf("3-1 first round: %+v, %v; want true on five votes", f, err)
	}
	// 2–2: both remaining votes are needed.
	a, b = &scriptedChecker{name: "a", votes: map[int]claimtrace.Vote{1: yes, 2: no, 3: no}}, &scriptedChecker{name: "b", votes: map[int]claimtrace.Vote{1: yes, 2: no, 3: yes}}
	f, err = Ensemble{Checkers: []Checker{a, b}, EarlyStop: true}.Check(t.Context(), Query{Claim: "c"})
	if err != nil || f.Label != claimtrace.FactUndecided || len(f.Votes) != 6 {
		t.Errorf("2-2 first round: %+v, %v; want a 3-3 tie on six votes", f, err)
	}
}

// TestEarlyStopGivesTheFullVotesLabel checks every pattern of six votes
// (true, false, abstain or failed, 4^6 = 4,096 of them) of two checkers ×
// three votes: the early-stopped label is always the full vote's, and the
// early stop casts no more votes than the full one.
func TestEarlyStopGivesTheFullVotesLabel(t *testing.T) {
	kinds := []claimtrace.Vote{yes, no, abstain, failed}
	calls := map[int]int{}
	for code := range 4096 {
		va, vb := map[int]claimtrace.Vote{}, map[int]claimtrace.Vote{}
		c := code
		for k := 1; k <= 3; k++ {
			va[k] = kinds[c%4]
			c /= 4
			vb[k] = kinds[c%4]
			c /= 4
		}
		full, errFull := Ensemble{Checkers: []Checker{&scriptedChecker{name: "a", votes: va}, &scriptedChecker{name: "b", votes: vb}}}.Check(t.Context(), Query{Claim: "c"})
		a, b := &scriptedChecker{name: "a", votes: va}, &scriptedChecker{name: "b", votes: vb}
		early, errEarly := Ensemble{Checkers: []Checker{a, b}, EarlyStop: true}.Check(t.Context(), Query{Claim: "c"})
		if early.Label != full.Label || (errEarly == nil) != (errFull == nil) {
			t.Fatalf("votes a=%v b=%v: early stop %s (%v), full vote %s (%v)", va, vb, early.Label, errEarly, full.Label, errFull)
		}
		n := a.calls() + b.calls()
		if n < 4 || n > 6 || len(early.Votes) != n {
			t.Fatalf("votes a=%v b=%v: %d calls, %d votes recorded", va, vb, n, len(early.Votes))
		}
		calls[n]++
	}
	t.Logf("calls over all 4,096 patterns: %v", calls)
}

func TestEnsembleVoteNumbersAndCancel(t *testing.T) {
	a := &scriptedChecker{name: "a", votes: map[int]claimtrace.Vote{1: yes, 2: yes, 3: yes, 4: yes, 5: yes}}
	if _, err := (Ensemble{Checkers: []Checker{a}, Votes: 5}).Check(t.Context(), Query{Claim: "c"}); err != nil {
		t.Fatal(err)
	}
	asked := append([]int(nil), a.asked...)
	slicesSort(asked)
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5}, asked); diff != "" {
		t.Errorf("vote numbers (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (Ensemble{Checkers: []Checker{a}}).Check(ctx, Query{Claim: "c"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if _, err := (Ensemble{}).Check(t.Context(), Query{Claim: "c"}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("no checkers: err = %v", err)
	}
}

func slicesSort(s []int) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

// webAnswer is a grounded Gemini answer citing two pages.
func webAnswer(verdict string) llmtest.Reply {
	text := `{"verdict": "` + verdict + `", "reason": "The RAG paper says the generator is BART-large."}`
	k := strings.Index(text, "The RAG")
	return llmtest.Web(text,
		llmtest.Citation{URL: "https://arxiv.org/abs/2005.11401", Title: "RAG", Start: k, End: len(text) - 2},
		llmtest.Citation{URL: "https://huggingface.co/docs/transformers/model_doc/rag", Title: "RAG docs", Start: k, End: len(text) - 2},
	)
}

func TestWebCheckerRequestAndVote(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(webAnswer("true"))
	w, err := NewWebChecker(srv.Client(t, llm.Gemini, "gemini-2.5-pro", llm.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{
		Claim:   "The first RAG model used a BART-large generator [3].",
		Context: "## Retrieval-augmented generation\n\nRAG couples a retriever with a generator. The first RAG model used a BART-large generator.",
		Cutoff:  time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		Vote:    2,
	}
	v, err := w.Check(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	want := claimtrace.Vote{Checker: "web:gemini:gemini-2.5-pro", Label: claimtrace.FactTrue, Reason: "The RAG paper says the generator is BART-large.",
		URLs: []string{"https://arxiv.org/abs/2005.11401", "https://huggingface.co/docs/transformers/model_doc/rag"}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("vote (-want +got):\n%s", diff)
	}
	c := srv.Calls()[0]
	if !strings.Contains(string(c.Body), `"googleSearch"`) {
		t.Errorf("request has no Google Search tool: %s", c.Body)
	}
	for _, s := range []string{"<statement>\nThe first RAG model used a BART-large generator.\n</statement>", "RAG couples a retriever", "knowledge cutoff of 2024-01-01"} {
		if !strings.Contains(c.Prompt, s) {
			t.Errorf("prompt lacks %q:\n%s", s, c.Prompt)
		}
	}
	if !strings.Contains(string(c.Body), `"temperature":1`) {
		t.Errorf("vote temperature not set to 1: %s", c.Body)
	}
}

func TestWebCheckerCacheTags(t *testing.T) {
	srv := llmtest.NewServer(t)
	var mu sync.Mutex
	n := 0
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n%2 == 0 {
			return webAnswer("false")
		}
		return webAnswer("true")
	})
	cache := llm.NewMemoryCache()
	c := srv.Client(t, llm.Gemini, "gemini-2.5-flash", llm.Options{Cache: cache})
	w, err := NewWebChecker(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Claim: "The first RAG model used a BART-large generator."}
	keys := map[string]int{}
	for k := 0; k <= 3; k++ {
		q.Vote = k
		req, err := w.Request(q)
		if err != nil {
			t.Fatal(err)
		}
		keys[c.Key(req)] = k
		if want := voteTag(k); req.CacheTag != want {
			t.Errorf("vote %d: CacheTag %q, want %q", k, req.CacheTag, want)
		}
	}
	if len(keys) != 4 {
		t.Errorf("%d distinct cache keys for 4 vote numbers", len(keys))
	}
	e := Ensemble{Checkers: []Checker{w}}
	first, err := e.Check(t.Context(), Query{Claim: q.Claim})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Calls()) != 3 {
		t.Fatalf("%d requests for 3 votes", len(srv.Calls()))
	}
	again, err := e.Check(t.Context(), Query{Claim: q.Claim})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" || len(srv.Calls()) != 3 {
		t.Errorf("cached rerun: %d requests, votes differ (-first +again):\n%s", len(srv.Calls()), diff)
	}
	// A fourth vote is a new, independent request.
	e.Votes = 4
	if _, err := e.Check(t.Context(), Query{Claim: q.Claim}); err != nil || len(srv.Calls()) != 4 {
		t.Errorf("fourth vote: %v, %d requests, want 4", err, len(srv.Calls()))
	}
}

func TestWebCheckerErrorIsNotAVote(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return llmtest.Fail(llmtest.ServerError) })
	w, _ := NewWebChecker(srv.Client(t, llm.Gemini, "gemini-2.5-pro", llm.Options{}), Options{})
	f, err := Ensemble{Checkers: []Checker{w}}.Check(t.Context(), Query{Claim: "The Eiffel Tower is 330 m tall."})
	if !errors.Is(err, llm.ErrTransient) {
		t.Errorf("err = %v, want the server error", err)
	}
	if f.Label != claimtrace.FactUndecided || len(f.Votes) != 3 {
		t.Fatalf("fact = %+v", f)
	}
	for _, v := range f.Votes {
		if v.Err == "" || v.Label != "" || v.Checker != "web:gemini:gemini-2.5-pro" {
			t.Errorf("vote = %+v, want an error vote naming the checker", v)
		}
	}
}

func TestWebCheckerParityPrompt(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Web(`{"reason": "Sources confirm it.", "decision": false}`))
	w, err := NewWebChecker(srv.Client(t, llm.Gemini, "gemini-2.5-flash", llm.Options{}), Options{Prompts: judge.PromptsReportBench})
	if err != nil {
		t.Fatal(err)
	}
	v, err := w.Check(t.Context(), Query{Claim: "The Transformer architecture was introduced in 2017.", Context: "ignored", Cutoff: time.Now(), Vote: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v.Label != claimtrace.FactFalse || v.Checker != "reportbench:web:gemini:gemini-2.5-flash" {
		t.Errorf("vote = %+v", v)
	}
	tmpl, err := prompts.Get("reportbench/web_verification")
	if err != nil {
		t.Fatal(err)
	}
	want, err := tmpl.Render(map[string]string{"Statement": "The Transformer architecture was introduced in 2017."})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Calls()[0].Prompt; got != want {
		t.Errorf("parity prompt is not A.4.5 (-want +got):\n%s", cmp.Diff(want, got))
	}
	if _, err := NewWebChecker(srv.Client(t, llm.Gemini, "x", llm.Options{}), Options{Prompts: "other"}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("unknown prompts: %v", err)
	}
}

// fakeSearch answers from a fixed list and records queries.
type fakeSearch struct {
	results []SearchResult
	err     error
	mu      sync.Mutex
	queries []string
}

func (s *fakeSearch) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	return s.results[:min(n, len(s.results))], nil
}

func TestSearchChecker(t *testing.T) {
	s := &fakeSearch{results: []SearchResult{
		{Title: "Eiffel Tower - Wikipedia", URL: "https://en.wikipedia.org/wiki/Eiffel_Tower", Snippet: "The tower is 330 metres\n(1,083 ft) tall."},
		{Title: "Official site", URL: "https://www.toureiffel.paris/en", Snippet: "330 m high since 2022."},
		{Title: "Unrelated", URL: "https://example.com", Snippet: "Paris travel tips."},
	}}
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(`{"verdict": "true", "reason": "Both sources give 330 m.", "sources": [2, 1, 2, 7]}`))
	sc, err := NewSearchChecker(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}), s, "brave", 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := sc.Check(t.Context(), Query{Claim: "The Eiffel Tower is 330 m tall [[4]](https://x.org).", Vote: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := claimtrace.Vote{Checker: "search:brave+openai:gpt-4o-mini", Label: claimtrace.FactTrue, Reason: "Both sources give 330 m.",
		URLs: []string{"https://www.toureiffel.paris/en", "https://en.wikipedia.org/wiki/Eiffel_Tower"}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("vote (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"The Eiffel Tower is 330 m tall ."}, s.queries); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
	p := srv.Calls()[0].Prompt
	if !strings.Contains(p, "<result n=\"2\">\nTitle: Official site\nURL: https://www.toureiffel.paris/en\n330 m high since 2022.\n</result>") || strings.Contains(p, "Unrelated") {
		t.Errorf("prompt does not hold the 2 requested results:\n%s", p)
	}
	if strings.Index(p, "Search results") > strings.Index(p, "<statement>") {
		t.Errorf("results do not come before the statement")
	}

	// A search failure is an error; no result is an abstention without a call.
	s.err = errors.New("brave: http 429")
	if _, err := sc.Check(t.Context(), Query{Claim: "x y z"}); err == nil || !strings.Contains(err.Error(), "search") {
		t.Errorf("search error: %v", err)
	}
	s.err, s.results = nil, nil
	v, err = sc.Check(t.Context(), Query{Claim: "x y z"})
	if err != nil || v.Label != claimtrace.FactUndecided || len(srv.Calls()) != 1 {
		t.Errorf("no results: %+v, %v, %d calls", v, err, len(srv.Calls()))
	}
}

func TestSearchQuery(t *testing.T) {
	long := strings.Repeat("word ", 40)
	if got := SearchQuery(long); len(strings.Fields(got)) != 32 {
		t.Errorf("query has %d words, want 32", len(strings.Fields(got)))
	}
	if got := SearchQuery("GDP grew 5.2% in 2023 [[1]](https://stats.gov.cn/x)."); got != "GDP grew 5.2% in 2023 ." {
		t.Errorf("SearchQuery = %q", got)
	}
}

func TestParagraph(t *testing.T) {
	text := "# Report\n\n## Market size\n\nThe market grew fast. It reached $4.2 billion in 2023. Analysts expect more.\n\nA second paragraph."
	claim := "It reached $4.2 billion in 2023."
	at := strings.Index(text, claim)
	tests := []struct {
		name       string
		start, end int
		want       string
	}{
		{"paragraph under its heading", at, at + len(claim), "## Market size\n\nThe market grew fast. It reached $4.2 billion in 2023. Analysts expect more."},
		{"last paragraph", len(text) - 3, len(text), "## Market size\n\nA second paragraph."},
		{"heading itself", 0, 8, "# Report"},
		{"offsets clamped", -5, 1 << 20, strings.TrimSpace(text)},
	}
	for _, tt := range tests {
		if got := Paragraph(text, tt.start, tt.end); got != tt.want {
			t.Errorf("%s: Paragraph = %q, want %q", tt.name, got, tt.want)
		}
	}
	long := strings.Repeat("Filler words go here. ", 400) + claim + strings.Repeat(" More filler follows.", 400)
	k := strings.Index(long, claim)
	got := Paragraph(long, k, k+len(claim))
	if !strings.Contains(got, claim) || len(got) > maxParagraph+10 {
		t.Errorf("long paragraph: %d bytes, holds claim %v", len(got), strings.Contains(got, claim))
	}
	if Paragraph("", 0, 0) != "" {
		t.Errorf("Paragraph of empty text is not empty")
	}
}

// FuzzParagraph: any offsets give a context no longer than the text.
func FuzzParagraph(f *testing.F) {
	f.Add("Revenue reached 527 billion dollars in 2023. Memory chip sales fell 37 percent. Logistics were slow.", "revenue reached 527 billion", "memory fell 37 percent")
	f.Add("One. Two. Three.", "two", "")
	f.Add("", "x", "y")
	f.Add("日本語の文。もう一つの文。", "文", "一つ")
	f.Fuzz(func(t *testing.T, src, c1, c2 string) {
		if p := Paragraph(src, len(c1), len(c1)+len(c2)); len(p) > len(src) {
			t.Fatalf("paragraph longer than the text")
		}
	})
}
