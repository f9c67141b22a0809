package eval

import (
	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/score"
)

// digest returns what the run's summary reads of a report's result
// (summarize, and ReviewedFigures for the judge's error): its identity,
// status and counts, and for each claim its id, whether it is cited, each
// verdict's source, label and strength and the fact-check's label; not
// the texts, evidence, reasons, sources or matched references, which are
// in the report's file and unit. A run holds the digests of its reports
// until it writes the summary, so its memory grows by a few kilobytes a
// report instead of the whole result.
func (r *Result) digest() *Result {
	d := &Result{Task: r.Task, File: r.File, Status: r.Status, Error: r.Error, Domain: r.Domain, Stats: r.Stats, Cited: r.Cited}
	if r.Citation != nil {
		c := *r.Citation
		c.Matched, c.Unmatched = []score.Matched{}, []score.Unmatched{}
		d.Citation = &c
	}
	if r.NonCited != nil {
		n := *r.NonCited
		n.Extra = nil
		d.NonCited = &n
	}
	if r.AAR != nil {
		a := *r.AAR
		a.Conflicts = nil
		d.AAR = &a
	}
	d.Claims = make([]ClaimResult, len(r.Claims))
	for i, c := range r.Claims {
		dc := ClaimResult{ID: c.ID, Cited: c.Cited}
		if len(c.Verdicts) > 0 {
			dc.Verdicts = make([]claimtrace.Verdict, len(c.Verdicts))
			for k, v := range c.Verdicts {
				dc.Verdicts[k] = claimtrace.Verdict{URL: v.URL, Label: v.Label, Strength: v.Strength}
			}
		}
		if c.Fact != nil {
			dc.Fact = &claimtrace.Fact{Label: c.Fact.Label}
		}
		d.Claims[i] = dc
	}
	return d
}
