package eval

import (
	"fmt"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/ppi"
)

// The judge's error inside the figures as it was computed before a run's
// summary read its reports one at a time (reviewAcc): the reference
// TestReviewedFiguresStreamed holds the accumulator to.

func refReviewedFigures(results []*Result, sample *StoredSample, reviews []HumanReview, opt ReviewOptions) (Reviewed, error) {
	var out Reviewed
	labels := map[string]string{}
	if sample != nil {
		p := &ReviewProgress{Drawn: len(sample.Units), Seed: sample.Seed, Frame: sample.Frame}
		frame := ReviewFrame(results)
		p.FrameChanged = len(frame) != sample.Frame || !refInFrame(frame, sample.Units)
		byUnit := refReviewsByUnit(results, reviews)
		for _, u := range sample.Units {
			ls := byUnit[u.ID()]
			switch l, ok := majority(ls); {
			case ok:
				labels[u.ID()] = l
				p.Reviewed++
			case len(ls) > 0:
				p.Disputed++
			}
			if _, ok := labels[u.ID()]; !ok && p.Next == nil {
				next := u
				p.Next = &next
			}
		}
		out.Progress = p
	}
	var err error
	pw := opt.PartialWeight
	verdictValue := func(l string) (float64, bool) {
		switch claimtrace.Label(l) {
		case claimtrace.Supported:
			return 1, true
		case claimtrace.Partial:
			return pw, true
		case claimtrace.Unsupported, claimtrace.Contradicted:
			return 0, true
		}
		return 0, false
	}
	out.MatchRate, err = refFigure(results, labels, func(r *Result, c ClaimResult, v claimtrace.Verdict) (float64, bool) {
		if r.Cited == nil || r.Cited.MatchRate == nil || v.Label == claimtrace.Unknown {
			return 0, false
		}
		f, _ := verdictValue(string(v.Label))
		return f, true
	}, nil, verdictValue)
	if err != nil {
		return Reviewed{}, fmt.Errorf("match rate: %w", err)
	}
	out.PSnd, err = refFigure(results, labels, func(r *Result, c ClaimResult, v claimtrace.Verdict) (float64, bool) {
		if v.Strength > opt.Tau {
			return 1, true
		}
		return 0, true
	}, nil, func(l string) (float64, bool) {
		if f, ok := verdictValue(l); ok {
			return f, true
		}
		return 0, l == string(claimtrace.Unknown) // unverifiable counts unsound, as in PSnd
	})
	if err != nil {
		return Reviewed{}, fmt.Errorf("PSnd: %w", err)
	}
	out.FactualAccuracy, err = refFigure(results, labels, nil, func(r *Result, c ClaimResult) (float64, bool) {
		if r.NonCited == nil || r.NonCited.Error != "" || !decided(c.Fact) {
			return 0, false
		}
		if c.Fact.Label == claimtrace.FactTrue {
			return 1, true
		}
		return 0, true
	}, func(l string) (float64, bool) {
		switch claimtrace.FactLabel(l) {
		case claimtrace.FactTrue:
			return 1, true
		case claimtrace.FactFalse:
			return 0, true
		}
		return 0, false
	})
	if err != nil {
		return Reviewed{}, fmt.Errorf("factual accuracy: %w", err)
	}
	return out, nil
}

func refFigure(results []*Result, labels map[string]string,
	pair func(*Result, ClaimResult, claimtrace.Verdict) (float64, bool),
	fact func(*Result, ClaimResult) (float64, bool),
	human func(string) (float64, bool)) (*ReviewedFigure, error) {
	var d ppi.Data
	var skipped int
	for _, r := range scored(results) {
		start := len(d.Judge)
		seen := map[string]bool{}
		add := func(u ReviewUnit, f float64) {
			if seen[u.ID()] {
				return
			}
			seen[u.ID()] = true
			if l, ok := labels[u.ID()]; ok {
				if y, ok := human(l); ok {
					d.Reviews = append(d.Reviews, ppi.Review{Item: len(d.Judge), Value: y})
				} else {
					skipped++
				}
			}
			d.Judge = append(d.Judge, f)
		}
		for _, c := range r.Claims {
			switch {
			case c.Cited && pair != nil:
				for _, v := range c.Verdicts {
					if f, ok := pair(r, c, v); ok {
						add(ReviewUnit{Kind: ReviewPair, Task: r.Task, Claim: c.ID, URL: v.URL}, f)
					}
				}
			case !c.Cited && fact != nil:
				if f, ok := fact(r, c); ok {
					add(ReviewUnit{Kind: ReviewFact, Task: r.Task, Claim: c.ID}, f)
				}
			}
		}
		for range len(d.Judge) - start {
			d.Weights = append(d.Weights, 1/float64(len(d.Judge)-start))
		}
	}
	if len(d.Judge) == 0 {
		return nil, nil
	}
	e, err := ppi.Mean(d)
	if err != nil {
		return nil, err
	}
	return &ReviewedFigure{Estimate: e, ReviewsNeeded: e.ReviewsNeeded(PlanHalfWidth), Skipped: skipped}, nil
}

func refInFrame(frame, units []ReviewUnit) bool {
	ids := make(map[string]bool, len(frame))
	for _, u := range frame {
		ids[u.ID()] = true
	}
	for _, u := range units {
		if !ids[u.ID()] {
			return false
		}
	}
	return true
}

func refReviewsByUnit(results []*Result, reviews []HumanReview) map[string][]string {
	claims := map[[2]string]ClaimResult{}
	for _, r := range scored(results) {
		for _, c := range r.Claims {
			claims[[2]string{r.Task, c.ID}] = c
		}
	}
	out := map[string][]string{}
	for _, rv := range reviews {
		c, ok := claims[[2]string{rv.Task, rv.Claim}]
		if !ok {
			continue
		}
		u := ReviewUnit{Kind: ReviewFact, Task: rv.Task, Claim: rv.Claim, URL: rv.URL}
		switch {
		case c.Cited && rv.URL != "":
			u.Kind = ReviewPair
		case c.Cited && len(c.Verdicts) == 1:
			u.Kind, u.URL = ReviewPair, c.Verdicts[0].URL
		case c.Cited, rv.URL != "":
			continue // which source is unsaid, or a source of a non-cited claim
		}
		out[u.ID()] = append(out[u.ID()], rv.Label)
	}
	return out
}
