package analysis_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/ppi"
)

// reviewed is a match rate the judge put at judge, estimated est in
// [lo, hi] from reviews.
func reviewed(judge, est, lo, hi float64) *eval.ReviewedFigure {
	return &eval.ReviewedFigure{Estimate: ppi.Estimate{Judge: judge, Estimate: &est, CI: &ppi.Interval{Lo: lo, Hi: hi}, NReviews: 100, N: 900}}
}

// TestLeaderRanks: rows are sorted by the estimate where reviews exist
// (not the judge's raw rate) and each gets the places its interval
// allows; a row without reviews is its raw figure, a point.
func TestLeaderRanks(t *testing.T) {
	rows := []analysis.LeaderRow{
		{System: "overrated", MatchRate: f(0.90), MatchRatePPI: reviewed(0.90, 0.70, 0.65, 0.75)},
		{System: "unreviewed", MatchRate: f(0.80)},
		{System: "wide", MatchRate: f(0.55), MatchRatePPI: reviewed(0.55, 0.60, 0.50, 0.72)},
		{System: "low", MatchRate: f(0.45), MatchRatePPI: reviewed(0.45, 0.40, 0.35, 0.45)},
		{System: "no judge"},
	}
	if err := analysis.SortLeaderRows(rows, "match"); err != nil {
		t.Fatal(err)
	}
	type placed struct{ System, Rank string }
	var got []placed
	for _, r := range rows {
		rank := "—"
		if r.Rank != nil {
			rank = r.Rank.String()
		}
		got = append(got, placed{r.System, rank})
	}
	want := []placed{{"unreviewed", "1"}, {"overrated", "2–3"}, {"wide", "2–3"}, {"low", "4"}, {"no judge", "—"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order and ranks (-want +got):\n%s", d)
	}

	// A metric without intervals: equal values share their places.
	rows = []analysis.LeaderRow{{System: "a", Recall: f(0.2)}, {System: "b", Recall: f(0.3)}, {System: "c", Recall: f(0.2)}}
	if err := analysis.SortLeaderRows(rows, "recall"); err != nil {
		t.Fatal(err)
	}
	if rows[0].Rank.String() != "1" || rows[1].Rank.String() != "2–3" || rows[2].Rank.String() != "2–3" {
		t.Errorf("recall ranks %v %v %v: want 1, 2–3, 2–3", rows[0].Rank, rows[1].Rank, rows[2].Rank)
	}
}
