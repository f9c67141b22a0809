package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/factcheck"
)

func TestReplay(t *testing.T) {
	v := func(checker string, l claimtrace.FactLabel) claimtrace.Vote {
		return claimtrace.Vote{Checker: checker, Label: l}
	}
	T, F, U := claimtrace.FactTrue, claimtrace.FactFalse, claimtrace.FactUndecided
	full := func(a, b [3]claimtrace.FactLabel) *claimtrace.Fact {
		var votes []claimtrace.Vote
		for _, l := range a {
			votes = append(votes, v("a", l))
		}
		for _, l := range b {
			votes = append(votes, v("b", l))
		}
		f := factcheck.Aggregate(votes)
		return &f
	}
	res := eval.Result{Task: "t1", Claims: []eval.ClaimResult{
		{ID: "c1", Text: "unanimous", Fact: full([3]claimtrace.FactLabel{T, T, T}, [3]claimtrace.FactLabel{T, T, T})},
		{ID: "c2", Text: "split 3-1 then agree", Fact: full([3]claimtrace.FactLabel{T, T, T}, [3]claimtrace.FactLabel{F, T, T})},
		{ID: "c3", Text: "a tie", Fact: full([3]claimtrace.FactLabel{T, F, T}, [3]claimtrace.FactLabel{F, T, F})},
		{ID: "c4", Text: "abstentions", Fact: full([3]claimtrace.FactLabel{U, F, F}, [3]claimtrace.FactLabel{F, U, T})},
		{ID: "c5", Text: "cited, no fact"},
	}}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "reports"), 0o755)
	b, _ := json.Marshal(res)
	if err := os.WriteFile(filepath.Join(dir, "reports", "t1.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := replay(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// c1: 4 votes; c2: T F T T → 3-1, one more (a3 = T) → 4-1: 5 votes;
	// c3: T F F T → 2-2, both left → 6; c4: U F F U → 0-2 with 2 left, one
	// more (a3 = F) → 0-3 with 1 left: 5 votes.
	want := replayResult{Claims: 4, Agree: 4, VotesFull: 24, VotesEarly: 4 + 5 + 6 + 5}
	if r.Claims != want.Claims || r.Agree != want.Agree || r.VotesFull != want.VotesFull || r.VotesEarly != want.VotesEarly {
		t.Errorf("replay = %+v, want %+v", r, want)
	}
	if r.Labels[T] != 2 || r.Labels[U] != 1 || r.Labels[F] != 1 {
		t.Errorf("labels %v", r.Labels)
	}
}

// TestReplayNeedsReports: a folder without report files is an error, not
// an empty replay.
func TestReplayNeedsReports(t *testing.T) {
	if _, err := replay(t.Context(), t.TempDir()); err == nil {
		t.Error("replay of an empty folder: no error")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "reports"), 0o755)
	os.WriteFile(filepath.Join(dir, "reports", "bad.json"), []byte("{not json"), 0o644)
	if _, err := replay(t.Context(), dir); err == nil {
		t.Error("replay of a broken report file: no error")
	}
}
