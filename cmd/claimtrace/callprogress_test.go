package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
)

// TestCallProgress: a long run of model calls prints a count at most every
// interval, and a last one at the end; a short run prints nothing.
func TestCallProgress(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	var out bytes.Buffer
	p := newCallProgress(&out, 5*time.Second, now)
	l := progressLedger{p: p}
	for i := range 30 {
		clock = clock.Add(time.Second)
		call := claimtrace.LLMCall{Cost: 0.001}
		switch {
		case i%10 == 0:
			call = claimtrace.LLMCall{CacheHit: true}
		case i == 7:
			call.Err = "rate limited"
		}
		if err := l.Record(context.Background(), call); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(out.String(), "\n"); n != 6 {
		t.Fatalf("%d lines, want one every 5 s of 30:\n%s", n, out.String())
	}
	for range 2 { // calls after the last line: the end counts them
		clock = clock.Add(time.Second)
		l.Record(context.Background(), claimtrace.LLMCall{Cost: 0.01})
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if want := "model calls: 32 done (3 from the cache, 1 failed), $0.0470, 32s"; len(lines) != 7 || lines[6] != want {
		t.Errorf("lines %q, want a last one %q", lines, want)
	}

	out.Reset()
	short := newCallProgress(&out, 5*time.Second, now)
	progressLedger{p: short}.Record(context.Background(), claimtrace.LLMCall{})
	short.finish()
	if out.Len() != 0 {
		t.Errorf("a short run printed %q", out.String())
	}
}

// TestModelProgressAsked: off stderr terminals the count is shown only
// when --progress asks.
func TestModelProgressAsked(t *testing.T) {
	var errb bytes.Buffer
	a := &app{stderr: &errb}
	if a.modelProgress() != nil {
		t.Error("progress on a non-terminal without --progress")
	}
	a.progressFlag = true
	if a.modelProgress() == nil || a.modelProgress() != a.calls {
		t.Error("--progress: want one counter for the command")
	}
	if _, _, code := cli(t, "config", "--progress"); code != 0 {
		t.Error("--progress is not accepted by every command")
	}
}
