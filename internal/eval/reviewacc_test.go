package eval

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store"
)

// randomResults writes a run's results: reports scored and failed, claims
// cited (one to three sources, a source cited twice now and then) and not
// (fact-checked true, false, undecided or not at all), verdicts of every
// label and strength, some reports without a match rate or with a failed
// non-cited stage.
func randomResults(r *rand.Rand) []*Result {
	labels := []claimtrace.Label{claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown}
	facts := []claimtrace.FactLabel{claimtrace.FactTrue, claimtrace.FactFalse, claimtrace.FactUndecided}
	var out []*Result
	for k := range 1 + r.IntN(6) {
		res := &Result{Task: fmt.Sprintf("2402.%05d", r.IntN(40)+k*100), Status: store.StatusDone}
		if r.IntN(6) == 0 {
			res.Status = store.StatusFailed
		}
		for c := range r.IntN(9) {
			cr := ClaimResult{ID: fmt.Sprintf("c%d", c+1), Cited: r.IntN(2) == 0}
			if cr.Cited {
				for range r.IntN(4) {
					url := fmt.Sprintf("https://s.example/%d", r.IntN(4))
					cr.Verdicts = append(cr.Verdicts, claimtrace.Verdict{URL: url, Label: labels[r.IntN(len(labels))], Strength: float64(r.IntN(11)) / 10})
				}
			} else if r.IntN(4) > 0 {
				cr.Fact = &claimtrace.Fact{Label: facts[r.IntN(len(facts))]}
			}
			res.Claims = append(res.Claims, cr)
		}
		if r.IntN(5) > 0 {
			m := r.Float64()
			res.Cited = &CitedStats{MatchRate: &m}
		}
		res.NonCited = &NonCitedStats{}
		if r.IntN(7) == 0 {
			res.NonCited.Error = "classifier answered 503"
		}
		out = append(out, res)
	}
	return out
}

// TestReviewedFiguresStreamed: the figures computed a report at a time are
// those computed over all the results at once, with and without a sample,
// with reviews agreeing, disputing, naming sources or not, and of units
// outside the sample, also when the frame changed since the sample.
func TestReviewedFiguresStreamed(t *testing.T) {
	reviewLabels := []string{"supported", "partial", "unsupported", "unknown", "true", "false", "undecided"}
	withSample := 0
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 20))
		results := randomResults(r)
		var sample *StoredSample
		var reviews []HumanReview
		if seed%4 != 0 {
			frame := ReviewFrame(results)
			// A sample drawn from this frame or, now and then, an earlier one.
			if r.IntN(5) == 0 {
				frame = ReviewFrame(randomResults(r))
			}
			sample = &StoredSample{Seed: int64(seed), Frame: len(frame) + r.IntN(2), Units: DrawReviewSample(frame, r.IntN(len(frame)+1), uint64Seed(seed))}
			for range r.IntN(12) {
				res := results[r.IntN(len(results))]
				rv := HumanReview{Task: res.Task, Label: reviewLabels[r.IntN(len(reviewLabels))]}
				if len(res.Claims) > 0 {
					c := res.Claims[r.IntN(len(res.Claims))]
					rv.Claim = c.ID
					if len(c.Verdicts) > 0 && r.IntN(2) == 0 {
						rv.URL = c.Verdicts[r.IntN(len(c.Verdicts))].URL
					}
				}
				reviews = append(reviews, rv)
			}
			withSample++
		}
		opt := ReviewOptions{PartialWeight: []float64{0.5, 0, 1}[seed%3], Tau: 0.5}
		want, werr := refReviewedFigures(results, sample, reviews, opt)
		got, gerr := ReviewedFigures(results, sample, reviews, opt)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("seed %d: error %v, want %v", seed, gerr, werr)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if diff := cmp.Diff(string(wj), string(gj)); diff != "" {
			t.Fatalf("seed %d: figures over all the results (-) and a report at a time (+):\n%s", seed, diff)
		}
	}
	if withSample < 200 {
		t.Errorf("%d runs with a sample", withSample)
	}
}

func uint64Seed(seed int) int64 { return int64(seed) * 7 }
