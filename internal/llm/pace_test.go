package llm_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// flightRecorder counts requests in flight at the server, in the order
// they arrive.
type flightRecorder struct {
	mu       sync.Mutex
	now, max int
	atArrive []int // requests in flight when each arrived (itself included)
	arrived  []time.Time
}

func (f *flightRecorder) handler(delay time.Duration, reply func(n int) llmtest.Reply) func(ctx context.Context, c llmtest.Call) llmtest.Reply {
	return func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		f.mu.Lock()
		f.now++
		f.max = max(f.max, f.now)
		f.atArrive = append(f.atArrive, f.now)
		f.arrived = append(f.arrived, time.Now())
		n := len(f.arrived)
		f.mu.Unlock()
		time.Sleep(delay)
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
		return reply(n)
	}
}

// TestConcurrencyAdapts: calls start at StartConcurrency in flight and
// grow to the ceiling while answers are fast and 2xx, without ever
// passing it.
func TestConcurrencyAdapts(t *testing.T) {
	srv := llmtest.NewServer(t)
	var fr flightRecorder
	srv.Handle(fr.handler(20*time.Millisecond, func(int) llmtest.Reply { return llmtest.Text("ok") }))
	c, led, _ := testClient(t, srv, llm.Options{Limits: llm.Limits{Concurrency: 12}})
	var g errgroup.Group
	const calls = 240
	for i := range calls {
		g.Go(func() error {
			_, err := c.Generate(t.Context(), ask(fmt.Sprint("q", i)))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, n := range fr.atArrive[:llm.StartConcurrency] {
		if n > llm.StartConcurrency {
			t.Fatalf("request %d arrived with %d in flight, want at most %d before any answer", i, n, llm.StartConcurrency)
		}
	}
	if fr.max != 12 {
		t.Errorf("max in flight = %d, want the ceiling 12", fr.max)
	}
	if p := c.Pace(); p.Limit != 12 || p.InFlight != 0 {
		t.Errorf("pace after the run = %+v, want limit 12, nothing in flight", p)
	}
	// Accounting stays exact: one ledger record per request.
	if got := len(led.all()); got != calls || len(srv.Calls()) != calls {
		t.Errorf("ledger %d records, server %d requests, want %d each", got, len(srv.Calls()), calls)
	}
}

// TestQuotaSpentHoldsCalls: when the provider's headers say no request
// remains until a reset, the next call waits for the reset.
func TestQuotaSpentHoldsCalls(t *testing.T) {
	srv := llmtest.NewServer(t)
	var fr flightRecorder
	srv.Handle(fr.handler(0, func(n int) llmtest.Reply {
		r := llmtest.Text("ok")
		if n == 1 {
			r.Header = map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "400ms"}
		}
		return r
	}))
	c, _, _ := testClient(t, srv, llm.Options{})
	for i := range 2 {
		if _, err := c.Generate(t.Context(), ask(fmt.Sprint("q", i))); err != nil {
			t.Fatal(err)
		}
	}
	if gap := fr.arrived[1].Sub(fr.arrived[0]); gap < 350*time.Millisecond {
		t.Errorf("second request %v after the first, want it held for the 400ms reset", gap)
	}
}

// TestRateLimitBacksOff: a 429 with Retry-After halves the calls in
// flight and holds the other calls until the delay has passed; every
// call still succeeds and is accounted once.
func TestRateLimitBacksOff(t *testing.T) {
	srv := llmtest.NewServer(t)
	var fr flightRecorder
	var mu sync.Mutex
	var refusedAt time.Time
	srv.Handle(fr.handler(10*time.Millisecond, func(n int) llmtest.Reply {
		if n == 20 {
			mu.Lock()
			refusedAt = time.Now()
			mu.Unlock()
			return llmtest.RateLimited(300 * time.Millisecond)
		}
		return llmtest.Text("ok")
	}))
	c, led, _ := testClient(t, srv, llm.Options{Limits: llm.Limits{Concurrency: 8}})
	var g errgroup.Group
	for i := range 60 {
		g.Go(func() error {
			_, err := c.Generate(t.Context(), ask(fmt.Sprint("q", i)))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	// Requests that arrived well after the refusal and before the hold
	// ended are the refused call's own retry only.
	fr.mu.Lock()
	early := 0
	for _, at := range fr.arrived {
		if d := at.Sub(refusedAt); d > 50*time.Millisecond && d < 250*time.Millisecond {
			early++
		}
	}
	fr.mu.Unlock()
	if early > 1 {
		t.Errorf("%d requests sent during the Retry-After hold, want at most the retry", early)
	}
	if got := len(led.all()); got != 60 {
		t.Errorf("ledger has %d records, want 60 (one per call, the retry counted in its attempts)", got)
	}
}
