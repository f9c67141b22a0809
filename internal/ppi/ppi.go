// Package ppi puts a judge's own error inside the figures it feeds:
// prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan and
// Zrnic, Science 2023) with PPI++ power tuning (Angelopoulos, Duchi and
// Zrnic, 2023) for a rate, or any mean of values in [0, 1].
//
// A judge labels every one of N items (the (claim, source) pairs of a run);
// humans label a uniform random sample of n of them. The estimate
//
//	θ̂ = λ·mean_N(f) + mean_n(y − λ·f)
//
// (f the judge's value, y the human's) is unbiased for the rate the humans
// would give on all N items, whatever the judge's errors: the second term
// measures and removes the judge's bias on the sample. λ = Cov(y, f)/Var(f),
// clipped to [0, 1], weighs the judge by how well it predicts the humans
// (PPI++): λ = 1 is the original PPI, λ = 0 the humans alone. Each review's
// λ is fitted on the other reviews, so that it does not bias the estimate.
//
// The target is the finite population of the N items judged (the run's
// pairs), so the variance carries the finite-population correction:
// Var θ̂ = (1 − n/N)·S²(y − λf)/n. Reviewing every item (n = N) gives the
// human rate exactly. The 95% interval is the t interval (n − 1 degrees
// of freedom: the variance is estimated from the reviews), widened where
// the sample cannot show the variance it needs: it is never narrower than the
// exact bound (Clopper–Pearson, 0 deviations in n) that a sample whose
// residuals were all equal would give, and it never leaves what the
// reviewed items already fix (Bound). Intervals are about the judge and the
// review sample, not about the tasks: a different set of reports would give
// a different rate (the leaderboard's bootstrap over reports is that one).
//
// Assumptions: the reviewed items are a uniform random sample of the N
// (Draw; which of them get reviewed must not depend on their labels), and
// the judge's values were fixed before the reviews (the same run).
package ppi

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/claimtrace/claimtrace"
)

// Level is the coverage of every interval: 95%.
const Level = 0.95

// z is the standard normal quantile of 1 − (1 − Level)/2.
const z = 1.959963984540054

// Interval is a closed interval [Lo, Hi]. Its JSON form is [lo, hi].
type Interval struct {
	Lo, Hi float64
}

// MarshalJSON writes [lo, hi].
func (i Interval) MarshalJSON() ([]byte, error) { return json.Marshal([2]float64{i.Lo, i.Hi}) }

// UnmarshalJSON reads [lo, hi].
func (i *Interval) UnmarshalJSON(b []byte) error {
	var v [2]float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("interval: want [lo, hi]: %w", err)
	}
	i.Lo, i.Hi = v[0], v[1]
	return nil
}

// Width is Hi − Lo.
func (i Interval) Width() float64 { return i.Hi - i.Lo }

// Contains reports whether x is in the interval.
func (i Interval) Contains(x float64) bool { return i.Lo <= x && x <= i.Hi }

// Overlaps reports whether two intervals share a point.
func (i Interval) Overlaps(o Interval) bool { return i.Lo <= o.Hi && o.Lo <= i.Hi }

// Review is one human label: Item indexes Data.Judge, Value is in [0, 1]
// (1 for a pair the human calls supported, 0 for one they do not).
type Review struct {
	Item  int
	Value float64
}

// Data is what an estimate is made from.
type Data struct {
	// Judge holds the judge's value of each of the N items, in [0, 1].
	Judge []float64
	// Reviews hold the human values of the reviewed items, at most one a
	// item, drawn uniformly at random among the N.
	Reviews []Review
	// Weights, when set (one a item, positive), make the target the
	// weighted mean Σ wᵢyᵢ / Σ wᵢ: a macro mean over reports gives each of
	// a report's k items the weight 1/k. Nil weighs items equally.
	Weights []float64
}

// Estimate is a judged rate with the judge's error inside it. Its JSON form
// is {judge, estimate, ci, human_ci, n_reviews, n}; estimate and the
// intervals are null without reviews.
type Estimate struct {
	// Judge is the judge's raw rate over the N items.
	Judge float64 `json:"judge"`
	// Estimate is the prediction-powered estimate of the human rate.
	Estimate *float64 `json:"estimate"`
	// CI is its 95% interval; HumanCI the interval from the reviews alone
	// (the same method with λ = 0), for comparison.
	CI      *Interval `json:"ci"`
	HumanCI *Interval `json:"human_ci"`
	// NReviews is n, the reviewed items; N the items judged.
	NReviews int `json:"n_reviews"`
	N        int `json:"n"`

	// Human is the reviews' own (weighted) mean, the centre of HumanCI.
	Human *float64 `json:"-"`
	// Lambda is the mean power-tuning weight used (0 humans only, 1 plain
	// PPI).
	Lambda float64 `json:"-"`
	// Floored reports that CI is the exact bound rather than the t
	// interval: the sample shows too little variation to estimate it.
	Floored bool `json:"-"`
	// Variance is the estimated variance of the residual y − λf per item
	// (weighted), the planning value of ReviewsFor once reviews exist; the
	// judge's own variance without reviews.
	Variance float64 `json:"-"`
}

// HalfWidth is the larger distance from the estimate to an end of its
// interval, or NaN without one.
func (e Estimate) HalfWidth() float64 {
	if e.CI == nil || e.Estimate == nil {
		return math.NaN()
	}
	return max(*e.Estimate-e.CI.Lo, e.CI.Hi-*e.Estimate)
}

// ReviewsNeeded is how many reviews in all (those done included) would
// give an interval of ±halfWidth, planned with the variance seen so far:
// the residual's once there are reviews, the judge's own without (the
// humans-only plan, as nothing yet says how good the judge is).
func (e Estimate) ReviewsNeeded(halfWidth float64) int {
	return ReviewsFor(halfWidth, e.Variance, e.N)
}

// Mean estimates the human rate over d's items from the judge's values on
// all of them and the human values on the reviewed ones. Without reviews
// the estimate and its intervals are nil: the judge's raw rate is all
// there is. It returns an error naming the problem for values outside
// [0, 1], reviews of items that do not exist or reviewed twice, and bad
// weights.
func Mean(d Data) (Estimate, error) {
	N := len(d.Judge)
	if N == 0 {
		return Estimate{}, fmt.Errorf("ppi: no judged items: %w", claimtrace.ErrInvalid)
	}
	w, err := weights(d.Weights, N)
	if err != nil {
		return Estimate{}, err
	}
	h := make([]float64, N) // the judge's weighted values
	for i, f := range d.Judge {
		if !unit(f) {
			return Estimate{}, fmt.Errorf("ppi: judge value %v of item %d outside [0, 1]: %w", f, i, claimtrace.ErrInvalid)
		}
		h[i] = w[i] * f
	}
	seen := make(map[int]bool, len(d.Reviews))
	for _, r := range d.Reviews {
		switch {
		case r.Item < 0 || r.Item >= N:
			return Estimate{}, fmt.Errorf("ppi: review of item %d: there are %d items: %w", r.Item, N, claimtrace.ErrInvalid)
		case seen[r.Item]:
			return Estimate{}, fmt.Errorf("ppi: item %d reviewed twice: %w", r.Item, claimtrace.ErrInvalid)
		case !unit(r.Value):
			return Estimate{}, fmt.Errorf("ppi: review value %v of item %d outside [0, 1]: %w", r.Value, r.Item, claimtrace.ErrInvalid)
		}
		seen[r.Item] = true
	}
	meanH, varH := moments(h)
	e := Estimate{Judge: meanH, N: N, NReviews: len(d.Reviews), Variance: varH}
	if len(d.Reviews) == 0 {
		return e, nil
	}
	s := sample{w: w, h: h, reviews: d.Reviews, seen: seen}
	human := s.estimate(make([]float64, len(d.Reviews)), meanH)
	e.Human = &human.center
	e.HumanCI = &human.ci
	lambdas := s.lambdas(varH)
	for _, l := range lambdas {
		e.Lambda += l / float64(len(lambdas))
	}
	ppi := s.estimate(lambdas, meanH)
	e.Estimate, e.CI, e.Floored, e.Variance = &ppi.center, &ppi.ci, ppi.floored, ppi.variance
	return e, nil
}

// sample is the reviewed part of the data, weighted.
type sample struct {
	w, h    []float64
	reviews []Review
	seen    map[int]bool
}

// lambdas are the PPI++ weights Cov(g, h) / Var(h), g = w·y and h = w·f,
// one a review: for review i the covariance over the other reviews
// (leave one out) and the variance over all items (known exactly), each
// clipped to [0, 1]. Fitting λ on the review it then corrects would bias
// the estimate by O(1/n), which heavy weights make visible (−0.009 on a
// simulated macro mean with 200 reviews); left out, λ is independent of
// the item it weighs. A judge constant over all items gets 0 (it cannot
// predict anything); fewer than 3 reviews cannot estimate a covariance
// without their own item, and get 1 (plain PPI).
func (s sample) lambdas(varH float64) []float64 {
	n := len(s.reviews)
	out := make([]float64, n)
	if varH <= 0 {
		return out
	}
	if n < 3 {
		for i := range out {
			out[i] = 1
		}
		return out
	}
	var sg, sh, sgh float64
	for _, r := range s.reviews {
		g, h := s.w[r.Item]*r.Value, s.h[r.Item]
		sg, sh, sgh = sg+g, sh+h, sgh+g*h
	}
	m := float64(n - 1)
	for k, r := range s.reviews {
		g, h := s.w[r.Item]*r.Value, s.h[r.Item]
		og, oh, ogh := sg-g, sh-h, sgh-g*h
		cov := (ogh - og*oh/m) / (m - 1)
		out[k] = min(max(cov/varH, 0), 1)
	}
	return out
}

// fit is one estimate and its interval.
type fit struct {
	center, variance float64
	ci               Interval
	floored          bool
}

// estimate computes the estimate with weights lambda, one a review (all
// 0: humans only), and its interval: the t interval, widened to at
// least the exact zero-deviation bound, and clipped to what the reviewed
// items fix. Each review contributes gᵢ − λᵢ·(hᵢ − mean_N(h)).
func (s sample) estimate(lambda []float64, meanH float64) fit {
	N, n := len(s.h), len(s.reviews)
	terms := make([]float64, n)
	var lbar float64
	for k, r := range s.reviews {
		terms[k] = s.w[r.Item]*r.Value - lambda[k]*(s.h[r.Item]-meanH)
		lbar += lambda[k]
	}
	lbar /= float64(n)
	center, _ := moments(terms)
	var variance float64
	if n > 1 {
		variance = sampleVariance(terms, center)
	}
	fpc := 1 - float64(n)/float64(N)
	half := tQuantile(n-1) * math.Sqrt(fpc*variance/float64(n))
	ci := Interval{center - half, center + half}
	b := s.bound(lbar, center-lbar*meanH, center)
	floored := n < 2 || b.Lo < ci.Lo || b.Hi > ci.Hi
	ci = Interval{min(ci.Lo, b.Lo), max(ci.Hi, b.Hi)}
	lo, hi := s.feasible()
	ci = Interval{min(max(ci.Lo, lo), hi), max(min(ci.Hi, hi), lo)}
	return fit{center: min(max(center, lo), hi), variance: variance, ci: ci, floored: floored}
}

// bound is the exact interval for a sample whose residuals all equal c:
// with 97.5% confidence each way, at most a share u = 1 − 0.025^(1/n) of
// all items deviate from c (Clopper–Pearson, 0 of n; conservative for a
// sample drawn without replacement), and each unreviewed item's residual
// lies within what its judge value allows (y in [0, 1]). The worst case
// moves the floor(u·N) unreviewed items with the most room as far as they
// go, one side at a time.
func (s sample) bound(lambda, c, center float64) Interval {
	N, n := len(s.h), len(s.reviews)
	u := 1 - math.Pow((1-Level)/2, 1/float64(n))
	k := int(math.Floor(u * float64(N)))
	var up, down []float64
	for i := range s.h {
		if s.seen[i] {
			continue
		}
		lo, hi := -lambda*s.h[i], s.w[i]-lambda*s.h[i]
		up = append(up, max(hi-c, 0))
		down = append(down, max(c-lo, 0))
	}
	k = min(k, len(up))
	return Interval{center - topSum(down, k)/float64(N), center + topSum(up, k)/float64(N)}
}

// feasible is the range the rate can take given the reviewed items: every
// unreviewed item's human value anywhere in [0, 1] (within [0, 1] despite
// the rounding of the weights).
func (s sample) feasible() (lo, hi float64) {
	N := float64(len(s.h))
	for _, r := range s.reviews {
		lo += s.w[r.Item] * r.Value
	}
	hi = lo
	for i := range s.h {
		if !s.seen[i] {
			hi += s.w[i]
		}
	}
	return min(max(lo/N, 0), 1), min(max(hi/N, 0), 1)
}

// topSum sums the k largest values of xs (reordering xs).
func topSum(xs []float64, k int) float64 {
	if k <= 0 {
		return 0
	}
	slices.Sort(xs)
	var sum float64
	for _, x := range xs[len(xs)-k:] {
		sum += x
	}
	return sum
}

// weights returns the item weights scaled to mean 1 (all 1 for nil).
func weights(ws []float64, N int) ([]float64, error) {
	out := make([]float64, N)
	if ws == nil {
		for i := range out {
			out[i] = 1
		}
		return out, nil
	}
	if len(ws) != N {
		return nil, fmt.Errorf("ppi: %d weights for %d items: %w", len(ws), N, claimtrace.ErrInvalid)
	}
	var sum float64
	for i, x := range ws {
		if !(x > 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("ppi: weight %v of item %d: want a positive number: %w", x, i, claimtrace.ErrInvalid)
		}
		sum += x
	}
	for i, x := range ws {
		out[i] = x * float64(N) / sum
	}
	return out, nil
}

// unit reports whether x is in [0, 1].
func unit(x float64) bool { return x >= 0 && x <= 1 }

// moments returns the mean of xs and their population variance.
func moments(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs))
}

// sampleVariance is the unbiased variance of xs about their mean.
func sampleVariance(xs []float64, mean float64) float64 {
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return v / float64(len(xs)-1)
}

// tQuantile is the 97.5% quantile of Student's t with df degrees of
// freedom (Cornish–Fisher expansion to 1/df², within 1% of the exact
// value from df = 5: 2.55 for 2.571; 1.976 at df = 149), and z for df < 1.
// The variance is estimated from the n reviews, so the interval uses t
// with n − 1 degrees of freedom rather than the normal quantile: at
// n = 150 it is 0.8% wider, and brings the simulated coverage closer to
// 95%.
func tQuantile(df int) float64 {
	if df < 1 {
		return z
	}
	v := float64(df)
	z3, z5 := z*z*z, z*z*z*z*z
	return z + (z3+z)/(4*v) + (5*z5+16*z3+3*z)/(96*v*v)
}
