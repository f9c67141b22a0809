package judge

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
)

// SourceJudge is what Evaluate needs from a judge: verdicts for all claims
// citing one source, in order. The Offline judge implements it, and so will
// the LLM judges.
type SourceJudge interface {
	JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error)
}

// Confusion counts pairs by gold label (outer key) and predicted label.
type Confusion map[claimtrace.Label]map[claimtrace.Label]int

// Add counts one pair.
func (c Confusion) Add(gold, pred claimtrace.Label) {
	row := c[gold]
	if row == nil {
		row = make(map[claimtrace.Label]int)
		c[gold] = row
	}
	row[pred]++
}

// Scores are the agreement figures of a judge on a set of pairs.
// Balanced accuracy is the mean recall over the gold classes present;
// macro-F1 is the mean F1 over the same classes. Unknown verdicts count as
// wrong: they lower recall and accuracy and are visible in the confusion.
type Scores struct {
	N                int       `json:"n"`
	Accuracy         float64   `json:"accuracy"`
	BalancedAccuracy float64   `json:"balanced_accuracy"`
	MacroF1          float64   `json:"macro_f1"`
	Confusion        Confusion `json:"confusion"`
	// Rationale counts how often the judge's evidence quote overlaps a
	// sentence the annotators marked (SciFact-layout rationales); nil when
	// no pair has one.
	Rationale *RationaleScores `json:"rationale,omitempty"`
	// Contradicted is the precision of the contradicted verdicts as given
	// (before Collapse), with its interval; nil when none was given.
	Contradicted *ContradictedScores `json:"contradicted,omitempty"`
}

// RationaleScores measure evidence location against annotated rationales.
type RationaleScores struct {
	// Pairs have a rationale; Quoted of them got an evidence quote; Hits of
	// those quotes overlap a rationale sentence.
	Pairs  int `json:"pairs"`
	Quoted int `json:"quoted"`
	Hits   int `json:"hits"`
	// Rate is Hits / Quoted.
	Rate float64 `json:"rate"`
}

// ClassScores are one label's precision, recall and F1 as a predicted
// class.
type ClassScores struct {
	Gold, Predicted, Correct int
	Precision, Recall, F1    float64
}

// Class returns the figures of label l in s's confusion matrix.
func (s Scores) Class(l claimtrace.Label) ClassScores {
	var c ClassScores
	for gold, row := range s.Confusion {
		for pred, n := range row {
			if gold == l {
				c.Gold += n
			}
			if pred == l {
				c.Predicted += n
			}
			if gold == l && pred == l {
				c.Correct += n
			}
		}
	}
	if c.Predicted > 0 {
		c.Precision = float64(c.Correct) / float64(c.Predicted)
	}
	if c.Gold > 0 {
		c.Recall = float64(c.Correct) / float64(c.Gold)
	}
	if c.Precision+c.Recall > 0 {
		c.F1 = 2 * c.Precision * c.Recall / (c.Precision + c.Recall)
	}
	return c
}

// Evaluation is the result of Evaluate: scores over all pairs and per
// dataset ("attributionbench", "wice", …) and per component dataset
// ("attributionbench/ExpertQA"). Its JSON form is the `judge eval --json`
// contract: {n, accuracy, balanced_accuracy, macro_f1, confusion, by_source}.
type Evaluation struct {
	Scores
	BySource map[string]Scores `json:"by_source"`
}

// Outcome is one judged pair.
type Outcome struct {
	Pair    labels.Pair
	Verdict claimtrace.Verdict
	// Predicted is the verdict's label mapped onto the labels its dataset
	// uses (see Collapse); it is what the scores count.
	Predicted claimtrace.Label
}

// EvalOptions tune Evaluate.
type EvalOptions struct {
	// PartialIsSupported maps a partial verdict to supported on datasets
	// whose gold labels have no partial class (binary datasets); otherwise
	// partial counts as unsupported. The offline judge's calibration says
	// which (Calibration.PartialIsSupported).
	PartialIsSupported bool
	// Concurrency bounds sources judged at once (default GOMAXPROCS).
	Concurrency int
}

// LabelSpace is the set of labels a dataset's gold labels use beyond
// supported and unsupported.
type LabelSpace struct {
	Partial, Contradicted bool
}

// SpaceOf returns the label space of each dataset in pairs.
func SpaceOf(pairs []labels.Pair) map[string]LabelSpace {
	m := make(map[string]LabelSpace)
	for _, p := range pairs {
		s := m[p.Dataset]
		s.Partial = s.Partial || p.Label == claimtrace.Partial
		s.Contradicted = s.Contradicted || p.Label == claimtrace.Contradicted
		m[p.Dataset] = s
	}
	return m
}

// Collapse maps a predicted label onto a dataset's label space:
// contradicted becomes unsupported where the gold labels do not separate
// the two (WiCE's not_supported, AttributionBench's not attributable), and
// partial becomes supported or unsupported on binary datasets. Unknown
// stays unknown.
func Collapse(pred claimtrace.Label, space LabelSpace, partialIsSupported bool) claimtrace.Label {
	switch {
	case pred == claimtrace.Contradicted && !space.Contradicted:
		return claimtrace.Unsupported
	case pred == claimtrace.Partial && !space.Partial && partialIsSupported:
		return claimtrace.Supported
	case pred == claimtrace.Partial && !space.Partial:
		return claimtrace.Unsupported
	}
	return pred
}

// Evaluate judges every pair and scores the verdicts against the gold
// labels. Pairs sharing one evidence text are judged in one JudgeSource
// call. A judge error aborts the evaluation.
func Evaluate(ctx context.Context, j SourceJudge, pairs []labels.Pair, opt EvalOptions) (Evaluation, []Outcome, error) {
	groups := groupByEvidence(pairs)
	verdicts := make([]claimtrace.Verdict, len(pairs))
	g, gctx := errgroup.WithContext(ctx)
	limit := opt.Concurrency
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(limit)
	for _, idx := range groups {
		if gctx.Err() != nil {
			break // cancelled, or a group failed: judge no more
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			claims := make([]string, len(idx))
			for k, i := range idx {
				claims[k] = pairs[i].Claim
			}
			vs, err := j.JudgeSource(gctx, pairs[idx[0]].Evidence, claims)
			if err != nil {
				p := pairs[idx[0]]
				return fmt.Errorf("judge %s line %d: %w", p.Dataset, p.Line, err)
			}
			if len(vs) != len(idx) {
				return fmt.Errorf("judge returned %d verdicts for %d claims: %w", len(vs), len(idx), claimtrace.ErrInvalid)
			}
			for k, i := range idx {
				verdicts[i] = vs[k]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Evaluation{}, nil, err
	}
	if err := ctx.Err(); err != nil {
		return Evaluation{}, nil, err
	}
	spaces := SpaceOf(pairs)
	out := make([]Outcome, len(pairs))
	for i, p := range pairs {
		out[i] = Outcome{Pair: p, Verdict: verdicts[i], Predicted: Collapse(verdicts[i].Label, spaces[p.Dataset], opt.PartialIsSupported)}
	}
	return Summarize(out), out, nil
}

// Summarize scores outcomes overall, per dataset and per component dataset.
func Summarize(out []Outcome) Evaluation {
	all := make(Confusion)
	by := make(map[string]Confusion)
	add := func(key string, gold, pred claimtrace.Label) {
		c := by[key]
		if c == nil {
			c = make(Confusion)
			by[key] = c
		}
		c.Add(gold, pred)
	}
	for _, o := range out {
		all.Add(o.Pair.Label, o.Predicted)
		add(o.Pair.Dataset, o.Pair.Label, o.Predicted)
		if o.Pair.Subset != "" {
			add(o.Pair.Dataset+"/"+o.Pair.Subset, o.Pair.Label, o.Predicted)
		}
	}
	ev := Evaluation{Scores: ScoreConfusion(all), BySource: make(map[string]Scores)}
	for k, c := range by {
		ev.BySource[k] = ScoreConfusion(c)
	}
	// Contradicted verdicts as given, overall and per dataset.
	spaces := SpaceOf(pairsOf(out))
	for i := range out {
		o := &out[i]
		if o.Verdict.Label != claimtrace.Contradicted {
			continue
		}
		right := contradictedRight(o, spaces[o.Pair.Dataset])
		if ev.Contradicted == nil {
			ev.Contradicted = &ContradictedScores{}
		}
		ev.Contradicted.add(right)
		s := ev.BySource[o.Pair.Dataset]
		if s.Contradicted == nil {
			s.Contradicted = &ContradictedScores{}
		}
		s.Contradicted.add(right)
		ev.BySource[o.Pair.Dataset] = s
	}
	// Rationale hits, overall and per dataset.
	rat := make(map[string]*RationaleScores)
	count := func(key string, o *Outcome) {
		r := rat[key]
		if r == nil {
			r = &RationaleScores{}
			rat[key] = r
		}
		r.Pairs++
		if o.Verdict.Evidence == "" {
			return
		}
		r.Quoted++
		if quoteInRationale(o.Pair, o.Verdict.Evidence) {
			r.Hits++
		}
	}
	for i := range out {
		if o := &out[i]; len(o.Pair.Rationale) > 0 {
			count("", o)
			count(o.Pair.Dataset, o)
		}
	}
	for k, r := range rat {
		if r.Quoted > 0 {
			r.Rate = float64(r.Hits) / float64(r.Quoted)
		}
		if k == "" {
			ev.Rationale = r
			continue
		}
		s := ev.BySource[k]
		s.Rationale = r
		ev.BySource[k] = s
	}
	return ev
}

func pairsOf(out []Outcome) []labels.Pair {
	ps := make([]labels.Pair, len(out))
	for i := range out {
		ps[i] = out[i].Pair
	}
	return ps
}

// quoteInRationale reports whether the quote (a substring of the pair's
// evidence, found at its first occurrence) overlaps a rationale span.
func quoteInRationale(p labels.Pair, quote string) bool {
	i := strings.Index(p.Evidence, quote)
	if i < 0 {
		return false
	}
	for _, r := range p.Rationale {
		if i < r.End && r.Start < i+len(quote) {
			return true
		}
	}
	return false
}

func groupByEvidence(pairs []labels.Pair) [][]int {
	pos := make(map[string]int)
	var groups [][]int
	for i, p := range pairs {
		g, ok := pos[p.Evidence]
		if !ok {
			g = len(groups)
			pos[p.Evidence] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// classes indexes the labels for the array-based metric code shared by
// ScoreConfusion and Calibrate.
var classes = [...]claimtrace.Label{claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown}

const nClasses = len(classes)

// Indices into classes.
const (
	iSup = iota
	iPar
	iUns
	iCon
	iUnk
)

func classIndex(l claimtrace.Label) int {
	for i, c := range classes {
		if c == l {
			return i
		}
	}
	return -1
}

// matrix is a confusion matrix over classes: [gold][predicted].
type matrix [nClasses][nClasses]int

// ScoreConfusion computes the figures of a confusion matrix. Labels other
// than the five verdict labels are ignored.
func ScoreConfusion(c Confusion) Scores {
	var m matrix
	for gold, row := range c {
		gi := classIndex(gold)
		for pred, n := range row {
			if pi := classIndex(pred); gi >= 0 && pi >= 0 && n > 0 {
				m[gi][pi] += n
			}
		}
	}
	clean := make(Confusion)
	for gi, row := range m {
		for pi, n := range row {
			if n > 0 {
				if clean[classes[gi]] == nil {
					clean[classes[gi]] = make(map[claimtrace.Label]int)
				}
				clean[classes[gi]][classes[pi]] = n
			}
		}
	}
	n, acc, bal, f1 := m.scores()
	return Scores{N: n, Accuracy: acc, BalancedAccuracy: bal, MacroF1: f1, Confusion: clean}
}

// scores returns n, accuracy, balanced accuracy and macro-F1, the last two
// over the gold classes present.
func (m *matrix) scores() (n int, acc, bal, f1 float64) {
	var diag, present int
	var predTotal [nClasses]int
	for g := range nClasses {
		for p := range nClasses {
			predTotal[p] += m[g][p]
		}
	}
	for g := range nClasses {
		gold := 0
		for p := range nClasses {
			gold += m[g][p]
		}
		n += gold
		diag += m[g][g]
		if gold == 0 {
			continue
		}
		present++
		recall := float64(m[g][g]) / float64(gold)
		bal += recall
		if m[g][g] > 0 {
			precision := float64(m[g][g]) / float64(predTotal[g])
			f1 += 2 * precision * recall / (precision + recall)
		}
	}
	if n == 0 {
		return 0, 0, 0, 0
	}
	return n, float64(diag) / float64(n), bal / float64(present), f1 / float64(present)
}

// SourceNames returns the keys of BySource in order, for printing.
func (e Evaluation) SourceNames() []string {
	names := make([]string, 0, len(e.BySource))
	for k := range e.BySource {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
