package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/ppi"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Kinds of review units.
const (
	// ReviewPair is a (claim, cited source) pair: its review is a verdict
	// label, and it counts in the match rate and PSnd.
	ReviewPair = "pair"
	// ReviewFact is a fact-checked non-cited claim: its review is true or
	// false, and it counts in the factual accuracy.
	ReviewFact = "fact"
)

// ReviewUnit is one thing of a run a person can review.
type ReviewUnit struct {
	Kind  string `json:"kind"`
	Task  string `json:"task"`
	Claim string `json:"claim"`
	// URL is the cited source of a pair, as its verdict shows it.
	URL string `json:"url,omitempty"`
}

// ID names the unit in a reviews file: "task/claim" for a non-cited
// claim, "task/claim/url" for a pair (task and claim ids have no slash).
func (u ReviewUnit) ID() string {
	if u.Kind == ReviewFact {
		return u.Task + "/" + u.Claim
	}
	return u.Task + "/" + u.Claim + "/" + u.URL
}

// ParseReviewID reads a unit's ID back: two parts are a non-cited claim,
// three (the third a URL, slashes and all) a pair.
func ParseReviewID(id string) (ReviewUnit, error) {
	parts := strings.SplitN(id, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return ReviewUnit{}, fmt.Errorf("review id %q: want task/claim (a non-cited claim) or task/claim/url (a cited pair): %w", clip(id, 120), claimtrace.ErrInvalid)
	}
	if len(parts) == 2 {
		return ReviewUnit{Kind: ReviewFact, Task: parts[0], Claim: parts[1]}, nil
	}
	return ReviewUnit{Kind: ReviewPair, Task: parts[0], Claim: parts[1], URL: parts[2]}, nil
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// ReviewFrame lists the units of a run's scored reports a person can
// review, in a fixed order (report, claim, verdict): every (claim, source)
// pair judged or not (the units of the match rate and PSnd) and every
// non-cited claim a fact-checker decided (those of the factual accuracy).
// Statements a model extracted that restate no claim are not in it: the
// audit view cannot show them.
func ReviewFrame(results []*Result) []ReviewUnit {
	var out []ReviewUnit
	seen := map[string]bool{}
	for _, r := range scored(results) {
		for _, c := range r.Claims {
			if c.Cited {
				for _, v := range c.Verdicts {
					u := ReviewUnit{Kind: ReviewPair, Task: r.Task, Claim: c.ID, URL: v.URL}
					if !seen[u.ID()] {
						seen[u.ID()] = true
						out = append(out, u)
					}
				}
			} else if decided(c.Fact) {
				out = append(out, ReviewUnit{Kind: ReviewFact, Task: r.Task, Claim: c.ID})
			}
		}
	}
	return out
}

// scored returns the scored reports of results in task order.
func scored(results []*Result) []*Result {
	var out []*Result
	for _, r := range results {
		if r != nil && r.Status == store.StatusDone {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Result) int { return strings.Compare(a.Task, b.Task) })
	return out
}

func decided(f *claimtrace.Fact) bool {
	return f != nil && (f.Label == claimtrace.FactTrue || f.Label == claimtrace.FactFalse)
}

// DrawReviewSample draws size units of frame uniformly at random, in the
// order to review them (ppi.Draw: a larger sample with the same seed
// starts with the smaller one).
func DrawReviewSample(frame []ReviewUnit, size int, seed int64) []ReviewUnit {
	idx := ppi.Draw(len(frame), size, uint64(seed))
	out := make([]ReviewUnit, len(idx))
	for k, i := range idx {
		out[k] = frame[i]
	}
	return out
}

// StoredSample is a run's review sample as the store keeps it.
type StoredSample struct {
	Seed  int64
	Frame int
	Units []ReviewUnit
}

// ReadReviewSample reads the review sample of run from st; ok is false
// when none was drawn.
func ReadReviewSample(ctx context.Context, st *store.Store, run string) (StoredSample, bool, error) {
	rs, ok, err := st.GetReviewSample(ctx, run)
	if err != nil || !ok {
		return StoredSample{}, false, err
	}
	s := StoredSample{Seed: rs.Seed, Frame: rs.Frame}
	if err := json.Unmarshal(rs.Data, &s.Units); err != nil {
		return StoredSample{}, false, fmt.Errorf("review sample of %s: stored units unreadable: %w", run, err)
	}
	return s, true, nil
}

// WriteReviewSample stores s as the review sample of run.
func WriteReviewSample(ctx context.Context, st *store.Store, run string, s StoredSample) error {
	data, err := json.Marshal(s.Units)
	if err != nil {
		return err
	}
	return st.PutReviewSample(ctx, store.ReviewSample{Run: run, Seed: s.Seed, Frame: s.Frame, Data: data})
}

// ReviewResults reads, for the review of a run, the parts of its reports'
// stored results that review units and their figures are made of
// (DecodeReviewResult). A report whose stored result cannot be read is
// skipped (the audit view lists its error).
func ReviewResults(ctx context.Context, st *store.Store, run string) ([]*Result, error) {
	units, err := st.Units(ctx, run, unitReport)
	if err != nil {
		return nil, err
	}
	var out []*Result
	for _, u := range units {
		if r, ok := DecodeReviewResult(u.Data); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// DecodeReviewResult decodes, from a report unit's data, the parts of the
// result that review units and their figures are made of: the report's
// task, status and text hash; its claims' ids, texts, citing or not,
// verdicts (source, label, strength) and fact labels; whether it has a
// match rate, whether its non-cited stage failed, and its τ. The rest of
// the Result is left empty: decoding only these parts is several times
// faster, and the run page reads them on every view. ok is false for
// data that is not a stored result.
func DecodeReviewResult(data []byte) (*Result, bool) {
	var s struct {
		SHA256 string `json:"sha256"`
		Result *struct {
			Task   string `json:"task_id"`
			SHA256 string `json:"sha256"`
			Status string `json:"status"`
			Claims []struct {
				ID       string `json:"id"`
				Text     string `json:"text"`
				Cited    bool   `json:"cited"`
				Verdicts []struct {
					URL      string           `json:"url"`
					Label    claimtrace.Label `json:"label"`
					Strength float64          `json:"strength"`
				} `json:"verdicts"`
				Fact *struct {
					Label claimtrace.FactLabel `json:"label"`
				} `json:"fact"`
			} `json:"claims"`
			Cited *struct {
				MatchRate *float64 `json:"match_rate"`
			} `json:"cited"`
			NonCited *struct {
				Error string `json:"error"`
			} `json:"non_cited"`
			AAR *struct {
				Tau float64 `json:"tau"`
			} `json:"aar"`
		} `json:"result"`
	}
	if json.Unmarshal(data, &s) != nil || s.Result == nil {
		return nil, false
	}
	sr := s.Result
	r := &Result{Task: sr.Task, SHA256: cmp.Or(sr.SHA256, s.SHA256), Status: sr.Status, Claims: make([]ClaimResult, len(sr.Claims))}
	for i, c := range sr.Claims {
		cr := ClaimResult{ID: c.ID, Text: c.Text, Cited: c.Cited}
		for _, v := range c.Verdicts {
			cr.Verdicts = append(cr.Verdicts, claimtrace.Verdict{URL: v.URL, Label: v.Label, Strength: v.Strength})
		}
		if c.Fact != nil {
			cr.Fact = &claimtrace.Fact{Label: c.Fact.Label}
		}
		r.Claims[i] = cr
	}
	if sr.Cited != nil {
		r.Cited = &CitedStats{MatchRate: sr.Cited.MatchRate}
	}
	if sr.NonCited != nil {
		r.NonCited = &NonCitedStats{Error: sr.NonCited.Error}
	}
	if sr.AAR != nil {
		r.AAR = &AAR{Figures: prov.Figures{Tau: sr.AAR.Tau}}
	}
	return r, true
}

// HumanReview is one person's label of a claim, or of one of its sources
// (URL): a verdict label for a cited claim, true, false or undecided for
// a non-cited one. The audit view's reviews and the lines of a reviews
// file both come as these.
type HumanReview struct {
	Task, Claim, URL string
	Label            string
}

// ReviewedFigure is one of a run's figures with the judge's error inside
// it: the judge's raw value, the prediction-powered estimate from the
// reviews of the run's sample and its 95% interval (ppi.Estimate's keys),
// and how many reviews of its units would give ±0.05.
type ReviewedFigure struct {
	ppi.Estimate
	// ReviewsNeeded is how many reviewed units of this figure in all
	// would give an interval of ±0.05 (ppi.Estimate.ReviewsNeeded).
	ReviewsNeeded int `json:"reviews_needed"`
	// Skipped counts sampled units reviewed with a label that says
	// nothing about this figure (unknown for the match rate, undecided for
	// the factual accuracy); they are left out of n.
	Skipped int `json:"reviews_skipped,omitempty"`
}

// PlanHalfWidth is the interval ReviewsNeeded plans for.
const PlanHalfWidth = 0.05

// ReviewProgress is how far the review of a run's sample is.
type ReviewProgress struct {
	// Drawn units are in the sample; Reviewed of them have a label (the
	// reviewers' majority), Disputed have reviews without a majority.
	Drawn    int   `json:"drawn"`
	Reviewed int   `json:"reviewed"`
	Disputed int   `json:"disputed"`
	Seed     int64 `json:"seed"`
	// Frame is how many units the sample was drawn from; FrameChanged
	// says the run's units are no longer those (a rerun changed them), so
	// the sample is no longer a uniform sample of them: draw it again.
	Frame        int  `json:"frame"`
	FrameChanged bool `json:"frame_changed,omitempty"`
	// Next is the first unit of the sample, in its order, without a label.
	Next *ReviewUnit `json:"next,omitempty"`
}

// Reviewed holds a run's reviewed figures and the review's progress.
type Reviewed struct {
	MatchRate, FactualAccuracy, PSnd *ReviewedFigure
	// Progress is nil when no sample was drawn.
	Progress *ReviewProgress
}

// ReviewOptions say how verdicts count, as in the run's figures.
type ReviewOptions struct {
	PartialWeight, Tau float64
}

// ReviewOptionsOf reads how a stored run counted verdicts: τ from its
// reports' AAR figures, the partial weight from the run's parameters (as
// Run records them; 0.5, the default, for runs stored before they did).
func ReviewOptionsOf(results []*Result, params string) ReviewOptions {
	opt := ReviewOptions{PartialWeight: 0.5, Tau: prov.DefaultTau}
	var p struct {
		PartialWeight *float64 `json:"partial_weight"`
		Tau           *float64 `json:"tau"`
	}
	if json.Unmarshal([]byte(params), &p) == nil {
		if p.PartialWeight != nil {
			opt.PartialWeight = *p.PartialWeight
		}
		if p.Tau != nil {
			opt.Tau = *p.Tau
		}
	}
	for _, r := range scored(results) {
		if r.AAR != nil && r.AAR.Tau > 0 {
			opt.Tau = r.AAR.Tau
			break
		}
	}
	return opt
}

// ReviewedFigures computes the match rate, the factual accuracy and PSnd
// of results with the judge's error inside them. Every unit of the frame
// is an item with the judge's value (a macro mean weighs a report's items
// by 1 over their number, as the figures do); the human values are the
// labels of the sample's units (reviews of units outside the sample are
// not a random sample and do not count). A pair's label is its reviewers'
// majority among the reviews naming its source, or not naming any when
// the claim cites one source only; no majority is disputed, not a label.
func ReviewedFigures(results []*Result, sample *StoredSample, reviews []HumanReview, opt ReviewOptions) (Reviewed, error) {
	a := newReviewAcc(sample, reviews, opt)
	for _, r := range scored(results) {
		a.add(r)
	}
	return a.finish()
}

// majority returns the label more than half of labels give.
func majority(labels []string) (string, bool) {
	n := map[string]int{}
	for _, l := range labels {
		n[l]++
		if 2*n[l] > len(labels) {
			return l, true
		}
	}
	return "", false
}

// PlannedSampleSize is the sample to draw from frame so that the match
// rate (or, without one, PSnd, then the factual accuracy) would get about
// ±0.05: the figure's planned reviews scaled up by its share of the frame,
// since a uniform sample of the frame reviews its units in that
// proportion (units outside the figure, such as pairs the judge could not
// judge for the match rate, dilute it too). 0 when no figure has units.
func PlannedSampleSize(frame []ReviewUnit, rv Reviewed) int {
	for _, f := range []*ReviewedFigure{rv.MatchRate, rv.PSnd, rv.FactualAccuracy} {
		if f == nil || f.N == 0 || len(frame) == 0 {
			continue
		}
		share := float64(f.N) / float64(len(frame))
		return min(len(frame), int(math.Ceil(float64(f.ReviewsNeeded)/share)))
	}
	return 0
}

// ReviewSection is summary.json's "review": how far the review of the
// run's sample is, or why the reviews could not be read.
type ReviewSection struct {
	*ReviewProgress
	Error string `json:"error,omitempty"`
}

// startReview begins putting the judge's error into the summary's match
// rate, factual accuracy and PSnd (finishReview ends it, once every report
// went through the returned accumulator): the run's review sample and the
// labels its units have (Options.HumanReviews) give the estimates; without
// a sample each figure still says how many reviews would give ±0.05. A
// sample or reviews that cannot be read are noted in the review section,
// not fatal.
func (e *Evaluator) startReview(ctx context.Context) (*reviewAcc, ReviewSection) {
	var sec ReviewSection
	var sample *StoredSample
	var reviews []HumanReview
	stored, ok, err := ReadReviewSample(ctx, e.opts.Store, e.run)
	switch {
	case err != nil:
		sec.Error = err.Error()
	case ok:
		sample = &stored
		if e.opts.HumanReviews != nil {
			if reviews, err = e.opts.HumanReviews(ctx, e.run); err != nil {
				sec.Error = "reviews: " + err.Error()
			}
		}
	}
	return newReviewAcc(sample, reviews, ReviewOptions{PartialWeight: e.opts.PartialWeight, Tau: e.opts.Tau}), sec
}

// finishReview puts the figures a (startReview) gathered into s.
func (e *Evaluator) finishReview(a *reviewAcc, sec ReviewSection, s *Summary) {
	rv, err := a.finish()
	if err != nil {
		sec.Error = err.Error()
	}
	if e.opts.Judge != nil {
		s.Cited.MatchRatePPI = rv.MatchRate
	}
	if e.opts.CheckWorthy != nil {
		s.NonCited.FactualAccuracyPPI = rv.FactualAccuracy
	}
	s.AAR.PSndPPI = rv.PSnd
	sec.ReviewProgress = rv.Progress
	if sec.ReviewProgress != nil || sec.Error != "" {
		s.Review = &sec
	}
}
