package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/search"
)

// startFake serves a fake without latency for the real clients.
func startFake(t *testing.T, opt fakeOptions) (*fake, string) {
	f := newFake(opt)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func client(t *testing.T, base, model string) *llm.Client {
	t.Helper()
	c, err := llm.Open(t.Context(), llm.Endpoint{Provider: llm.OpenAI, Model: model, BaseURL: base + "/v1", APIKey: "k"}, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A source and statements written for these tests.
const source = "The Rhine is a river of about 1,230 kilometres. It rises in the Swiss Alps and flows into the North Sea near Rotterdam. " +
	"Basel, Strasbourg and Cologne lie on its banks."

var claims = []string{"The Rhine is about 1,230 km long [1].", "The Rhine flows into the Baltic Sea.", "Cologne lies on the Rhine.", "Rivers are beautiful."}

// TestFakeAnswersEveryStage: the real judge, classifier and fact-checkers
// accept the fake's answers without re-asking, and every call is counted
// and attributed to its report.
func TestFakeAnswersEveryStage(t *testing.T) {
	attr := map[string]string{}
	for _, c := range claims {
		attr[judge.ClaimText(c)] = "2501.00001"
	}
	f, base := startFake(t, fakeOptions{CheckWorthyRate: 0.5, Attribute: attr})

	j, err := judge.NewLLMJudge(client(t, base, "judge"), judge.LLMJudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := j.JudgeSource(t.Context(), source, claims)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if strings.HasPrefix(v.Reason, "no verifiable verdict") {
			t.Errorf("claim %d: %+v: the fake's answer was not accepted", i, v)
		}
	}

	cw, err := factcheck.NewLLMCheckWorthy(client(t, base, "judge"), factcheck.CheckWorthyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, why, err := cw.ClassifyCheckWorthy(t.Context(), claims)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range why {
		if !strings.HasPrefix(w, "openai:judge: ") {
			t.Errorf("claim %d decided by %q, want the fake model", i, w)
		}
	}

	searcher, err := search.NewSearXNG(search.Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	var checkers []factcheck.Checker
	for _, m := range []string{"checker-a", "checker-b"} {
		sc, err := factcheck.NewSearchChecker(client(t, base, m), adapter{searcher}, "searxng", 5, factcheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkers = append(checkers, sc)
	}
	qs := make([]factcheck.Query, len(claims))
	for i, c := range claims {
		qs[i] = factcheck.Query{Claim: c, Cutoff: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	for _, batch := range []int{1, 4} {
		facts, errs := factcheck.Ensemble{Checkers: checkers, EarlyStop: true, Batch: batch}.CheckAll(t.Context(), qs)
		for i, fc := range facts {
			if errs[i] != nil {
				t.Fatalf("batch %d, claim %d: %v", batch, i, errs[i])
			}
			for _, v := range fc.Votes {
				if v.Err != "" || v.Label == "" {
					t.Errorf("batch %d, claim %d: vote %+v", batch, i, v)
				}
			}
			if len(fc.Votes) < 4 || len(fc.Votes) > 6 {
				t.Errorf("batch %d, claim %d: %d votes", batch, i, len(fc.Votes))
			}
		}
	}
	st := f.Stats()
	if st.Answered != st.Calls || st.Unattributed != 0 || st.ByReport["2501.00001"] != st.Answered {
		t.Errorf("stats %+v: every call answered and attributed to the report", st)
	}
	if st.Searches != int64(len(claims))*2 {
		t.Errorf("%d searches, want one a claim for each of the two runs", st.Searches)
	}
	if st.BySchema["verdicts"] != 1 || st.BySchema["check_worthiness"] != 1 || st.BySchema["fact_checks"] == 0 || st.BySchema["fact_check"] == 0 {
		t.Errorf("calls by schema: %v", st.BySchema)
	}
}

type adapter struct{ s *search.SearXNG }

func (a adapter) Search(ctx context.Context, q string, n int) ([]factcheck.SearchResult, error) {
	rs, err := a.s.Search(ctx, q, n)
	out := make([]factcheck.SearchResult, len(rs))
	for i, r := range rs {
		out[i] = factcheck.SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Snippet}
	}
	return out, err
}

// TestFakeRateLimit: over the limit the fake answers 429 with OpenAI's
// headers, which the real client reads and waits out.
func TestFakeRateLimit(t *testing.T) {
	f, base := startFake(t, fakeOptions{RPM: 3})
	for i := range 3 {
		resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("x-ratelimit-remaining-requests") != []string{"2", "1", "0"}[i] {
			t.Fatalf("request %d: %d, remaining %q", i, resp.StatusCode, resp.Header.Get("x-ratelimit-remaining-requests"))
		}
	}
	resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("retry-after-ms") == "" {
		t.Errorf("over the limit: %d, retry-after-ms %q", resp.StatusCode, resp.Header.Get("retry-after-ms"))
	}
	// Another model has its own limit.
	resp, err = http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"other","messages":[{"role":"user","content":"hi"}]}`))
	if err == nil {
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("another model: %v %v", resp.StatusCode, err)
	}
	if st := f.Stats(); st.RateLimited != 1 || st.Answered != 4 {
		t.Errorf("stats %+v", st)
	}
	if n := f.busiestMinute(); n != 3 {
		t.Errorf("busiest minute: %d requests of one model, want 3", n)
	}
}

// TestVotesVary: the fake's votes on one statement are independent draws:
// over many statements, a checker's three votes disagree as often as the
// flip and abstention rates say (about 1 - 0.83³ - 0.17³ of the time for
// a claim, here checked loosely), and not one vote repeated.
func TestVotesVary(t *testing.T) {
	f := newFake(fakeOptions{})
	mixed := 0
	const n = 2000
	for i := range n {
		text := fmt.Sprintf("Statement %d about river freight.", i)
		a, b, c := f.vote("m", text), f.vote("m", text), f.vote("m", text)
		if a != b || b != c {
			mixed++
		}
	}
	if share := float64(mixed) / n; share < 0.30 || share > 0.55 {
		t.Errorf("three votes disagree for %.2f of the statements, want about 0.42", share)
	}
}

// TestFakeRefusesGarbage: a request that is not a chat completion is a
// 400 in OpenAI's shape, a search without format=json a 403, an unknown
// path a 404; none is counted as an answer.
func TestFakeRefusesGarbage(t *testing.T) {
	f, base := startFake(t, fakeOptions{})
	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/v1/chat/completions", "{not json", 400},
		{"POST", "/v1/chat/completions", `{"model": "m", "messages": []}`, 400},
		{"GET", "/search?q=rhine", "", 403},
		{"GET", "/v1/models", "", 404},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
	if st := f.Stats(); st.Answered != 0 {
		t.Errorf("%d answers counted", st.Answered)
	}
}
