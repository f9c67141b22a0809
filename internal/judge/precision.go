package judge

import (
	"math"

	"github.com/claimtrace/claimtrace"
)

// ContradictedScores are how often a judge's contradicted verdicts are
// right: Right of Said, where right means the gold label is contradicted,
// or unsupported on a dataset whose gold labels do not separate the two.
// They count the verdicts as given, before Collapse maps contradicted onto
// unsupported for the dataset's scores, so that the precision the judge's
// threshold was chosen for can be checked on held-out sets of every kind.
type ContradictedScores struct {
	Said      int     `json:"said"`
	Right     int     `json:"right"`
	Precision float64 `json:"precision"`
	// CI is the 95% Wilson score interval of Precision.
	CI [2]float64 `json:"ci"`
}

func (c *ContradictedScores) add(right bool) {
	c.Said++
	if right {
		c.Right++
	}
	c.Precision = float64(c.Right) / float64(c.Said)
	c.CI[0], c.CI[1] = Wilson(c.Right, c.Said)
}

// contradictedRight reports whether a contradicted verdict is right for o.
func contradictedRight(o *Outcome, space LabelSpace) bool {
	return o.Pair.Label == claimtrace.Contradicted || !space.Contradicted && o.Pair.Label == claimtrace.Unsupported
}

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// Wilson returns the 95% Wilson score interval of a proportion of k
// successes in n trials; [0, 1] when n is 0. Unlike the normal
// approximation it stays inside [0, 1] and is usable for the small counts
// a rare label gives (7 of 11: [0.35, 0.85]).
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z95 * z95
	center := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z95 / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = max(0, center-half), min(1, center+half)
	if k == 0 {
		lo = 0 // exactly, not by rounding
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}
