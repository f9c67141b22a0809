package judge

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

// Metrics Calibrate can maximize.
const (
	MetricMacroF1          = "macro_f1"
	MetricBalancedAccuracy = "balanced_accuracy"
)

// minSourceTerms is the smallest source (in distinct content words and
// numbers) the offline judge will judge. It is a floor for empty pages and
// stubs, not a fitted value.
const minSourceTerms = 2

// The search grid. Thresholds run over [0, 1] in steps of 0.02; the other
// parameters over a few values each. Every combination is tried.
var (
	gridWindow        = []int{2, 3, 4, 5}
	gridBigram        = []float64{0, 0.5, 1}
	gridEntity        = []float64{0, 0.5, 1}
	gridDocument      = []float64{0, 0.25, 0.5}
	gridNumberPenalty = []float64{0, 0.25, 0.5, 0.75}
	gridNegation      = []float64{0, 0.25, 0.5}
	gridContradiction = []float64{0.6, 0.7, 0.8, 0.9, 1} // ascending; none fits: 2, cues never contradict
)

// The contradiction threshold is not searched for the metric: macro-F1
// gains little from a rare class and loses as much from a wrong
// contradicted as it gains from a right one, so it would switch the cues
// off whatever they are worth. It is the lowest threshold at which
// contradicted is right (the gold label is contradicted, or unsupported
// where the dataset does not separate them) on at least
// DefaultMinContradictedPrecision of the calibration pairs it is said of,
// and is said of at least minContradictedPredictions of them: a precision
// read from a handful of pairs is noise (5 of 8 has a 95% interval of
// 0.31–0.86), so a threshold said of fewer pairs is not chosen. The
// precision must hold in every dataset where contradicted is said at
// least minDatasetPredictions times, not only pooled: one set of easy
// contradictions (a minimal-pair suite) must not carry another where the
// cues are mostly wrong (Citation-Integrity's citing sentences).
const (
	DefaultMinContradictedPrecision = 0.6
	minContradictedPredictions      = 10
	minDatasetPredictions           = 5
)

const thresholdSteps = 50 // thresholds k/50, k = 0…50

// CalibrateOptions tune Calibrate.
type CalibrateOptions struct {
	// Metric is maximized: MetricMacroF1 (default) or
	// MetricBalancedAccuracy, averaged over datasets so that each dataset
	// weighs the same whatever its size.
	Metric string
	// Concurrency bounds the window sizes analysed and searched at once
	// (default GOMAXPROCS).
	Concurrency int
	// MinContradictedPrecision is the precision of contradicted the
	// contradiction threshold must reach on the pairs (default
	// DefaultMinContradictedPrecision).
	MinContradictedPrecision float64
	// ContradictionOnly names datasets used only to choose the
	// contradiction threshold, not in the metric the weights and support
	// thresholds maximize: a set with refutations from another domain
	// (Citation-Integrity's biomedical citing sentences) whose support
	// thresholds would not carry over.
	ContradictionOnly []string
}

// Calibrate fits the offline judge's weights and thresholds to labelled
// pairs by exhaustive grid search. Each pair is analysed once (passage
// ranking and features); every grid point then re-scores the stored
// features. Each dataset is scored in its own label space (see Collapse),
// and the objective is the mean of the chosen metric over datasets. Ties
// keep the first grid point, so the result is deterministic.
func Calibrate(ctx context.Context, pairs []labels.Pair, opt CalibrateOptions) (Calibration, error) {
	metric := opt.Metric
	if metric == "" {
		metric = MetricMacroF1
	}
	if metric != MetricMacroF1 && metric != MetricBalancedAccuracy {
		return Calibration{}, fmt.Errorf("calibrate: metric %q: want %s or %s: %w", metric, MetricMacroF1, MetricBalancedAccuracy, claimtrace.ErrInvalid)
	}
	if len(pairs) == 0 {
		return Calibration{}, fmt.Errorf("calibrate: no labelled pairs: %w", claimtrace.ErrInvalid)
	}
	for _, p := range pairs {
		if i := classIndex(p.Label); i < 0 || i == iUnk {
			return Calibration{}, fmt.Errorf("calibrate: %s line %d: gold label %q: %w", p.Dataset, p.Line, p.Label, claimtrace.ErrInvalid)
		}
	}
	if n := len(SpaceOf(pairs)); n > 0 {
		left := 0
		for name := range SpaceOf(pairs) {
			if !slices.Contains(opt.ContradictionOnly, name) {
				left++
			}
		}
		if left == 0 {
			return Calibration{}, fmt.Errorf("calibrate: every dataset is for the contradiction threshold only: %w", claimtrace.ErrInvalid)
		}
	}
	// Each window size is analysed and searched on its own; the best
	// window wins, the smaller one on a tie, as a sequential search would.
	fits := make([]*fitter, len(gridWindow))
	bests := make([]Calibration, len(gridWindow))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, concurrency(opt.Concurrency)))
	for i, w := range gridWindow {
		g.Go(func() error {
			feats, err := analyzePairs(gctx, pairs, w, 1)
			if err != nil {
				return err
			}
			fits[i] = newFitter(pairs, metric, opt.ContradictionOnly)
			fits[i].feats = feats
			fits[i].minPrecision = opt.MinContradictedPrecision
			if fits[i].minPrecision <= 0 {
				fits[i].minPrecision = DefaultMinContradictedPrecision
			}
			fits[i].search(w, &bests[i])
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Calibration{}, err
	}
	bi, points := 0, 0
	for i, f := range fits {
		points += f.points
		if f.bestObjective > fits[bi].bestObjective+1e-12 {
			bi = i
		}
	}
	best, f := bests[bi], fits[bi]
	best.Fit = &Fit{Split: string(labels.SplitAll), Metric: metric, Objective: f.bestObjective, Pairs: f.pairCounts(), Scores: f.bestScores, Grid: points,
		Contradicted: &ContradictedFit{MinPrecision: f.minPrecision, MinPredicted: minContradictedPredictions, Predicted: f.contraPredicted, Correct: f.contraCorrect}}
	if f.contraPredicted > 0 {
		lo, hi := Wilson(f.contraCorrect, f.contraPredicted)
		best.Fit.Contradicted.CI = &[2]float64{lo, hi}
	}
	for name, d := range f.contraByDataset {
		if best.Fit.Contradicted.Datasets == nil {
			best.Fit.Contradicted.Datasets = make(map[string]ContradictedCount)
		}
		lo, hi := Wilson(d[1], d[0])
		best.Fit.Contradicted.Datasets[name] = ContradictedCount{Predicted: d[0], Correct: d[1], CI: [2]float64{lo, hi}}
	}
	return best, nil
}

func concurrency(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// analyzePairs computes the features of every pair, indexing each distinct
// evidence text once.
func analyzePairs(ctx context.Context, pairs []labels.Pair, window, workers int) ([]features, error) {
	j := newOffline(Calibration{Window: window, MinSourceTerms: minSourceTerms})
	feats := make([]features, len(pairs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrency(workers))
	for _, idx := range groupByEvidence(pairs) {
		g.Go(func() error {
			ix := newSourceIndex(passage.NewIndex(pairs[idx[0]].Evidence, j.opt))
			for _, i := range idx {
				if err := gctx.Err(); err != nil {
					return fmt.Errorf("calibrate: %w", err)
				}
				feats[i] = j.analyze(ix, pairs[i].Claim)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return feats, nil
}

// fitter holds the data of one grid search.
type fitter struct {
	pairs    []labels.Pair
	feats    []features
	metric   string
	datasets []string
	ds       []int // dataset index of each pair
	space    []LabelSpace
	gold     []int // class index of each gold label
	// inObjective marks the datasets the metric averages (objectiveSets
	// of them); the others only choose the contradiction threshold.
	inObjective   []bool
	objectiveSets int

	points        int
	bestObjective float64
	bestScores    map[string]float64

	minPrecision                   float64
	contraPredicted, contraCorrect int // at the chosen contradiction threshold
	// contraByDataset is, per dataset, how often contradicted is said and
	// right at the chosen threshold.
	contraByDataset map[string][2]int
}

// contradictionThreshold returns the lowest threshold of
// gridContradiction at which contradicted reaches the precision floor on
// the pairs, or 2 (never) when none does.
func (f *fitter) contradictionThreshold() float64 {
	for _, tc := range gridContradiction {
		cal := Calibration{Contradiction: tc}
		predicted, correct := 0, 0
		byDataset := make([][2]int, len(f.datasets))
		for i := range f.feats {
			ft := &f.feats[i]
			if ft.unknown != "" || len(ft.cands) == 0 || !cal.contradicted(ft) {
				continue
			}
			predicted++
			byDataset[f.ds[i]][0]++
			want := iUns
			if f.space[f.ds[i]].Contradicted {
				want = iCon
			}
			if f.gold[i] == want {
				correct++
				byDataset[f.ds[i]][1]++
			}
		}
		ok := predicted >= minContradictedPredictions && float64(correct) >= f.minPrecision*float64(predicted)-1e-9
		for _, d := range byDataset {
			if d[0] >= minDatasetPredictions && float64(d[1]) < f.minPrecision*float64(d[0])-1e-9 {
				ok = false
			}
		}
		if ok {
			f.contraPredicted, f.contraCorrect = predicted, correct
			f.contraByDataset = make(map[string][2]int)
			for k, d := range byDataset {
				if d[0] > 0 {
					f.contraByDataset[f.datasets[k]] = d
				}
			}
			return tc
		}
	}
	return 2
}

func newFitter(pairs []labels.Pair, metric string, contradictionOnly []string) *fitter {
	f := &fitter{pairs: pairs, metric: metric, ds: make([]int, len(pairs)), gold: make([]int, len(pairs)), bestObjective: -1}
	spaces := SpaceOf(pairs)
	for name := range spaces {
		f.datasets = append(f.datasets, name)
	}
	sort.Strings(f.datasets)
	pos := make(map[string]int)
	for i, name := range f.datasets {
		pos[name] = i
		f.space = append(f.space, spaces[name])
		in := true
		for _, c := range contradictionOnly {
			in = in && c != name
		}
		f.inObjective = append(f.inObjective, in)
		if in {
			f.objectiveSets++
		}
	}
	for i, p := range pairs {
		f.ds[i] = pos[p.Dataset]
		f.gold[i] = classIndex(p.Label)
	}
	return f
}

func (f *fitter) pairCounts() map[string]int {
	m := make(map[string]int)
	for _, p := range f.pairs {
		m[p.Dataset]++
	}
	return m
}

// tally counts, for one weight setting, what the thresholds do not change:
// per dataset and gold class, the pairs predicted unknown or contradicted,
// and the pairs whose score reaches each threshold step.
type tally struct {
	unknown, contra [nClasses]int
	total           [nClasses]int
	reach           [nClasses][thresholdSteps + 1]int
}

// search tries the grid for one window size, updating best.
func (f *fitter) search(window int, best *Calibration) {
	tallies := make([]tally, len(f.datasets))
	scores := make(map[string]float64)
	tc := f.contradictionThreshold()
	for _, wb := range gridBigram {
		for _, we := range gridEntity {
			for _, wd := range gridDocument {
				for _, np := range gridNumberPenalty {
					for _, ng := range gridNegation {
						{
							cal := Calibration{
								Version:         CalibrationVersion,
								Window:          window,
								Contradiction:   tc,
								Weights:         Weights{Coverage: 1, Bigram: wb, Entity: we, Document: wd},
								NumberPenalty:   np,
								NegationPenalty: ng,
								MinSourceTerms:  minSourceTerms,
							}
							f.tallyAll(&cal, tallies)
							f.sweep(&cal, tallies, best, scores)
						}
					}
				}
			}
		}
	}
}

// tallyAll fills tallies for the weights in cal.
func (f *fitter) tallyAll(cal *Calibration, tallies []tally) {
	for i := range tallies {
		tallies[i] = tally{}
	}
	for i := range f.feats {
		t := &tallies[f.ds[i]]
		g := f.gold[i]
		t.total[g]++
		ft := &f.feats[i]
		if ft.unknown != "" {
			t.unknown[g]++
			continue
		}
		bi, s := cal.best(ft)
		if bi >= 0 && cal.contradicted(ft) {
			t.contra[g]++
			continue
		}
		// reach[k] counts scores ≥ k/steps; fill the top step here and
		// accumulate downwards below.
		k := int(s*thresholdSteps + 1e-9)
		t.reach[g][k]++
	}
	for d := range tallies {
		for g := range nClasses {
			for k := thresholdSteps - 1; k >= 0; k-- {
				tallies[d].reach[g][k] += tallies[d].reach[g][k+1]
			}
		}
	}
}

// sweep tries every threshold pair (and the binary mapping of partial)
// for the weights in cal and keeps the best in best. A three-way dataset's
// metric depends on both thresholds; a binary one's only on the supported
// threshold (partial → unsupported) or the partial one (partial →
// supported), so those are computed once per threshold.
func (f *fitter) sweep(cal *Calibration, tallies []tally, best *Calibration, scores map[string]float64) {
	const steps = thresholdSteps + 1
	type table struct {
		both         [steps][steps]float64 // three-way: [a][b]
		bySup, byPar [steps]float64        // binary: partial → unsupported / supported
	}
	tabs := make([]table, len(f.datasets))
	for d := range f.datasets {
		t, sp, tab := &tallies[d], f.space[d], &tabs[d]
		if sp.Partial {
			for a := range steps {
				for b := a; b < steps; b++ {
					tab.both[a][b] = f.measure(t.confusion(sp, a, b, false))
				}
			}
			continue
		}
		for k := range steps {
			tab.bySup[k] = f.measure(t.confusion(sp, k, k, false))
			tab.byPar[k] = f.measure(t.confusion(sp, k, steps-1, true))
		}
	}
	per := make([]float64, len(f.datasets))
	for a := range steps { // partial threshold
		for b := a; b < steps; b++ { // supported threshold
			for _, partialIsSupported := range []bool{false, true} {
				f.points++
				sum := 0.0
				for d := range f.datasets {
					if !f.inObjective[d] {
						continue
					}
					switch {
					case f.space[d].Partial:
						per[d] = tabs[d].both[a][b]
					case partialIsSupported:
						per[d] = tabs[d].byPar[a]
					default:
						per[d] = tabs[d].bySup[b]
					}
					sum += per[d]
				}
				obj := sum / float64(max(1, f.objectiveSets))
				if obj > f.bestObjective+1e-12 {
					f.bestObjective = obj
					*best = *cal
					best.Partial = float64(a) / thresholdSteps
					best.Supported = float64(b) / thresholdSteps
					best.PartialIsSupported = partialIsSupported
					clear(scores)
					for d, name := range f.datasets {
						if f.inObjective[d] {
							scores[name] = per[d]
						}
					}
					f.bestScores = scores
				}
			}
		}
	}
}

// measure is the fitted metric of a confusion matrix.
func (f *fitter) measure(m matrix) float64 {
	_, _, bal, f1 := m.scores()
	if f.metric == MetricBalancedAccuracy {
		return bal
	}
	return f1
}

// confusion is the matrix predicted with partial threshold step a and
// supported threshold step b, collapsed to the dataset's label space.
func (t *tally) confusion(sp LabelSpace, a, b int, partialIsSupported bool) matrix {
	var m matrix
	for g := range nClasses {
		if t.total[g] == 0 {
			continue
		}
		rs, rp := t.reach[g][b], t.reach[g][a]-t.reach[g][b]
		m[g][iUnk] = t.unknown[g]
		if sp.Contradicted {
			m[g][iCon] = t.contra[g]
		} else {
			m[g][iUns] += t.contra[g]
		}
		switch {
		case sp.Partial:
			m[g][iSup] += rs
			m[g][iPar] += rp
		case partialIsSupported:
			m[g][iSup] += rs + rp
		default:
			m[g][iSup] += rs
			m[g][iUns] += rp
		}
		m[g][iUns] += t.total[g] - t.unknown[g] - t.contra[g] - t.reach[g][a]
	}
	return m
}
