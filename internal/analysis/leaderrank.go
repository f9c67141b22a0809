package analysis

import (
	"fmt"

	"github.com/claimtrace/claimtrace/internal/eval"
)

// RankRange is the places a leaderboard row can take on the metric it is
// sorted by, given the other rows: Best counts the rows certainly above
// it (their interval lies wholly above its own) plus one, Worst the rows
// not certainly below it. A row whose interval overlaps others' shares
// their places ("1–3"); a row certainly ahead of all others is "1". A
// figure without an interval (no reviews, or a metric the judge does not
// feed) counts as a point, so equal points tie.
type RankRange struct {
	Best  int `json:"best"`
	Worst int `json:"worst"`
}

// String writes "2" or "1–3".
func (r RankRange) String() string {
	if r.Best == r.Worst {
		return fmt.Sprint(r.Best)
	}
	return fmt.Sprintf("%d–%d", r.Best, r.Worst)
}

// reviewedFigure returns the row's figure with the judge's error inside
// it for a metric the judge feeds (match, factual, psnd), or nil.
func reviewedFigure(r LeaderRow, by string) *eval.ReviewedFigure {
	switch by {
	case "match":
		return r.MatchRatePPI
	case "factual":
		return r.FactualPPI
	case "psnd":
		return r.PSndPPI
	}
	return nil
}

// leaderValue is what a row is sorted by: the prediction-powered estimate
// where the run's sample was reviewed, else the metric as the summary has
// it; ok is false when the row has neither.
func leaderValue(r LeaderRow, by string) (v float64, lo, hi float64, ok bool) {
	if f := reviewedFigure(r, by); f != nil && f.Estimate.Estimate != nil && f.CI != nil {
		return *f.Estimate.Estimate, f.CI.Lo, f.CI.Hi, true
	}
	key, known := leaderKeys[by]
	if !known {
		return 0, 0, 0, false
	}
	p := key(r)
	if p == nil {
		return 0, 0, 0, false
	}
	return *p, *p, *p, true
}

// rankRows sets each row's Rank on the metric by.
func rankRows(rows []LeaderRow, by string) {
	type span struct {
		lo, hi float64
		ok     bool
	}
	spans := make([]span, len(rows))
	n := 0
	for i, r := range rows {
		_, lo, hi, ok := leaderValue(r, by)
		spans[i] = span{lo, hi, ok}
		if ok {
			n++
		}
	}
	for i := range rows {
		rows[i].Rank = nil
		if !spans[i].ok {
			continue
		}
		above, below := 0, 0
		for j, s := range spans {
			if j == i || !s.ok {
				continue
			}
			if s.lo > spans[i].hi {
				above++
			}
			if s.hi < spans[i].lo {
				below++
			}
		}
		rows[i].Rank = &RankRange{Best: above + 1, Worst: n - below}
	}
}
