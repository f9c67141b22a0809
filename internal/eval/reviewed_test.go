package eval

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store"
)

// reviewFixture is two scored reports and a failed one: report a has a
// claim citing two sources and one citing one, and a fact-checked
// non-cited claim; report b a claim whose source was unreadable and one
// supported claim, and an undecided non-cited claim.
func reviewFixture() []*Result {
	v := func(url string, l claimtrace.Label, s float64) claimtrace.Verdict {
		return claimtrace.Verdict{URL: url, Label: l, Strength: s}
	}
	rate := func(x float64) *float64 { return &x }
	a := &Result{Task: "2401.00001", Status: store.StatusDone, Claims: []ClaimResult{
		{ID: "c1", Cited: true, Verdicts: []claimtrace.Verdict{v("https://a.example/1", claimtrace.Supported, 0.9), v("https://a.example/2", claimtrace.Partial, 0.4)}},
		{ID: "c2", Cited: true, Verdicts: []claimtrace.Verdict{v("https://a.example/3", claimtrace.Unsupported, 0.1)}},
		{ID: "c3", Fact: &claimtrace.Fact{Label: claimtrace.FactTrue}},
		{ID: "c4"},
	}, Cited: &CitedStats{MatchRate: rate((1 + 0.5) / 3)}, NonCited: &NonCitedStats{Accuracy: rate(1)}}
	b := &Result{Task: "2401.00002", Status: store.StatusDone, Claims: []ClaimResult{
		{ID: "c1", Cited: true, Verdicts: []claimtrace.Verdict{v("https://b.example/x", claimtrace.Unknown, 0)}},
		{ID: "c2", Cited: true, Verdicts: []claimtrace.Verdict{v("https://b.example/y", claimtrace.Supported, 0.8)}},
		{ID: "c3", Fact: &claimtrace.Fact{Label: claimtrace.FactUndecided}},
		{ID: "c4", Fact: &claimtrace.Fact{Label: claimtrace.FactFalse}},
	}, Cited: &CitedStats{MatchRate: rate(1)}, NonCited: &NonCitedStats{Accuracy: rate(0)}}
	failed := &Result{Task: "2401.00000", Status: store.StatusFailed, Claims: []ClaimResult{{ID: "c1", Cited: true, Verdicts: []claimtrace.Verdict{v("https://z.example", claimtrace.Supported, 1)}}}}
	return []*Result{b, failed, a}
}

func TestReviewFrame(t *testing.T) {
	got := ReviewFrame(reviewFixture())
	want := []ReviewUnit{
		{ReviewPair, "2401.00001", "c1", "https://a.example/1"},
		{ReviewPair, "2401.00001", "c1", "https://a.example/2"},
		{ReviewPair, "2401.00001", "c2", "https://a.example/3"},
		{ReviewFact, "2401.00001", "c3", ""},
		{ReviewPair, "2401.00002", "c1", "https://b.example/x"},
		{ReviewPair, "2401.00002", "c2", "https://b.example/y"},
		{ReviewFact, "2401.00002", "c4", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("frame (-want +got):\n%s", d)
	}
	for _, u := range got {
		back, err := ParseReviewID(u.ID())
		if err != nil || back != u {
			t.Errorf("ParseReviewID(%q) = %+v, %v; want %+v", u.ID(), back, err, u)
		}
	}
	for _, bad := range []string{"", "task", "/c1", "task/", "2401.00001"} {
		if _, err := ParseReviewID(bad); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("ParseReviewID(%q): err = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestReviewedFiguresWithoutSample: the judge's values are the run's own
// macro figures, with no estimate and a review plan.
func TestReviewedFiguresWithoutSample(t *testing.T) {
	rv, err := ReviewedFigures(reviewFixture(), nil, nil, ReviewOptions{PartialWeight: 0.5, Tau: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if rv.Progress != nil {
		t.Errorf("progress %+v without a sample", rv.Progress)
	}
	// Match rate: report a (1 + 0.5 + 0)/3, report b 1/1 (its unknown
	// pair left out): macro (0.5 + 1)/2.
	checkFigure(t, "match rate", rv.MatchRate, 0.75, 4)
	// PSnd: a 1 of 3 pairs above τ = 0.5, b 1 of 2: (1/3 + 1/2)/2.
	checkFigure(t, "PSnd", rv.PSnd, (1.0/3+0.5)/2, 5)
	// Factual accuracy: a 1/1, b 0/1 (the undecided claim left out).
	checkFigure(t, "factual accuracy", rv.FactualAccuracy, 0.5, 2)
	if rv.MatchRate.Estimate.Estimate != nil || rv.MatchRate.ReviewsNeeded != 4 {
		t.Errorf("match rate without reviews: estimate %v, reviews needed %d (all 4 of 4 pairs)", rv.MatchRate.Estimate.Estimate, rv.MatchRate.ReviewsNeeded)
	}
}

func checkFigure(t *testing.T, name string, f *ReviewedFigure, judge float64, n int) {
	t.Helper()
	if f == nil {
		t.Fatalf("%s: no figure", name)
	}
	if math.Abs(f.Judge-judge) > 1e-12 || f.N != n {
		t.Errorf("%s: judge %.4f over %d units, want %.4f over %d", name, f.Judge, f.N, judge, n)
	}
}

// TestReviewedFiguresEverythingReviewed: with every unit sampled and the
// humans agreeing with the judge, the estimates are the judge's figures
// exactly; the reviews' labels map onto units by their source, or without
// one when the claim cites one source only.
func TestReviewedFiguresEverythingReviewed(t *testing.T) {
	results := reviewFixture()
	frame := ReviewFrame(results)
	sample := &StoredSample{Seed: 9, Frame: len(frame), Units: DrawReviewSample(frame, len(frame), 9)}
	reviews := []HumanReview{
		{Task: "2401.00001", Claim: "c1", URL: "https://a.example/1", Label: "supported"},
		{Task: "2401.00001", Claim: "c1", URL: "https://a.example/2", Label: "partial"},
		{Task: "2401.00001", Claim: "c2", Label: "unsupported"}, // one source: no URL needed
		{Task: "2401.00001", Claim: "c3", Label: "true"},
		{Task: "2401.00002", Claim: "c1", URL: "https://b.example/x", Label: "unknown"},
		{Task: "2401.00002", Claim: "c2", URL: "https://b.example/y", Label: "supported"},
		{Task: "2401.00002", Claim: "c4", Label: "false"},
		{Task: "2401.00009", Claim: "c1", Label: "supported"}, // no such report
	}
	rv, err := ReviewedFigures(results, sample, reviews, ReviewOptions{PartialWeight: 0.5, Tau: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if p := rv.Progress; p.Drawn != 7 || p.Reviewed != 7 || p.Disputed != 0 || p.Next != nil {
		t.Errorf("progress %+v: want 7 of 7 reviewed, none next", *p)
	}
	for name, f := range map[string]*ReviewedFigure{"match rate": rv.MatchRate, "factual accuracy": rv.FactualAccuracy} {
		if f.Estimate.Estimate == nil || math.Abs(*f.Estimate.Estimate-f.Judge) > 1e-12 || f.CI.Width() > 1e-12 {
			t.Errorf("%s: estimate %v, CI %+v; want exactly the judge's %.4f", name, f.Estimate.Estimate, f.CI, f.Judge)
		}
	}
	// The pair the judge could not read is not in the match rate (its
	// review of unknown is unsound for PSnd, as the judge has it); the
	// partial pair (strength 0.4) is unsound for the judge and half sound
	// for its reviewer.
	if rv.MatchRate.Skipped != 0 || rv.MatchRate.NReviews != 4 || rv.PSnd.NReviews != 5 {
		t.Errorf("reviews: match rate %d (%d skipped), PSnd %d; want 4 (0) and 5", rv.MatchRate.NReviews, rv.MatchRate.Skipped, rv.PSnd.NReviews)
	}
	if want := (1.5/3 + 0.5) / 2; math.Abs(*rv.PSnd.Estimate.Estimate-want) > 1e-12 {
		t.Errorf("PSnd estimate %.4f, want %.4f (the humans' soundness on every pair)", *rv.PSnd.Estimate.Estimate, want)
	}

	// A reviewer who cannot tell on a judged pair says nothing about the
	// match rate: the review is skipped there.
	reviews[2].Label = "unknown"
	rv, err = ReviewedFigures(results, sample, reviews, ReviewOptions{PartialWeight: 0.5, Tau: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if rv.MatchRate.Skipped != 1 || rv.MatchRate.NReviews != 3 || rv.PSnd.NReviews != 5 {
		t.Errorf("with an unknown review of a judged pair: match rate %d (%d skipped), PSnd %d; want 3 (1) and 5", rv.MatchRate.NReviews, rv.MatchRate.Skipped, rv.PSnd.NReviews)
	}
}

// TestReviewProgress: disputed units and units not reviewed are not
// labels; the next unit is the first of the sample without one; reviews
// of units outside the sample do not count; a review naming no source of
// a claim citing two says nothing.
func TestReviewProgress(t *testing.T) {
	results := reviewFixture()
	frame := ReviewFrame(results)
	sample := &StoredSample{Seed: 3, Frame: len(frame), Units: []ReviewUnit{frame[4], frame[0], frame[6]}}
	reviews := []HumanReview{
		{Task: "2401.00002", Claim: "c1", URL: "https://b.example/x", Label: "supported"},
		{Task: "2401.00002", Claim: "c1", URL: "https://b.example/x", Label: "unsupported"}, // disputed
		{Task: "2401.00001", Claim: "c1", Label: "supported"},                               // which source?
		{Task: "2401.00002", Claim: "c4", Label: "false"},
		{Task: "2401.00002", Claim: "c2", Label: "unsupported"}, // not in the sample
	}
	rv, err := ReviewedFigures(results, sample, reviews, ReviewOptions{PartialWeight: 0.5, Tau: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := ReviewProgress{Drawn: 3, Reviewed: 1, Disputed: 1, Seed: 3, Frame: 7, Next: &frame[4]}
	if d := cmp.Diff(want, *rv.Progress); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	if rv.MatchRate.NReviews != 0 || rv.FactualAccuracy.NReviews != 1 {
		t.Errorf("reviews counted: match rate %d, factual accuracy %d; want 0 and 1", rv.MatchRate.NReviews, rv.FactualAccuracy.NReviews)
	}
}

func TestPlannedSampleSize(t *testing.T) {
	var results []*Result
	for i := range 20 {
		r := &Result{Task: "t" + string(rune('a'+i)), Status: store.StatusDone}
		var supported int
		for k := range 50 {
			l := claimtrace.Unsupported
			if (i+k)%3 != 0 {
				l, supported = claimtrace.Supported, supported+1
			}
			r.Claims = append(r.Claims, ClaimResult{ID: "c" + string(rune('a'+k%26)) + string(rune('a'+k/26)), Cited: true,
				Verdicts: []claimtrace.Verdict{{URL: "https://x.example/" + r.Task, Label: l, Strength: 0.9}}})
		}
		m := float64(supported) / 50
		r.Cited = &CitedStats{MatchRate: &m}
		results = append(results, r)
	}
	frame := ReviewFrame(results)
	rv, err := ReviewedFigures(results, nil, nil, ReviewOptions{PartialWeight: 0.5, Tau: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// Every unit is a judged pair, so the sample is the match rate's plan:
	// variance about 2/9 over 1,000 pairs, 1.96²·(2/9)/0.05² = 341.5,
	// /(1 + 341.5/1000) = 254.6.
	if got := PlannedSampleSize(frame, rv); got != rv.MatchRate.ReviewsNeeded || got < 250 || got > 260 {
		t.Errorf("planned %d (match rate plans %d): want about 255", got, rv.MatchRate.ReviewsNeeded)
	}
}

func FuzzParseReviewID(f *testing.F) {
	f.Add("2401.00001/c3")
	f.Add("2401.00001/c1/https://a.example/x?y=1")
	f.Add("//")
	f.Fuzz(func(t *testing.T, id string) {
		u, err := ParseReviewID(id)
		if err != nil {
			return
		}
		if u.Task == "" || u.Claim == "" || u.ID() != id {
			t.Fatalf("ParseReviewID(%q) = %+v, which reads back as %q", id, u, u.ID())
		}
	})
}

// TestDecodeReviewResult: the parts decoded for reviews give the same
// frame and figures as the whole stored result; other data is refused.
func TestDecodeReviewResult(t *testing.T) {
	full := reviewFixture()
	full[2].AAR = &AAR{}
	full[2].AAR.Tau = 0.3
	var slim []*Result
	for _, r := range full {
		data, err := json.Marshal(storedReport{SHA256: "abc", Result: r})
		if err != nil {
			t.Fatal(err)
		}
		d, ok := DecodeReviewResult(data)
		if !ok {
			t.Fatalf("%s: not decoded", r.Task)
		}
		slim = append(slim, d)
	}
	if d := cmp.Diff(ReviewFrame(full), ReviewFrame(slim)); d != "" {
		t.Errorf("frames differ (-full +slim):\n%s", d)
	}
	opt := ReviewOptionsOf(full, `{"partial_weight": 0.25}`)
	if opt != (ReviewOptions{PartialWeight: 0.25, Tau: 0.3}) || ReviewOptionsOf(slim, `{"partial_weight": 0.25}`) != opt {
		t.Errorf("ReviewOptionsOf = %+v: want the run's partial weight and the reports' τ", opt)
	}
	a, err := ReviewedFigures(full, nil, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReviewedFigures(slim, nil, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("figures differ (-full +slim):\n%s", d)
	}
	for _, bad := range []string{``, `{}`, `{"result": null}`, `[1, 2]`, `{"result": {"claims": "x"}}`} {
		if _, ok := DecodeReviewResult([]byte(bad)); ok {
			t.Errorf("DecodeReviewResult(%q): ok", bad)
		}
	}
}

// TestReviewFrameChanged: a sample drawn from other units (a rerun
// changed them) is flagged.
func TestReviewFrameChanged(t *testing.T) {
	results := reviewFixture()
	frame := ReviewFrame(results)
	for name, c := range map[string]struct {
		s    StoredSample
		want bool
	}{
		"same":        {StoredSample{Frame: len(frame), Units: frame[:3]}, false},
		"other size":  {StoredSample{Frame: len(frame) + 1, Units: frame[:3]}, true},
		"gone unit":   {StoredSample{Frame: len(frame), Units: []ReviewUnit{{Kind: ReviewPair, Task: "2401.00001", Claim: "c9", URL: "https://gone.example"}}}, true},
		"empty draws": {StoredSample{Frame: len(frame)}, false},
	} {
		rv, err := ReviewedFigures(results, &c.s, nil, ReviewOptions{PartialWeight: 0.5, Tau: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		if rv.Progress.FrameChanged != c.want {
			t.Errorf("%s: frame changed %v, want %v", name, rv.Progress.FrameChanged, c.want)
		}
	}
}
