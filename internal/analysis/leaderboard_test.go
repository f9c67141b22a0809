package analysis_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/score"
)

func TestNewLeaderRow(t *testing.T) {
	var s eval.Summary
	s.Mode, s.Reports, s.ReportsFailed = "offline", 3, 1
	s.Citation.Precision, s.Citation.CompatPrecision, s.Citation.Recall, s.Citation.F1, s.Citation.RefsPerReport = f(0.5), f(0.6), f(0.1), f(0.2), f(12)
	s.Citation.PrecisionVerifiable, s.Citation.ReportsFlagged = f(0.75), 2
	s.Cited.MatchRate, s.Cited.StatementsPerReport, s.Cited.Judge = f(0.7), f(9), "offline"
	s.NonCited.FactualAccuracy, s.NonCited.StatementsPerReport = f(0.8), f(4)
	s.AAR.PCov, s.AAR.PSnd, s.AAR.CTran = f(0.9), f(0.4), f(0.3)
	s.LLM.CostUSD = 1.25
	want := analysis.LeaderRow{
		System: "o3", Dir: "results/o3/", Reports: 3, Failed: 1,
		Precision: f(0.5), Verifiable: f(0.75), Flagged: 2, Compat: f(0.6), Recall: f(0.1), F1: f(0.2), Refs: f(12),
		MatchRate: f(0.7), CitedPer: f(9), Factual: f(0.8), NonCited: f(4),
		PCov: f(0.9), PSnd: f(0.4), CTran: f(0.3), Cost: 1.25, Judge: "offline", Mode: "offline",
	}
	if diff := cmp.Diff(want, analysis.NewLeaderRow("results/o3/", &s)); diff != "" {
		t.Errorf("NewLeaderRow (-want +got):\n%s", diff)
	}
}

func TestSortLeaderRows(t *testing.T) {
	rows := []analysis.LeaderRow{
		{System: "none-1"},
		{System: "low", Recall: f(0.1), Precision: f(0.9)},
		{System: "high", Recall: f(0.3), Precision: f(0.2)},
		{System: "none-2"},
		{System: "tie-1", Recall: f(0.2)},
		{System: "tie-2", Recall: f(0.2)},
	}
	systems := func(rs []analysis.LeaderRow) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.System)
		}
		return out
	}
	if err := analysis.SortLeaderRows(rows, "recall"); err != nil {
		t.Fatal(err)
	}
	// Highest first, ties in their order, rows without the metric last.
	if diff := cmp.Diff([]string{"high", "tie-1", "tie-2", "low", "none-1", "none-2"}, systems(rows)); diff != "" {
		t.Errorf("by recall (-want +got):\n%s", diff)
	}
	if err := analysis.SortLeaderRows(rows, "precision"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"low", "high", "tie-1", "tie-2", "none-1", "none-2"}, systems(rows)); diff != "" {
		t.Errorf("by precision (-want +got):\n%s", diff)
	}
	if err := analysis.SortLeaderRows(rows, "cost"); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("sort by cost: %v, want ErrInvalid", err)
	}
	// A wall-heavy system ranks by its strict precision, its bound beside.
	walls := []analysis.LeaderRow{{System: "walls", Precision: f(0.2), Verifiable: f(1)}, {System: "honest", Precision: f(0.5), Verifiable: f(0.55)}}
	if err := analysis.SortLeaderRows(walls, "precision"); err != nil || walls[0].System != "honest" {
		t.Errorf("by strict precision: %v first (%v), want honest", walls[0].System, err)
	}
	if err := analysis.SortLeaderRows(walls, "verifiable"); err != nil || walls[0].System != "walls" {
		t.Errorf("by the verifiable bound: %v first (%v), want walls", walls[0].System, err)
	}
	if diff := cmp.Diff([]string{"f1", "factual", "match", "pcov", "precision", "psnd", "recall", "verifiable"}, analysis.LeaderKeys()); diff != "" {
		t.Errorf("LeaderKeys (-want +got):\n%s", diff)
	}
}

// readSummary decodes a fixture's summary.json.
func readSummary(dir string) (*eval.Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s eval.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// TestLeaderboard builds the rows of two runs, with intervals over their
// reports, sorted by the metric asked for.
func TestLeaderboard(t *testing.T) {
	dir := t.TempDir()
	a := writeRun(t, filepath.Join(dir, "a"), []report{
		{task: "2101.00001", gt: 10, matched: []string{"x"}},
		{task: "2101.00002", gt: 10, matched: []string{"y"}, unmatched: []score.Unmatched{{URL: "https://x.org/p", Reason: score.ReasonNotInGT}}},
	}, true)
	b := writeRun(t, filepath.Join(dir, "b"), []report{
		{task: "2101.00001", gt: 10, matched: []string{"x", "y", "z"}},
	}, true)
	// The summaries the fixture writes carry no aggregate; give them one.
	summaries := map[string]*eval.Summary{}
	for d, recall := range map[string]float64{a: 0.1, b: 0.3} {
		s, err := readSummary(d)
		if err != nil {
			t.Fatal(err)
		}
		s.Citation.Recall = f(recall)
		summaries[d] = s
	}
	summary := func(d string) (*eval.Summary, error) { return summaries[d], nil }

	rows, err := analysis.Leaderboard([]string{a, b}, analysis.LeaderboardOptions{By: "recall", Summary: summary})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].System != "b" || rows[1].System != "a" || rows[0].Reports != 1 || rows[1].Reports != 2 || rows[0].CI != nil {
		t.Fatalf("rows = %+v", rows)
	}

	rows, err = analysis.Leaderboard([]string{a, b}, analysis.LeaderboardOptions{By: "recall", Summary: summary, CI: true,
		Bootstrap: analysis.BootstrapOptions{Resamples: 200, Seed: 7}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if len(r.CI) != len(analysis.Metrics()) {
			t.Fatalf("%s: %d intervals, want %d", r.System, len(r.CI), len(analysis.Metrics()))
		}
		run, err := analysis.LoadRun(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := analysis.Intervals(run.Reports, analysis.Metrics(), analysis.BootstrapOptions{Resamples: 200, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, r.CI); diff != "" {
			t.Errorf("%s intervals (-want +got):\n%s", r.System, diff)
		}
	}
}

func TestLeaderboardErrors(t *testing.T) {
	boom := errors.New("no summary here")
	if _, err := analysis.Leaderboard([]string{"x"}, analysis.LeaderboardOptions{By: "recall", Summary: func(string) (*eval.Summary, error) { return nil, boom }}); !errors.Is(err, boom) {
		t.Errorf("summary error: %v, want it returned", err)
	}
	called := false
	if _, err := analysis.Leaderboard([]string{"x"}, analysis.LeaderboardOptions{By: "bogus", Summary: func(string) (*eval.Summary, error) { called = true; return &eval.Summary{}, nil }}); !errors.Is(err, claimtrace.ErrInvalid) || called {
		t.Errorf("unknown sort key: %v (summary read: %v), want ErrInvalid before reading", err, called)
	}
	missing := t.TempDir()
	_, err := analysis.Leaderboard([]string{missing}, analysis.LeaderboardOptions{By: "recall", CI: true, Summary: func(string) (*eval.Summary, error) { return &eval.Summary{}, nil }})
	if !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("--ci on a directory without reports/: %v, want ErrNotFound", err)
	}
}
