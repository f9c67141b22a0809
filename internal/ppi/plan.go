package ppi

import (
	"math"
	"math/bits"
)

// ReviewsFor is the number of reviews, out of N items, that gives an
// interval of ±halfWidth when the residual's variance per item is
// variance: the smallest n with z·√((1 − n/N)·variance/n) ≤ halfWidth, and
// at least the n at which the exact bound for a sample with no variation
// is that narrow (about 3.7/(2·halfWidth): 36 for ±0.05), since a sample
// that happens to show none gets that bound. It is at most N (reviewing
// everything gives the rate exactly) and 0 when N is 0 or halfWidth is not
// positive.
func ReviewsFor(halfWidth, variance float64, N int) int {
	if N <= 0 || !(halfWidth > 0) {
		return 0
	}
	variance = max(variance, 0)
	e := halfWidth / z
	n := math.Ceil(variance / (e*e + variance/float64(N)))
	// The exact bound's width is at most u = 1 − 0.025^(1/n) of the
	// range; it reaches 2·halfWidth at n = ln 0.025 / ln(1 − 2·halfWidth).
	if 2*halfWidth < 1 {
		n = max(n, math.Ceil(math.Log((1-Level)/2)/math.Log1p(-2*halfWidth)))
	}
	return int(min(max(n, 1), float64(N)))
}

// Draw returns size distinct item indices out of N in a uniform random
// order fixed by seed: the sample to review, in the order to review it.
// Any prefix of it is itself a uniform sample, so reviews done in its order
// stay one however far they get. It is a partial Fisher–Yates shuffle on a
// PCG generator (O'Neill's PCG-XSL-RR 128/64, fixed here so that a seed
// draws the same sample on every platform and Go version). size is capped
// at N.
func Draw(N, size int, seed uint64) []int {
	size = min(max(size, 0), max(N, 0))
	perm := make([]int, N)
	for i := range perm {
		perm[i] = i
	}
	g := newPCG(seed)
	for i := range size {
		j := i + int(g.below(uint64(N-i)))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm[:size]
}

// pcg is PCG-XSL-RR 128/64.
type pcg struct{ hi, lo uint64 }

const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

func newPCG(seed uint64) *pcg {
	g := &pcg{hi: 0, lo: seed}
	g.next()
	return g
}

func (g *pcg) next() uint64 {
	// state = state × mul + inc, mod 2^128
	hi, lo := bits.Mul64(g.lo, pcgMulLo)
	hi += g.hi*pcgMulLo + g.lo*pcgMulHi
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	hi, _ = bits.Add64(hi, pcgIncHi, c)
	g.hi, g.lo = hi, lo
	return bits.RotateLeft64(hi^lo, -int(hi>>58))
}

// below returns a uniform value in [0, n) (n > 0), by Lemire's
// multiply-and-reject.
func (g *pcg) below(n uint64) uint64 {
	hi, lo := bits.Mul64(g.next(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.next(), n)
		}
	}
	return hi
}
