package ppi

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// runs is how many seeded runs the coverage simulations make (the
// issue's 1,000 by default; more for a tighter coverage figure).
var runs = flag.Int("runs", 1000, "seeded runs of each coverage simulation")

// population is one simulated run: the humans' labels and the judge's on
// all of its items, and the items' weights (nil: equal).
type population struct {
	human, judge, weights []float64
}

// truth is the rate the humans would give on all the items.
func (p population) truth() float64 {
	var num, den float64
	for i, y := range p.human {
		w := 1.0
		if p.weights != nil {
			w = p.weights[i]
		}
		num += w * y
		den += w
	}
	return num / den
}

// review draws n items uniformly and returns the data the estimator sees.
func (p population) review(n int, seed uint64) Data {
	d := Data{Judge: p.judge, Weights: p.weights}
	for _, i := range Draw(len(p.human), n, seed) {
		d.Reviews = append(d.Reviews, Review{Item: i, Value: p.human[i]})
	}
	return d
}

// biasedJudge makes a population of N items whose human rate is about
// rate and whose judge says 1 with probability sens on a human 1 and fpr
// on a human 0: its raw rate is biased by fpr·(1−rate) − (1−sens)·rate.
func biasedJudge(r *rand.Rand, N int, rate, sens, fpr float64) population {
	p := population{human: make([]float64, N), judge: make([]float64, N)}
	for i := range N {
		if r.Float64() < rate {
			p.human[i] = 1
			if r.Float64() < sens {
				p.judge[i] = 1
			}
		} else if r.Float64() < fpr {
			p.judge[i] = 1
		}
	}
	return p
}

// coverage runs the simulation: runs populations made by mk, n reviews
// each, and returns how often each interval covers the truth, their mean
// widths, and the mean error of the estimate and of the judge's raw rate.
type simResult struct {
	coverage, humanCoverage, width, humanWidth, bias, judgeBias float64
}

func simulate(t *testing.T, runs, n int, mk func(r *rand.Rand) population) simResult {
	t.Helper()
	var s simResult
	for run := range runs {
		r := rand.New(rand.NewPCG(uint64(run), 20))
		p := mk(r)
		e, err := Mean(p.review(n, uint64(run)))
		if err != nil {
			t.Fatal(err)
		}
		truth := p.truth()
		if e.CI.Contains(truth) {
			s.coverage++
		}
		if e.HumanCI.Contains(truth) {
			s.humanCoverage++
		}
		s.width += e.CI.Width()
		s.humanWidth += e.HumanCI.Width()
		s.bias += *e.Estimate - truth
		s.judgeBias += e.Judge - truth
	}
	k := float64(runs)
	return simResult{s.coverage / k, s.humanCoverage / k, s.width / k, s.humanWidth / k, s.bias / k, s.judgeBias / k}
}

// TestCoverageInformativeJudge: a judge that calls 95% of the humans'
// supported pairs supported and 30% of the others: its raw rate is about
// 0.08 too high. Over 1,000 seeded runs of 2,000 pairs with 150 reviews,
// the PPI interval covers the true rate at least 93% of the time, is
// narrower than the humans-only interval, and the estimate is unbiased.
func TestCoverageInformativeJudge(t *testing.T) {
	s := simulate(t, *runs, 150, func(r *rand.Rand) population { return biasedJudge(r, 2000, 0.62, 0.95, 0.3) })
	t.Logf("coverage %.3f (humans only %.3f), mean width %.4f (humans only %.4f, ratio %.2f), mean error %.4f, judge's raw error %.4f",
		s.coverage, s.humanCoverage, s.width, s.humanWidth, s.width/s.humanWidth, s.bias, s.judgeBias)
	if s.coverage < 0.93 || s.humanCoverage < 0.93 {
		t.Errorf("coverage %.3f, humans only %.3f: want both ≥ 0.93", s.coverage, s.humanCoverage)
	}
	if s.width >= 0.9*s.humanWidth {
		t.Errorf("mean width %.4f, humans only %.4f: an informative judge should narrow the interval by 10%% or more", s.width, s.humanWidth)
	}
	if math.Abs(s.bias) > 0.004 {
		t.Errorf("mean error of the estimate %.4f: want |·| ≤ 0.004 (unbiased)", s.bias)
	}
	if s.judgeBias < 0.06 {
		t.Errorf("judge's raw error %.4f: the simulated judge should be biased upwards by about 0.08", s.judgeBias)
	}
}

// TestCoverageUninformativeJudge: a judge whose labels are independent of
// the humans' gets λ ≈ 0, so its interval is about the humans-only one
// (PPI++'s power tuning: never much worse than the reviews alone).
func TestCoverageUninformativeJudge(t *testing.T) {
	s := simulate(t, *runs, 150, func(r *rand.Rand) population {
		p := biasedJudge(r, 2000, 0.4, 0.7, 0.7) // says 1 for 70% of pairs, whatever they are
		return p
	})
	t.Logf("coverage %.3f (humans only %.3f), mean width %.4f (humans only %.4f)", s.coverage, s.humanCoverage, s.width, s.humanWidth)
	if s.coverage < 0.93 {
		t.Errorf("coverage %.3f: want ≥ 0.93", s.coverage)
	}
	if s.width > 1.05*s.humanWidth {
		t.Errorf("mean width %.4f, humans only %.4f: an uninformative judge must not widen the interval by more than 5%%", s.width, s.humanWidth)
	}
}

// TestCoverageMacro: a macro mean over 40 reports of 5 to 120 pairs each,
// every report with its own rate and the judge erring more on some; each
// pair weighs 1/(its report's pairs). 200 reviews over about 2,500 pairs.
func TestCoverageMacro(t *testing.T) {
	s := simulate(t, *runs, 200, func(r *rand.Rand) population {
		var p population
		for range 40 {
			k := 5 + r.IntN(116)
			rate, fpr := 0.3+0.6*r.Float64(), 0.4*r.Float64()
			q := biasedJudge(r, k, rate, 0.85, fpr)
			p.human = append(p.human, q.human...)
			p.judge = append(p.judge, q.judge...)
			for range k {
				p.weights = append(p.weights, 1/float64(k))
			}
		}
		return p
	})
	t.Logf("coverage %.3f (humans only %.3f), mean width %.4f (humans only %.4f), mean error %.4f, judge's raw error %.4f",
		s.coverage, s.humanCoverage, s.width, s.humanWidth, s.bias, s.judgeBias)
	if s.coverage < 0.93 || s.humanCoverage < 0.93 {
		t.Errorf("coverage %.3f, humans only %.3f: want both ≥ 0.93", s.coverage, s.humanCoverage)
	}
	if s.width >= s.humanWidth {
		t.Errorf("mean width %.4f, humans only %.4f: want narrower", s.width, s.humanWidth)
	}
}

// TestPartialValues: human and judge values of 0.5 (partial, as the match
// rate counts it) are estimated like any other.
func TestPartialValues(t *testing.T) {
	s := simulate(t, 500, 150, func(r *rand.Rand) population {
		p := biasedJudge(r, 1500, 0.5, 0.9, 0.2)
		for i := range p.human {
			if r.Float64() < 0.2 {
				p.human[i] = 0.5
			}
			if p.judge[i] == 1 && r.Float64() < 0.3 {
				p.judge[i] = 0.5
			}
		}
		return p
	})
	if s.coverage < 0.93 {
		t.Errorf("coverage %.3f: want ≥ 0.93", s.coverage)
	}
}

// TestVarianceAgainstBootstrap checks the closed-form variance two ways on
// one population of 3,000 pairs: against the bootstrap of one sample of
// 300 reviews (resampled with replacement, λ refitted each time, so it
// estimates the variance without the finite-population correction), and
// against the spread of the estimate over 2,000 fresh samples of the same
// population (with it).
func TestVarianceAgainstBootstrap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	p := biasedJudge(r, 3000, 0.55, 0.85, 0.3)
	const n = 300
	d := p.review(n, 99)
	e, err := Mean(d)
	if err != nil {
		t.Fatal(err)
	}
	closed := math.Sqrt(e.Variance / n) // no finite-population correction

	boot := make([]float64, 2000)
	meanH, _ := moments(d.Judge)
	for b := range boot {
		// A bootstrap sample repeats items, which Mean refuses; the
		// estimator is recomputed here: the judge's mean over all items
		// stays, λ and the residual mean are the resample's.
		var g, h []float64
		for range n {
			rv := d.Reviews[r.IntN(n)]
			g = append(g, rv.Value)
			h = append(h, d.Judge[rv.Item])
		}
		lambda := refit(g, h, d.Judge)
		var res float64
		for k := range g {
			res += g[k] - lambda*h[k]
		}
		boot[b] = lambda*meanH + res/n
	}
	_, bv := moments(boot)
	bootSE := math.Sqrt(bv)
	if ratio := bootSE / closed; ratio < 0.9 || ratio > 1.1 {
		t.Errorf("bootstrap SE %.5f, closed form %.5f (ratio %.3f): want within 10%%", bootSE, closed, ratio)
	}

	var ests, ses []float64
	for seed := range 2000 {
		e, err := Mean(p.review(n, uint64(1000+seed)))
		if err != nil {
			t.Fatal(err)
		}
		ests = append(ests, *e.Estimate)
		ses = append(ses, math.Sqrt((1-float64(n)/3000)*e.Variance/n))
	}
	_, v := moments(ests)
	meanSE, _ := moments(ses)
	if ratio := meanSE / math.Sqrt(v); ratio < 0.9 || ratio > 1.1 {
		t.Errorf("closed-form SE %.5f on average, spread over samples %.5f (ratio %.3f): want within 10%%", meanSE, math.Sqrt(v), ratio)
	}
	t.Logf("SE: closed form %.5f, bootstrap %.5f; with the correction: closed form %.5f, over 2,000 samples %.5f", closed, bootSE, meanSE, math.Sqrt(v))
}

// refit is λ on a bootstrap resample: Cov(g, h) over the resample, Var(h)
// over all items, clipped to [0, 1].
func refit(g, h, judge []float64) float64 {
	_, varH := moments(judge)
	mg, _ := moments(g)
	mh, _ := moments(h)
	var cov float64
	for k := range g {
		cov += (g[k] - mg) * (h[k] - mh)
	}
	cov /= float64(len(g) - 1)
	return min(max(cov/varH, 0), 1)
}

func TestNoReviews(t *testing.T) {
	e, err := Mean(Data{Judge: []float64{1, 1, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Judge != 0.75 || e.Estimate != nil || e.CI != nil || e.HumanCI != nil || e.NReviews != 0 || e.N != 4 {
		t.Errorf("Mean without reviews = %+v: want the judge's rate 0.75 and no estimate", e)
	}
	b, _ := json.Marshal(e)
	if string(b) != `{"judge":0.75,"estimate":null,"ci":null,"human_ci":null,"n_reviews":0,"n":4}` {
		t.Errorf("JSON = %s", b)
	}
	if got := e.ReviewsNeeded(0.05); got != 4 {
		t.Errorf("ReviewsNeeded = %d: with 4 items, reviewing all 4 is the most it can take", got)
	}
}

// TestAllReviewsAgree: 40 reviews all agreeing with a judge that says
// supported for every pair. The sample shows no variance, so the normal
// interval would be a point; the interval is the exact bound instead,
// below the judge's rate (humans can only take supported pairs away here).
func TestAllReviewsAgree(t *testing.T) {
	judge := make([]float64, 1000)
	for i := range judge {
		judge[i] = 1
	}
	d := Data{Judge: judge}
	for _, i := range Draw(1000, 40, 3) {
		d.Reviews = append(d.Reviews, Review{Item: i, Value: 1})
	}
	e, err := Mean(d)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Floored || *e.Estimate != 1 || e.CI.Hi != 1 {
		t.Fatalf("estimate %v, CI %+v, floored %v: want 1 with the exact bound", *e.Estimate, *e.CI, e.Floored)
	}
	// At most 1 − 0.025^(1/40) = 8.8% of the pairs may be unsupported.
	if lo := e.CI.Lo; lo < 0.90 || lo > 0.93 {
		t.Errorf("CI low end %.4f: want about 1 − 0.088 (Clopper–Pearson, 0 of 40)", lo)
	}
	if e.HumanCI.Width() == 0 {
		t.Errorf("humans-only interval %+v has no width", *e.HumanCI)
	}
}

// TestOneReview: a single review cannot estimate a variance; the interval
// is the exact bound, nearly everything the unreviewed items allow.
func TestOneReview(t *testing.T) {
	d := Data{Judge: []float64{1, 0, 1, 1, 0, 1, 0, 1, 1, 1}, Reviews: []Review{{Item: 2, Value: 0}}}
	e, err := Mean(d)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Floored || e.Lambda != 1 {
		t.Errorf("floored %v, λ %v: want the bound and plain PPI", e.Floored, e.Lambda)
	}
	// Item 2 is 0, the nine others anywhere in [0, 1]: the rate is in
	// [0, 0.9], and with 1 review the bound allows nearly all of it.
	if e.CI.Lo < 0 || e.CI.Hi > 0.9+1e-12 || e.CI.Width() < 0.7 {
		t.Errorf("CI %+v: want a wide interval within [0, 0.9]", *e.CI)
	}
}

// TestEveryItemReviewed: n = N leaves nothing to estimate: the rate is the
// reviews' own, with an interval of no width.
func TestEveryItemReviewed(t *testing.T) {
	d := Data{Judge: []float64{1, 1, 0, 0, 1}}
	human := []float64{1, 0, 0, 1, 1}
	for i, y := range human {
		d.Reviews = append(d.Reviews, Review{Item: i, Value: y})
	}
	e, err := Mean(d)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(*e.Estimate-0.6) > 1e-12 || e.CI.Width() > 1e-12 || math.Abs(e.CI.Lo-0.6) > 1e-12 || e.HumanCI.Width() > 1e-12 {
		t.Errorf("estimate %v, CI %+v, humans %+v: want exactly 0.6", *e.Estimate, *e.CI, *e.HumanCI)
	}
}

// TestConstantJudge: a judge that says the same for every item tells
// nothing: λ = 0 and the estimate is the reviews' mean.
func TestConstantJudge(t *testing.T) {
	judge := make([]float64, 200)
	d := Data{Judge: judge}
	for k, i := range Draw(200, 30, 5) {
		d.Reviews = append(d.Reviews, Review{Item: i, Value: float64(k % 3 % 2)})
	}
	e, err := Mean(d)
	if err != nil {
		t.Fatal(err)
	}
	if e.Lambda != 0 || *e.Estimate != *e.Human || *e.CI != *e.HumanCI {
		t.Errorf("λ %v, estimate %v vs humans %v, CI %+v vs %+v: want the humans-only figures", e.Lambda, *e.Estimate, *e.Human, *e.CI, *e.HumanCI)
	}
}

func TestMeanBadInput(t *testing.T) {
	j := []float64{0, 1, 1}
	for name, d := range map[string]Data{
		"no items":          {},
		"item out of range": {Judge: j, Reviews: []Review{{Item: 3, Value: 1}}},
		"negative item":     {Judge: j, Reviews: []Review{{Item: -1, Value: 1}}},
		"reviewed twice":    {Judge: j, Reviews: []Review{{Item: 1, Value: 1}, {Item: 1, Value: 0}}},
		"review above 1":    {Judge: j, Reviews: []Review{{Item: 0, Value: 2}}},
		"review NaN":        {Judge: j, Reviews: []Review{{Item: 0, Value: math.NaN()}}},
		"judge below 0":     {Judge: []float64{0, -0.1}},
		"judge NaN":         {Judge: []float64{math.NaN()}},
		"weights length":    {Judge: j, Weights: []float64{1, 1}},
		"weight zero":       {Judge: j, Weights: []float64{1, 0, 1}},
		"weight NaN":        {Judge: j, Weights: []float64{1, math.NaN(), 1}},
		"weight infinite":   {Judge: j, Weights: []float64{1, math.Inf(1), 1}},
	} {
		if _, err := Mean(d); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

func TestReviewsFor(t *testing.T) {
	for _, c := range []struct {
		name     string
		h, v     float64
		N, want  int
		describe string
	}{
		{"humans only at p=0.5, large N", 0.05, 0.25, 1 << 30, 385, "1.96²·0.25/0.05² = 384.1"},
		{"finite population", 0.05, 0.25, 1000, 278, "384.1/(1 + 384.1/1000) = 277.5"},
		{"a judge that explains most of it", 0.05, 0.05, 1 << 30, 77, "1.96²·0.05/0.05² = 76.8"},
		{"no variance: the exact bound's n", 0.05, 0, 1 << 30, 36, "ln 0.025 / ln 0.9 = 35.01"},
		{"fewer items than that", 0.05, 0.25, 20, 20, "all of them"},
		{"no items", 0.05, 0.25, 0, 0, ""},
		{"no half-width", 0, 0.25, 100, 0, ""},
	} {
		if got := ReviewsFor(c.h, c.v, c.N); got != c.want {
			t.Errorf("%s: ReviewsFor(%v, %v, %d) = %d, want %d (%s)", c.name, c.h, c.v, c.N, got, c.want, c.describe)
		}
	}
}

// TestReviewsForDelivers: at the planned n, the normal interval with that
// variance is within ±h, and one review fewer it is not (when the normal
// interval decides n).
func TestReviewsForDelivers(t *testing.T) {
	for _, v := range []float64{0.02, 0.1, 0.25} {
		for _, N := range []int{500, 5000, 1 << 20} {
			n := ReviewsFor(0.04, v, N)
			half := func(n int) float64 { return z * math.Sqrt((1-float64(n)/float64(N))*v/float64(n)) }
			if half(n) > 0.04 {
				t.Errorf("v %v, N %d: n = %d gives ±%.4f", v, N, n, half(n))
			}
			if n > 47 && half(n-1) <= 0.04 { // 47: the exact bound's n for ±0.04
				t.Errorf("v %v, N %d: n − 1 = %d already gives ±%.4f", v, N, n-1, half(n-1))
			}
		}
	}
}

// TestPlannedReviewsReach: reviewing as many pairs as the estimate without
// reviews plans gives an interval of about ±0.05 (the plan is the
// humans-only one, so PPI with an informative judge does better).
func TestPlannedReviewsReach(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	p := biasedJudge(r, 4000, 0.5, 0.9, 0.2)
	e0, err := Mean(Data{Judge: p.judge})
	if err != nil {
		t.Fatal(err)
	}
	n := e0.ReviewsNeeded(0.05)
	var worst float64
	for seed := range 50 {
		e, err := Mean(p.review(n, uint64(seed)))
		if err != nil {
			t.Fatal(err)
		}
		worst = max(worst, e.HalfWidth())
	}
	if worst > 0.05 {
		t.Errorf("planned %d reviews; worst half-width over 50 samples %.4f: want ≤ 0.05", n, worst)
	}
}

func TestDraw(t *testing.T) {
	a, b := Draw(100, 30, 1), Draw(100, 30, 1)
	seen := map[int]bool{}
	for k, i := range a {
		if i < 0 || i >= 100 || seen[i] {
			t.Fatalf("Draw(100, 30, 1)[%d] = %d: out of range or repeated", k, i)
		}
		seen[i] = true
		if b[k] != i {
			t.Fatalf("two draws with seed 1 differ at %d", k)
		}
	}
	if c := Draw(100, 30, 2); equal(a, c) {
		t.Error("seeds 1 and 2 drew the same sample")
	}
	if got := Draw(5, 9, 1); len(got) != 5 {
		t.Errorf("Draw(5, 9) has %d items, want all 5", len(got))
	}
	if got := Draw(0, 3, 1); len(got) != 0 {
		t.Errorf("Draw(0, 3) = %v", got)
	}
	// Prefix: a smaller sample with the same seed is the start of a larger.
	if small := Draw(100, 10, 1); !equal(small, a[:10]) {
		t.Errorf("Draw(100, 10, 1) = %v, not the start of Draw(100, 30, 1) %v", small, a[:10])
	}
}

// TestDrawUniform: over 20,000 seeds each of 10 items is first about as
// often (χ² with 9 degrees of freedom below 27.9, p = 0.001).
func TestDrawUniform(t *testing.T) {
	var count [10]float64
	const seeds = 20000
	for s := range seeds {
		count[Draw(10, 3, uint64(s))[0]]++
	}
	var chi float64
	for _, c := range count {
		chi += (c - seeds/10) * (c - seeds/10) / (seeds / 10)
	}
	if chi > 27.9 {
		t.Errorf("first items %v: χ² = %.1f, not uniform", count, chi)
	}
}

// TestPCGReference checks the generator against PCG-XSL-RR 128/64 written
// out independently from its definition (state' = state·M + C mod 2^128,
// output rotr(hi ^ lo, hi >> 58)), with 128-bit arithmetic on big-endian
// byte strings.
func TestPCGReference(t *testing.T) {
	mul := [16]byte{0x23, 0x60, 0xED, 0x05, 0x1F, 0xC6, 0x5D, 0xA4, 0x43, 0x85, 0xDF, 0x64, 0x9F, 0xCC, 0xF6, 0x45}
	inc := [16]byte{0x58, 0x51, 0xF4, 0x2D, 0x4C, 0x95, 0x7F, 0x2D, 0x14, 0x05, 0x7B, 0x7E, 0xF7, 0x67, 0x81, 0x4F}
	var state [16]byte
	binary.BigEndian.PutUint64(state[8:], 12345)
	step := func() uint64 {
		state = add128(mul128(state, mul), inc)
		hi, lo := binary.BigEndian.Uint64(state[:8]), binary.BigEndian.Uint64(state[8:])
		x, rot := hi^lo, hi>>58
		return x>>rot | x<<((64-rot)%64)
	}
	step() // newPCG advances once
	g := newPCG(12345)
	for k := range 1000 {
		if want, got := step(), g.next(); want != got {
			t.Fatalf("output %d: %#x, reference %#x", k, got, want)
		}
	}
}

// mul128 and add128 are schoolbook arithmetic mod 2^128 on bytes.
func mul128(a, b [16]byte) [16]byte {
	var acc [32]uint64
	for i := 15; i >= 0; i-- {
		for j := 15; j >= 0; j-- {
			pos := (15 - i) + (15 - j)
			acc[pos] += uint64(a[i]) * uint64(b[j])
		}
	}
	var out [16]byte
	var carry uint64
	for pos := range 16 {
		v := acc[pos] + carry
		out[15-pos] = byte(v)
		carry = v >> 8
	}
	return out
}

func add128(a, b [16]byte) [16]byte {
	var out [16]byte
	var carry uint16
	for i := 15; i >= 0; i-- {
		v := uint16(a[i]) + uint16(b[i]) + carry
		out[i] = byte(v)
		carry = v >> 8
	}
	return out
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestIntervalJSON(t *testing.T) {
	b, err := json.Marshal(Interval{0.25, 0.5})
	if err != nil || string(b) != "[0.25,0.5]" {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var i Interval
	if err := json.Unmarshal([]byte("[0.1, 0.2]"), &i); err != nil || i != (Interval{0.1, 0.2}) {
		t.Errorf("Unmarshal = %+v, %v", i, err)
	}
	if err := json.Unmarshal([]byte(`{"lo": 1}`), &i); err == nil {
		t.Error("Unmarshal of an object: no error")
	}
}

// FuzzMean: whatever the values, the estimate and both intervals stay in
// [0, 1] and each interval holds its estimate.
func FuzzMean(f *testing.F) {
	f.Add([]byte{0, 255, 128, 3, 200, 17, 90}, uint8(3), uint64(1), false)
	f.Add([]byte{255, 255, 255, 255}, uint8(4), uint64(2), true)
	f.Fuzz(func(t *testing.T, raw []byte, n uint8, seed uint64, weighted bool) {
		if len(raw) < 2 {
			return
		}
		N := len(raw) / 2
		d := Data{Judge: make([]float64, N)}
		for i := range N {
			d.Judge[i] = float64(raw[i]) / 255
			if weighted {
				d.Weights = append(d.Weights, 1+float64(raw[N+i]%7))
			}
		}
		for _, i := range Draw(N, int(n), seed) {
			d.Reviews = append(d.Reviews, Review{Item: i, Value: float64(raw[N+i]%3) / 2})
		}
		e, err := Mean(d)
		if err != nil {
			t.Fatal(err)
		}
		if !unit(e.Judge) {
			t.Fatalf("judge rate %v", e.Judge)
		}
		if len(d.Reviews) == 0 {
			return
		}
		for _, c := range []struct {
			est float64
			ci  Interval
		}{{*e.Estimate, *e.CI}, {*e.Human, *e.HumanCI}} {
			if !unit(c.est) || !unit(c.ci.Lo) || !unit(c.ci.Hi) || c.ci.Lo > c.est+1e-12 || c.est > c.ci.Hi+1e-12 {
				t.Fatalf("estimate %v, interval %+v", c.est, c.ci)
			}
		}
	})
}
