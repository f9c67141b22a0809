package web

import (
	"maps"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace/internal/eval"
)

// Agreement compares the human reviews of a report, or of a run, with the
// pipeline and with each other.
type Agreement struct {
	ClaimsReviewed int `json:"claims_reviewed"`
	Reviews        int `json:"reviews"`
	// NotCounted counts the current reviews left out of these figures:
	// when reviewers are configured, those not posted by a configured
	// reviewer with their own token (Review.NotCounted).
	NotCounted int `json:"reviews_not_counted"`
	// Reviewers are the names of those who reviewed, sorted.
	Reviewers []string `json:"reviewers"`
	// Compared counts the reviews with a pipeline label to compare with
	// (see pipelineLabel: all but those of non-cited claims that were not
	// fact-checked), Agreed those giving the pipeline's label, and Rate is
	// Agreed / Compared.
	Compared int      `json:"compared"`
	Agreed   int      `json:"agreed"`
	Rate     *float64 `json:"agreement_rate"`
	// Confusion counts the compared reviews by review label, then by the
	// pipeline's label.
	Confusion map[string]map[string]int `json:"confusion"`
	// MultiReviewed counts the claims reviewed by two reviewers or more,
	// Unanimous those of them on which all reviewers gave one label, and
	// Disputed those on which no label has a majority. InterReviewer is
	// Unanimous / MultiReviewed.
	MultiReviewed int      `json:"claims_multi_reviewed"`
	Unanimous     int      `json:"claims_unanimous"`
	Disputed      int      `json:"claims_disputed"`
	InterReviewer *float64 `json:"inter_reviewer_agreement"`
	// Kappa is Cohen's κ between KappaReviewers when exactly two reviewers
	// reviewed the claims reviewed more than once, over those claims; null
	// otherwise, or when chance agreement is certain (κ undefined).
	Kappa          *float64 `json:"cohen_kappa"`
	KappaReviewers []string `json:"kappa_reviewers,omitempty"`
}

// reviewedClaim is one claim's reviews, each beside the pipeline label it
// is compared with.
type reviewedClaim struct {
	Key     string // unique among the claims summed: "<task>/<claim>"
	Reviews []comparedReview
	// NotCounted is the number of the claim's reviews left out.
	NotCounted int
}

type comparedReview struct {
	Reviewer, Label, Pipeline string
}

// reviewedClaims pairs the reviews of a report with the pipeline's labels,
// claim by claim in the report's order.
func reviewedClaims(res *eval.Result, reviews map[string][]Review) []reviewedClaim {
	var out []reviewedClaim
	for _, c := range res.Claims {
		rvs := reviews[c.ID]
		if len(rvs) == 0 {
			continue
		}
		rc := reviewedClaim{Key: res.Task + "/" + c.ID}
		for _, rv := range rvs {
			if rv.NotCounted {
				rc.NotCounted++
				continue
			}
			rc.Reviews = append(rc.Reviews, comparedReview{Reviewer: rv.Reviewer, Label: rv.Label, Pipeline: pipelineLabel(c, rv.URL)})
		}
		out = append(out, rc)
	}
	return out
}

// agreement computes the figures of a set of reviewed claims.
func agreement(claims []reviewedClaim) Agreement {
	a := Agreement{Confusion: map[string]map[string]int{}}
	reviewers := map[string]bool{}
	for _, c := range claims {
		a.NotCounted += c.NotCounted
		if len(c.Reviews) == 0 {
			continue
		}
		a.ClaimsReviewed++
		labels := map[string]bool{}
		counts := map[string]int{}
		for _, r := range c.Reviews {
			a.Reviews++
			reviewers[r.Reviewer] = true
			labels[r.Label] = true
			counts[r.Label]++
			if r.Pipeline == "" {
				continue
			}
			a.Compared++
			if r.Label == r.Pipeline {
				a.Agreed++
			}
			if a.Confusion[r.Label] == nil {
				a.Confusion[r.Label] = map[string]int{}
			}
			a.Confusion[r.Label][r.Pipeline]++
		}
		if len(c.Reviews) < 2 {
			continue
		}
		a.MultiReviewed++
		if len(labels) == 1 {
			a.Unanimous++
		}
		top := 0
		for _, n := range counts {
			top = max(top, n)
		}
		if 2*top <= len(c.Reviews) {
			a.Disputed++
		}
	}
	a.Reviewers = slices.Sorted(maps.Keys(reviewers))
	if a.Reviewers == nil {
		a.Reviewers = []string{}
	}
	a.Rate = ratio(a.Agreed, a.Compared)
	a.InterReviewer = ratio(a.Unanimous, a.MultiReviewed)
	a.Kappa, a.KappaReviewers = kappa(claims)
	return a
}

// kappa computes Cohen's κ = (p_o − p_e) / (1 − p_e) when exactly two
// reviewers, A and B, reviewed the claims reviewed more than once: p_o is
// the share of those claims on which they gave one label, p_e the chance
// of that, Σ_k p_A(k)·p_B(k) over their labels' shares.
func kappa(claims []reviewedClaim) (*float64, []string) {
	var pairs [][]comparedReview
	var who []string
	for _, c := range claims {
		if len(c.Reviews) < 2 {
			continue
		}
		pairs = append(pairs, c.Reviews)
		for _, r := range c.Reviews {
			if !slices.Contains(who, r.Reviewer) {
				who = append(who, r.Reviewer)
			}
		}
	}
	if len(who) != 2 || len(pairs) == 0 {
		return nil, nil
	}
	slices.Sort(who)
	var same int
	countA, countB := map[string]int{}, map[string]int{}
	for _, p := range pairs {
		// Two reviewers, one review each per claim (currentReviews).
		a, b := p[0], p[1]
		if a.Reviewer != who[0] {
			a, b = b, a
		}
		if a.Label == b.Label {
			same++
		}
		countA[a.Label]++
		countB[b.Label]++
	}
	n := float64(len(pairs))
	po := float64(same) / n
	var pe float64
	for k, na := range countA {
		pe += float64(na) * float64(countB[k]) / (n * n)
	}
	if 1-pe < 1e-12 {
		return nil, who
	}
	k := (po - pe) / (1 - pe)
	return &k, who
}

// ratio is n/d, nil when d is 0.
func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := float64(n) / float64(d)
	return &r
}

// confusionCell is one non-empty cell of a confusion matrix.
type confusionCell struct {
	Review, Pipeline string
	N                int
}

// Cells lists the confusion matrix's non-empty cells, verdict labels
// before fact labels, each in their usual order.
func (a Agreement) Cells() []confusionCell {
	var out []confusionCell
	for r, row := range a.Confusion {
		for p, n := range row {
			out = append(out, confusionCell{r, p, n})
		}
	}
	slices.SortFunc(out, func(x, y confusionCell) int {
		if c := labelOrder(x.Review, y.Review); c != 0 {
			return c
		}
		return labelOrder(x.Pipeline, y.Pipeline)
	})
	return out
}

// labelRank is the order of labels in a confusion matrix.
var labelRank = append(slices.Clone(verdictLabels), factLabels...)

// labelOrder compares labels: verdict labels, then fact labels, then any
// other by name.
func labelOrder(a, b string) int {
	i, j := slices.Index(labelRank, a), slices.Index(labelRank, b)
	switch {
	case i >= 0 && j >= 0:
		return i - j
	case i >= 0:
		return -1
	case j >= 0:
		return 1
	}
	return strings.Compare(a, b)
}

// runAgreement computes the figures of a run's reviews, pooled over its
// reports and by task.
func runAgreement(reports []reviewedReport) (Agreement, map[string]Agreement) {
	var all []reviewedClaim
	by := make(map[string]Agreement, len(reports))
	for _, r := range reports {
		rc := reviewedClaims(r.Res, r.Reviews)
		by[r.Task] = agreement(rc)
		all = append(all, rc...)
	}
	return agreement(all), by
}
