package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
)

// Metric is a per-report figure whose mean over reports is a headline
// (macro) metric. Value is nil when the figure is undefined for a report
// (a report citing nothing has no precision); such reports are skipped by
// the mean, as summary.json does.
type Metric struct {
	Name  string
	Value func(*eval.Result) *float64
}

// Metric names, as in summary.json.
const (
	MetricPrecision = "precision"
	MetricRecall    = "recall"
	MetricF1        = "f1"
	MetricMatchRate = "match_rate"
	MetricFactual   = "factual_accuracy"
	MetricPCov      = "pcov"
	MetricPSnd      = "psnd"
)

// Metrics returns the macro metrics that get confidence intervals, in
// table order: citation precision, recall and F1, cited-statement match
// rate, non-cited factual accuracy, PCov and PSnd.
func Metrics() []Metric {
	return []Metric{
		{MetricPrecision, func(r *eval.Result) *float64 { return r.Citation.Precision }},
		{MetricRecall, func(r *eval.Result) *float64 { v := r.Citation.Recall; return &v }},
		{MetricF1, func(r *eval.Result) *float64 { return r.Citation.F1 }},
		{MetricMatchRate, func(r *eval.Result) *float64 {
			if r.Cited == nil {
				return nil
			}
			return r.Cited.MatchRate
		}},
		{MetricFactual, func(r *eval.Result) *float64 {
			if r.NonCited == nil {
				return nil
			}
			return r.NonCited.Accuracy
		}},
		{MetricPCov, func(r *eval.Result) *float64 {
			if r.AAR == nil {
				return nil
			}
			return r.AAR.PCov
		}},
		{MetricPSnd, func(r *eval.Result) *float64 {
			if r.AAR == nil {
				return nil
			}
			return r.AAR.PSnd
		}},
	}
}

// BootstrapOptions configure the percentile bootstrap. Zero fields take
// the defaults: 2000 resamples, a 95% interval. The seed makes the
// intervals reproducible: equal inputs and seed give equal intervals.
type BootstrapOptions struct {
	Resamples int
	Level     float64
	Seed      uint64
}

// Default bootstrap settings.
const (
	DefaultResamples = 2000
	DefaultLevel     = 0.95
	DefaultSeed      = 20250601
)

func (o BootstrapOptions) withDefaults() (BootstrapOptions, error) {
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Resamples < 1 {
		return o, fmt.Errorf("bootstrap: %d resamples: want at least 1: %w", o.Resamples, claimtrace.ErrInvalid)
	}
	if !(o.Level > 0 && o.Level < 1) {
		return o, fmt.Errorf("bootstrap: level %v: want a value between 0 and 1: %w", o.Level, claimtrace.ErrInvalid)
	}
	return o, nil
}

// Interval is a metric's macro mean over reports with its percentile
// bootstrap confidence interval.
type Interval struct {
	Metric string `json:"metric"`
	// Value is the mean over the reports where the metric is defined.
	Value *float64 `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	Level float64  `json:"level"`
	// N is the number of reports where the metric is defined.
	N int `json:"n"`
	// Resamples counts the resamples whose mean was defined (a resample
	// can draw only reports without a value).
	Resamples int `json:"resamples"`
}

// Intervals resamples the reports with replacement and returns, for each
// metric, the mean and the percentile interval of the resampled means.
// Reports, not values, are resampled (one draw serves every metric), so a
// resample reflects how many reports define each metric.
func Intervals(reports []*eval.Result, metrics []Metric, opt BootstrapOptions) ([]Interval, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	n := len(reports)
	vals := make([][]float64, len(metrics)) // NaN: undefined
	out := make([]Interval, len(metrics))
	for m, met := range metrics {
		vals[m] = make([]float64, n)
		var sum float64
		var k int
		for i, r := range reports {
			vals[m][i] = math.NaN()
			if v := met.Value(r); v != nil && !math.IsNaN(*v) {
				vals[m][i] = *v
				sum += *v
				k++
			}
		}
		out[m] = Interval{Metric: met.Name, Level: opt.Level, N: k}
		if k > 0 {
			out[m].Value = ptr(sum / float64(k))
		}
	}
	if n == 0 {
		return out, nil
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	means := make([][]float64, len(metrics))
	for m := range means {
		means[m] = make([]float64, 0, opt.Resamples)
	}
	sums := make([]float64, len(metrics))
	counts := make([]int, len(metrics))
	for range opt.Resamples {
		clear(sums)
		clear(counts)
		for range n {
			i := rng.IntN(n)
			for m := range metrics {
				if v := vals[m][i]; !math.IsNaN(v) {
					sums[m] += v
					counts[m]++
				}
			}
		}
		for m := range metrics {
			if counts[m] > 0 {
				means[m] = append(means[m], sums[m]/float64(counts[m]))
			}
		}
	}
	for m := range metrics {
		out[m].Resamples = len(means[m])
		out[m].Lo, out[m].Hi = percentiles(means[m], opt.Level)
	}
	return out, nil
}

// percentiles returns the (1−level)/2 and (1+level)/2 quantiles of xs
// (linear interpolation between order statistics), nil when xs is empty.
func percentiles(xs []float64, level float64) (lo, hi *float64) {
	if len(xs) == 0 {
		return nil, nil
	}
	slices.Sort(xs)
	a := (1 - level) / 2
	return ptr(quantile(xs, a)), ptr(quantile(xs, 1-a))
}

// quantile is the p-quantile of sorted xs, interpolating linearly between
// the order statistics at (len−1)·p (Hyndman and Fan's type 7, the default
// of R and NumPy).
func quantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

func ptr(v float64) *float64 { return &v }

// Difference is a paired comparison of one metric between runs A and B on
// the tasks where both define it.
type Difference struct {
	Metric string `json:"metric"`
	// Tasks is the number of tasks both runs scored with the metric defined.
	Tasks int `json:"tasks"`
	// A and B are the runs' means on those tasks; Diff is A − B, with its
	// percentile bootstrap interval.
	A    *float64 `json:"a"`
	B    *float64 `json:"b"`
	Diff *float64 `json:"diff"`
	Lo   *float64 `json:"lo"`
	Hi   *float64 `json:"hi"`
	// AWins is the share of resamples where A's mean exceeds B's; Ties
	// the share where they are equal.
	AWins     *float64 `json:"a_wins"`
	Ties      *float64 `json:"ties"`
	Resamples int      `json:"resamples"`
}

// Comparison is the paired bootstrap of two runs.
type Comparison struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	Level float64 `json:"level"`
	// Common is the number of tasks both runs scored; OnlyA and OnlyB
	// count the tasks only one of them scored (left out).
	Common  int          `json:"common_tasks"`
	OnlyA   int          `json:"only_a"`
	OnlyB   int          `json:"only_b"`
	Metrics []Difference `json:"metrics"`
}

// Compare runs a paired bootstrap over the tasks both runs scored: each
// resample draws tasks with replacement and compares the two runs on the
// same tasks, so task difficulty cancels out. For A.2.4-style judge swaps
// (one system, two judges) and A.2.5-style budget ablations.
func Compare(a, b *Run, metrics []Metric, opt BootstrapOptions) (*Comparison, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	byTask := map[string]*eval.Result{}
	for _, r := range b.Reports {
		byTask[r.Task] = r
	}
	var ra, rb []*eval.Result
	for _, r := range a.Reports {
		if other, ok := byTask[r.Task]; ok {
			ra = append(ra, r)
			rb = append(rb, other)
		}
	}
	c := &Comparison{A: a.Name, B: b.Name, Level: opt.Level, Common: len(ra), OnlyA: len(a.Reports) - len(ra), OnlyB: len(b.Reports) - len(ra)}
	for _, met := range metrics {
		var da, db []float64
		for i := range ra {
			x, y := met.Value(ra[i]), met.Value(rb[i])
			if x == nil || y == nil || math.IsNaN(*x) || math.IsNaN(*y) {
				continue
			}
			da = append(da, *x)
			db = append(db, *y)
		}
		c.Metrics = append(c.Metrics, pairedBootstrap(met.Name, da, db, opt))
	}
	return c, nil
}

func pairedBootstrap(name string, a, b []float64, opt BootstrapOptions) Difference {
	d := Difference{Metric: name, Tasks: len(a)}
	n := len(a)
	if n == 0 {
		return d
	}
	var sa, sb float64
	for i := range a {
		sa += a[i]
		sb += b[i]
	}
	d.A, d.B, d.Diff = ptr(sa/float64(n)), ptr(sb/float64(n)), ptr((sa-sb)/float64(n))
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	diffs := make([]float64, opt.Resamples)
	var wins, ties int
	for k := range diffs {
		var s float64
		for range n {
			i := rng.IntN(n)
			s += a[i] - b[i]
		}
		diffs[k] = s / float64(n)
		// Sums of equal per-task differences can differ in the last bits;
		// a difference within rounding is a tie.
		switch {
		case math.Abs(diffs[k]) <= 1e-12:
			ties++
		case diffs[k] > 0:
			wins++
		}
	}
	d.Resamples = opt.Resamples
	d.AWins = ptr(float64(wins) / float64(opt.Resamples))
	d.Ties = ptr(float64(ties) / float64(opt.Resamples))
	d.Lo, d.Hi = percentiles(diffs, opt.Level)
	return d
}
