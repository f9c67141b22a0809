package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"
)

// memLedger is a Ledger in memory.
type memLedger struct {
	mu    sync.Mutex
	calls []claimtrace.LLMCall
}

func (l *memLedger) Record(ctx context.Context, c claimtrace.LLMCall) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
	return nil
}

func (l *memLedger) all() []claimtrace.LLMCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]claimtrace.LLMCall(nil), l.calls...)
}

// sleeps records retry delays instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

var openAIChat = flavours[0]

// testClient returns a client of the fake server's OpenAI chat endpoint
// with a memory cache, a memory ledger and recorded sleeps.
func testClient(t *testing.T, srv *llmtest.Server, opts llm.Options) (*llm.Client, *memLedger, *sleeps) {
	t.Helper()
	led, sl := &memLedger{}, &sleeps{}
	if opts.Ledger == nil {
		opts.Ledger = led
	}
	opts.Sleep = sl.sleep
	c, err := llm.Open(t.Context(), endpoint(srv, openAIChat, "gpt-4o"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, led, sl
}

func ask(text string) llm.Request {
	return llm.Request{Stage: "test", Messages: []llm.Message{llm.UserMessage(text)}}
}

func TestRetryTransientThenSucceed(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Fail(llmtest.ServerError), llmtest.Fail(llmtest.DropConnection), llmtest.Fail(llmtest.Truncated), llmtest.Text("done"))
	c, led, sl := testClient(t, srv, llm.Options{Retry: llm.Retry{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}})
	resp, err := c.Generate(t.Context(), ask("q"))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if resp.Text != "done" || resp.Attempts != 4 || len(srv.Calls()) != 4 {
		t.Errorf("text %q, attempts %d, requests %d; want done, 4, 4", resp.Text, resp.Attempts, len(srv.Calls()))
	}
	// Jittered exponential backoff: attempt n waits in [base·2^(n-1)/2, base·2^(n-1)].
	d := sl.all()
	if len(d) != 3 {
		t.Fatalf("slept %v, want 3 delays", d)
	}
	for i, got := range d {
		hi := 100 * time.Millisecond << i
		if got < hi/2 || got > hi {
			t.Errorf("delay %d = %v, want within [%v, %v]", i+1, got, hi/2, hi)
		}
	}
	calls := led.all()
	if len(calls) != 1 || calls[0].Attempts != 4 || calls[0].Err != "" {
		t.Errorf("ledger = %+v, want one successful record with 4 attempts", calls)
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.RateLimited(1500*time.Millisecond), llmtest.Text("ok"))
			sl := &sleeps{}
			c, err := llm.Open(t.Context(), endpoint(srv, f, "m"), llm.Options{Sleep: sl.sleep})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Generate(t.Context(), ask("q")); err != nil {
				t.Fatalf("Generate: %v", err)
			}
			d := sl.all()
			if len(d) != 1 || d[0] < 1500*time.Millisecond || d[0] > 1650*time.Millisecond {
				t.Errorf("slept %v, want one delay of 1.5s plus at most 10%% jitter", d)
			}
		})
	}
}

func TestRetryAfterTooLongFailsFast(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Fail(llmtest.QuotaExceeded)) // Gemini: RetryInfo of an hour (daily quota)
	sl := &sleeps{}
	c, err := llm.Open(t.Context(), endpoint(srv, flavours[2], "gemini-2.5-flash"), llm.Options{Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(t.Context(), ask("q"))
	if !errors.Is(err, llm.ErrRateLimit) || len(srv.Calls()) != 1 || len(sl.all()) != 0 {
		t.Errorf("err = %v, requests %d, sleeps %v; want a rate-limit error after one request and no wait", err, len(srv.Calls()), sl.all())
	}
}

func TestNoRetryOnFinalErrors(t *testing.T) {
	tests := []struct {
		fault llmtest.Fault
		kind  error
	}{
		{llmtest.ContextLength, llm.ErrContextLength},
		{llmtest.Unauthorized, llm.ErrAuth},
		{llmtest.BadRequest, llm.ErrBadRequest},
		{llmtest.QuotaExceeded, llm.ErrQuota},
		{llmtest.ModelNotFound, llm.ErrModelNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.kind.Error(), func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return llmtest.Fail(tt.fault) })
			c, led, sl := testClient(t, srv, llm.Options{})
			_, err := c.Generate(t.Context(), ask("q"))
			if !errors.Is(err, tt.kind) {
				t.Errorf("err = %v, want %v", err, tt.kind)
			}
			if n := len(srv.Calls()); n != 1 || len(sl.all()) != 0 {
				t.Errorf("requests = %d, sleeps = %v; want exactly one request, no retry", n, sl.all())
			}
			calls := led.all()
			if len(calls) != 1 || calls[0].Err == "" || calls[0].Attempts != 1 {
				t.Errorf("ledger = %+v, want one failed record", calls)
			}
		})
	}
}

func TestRetryGivesUp(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return llmtest.Fail(llmtest.Overloaded) })
	c, _, _ := testClient(t, srv, llm.Options{Retry: llm.Retry{MaxAttempts: 3}})
	_, err := c.Generate(t.Context(), ask("q"))
	var e *llm.Error
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrTransient) || e.Attempts != 3 || len(srv.Calls()) != 3 {
		t.Fatalf("err = %v, requests %d; want a transient error after 3 attempts", err, len(srv.Calls()))
	}
	if !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("error %q does not say how many attempts were made", err)
	}
	if tot := c.Totals(); tot.Calls != 1 || tot.Failed != 1 {
		t.Errorf("totals = %+v, want 1 call, 1 failed", tot)
	}
}

func TestCacheHitMakesNoRequest(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "answer to " + c.Prompt, Usage: &llmtest.Usage{Input: 1000, Output: 100}}
	})
	cache := llm.NewMemoryCache()
	c, led, _ := testClient(t, srv, llm.Options{Cache: cache})

	first, err := c.Generate(t.Context(), ask("q1"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Generate(t.Context(), ask("q1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Calls()) != 1 {
		t.Fatalf("requests = %d after two identical calls, want 1", len(srv.Calls()))
	}
	if first.CacheHit || !second.CacheHit || second.Text != first.Text || second.Cost != 0 || first.Cost == 0 || second.Key != first.Key {
		t.Errorf("first hit=%v cost=%v, second hit=%v cost=%v text=%q", first.CacheHit, first.Cost, second.CacheHit, second.Cost, second.Text)
	}
	// A different vote index must not share the answer.
	tagged := ask("q1")
	tagged.CacheTag = "vote-2"
	if _, err := c.Generate(t.Context(), tagged); err != nil {
		t.Fatal(err)
	}
	if len(srv.Calls()) != 2 {
		t.Errorf("requests = %d, want a new request for another CacheTag", len(srv.Calls()))
	}

	calls := led.all()
	if len(calls) != 3 || calls[1].CacheHit != true || calls[1].Cost != 0 || calls[1].InputTokens != 0 || calls[1].Stage != "test" {
		t.Errorf("ledger = %+v, want the second record a free cache hit", calls)
	}
	want := llm.Totals{Calls: 2, CacheHits: 1, InputTokens: 2000, OutputTokens: 200, Cost: 2 * (1000*2.50 + 100*10.00) / 1e6}
	if diff := cmp.Diff(want, c.Totals(), cmpFloat); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
}

var cmpFloat = cmp.Comparer(func(a, b float64) bool { return a == b || (a-b)*(a-b) < 1e-18 })

func TestNoCacheBypassesReadsButWrites(t *testing.T) {
	srv := llmtest.NewServer(t)
	n := 0
	var mu sync.Mutex
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		return llmtest.Text(fmt.Sprintf("answer %d", n))
	})
	cache := llm.NewMemoryCache()
	fresh, _, _ := testClient(t, srv, llm.Options{Cache: cache, NoCache: true})
	for range 2 {
		if _, err := fresh.Generate(t.Context(), ask("q")); err != nil {
			t.Fatal(err)
		}
	}
	if len(srv.Calls()) != 2 {
		t.Fatalf("NoCache: requests = %d, want 2", len(srv.Calls()))
	}
	cached, _, _ := testClient(t, srv, llm.Options{Cache: cache})
	r, err := cached.Generate(t.Context(), ask("q"))
	if err != nil {
		t.Fatal(err)
	}
	if !r.CacheHit || r.Text != "answer 2" || len(srv.Calls()) != 2 {
		t.Errorf("after a NoCache run: hit=%v text=%q requests=%d; want the refreshed answer from the cache", r.CacheHit, r.Text, len(srv.Calls()))
	}
}

func TestBudgetStopsNewCalls(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "ok", Usage: &llmtest.Usage{Input: 100_000, Output: 0}}
	})
	// gpt-4o input is $2.50/Mtok: each call costs $0.25 (estimates are
	// small, the actual usage is not).
	budget := llm.NewBudget(0.6, 0)
	c, led, _ := testClient(t, srv, llm.Options{Budget: budget})
	var errs []error
	for i := range 5 {
		_, err := c.Generate(t.Context(), ask(fmt.Sprint("q", i)))
		errs = append(errs, err)
	}
	for i, err := range errs {
		if wantOK := i < 3; (err == nil) != wantOK || !wantOK && !errors.Is(err, claimtrace.ErrBudget) {
			t.Errorf("call %d: err = %v", i, err)
		}
	}
	if n := len(srv.Calls()); n != 3 {
		t.Errorf("requests = %d, want 3 (nothing sent once the budget is spent)", n)
	}
	calls, cost := budget.Spent()
	if calls != 3 || cost < 0.74 || cost > 0.76 {
		t.Errorf("budget spent %d calls $%.4f, want 3 calls $0.75", calls, cost)
	}
	if len(led.all()) != 3 {
		t.Errorf("ledger has %d records, want 3 (refused calls are not calls)", len(led.all()))
	}
}

func TestBudgetLetsInFlightCallsFinish(t *testing.T) {
	srv := llmtest.NewServer(t)
	release := make(chan struct{})
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		<-release
		return llmtest.Text("ok")
	})
	budget := llm.NewBudget(0, 2)
	c, _, _ := testClient(t, srv, llm.Options{Budget: budget})
	var g errgroup.Group
	results := make([]error, 2)
	for i := range 2 {
		g.Go(func() error {
			_, results[i] = c.Generate(t.Context(), ask(fmt.Sprint("in-flight ", i)))
			return nil
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(srv.Calls()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	// Both calls are in flight and the budget is spent: a new call is refused
	// at once, the running ones finish.
	if _, err := c.Generate(t.Context(), ask("late")); !errors.Is(err, claimtrace.ErrBudget) {
		t.Errorf("new call while budget exhausted: err = %v, want ErrBudget", err)
	}
	close(release)
	g.Wait()
	if results[0] != nil || results[1] != nil {
		t.Errorf("in-flight calls: %v", results)
	}
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}

func TestCacheHitsAreFreeUnderBudget(t *testing.T) {
	srv := llmtest.NewServer(t)
	cache := llm.NewMemoryCache()
	c, _, _ := testClient(t, srv, llm.Options{Cache: cache, Budget: llm.NewBudget(0, 1)})
	for range 3 {
		if _, err := c.Generate(t.Context(), ask("same")); err != nil {
			t.Fatalf("Generate: %v", err)
		}
	}
	if len(srv.Calls()) != 1 {
		t.Errorf("requests = %d, want 1", len(srv.Calls()))
	}
}

func TestAccountingSums(t *testing.T) {
	srv := llmtest.NewServer(t)
	usages := []llmtest.Usage{{Input: 1000, Output: 200, Cached: 400, Reasoning: 50}, {Input: 3000, Output: 10}, {Input: 10, Output: 5}}
	for _, u := range usages {
		srv.Enqueue(llmtest.Reply{Text: "x", Usage: &u})
	}
	srv.Enqueue(llmtest.Fail(llmtest.ContextLength))
	price := llm.Price{Input: 2, Output: 8, Cached: 0.5}
	c, led, _ := testClient(t, srv, llm.Options{Price: &price, Run: "run-1"})
	for i := range 4 {
		c.Generate(t.Context(), ask(fmt.Sprint("q", i)))
	}
	var fromLedger llm.Totals
	for _, rec := range led.all() {
		fromLedger.Add(rec)
		if rec.Run != "run-1" || rec.Provider != "openai" || rec.Model != "gpt-4o" || rec.Key == "" || rec.At.IsZero() || rec.At.Location() != time.UTC {
			t.Errorf("record = %+v", rec)
		}
	}
	wantCost := ((1000-400)*2+400*0.5+200*8)/1e6 + (3000*2+10*8)/1e6 + (10*2+5*8)/1e6
	want := llm.Totals{Calls: 4, Failed: 1, InputTokens: 4010, OutputTokens: 215, CachedTokens: 400, ReasoningTokens: 50, Cost: wantCost}
	if diff := cmp.Diff(want, c.Totals(), cmpFloat); diff != "" {
		t.Errorf("client totals (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, fromLedger, cmpFloat); diff != "" {
		t.Errorf("ledger totals (-want +got):\n%s", diff)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		return llmtest.Slow(30*time.Millisecond, llmtest.Text("ok"))
	})
	c, _, _ := testClient(t, srv, llm.Options{Limits: llm.Limits{Concurrency: 2}})
	var g errgroup.Group
	for i := range 8 {
		g.Go(func() error {
			_, err := c.Generate(t.Context(), ask(fmt.Sprint("q", i)))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := srv.MaxInFlight(); got != 2 {
		t.Errorf("max requests in flight = %d, want 2", got)
	}
}

func TestRequestsPerMinute(t *testing.T) {
	srv := llmtest.NewServer(t)
	// 1200/min = 20/s with a bucket of one second's worth: 30 calls need
	// at least half a second.
	c, _, _ := testClient(t, srv, llm.Options{Limits: llm.Limits{RPM: 1200}})
	start := time.Now()
	for i := range 30 {
		if _, err := c.Generate(t.Context(), ask(fmt.Sprint("q", i))); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 450*time.Millisecond {
		t.Errorf("30 calls at 1200 rpm took %v, want >= 0.45s", el)
	}
}

func TestTokensPerMinute(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "ok", Usage: &llmtest.Usage{Input: 4000, Output: 1}}
	})
	// 600k tokens/min = 10k/s; each call is ~4.5k tokens estimated and 4k
	// actual: 10 calls need about 3 seconds' worth beyond the first bucket.
	c, _, _ := testClient(t, srv, llm.Options{Limits: llm.Limits{TPM: 600_000}})
	start := time.Now()
	for i := range 10 {
		req := ask(strings.Repeat("x", 16_000) + fmt.Sprint(i))
		if _, err := c.Generate(t.Context(), req); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 2500*time.Millisecond {
		t.Errorf("10 calls of ~4k tokens at 600k tpm took %v, want >= 2.5s", el)
	}
}

type verdict struct {
	Reason string `json:"reason"`
	Match  bool   `json:"match"`
}

var verdictSchema = &llm.Schema{Name: "verdict", JSON: json.RawMessage(`{"type":"object","properties":{"reason":{"type":"string"},"match":{"type":"boolean"}},"required":["reason","match"]}`)}

func TestGenerateJSONRetriesMalformed(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Text("```JSON\n{\"reason\": \"the source says so\", \"match\": \"false\"}\n```"), // string, not bool
		llmtest.Text("Sure! Here is the verdict:\n\n```json\n{\"reason\": \"the source says so\", \"match\": false}\n```\nHope this helps."),
	)
	cache := llm.NewMemoryCache()
	c, led, _ := testClient(t, srv, llm.Options{Cache: cache})
	req := ask("Does the source support the claim?")
	req.Schema = verdictSchema
	var v verdict
	resp, err := c.GenerateJSON(t.Context(), req, &v)
	if err != nil {
		t.Fatalf("GenerateJSON: %v", err)
	}
	if diff := cmp.Diff(verdict{Reason: "the source says so", Match: false}, v); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if resp.CacheHit || len(srv.Calls()) != 2 {
		t.Fatalf("requests = %d, want 2", len(srv.Calls()))
	}
	// The retry shows the model its answer and what was wrong.
	second := body(t, srv.Calls()[1])
	if role, _ := path(second, "messages", 1, "role").(string); role != "assistant" {
		t.Errorf("retry does not replay the bad answer: %s", srv.Calls()[1].Body)
	}
	if fix, _ := path(second, "messages", 2, "content").(string); !strings.Contains(fix, "match") || !strings.Contains(fix, "could not be used") {
		t.Errorf("retry message = %q, want it to name the problem", fix)
	}
	recs := led.all()
	if len(recs) != 2 || !strings.Contains(recs[0].Err, "malformed") || recs[1].Err != "" {
		t.Errorf("ledger errors = %q, %q; want the first call recorded as malformed", recs[0].Err, recs[1].Err)
	}
	if cache.Len() != 2 {
		t.Errorf("cache holds %d answers, want both (the malformed one was paid for too)", cache.Len())
	}
	// A rerun replays the exchange from the cache: same result, no request.
	var again verdict
	if r, err := c.GenerateJSON(t.Context(), req, &again); err != nil || !r.CacheHit || again != v || len(srv.Calls()) != 2 {
		t.Errorf("rerun: hit=%v err=%v decoded=%+v requests=%d", r.CacheHit, err, again, len(srv.Calls()))
	}
	if tot := c.Totals(); tot.Calls != 2 || tot.CacheHits != 2 {
		t.Errorf("totals = %+v, want 2 calls and 2 cache hits", tot)
	}
}

func TestGenerateJSONGivesUp(t *testing.T) {
	answers := []string{
		`{"reason": "x"}`,                // missing required field
		`{"reason": "x", "match": null}`, // null
		`I think it matches, yes.`,       // no JSON at all
	}
	srv := llmtest.NewServer(t)
	for _, a := range answers {
		srv.Enqueue(llmtest.Text(a))
	}
	c, led, _ := testClient(t, srv, llm.Options{Cache: llm.NewMemoryCache()})
	req := ask("Judge.")
	req.Schema = verdictSchema
	v := verdict{Reason: "untouched", Match: true}
	_, err := c.GenerateJSON(t.Context(), req, &v)
	if !errors.Is(err, llm.ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
	if v != (verdict{Reason: "untouched", Match: true}) {
		t.Errorf("out changed to %+v on failure", v)
	}
	if len(srv.Calls()) != 3 || len(led.all()) != 3 {
		t.Errorf("requests %d, ledger %d; want 3 and 3", len(srv.Calls()), len(led.all()))
	}
}

func TestGenerateJSONWithoutSchemaChecksRequiredFields(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(`{"reason": "no decision given"}`), llmtest.Text(`{"reason": "ok", "match": true}`))
	c, _, _ := testClient(t, srv, llm.Options{})
	var v verdict
	if _, err := c.GenerateJSON(t.Context(), ask("Judge."), &v); err != nil || !v.Match {
		t.Errorf("GenerateJSON = %+v, %v; want the second, complete answer", v, err)
	}
}

func TestRedaction(t *testing.T) {
	const key = "sk-live-TOPSECRET-4f9a8b7c6d5e"
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.RequireKey("the-right-key")
			ep := endpoint(srv, f, "m")
			ep.APIKey = key
			led := &memLedger{}
			c, err := llm.Open(t.Context(), ep, llm.Options{Ledger: led, Sleep: (&sleeps{}).sleep})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(t.Context(), ask("hello"))
			if !errors.Is(err, llm.ErrAuth) {
				t.Fatalf("err = %v, want ErrAuth", err)
			}
			if got := srv.Calls()[0].APIKey; got != key {
				t.Fatalf("the fake saw key %q: the test would prove nothing", got)
			}
			ledgerJSON, _ := json.Marshal(led.all())
			outputs := []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), string(ledgerJSON)}
			for _, out := range outputs {
				if strings.Contains(out, key) || strings.Contains(out, "TOPSECRET") {
					t.Errorf("key leaked: %s", out)
				}
			}
			if !strings.Contains(string(ledgerJSON), "REDACTED") && f.provider != llm.Gemini {
				// The fakes echo the key; its place must show it was scrubbed.
				t.Errorf("ledger error %s shows no redaction marker", ledgerJSON)
			}
		})
	}
}

func TestGenerateRejectsBadRequests(t *testing.T) {
	srv := llmtest.NewServer(t)
	c, _, _ := testClient(t, srv, llm.Options{})
	nan := 0.0
	nan = nan / nan
	tests := []llm.Request{
		{},
		{Messages: []llm.Message{{Role: "system", Content: "x"}}},
		{Messages: []llm.Message{{Role: llm.RoleTool, Content: "result"}}},
		{Messages: []llm.Message{llm.UserMessage("x")}, Temperature: &nan},
		{Messages: []llm.Message{llm.UserMessage("x")}, MaxTokens: -1},
	}
	for i, req := range tests {
		if _, err := c.Generate(t.Context(), req); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("request %d: err = %v, want ErrInvalid", i, err)
		}
	}
	if n := len(srv.Calls()); n != 0 {
		t.Errorf("invalid requests reached the server %d times", n)
	}
}

func TestContextCancelStopsRetrying(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply { return llmtest.Fail(llmtest.ServerError) })
	ctx, cancel := context.WithCancel(t.Context())
	c, err := llm.Open(ctx, endpoint(srv, openAIChat, "gpt-4o"), llm.Options{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(ctx, ask("q")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func TestEstimate(t *testing.T) {
	srv := llmtest.NewServer(t)
	c, _, _ := testClient(t, srv, llm.Options{})
	req := ask(strings.Repeat("a", 4000))
	req.MaxTokens = 100
	got := c.Estimate(req)
	// 4000 bytes/4 + 4 tokens framing for the request and one message.
	want := llm.Estimate{InputTokens: 1008, OutputTokens: 100, Priced: true, Cost: (1008*2.50 + 100*10.00) / 1e6}
	if diff := cmp.Diff(want, got, cmpFloat); diff != "" {
		t.Errorf("Estimate (-want +got):\n%s", diff)
	}
	if len(srv.Calls()) != 0 {
		t.Errorf("Estimate made a request")
	}
}
