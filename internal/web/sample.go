package web

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/ppi"
	"github.com/claimtrace/claimtrace/internal/store"
)

// HumanReviews returns the current reviews of a run's claims, as
// eval.ReviewedFigures counts them: each reviewer's latest review of a
// claim and source (or of the claim as a whole), made on the report's
// current text, of a claim it has. Unlike the claim panel, which shows a
// reviewer's latest review of a claim whatever its source, a reviewer's
// reviews of two sources of one claim are two labels here: two sampled
// pairs. A report whose stored result cannot be read is left out with its
// reviews (the run page lists its error).
func (s *Server) HumanReviews(ctx context.Context, run string) ([]eval.HumanReview, error) {
	rvs, err := s.reviewsOf(ctx, run, "")
	if err != nil {
		return nil, err
	}
	units, err := s.st.Units(ctx, run, unitReport)
	if err != nil {
		return nil, err
	}
	current := map[string]*eval.Result{}
	for _, u := range units {
		if r, ok := s.reviewRes.get(run, u); ok {
			current[u.Key] = r
		}
	}
	type key struct{ task, claim, url, reviewer string }
	latest := map[key]int{}
	var order []key
	for i, rv := range rvs {
		r, ok := current[rv.Task]
		if !ok || rv.ReportSHA256 != r.SHA256 || !slices.ContainsFunc(r.Claims, func(c eval.ClaimResult) bool { return c.ID == rv.Claim }) {
			continue
		}
		k := key{rv.Task, rv.Claim, rv.URL, rv.Reviewer}
		j, seen := latest[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || !rvs[j].At.After(rv.At) {
			latest[k] = i
		}
	}
	out := make([]eval.HumanReview, 0, len(order))
	for _, k := range order {
		rv := rvs[latest[k]]
		out = append(out, eval.HumanReview{Task: rv.Task, Claim: rv.Claim, URL: rv.URL, Label: rv.Label})
	}
	return out, nil
}

// sampleView is the run's review sample as the run and audit pages show
// it: how far its review is, the next unit to review, and the run's
// figures with the judge's error inside them.
type sampleView struct {
	Run      string
	Progress *eval.ReviewProgress
	// NextHref opens the next unit in the audit view ("" in a static
	// export); NextText names it.
	NextHref, NextText string
	Figures            []figureView
}

// figureView is one figure: the judge's raw value and, once reviews of
// its units exist, the estimate and its interval.
type figureView struct {
	Name     string
	Judge    float64
	Estimate *float64
	CI       string
	HumanCI  string
	Reviewed int
	N        int
	// Needed is how many reviewed units in all would give ±0.05; Unit
	// names them.
	Needed int
	Unit   string
}

// reviewSample builds the run's sample view; live says whether the next
// unit links to the audit view. With sampled only, it is nil for a run
// without a sample (the audit page shows only the progress).
// units are the run's report units when the caller has read them (nil:
// read them here).
func (s *Server) reviewSample(ctx context.Context, run, params string, live, sampled bool, units []store.Unit) (*sampleView, error) {
	var sample *eval.StoredSample
	stored, ok, err := eval.ReadReviewSample(ctx, s.st, run)
	if err != nil || (sampled && !ok) {
		return nil, err
	}
	if units == nil {
		if units, err = s.st.Units(ctx, run, unitReport); err != nil {
			return nil, err
		}
	}
	var results []*eval.Result
	for _, u := range units {
		if r, ok := s.reviewRes.get(run, u); ok {
			results = append(results, r)
		}
	}
	var reviews []eval.HumanReview
	if ok {
		sample = &stored
		if reviews, err = s.HumanReviews(ctx, run); err != nil {
			return nil, err
		}
	}
	rv, err := eval.ReviewedFigures(results, sample, reviews, eval.ReviewOptionsOf(results, params))
	if err != nil {
		return nil, err
	}
	v := &sampleView{Run: run, Progress: rv.Progress}
	if p := rv.Progress; p != nil && p.Next != nil {
		v.NextText = "report " + p.Next.Task + ", claim " + p.Next.Claim
		if p.Next.URL != "" {
			v.NextText += " (source " + p.Next.URL + ")"
		}
		if live {
			v.NextHref = reportURL(run, p.Next.Task) + "?claim=" + url.QueryEscape(p.Next.Claim) + "#panel"
		}
	}
	for _, f := range []struct {
		name, unit string
		fig        *eval.ReviewedFigure
	}{{"Match rate", "pairs", rv.MatchRate}, {"Factual accuracy", "claims", rv.FactualAccuracy}, {"PSnd", "pairs", rv.PSnd}} {
		if f.fig == nil {
			continue
		}
		e := f.fig.Estimate
		v.Figures = append(v.Figures, figureView{Name: f.name, Judge: e.Judge, Estimate: e.Estimate, CI: intervalPct(e.CI),
			HumanCI: intervalPct(e.HumanCI), Reviewed: e.NReviews, N: e.N, Needed: f.fig.ReviewsNeeded, Unit: f.unit})
	}
	if v.Progress == nil && len(v.Figures) == 0 {
		return nil, nil
	}
	return v, nil
}

// reviewCache keeps the parts of report units the review figures read
// (eval.DecodeReviewResult), valid while a unit's attempt count and update
// time stay the same, as the headline cache does.
type reviewCache struct {
	mu sync.Mutex
	m  map[[2]string]cachedReview
}

type cachedReview struct {
	attempts int
	updated  time.Time
	res      *eval.Result
	ok       bool
}

// get returns the decoded parts of report unit u of run.
func (c *reviewCache) get(run string, u store.Unit) (*eval.Result, bool) {
	key := [2]string{run, u.Key}
	c.mu.Lock()
	cr, hit := c.m[key]
	c.mu.Unlock()
	if hit && cr.attempts == u.Attempts && cr.updated.Equal(u.Updated) {
		return cr.res, cr.ok
	}
	res, ok := eval.DecodeReviewResult(u.Data)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedHeadlines {
		c.m = map[[2]string]cachedReview{}
	}
	c.m[key] = cachedReview{attempts: u.Attempts, updated: u.Updated, res: res, ok: ok}
	c.mu.Unlock()
	return res, ok
}

// intervalPct writes an interval in percent, "—" for none.
func intervalPct(i *ppi.Interval) string {
	if i == nil {
		return "—"
	}
	return fmt.Sprintf("[%s, %s]", pct(&i.Lo), pct(&i.Hi))
}
