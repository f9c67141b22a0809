package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
)

// callProgress counts a command's model calls on stderr as they finish, so
// a long step that calls a model (judging, fact-checking, a baseline
// agent, the quality rubric) is not minutes of silence: a line at most
// every interval, and a last one when the command ends if any was printed.
// It is shown when stderr is a terminal or --progress asks.
type callProgress struct {
	w        io.Writer
	interval time.Duration
	now      func() time.Time

	mu                    sync.Mutex
	calls, cached, failed int
	cost                  float64
	start, last           time.Time
	shown                 int // calls counted in the last line printed
}

func newCallProgress(w io.Writer, interval time.Duration, now func() time.Time) *callProgress {
	t := now()
	return &callProgress{w: w, interval: interval, now: now, start: t, last: t}
}

// record counts one finished call and prints a line when the last is
// interval old.
func (p *callProgress) record(c claimtrace.LLMCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	switch {
	case c.Err != "":
		p.failed++
	case c.CacheHit:
		p.cached++
	}
	p.cost += c.Cost
	if t := p.now(); t.Sub(p.last) >= p.interval {
		p.last = t
		p.print()
	}
}

// finish prints the final count when a line was printed before and calls
// came since.
func (p *callProgress) finish() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown > 0 && p.calls > p.shown {
		p.print()
	}
	return nil
}

func (p *callProgress) print() {
	p.shown = p.calls
	fmt.Fprintf(p.w, "model calls: %d done (%d from the cache, %d failed), $%.4f, %s\n",
		p.calls, p.cached, p.failed, p.cost, p.now().Sub(p.start).Round(time.Second))
}

// progressLedger records each call with the ledger it wraps and counts it.
type progressLedger struct {
	inner llm.Ledger
	p     *callProgress
}

func (l progressLedger) Record(ctx context.Context, c claimtrace.LLMCall) error {
	l.p.record(c)
	if l.inner == nil {
		return nil
	}
	return l.inner.Record(ctx, c)
}

// modelProgress returns the command's call counter, made on first use,
// when stderr is a terminal or --progress asks; nil otherwise.
func (a *app) modelProgress() *callProgress {
	if !a.progressFlag && !a.stderrIsTerminal() {
		return nil
	}
	if a.calls == nil {
		a.calls = newCallProgress(a.stderr, 5*time.Second, time.Now)
		a.onClose(a.calls.finish)
	}
	return a.calls
}
