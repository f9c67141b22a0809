package eval

import (
	"fmt"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/ppi"
	"github.com/claimtrace/claimtrace/internal/store"
)

// reviewAcc computes ReviewedFigures a report at a time: a run's summary
// reads its reports back one by one, so that no more than one is in
// memory, and the figures keep only each unit's judge value and the
// labels of the sample's units. Reports are added in task order (the
// order ReviewedFigures sorts them in); reports not scored are passed
// over.
type reviewAcc struct {
	opt    ReviewOptions
	sample *StoredSample
	// inSample holds the IDs of the sample's units; byTask the reviews of
	// each task, in their order.
	inSample map[string]bool
	byTask   map[string][]HumanReview
	// found holds the review labels of each sample unit met, inFrame the
	// sample units met in the frame, frame the frame's size so far.
	found   map[string][]string
	inFrame map[string]bool
	frame   int

	match, psnd, facts figureAcc
}

// figureAcc gathers one figure's items (figure's ppi.Data).
type figureAcc struct {
	d       ppi.Data
	skipped int
}

func newReviewAcc(sample *StoredSample, reviews []HumanReview, opt ReviewOptions) *reviewAcc {
	a := &reviewAcc{opt: opt, sample: sample}
	if sample == nil {
		return a
	}
	a.inSample = make(map[string]bool, len(sample.Units))
	for _, u := range sample.Units {
		a.inSample[u.ID()] = true
	}
	a.byTask = map[string][]HumanReview{}
	for _, rv := range reviews {
		a.byTask[rv.Task] = append(a.byTask[rv.Task], rv)
	}
	a.found = map[string][]string{}
	a.inFrame = map[string]bool{}
	return a
}

// add counts report r: its units in the frame, its reviews' labels, its
// items in each figure.
func (a *reviewAcc) add(r *Result) {
	if r == nil || r.Status != store.StatusDone {
		return
	}
	labels := map[string]string{} // the labels of r's sample units
	if a.sample != nil {
		a.countFrame(r)
		for id, ls := range a.reviewsByUnit(r) {
			if !a.inSample[id] {
				continue
			}
			a.found[id] = ls
			if l, ok := majority(ls); ok {
				labels[id] = l
			}
		}
	}
	pw := a.opt.PartialWeight
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
	a.match.report(r, labels, func(r *Result, c ClaimResult, v claimtrace.Verdict) (float64, bool) {
		if r.Cited == nil || r.Cited.MatchRate == nil || v.Label == claimtrace.Unknown {
			return 0, false
		}
		f, _ := verdictValue(string(v.Label))
		return f, true
	}, nil, verdictValue)
	a.psnd.report(r, labels, func(r *Result, c ClaimResult, v claimtrace.Verdict) (float64, bool) {
		if v.Strength > a.opt.Tau {
			return 1, true
		}
		return 0, true
	}, nil, func(l string) (float64, bool) {
		if f, ok := verdictValue(l); ok {
			return f, true
		}
		return 0, l == string(claimtrace.Unknown) // unverifiable counts unsound, as in PSnd
	})
	a.facts.report(r, labels, nil, func(r *Result, c ClaimResult) (float64, bool) {
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
}

// countFrame adds r's units to the frame's size (ReviewFrame's units) and
// notes the sample's units among them.
func (a *reviewAcc) countFrame(r *Result) {
	seen := map[string]bool{}
	for _, c := range r.Claims {
		if c.Cited {
			for _, v := range c.Verdicts {
				id := ReviewUnit{Kind: ReviewPair, Task: r.Task, Claim: c.ID, URL: v.URL}.ID()
				if !seen[id] {
					seen[id] = true
					a.frame++
					a.inFrame[id] = a.inFrame[id] || a.inSample[id]
				}
			}
		} else if decided(c.Fact) {
			id := ReviewUnit{Kind: ReviewFact, Task: r.Task, Claim: c.ID}.ID()
			a.frame++
			a.inFrame[id] = a.inFrame[id] || a.inSample[id]
		}
	}
}

// reviewsByUnit gathers the labels of the reviews of r's task by unit ID:
// a review naming a source labels that pair; one naming none labels the
// non-cited claim, or the pair of a claim citing one source.
func (a *reviewAcc) reviewsByUnit(r *Result) map[string][]string {
	reviews := a.byTask[r.Task]
	if len(reviews) == 0 {
		return nil
	}
	claims := make(map[string]ClaimResult, len(r.Claims))
	for _, c := range r.Claims {
		claims[c.ID] = c
	}
	out := map[string][]string{}
	for _, rv := range reviews {
		c, ok := claims[rv.Claim]
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

// finish returns the figures and, with a sample, the review's progress.
func (a *reviewAcc) finish() (Reviewed, error) {
	var out Reviewed
	if s := a.sample; s != nil {
		p := &ReviewProgress{Drawn: len(s.Units), Seed: s.Seed, Frame: s.Frame}
		p.FrameChanged = a.frame != s.Frame
		for _, u := range s.Units {
			if !a.inFrame[u.ID()] {
				p.FrameChanged = true
			}
		}
		labelled := map[string]bool{}
		for _, u := range s.Units {
			ls := a.found[u.ID()]
			switch _, ok := majority(ls); {
			case ok:
				labelled[u.ID()] = true
				p.Reviewed++
			case len(ls) > 0:
				p.Disputed++
			}
			if !labelled[u.ID()] && p.Next == nil {
				next := u
				p.Next = &next
			}
		}
		out.Progress = p
	}
	var err error
	if out.MatchRate, err = a.match.finish(); err != nil {
		return Reviewed{}, fmt.Errorf("match rate: %w", err)
	}
	if out.PSnd, err = a.psnd.finish(); err != nil {
		return Reviewed{}, fmt.Errorf("PSnd: %w", err)
	}
	if out.FactualAccuracy, err = a.facts.finish(); err != nil {
		return Reviewed{}, fmt.Errorf("factual accuracy: %w", err)
	}
	return out, nil
}

// report adds r's items to the figure: pair (for cited pairs) or fact
// (for non-cited claims) gives each unit's judge value and whether it
// counts; human turns a review label into the human value, or says it
// counts for nothing here. A report's counted units weigh 1 over their
// number.
func (f *figureAcc) report(r *Result, labels map[string]string,
	pair func(*Result, ClaimResult, claimtrace.Verdict) (float64, bool),
	fact func(*Result, ClaimResult) (float64, bool),
	human func(string) (float64, bool)) {
	d := &f.d
	start := len(d.Judge)
	seen := map[string]bool{}
	add := func(u ReviewUnit, v float64) {
		if seen[u.ID()] {
			return
		}
		seen[u.ID()] = true
		if l, ok := labels[u.ID()]; ok {
			if y, ok := human(l); ok {
				d.Reviews = append(d.Reviews, ppi.Review{Item: len(d.Judge), Value: y})
			} else {
				f.skipped++
			}
		}
		d.Judge = append(d.Judge, v)
	}
	for _, c := range r.Claims {
		switch {
		case c.Cited && pair != nil:
			for _, v := range c.Verdicts {
				if x, ok := pair(r, c, v); ok {
					add(ReviewUnit{Kind: ReviewPair, Task: r.Task, Claim: c.ID, URL: v.URL}, x)
				}
			}
		case !c.Cited && fact != nil:
			if x, ok := fact(r, c); ok {
				add(ReviewUnit{Kind: ReviewFact, Task: r.Task, Claim: c.ID}, x)
			}
		}
	}
	for range len(d.Judge) - start {
		d.Weights = append(d.Weights, 1/float64(len(d.Judge)-start))
	}
}

// finish estimates the figure; nil when no unit counts.
func (f *figureAcc) finish() (*ReviewedFigure, error) {
	if len(f.d.Judge) == 0 {
		return nil, nil
	}
	e, err := ppi.Mean(f.d)
	if err != nil {
		return nil, err
	}
	return &ReviewedFigure{Estimate: e, ReviewsNeeded: e.ReviewsNeeded(PlanHalfWidth), Skipped: f.skipped}, nil
}
