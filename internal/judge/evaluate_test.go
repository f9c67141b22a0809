package judge

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
)

const (
	sup = claimtrace.Supported
	par = claimtrace.Partial
	uns = claimtrace.Unsupported
	con = claimtrace.Contradicted
	unk = claimtrace.Unknown
)

// TestScoreConfusion checks the arithmetic on a matrix computed by hand:
//
//	gold \ pred   sup  par  uns  unk
//	sup             3    1    1
//	par             1    2    1
//	uns                  1    2    1
//
// n = 13, correct 7 → accuracy 7/13. Recalls 3/5, 2/4, 2/4 → balanced
// accuracy 1.6/3. Precisions 3/4, 2/4, 2/4 → F1 2/3, 1/2, 1/2 → macro-F1
// (2/3+1/2+1/2)/3 = 5/9. Unknown is not a gold class, so it does not enter
// the averages, but its count lowers uns recall.
func TestScoreConfusion(t *testing.T) {
	c := Confusion{
		sup: {sup: 3, par: 1, uns: 1},
		par: {sup: 1, par: 2, uns: 1},
		uns: {par: 1, uns: 2, unk: 1},
	}
	got := ScoreConfusion(c)
	want := Scores{N: 13, Accuracy: 7.0 / 13, BalancedAccuracy: 1.6 / 3, MacroF1: 5.0 / 9, Confusion: c}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("ScoreConfusion mismatch (-want +got):\n%s", diff)
	}
}

func TestScoreConfusionEdges(t *testing.T) {
	tests := []struct {
		name string
		c    Confusion
		want Scores
	}{
		{"empty", Confusion{}, Scores{Confusion: Confusion{}}},
		{
			// Binary, always "supported": accuracy 0.5 on balanced data but
			// balanced accuracy 0.5 and macro-F1 (2/3 + 0)/2 = 1/3.
			"constant predictor", Confusion{sup: {sup: 5}, uns: {sup: 5}},
			Scores{N: 10, Accuracy: 0.5, BalancedAccuracy: 0.5, MacroF1: 1.0 / 3, Confusion: Confusion{sup: {sup: 5}, uns: {sup: 5}}},
		},
		{
			// Unbalanced: accuracy 0.9 looks good, balanced accuracy does not.
			"majority class", Confusion{sup: {sup: 9}, uns: {sup: 1}},
			Scores{N: 10, Accuracy: 0.9, BalancedAccuracy: 0.5, MacroF1: (2 * 0.9 / 1.9) / 2, Confusion: Confusion{sup: {sup: 9}, uns: {sup: 1}}},
		},
		{
			"all unknown", Confusion{sup: {unk: 4}},
			Scores{N: 4, Confusion: Confusion{sup: {unk: 4}}},
		},
		{
			"foreign labels and zero counts dropped", Confusion{sup: {sup: 2, "maybe": 3, uns: 0}, "other": {sup: 1}},
			Scores{N: 2, Accuracy: 1, BalancedAccuracy: 1, MacroF1: 1, Confusion: Confusion{sup: {sup: 2}}},
		},
	}
	for _, tt := range tests {
		got := ScoreConfusion(tt.c)
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: ScoreConfusion mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestCollapse(t *testing.T) {
	binary := LabelSpace{}
	ternary := LabelSpace{Partial: true}
	full := LabelSpace{Partial: true, Contradicted: true}
	tests := []struct {
		pred    claimtrace.Label
		space   LabelSpace
		partial bool
		want    claimtrace.Label
	}{
		{sup, binary, false, sup},
		{par, binary, false, uns},
		{par, binary, true, sup},
		{con, binary, true, uns},
		{unk, binary, true, unk},
		{par, ternary, false, par},
		{con, ternary, false, uns},
		{con, full, false, con},
		{par, full, true, par},
	}
	for _, tt := range tests {
		if got := Collapse(tt.pred, tt.space, tt.partial); got != tt.want {
			t.Errorf("Collapse(%s, %+v, partialIsSupported=%v) = %s, want %s", tt.pred, tt.space, tt.partial, got, tt.want)
		}
	}
}

// scriptedJudge answers from a table keyed by claim and records calls.
type scriptedJudge struct {
	answers map[string]claimtrace.Label
	calls   chan int // number of claims per call
}

func (s *scriptedJudge) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	s.calls <- len(claims)
	out := make([]claimtrace.Verdict, len(claims))
	for i, c := range claims {
		l, ok := s.answers[c]
		if !ok {
			return nil, errors.New("unexpected claim " + c)
		}
		out[i] = claimtrace.Verdict{Label: l}
	}
	return out, nil
}

func TestEvaluate(t *testing.T) {
	pairs := []labels.Pair{
		// A binary dataset with two component subsets; two pairs share one
		// evidence text and must be judged in one call.
		{Dataset: "ab", Subset: "x", Claim: "a1", Evidence: "E1", Label: sup},
		{Dataset: "ab", Subset: "x", Claim: "a2", Evidence: "E1", Label: uns},
		{Dataset: "ab", Subset: "y", Claim: "a3", Evidence: "E2", Label: sup},
		{Dataset: "ab", Subset: "y", Claim: "a4", Evidence: "E3", Label: uns},
		// A three-way dataset.
		{Dataset: "w", Claim: "w1", Evidence: "E4", Label: par},
		{Dataset: "w", Claim: "w2", Evidence: "E5", Label: uns},
		{Dataset: "w", Claim: "w3", Evidence: "E6", Label: sup},
	}
	j := &scriptedJudge{
		answers: map[string]claimtrace.Label{
			"a1": par, // binary: partial → supported (PartialIsSupported) ✓
			"a2": con, // contradicted → unsupported ✓
			"a3": unk, // unknown stays unknown ✗
			"a4": sup, // ✗
			"w1": par, // ✓
			"w2": con, // contradicted → unsupported ✓
			"w3": par, // ✗
		},
		calls: make(chan int, len(pairs)),
	}
	ev, outcomes, err := Evaluate(context.Background(), j, pairs, EvalOptions{PartialIsSupported: true, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	close(j.calls)
	var sizes []int
	for n := range j.calls {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	if diff := cmp.Diff([]int{1, 1, 1, 1, 1, 2}, sizes); diff != "" {
		t.Errorf("claims per JudgeSource call (-want +got):\n%s", diff)
	}
	var preds []claimtrace.Label
	for _, o := range outcomes {
		preds = append(preds, o.Predicted)
	}
	if diff := cmp.Diff([]claimtrace.Label{sup, uns, unk, sup, par, uns, par}, preds); diff != "" {
		t.Errorf("collapsed predictions (-want +got):\n%s", diff)
	}
	wantConf := Confusion{sup: {sup: 1, unk: 1, par: 1}, uns: {uns: 2, sup: 1}, par: {par: 1}}
	if diff := cmp.Diff(wantConf, ev.Confusion); diff != "" {
		t.Errorf("overall confusion (-want +got):\n%s", diff)
	}
	if ev.N != 7 || math.Abs(ev.Accuracy-4.0/7) > 1e-12 {
		t.Errorf("overall n=%d accuracy=%v, want 7 and 4/7", ev.N, ev.Accuracy)
	}
	var names []string
	for k := range ev.BySource {
		names = append(names, k)
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"ab", "ab/x", "ab/y", "w"}, names); diff != "" {
		t.Errorf("by_source keys (-want +got):\n%s", diff)
	}
	if got := ev.BySource["ab/x"]; got.Accuracy != 1 || got.N != 2 {
		t.Errorf("ab/x = %+v, want 2 pairs all correct", got)
	}
	if got := ev.BySource["w"]; math.Abs(got.Accuracy-2.0/3) > 1e-12 {
		t.Errorf("w accuracy = %v, want 2/3", got.Accuracy)
	}
}

func TestEvaluateJudgeError(t *testing.T) {
	j := &scriptedJudge{answers: map[string]claimtrace.Label{}, calls: make(chan int, 1)}
	_, _, err := Evaluate(context.Background(), j, []labels.Pair{{Dataset: "d", Line: 4, Claim: "c", Evidence: "e", Label: sup}}, EvalOptions{})
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("Evaluate with a failing judge: err = %v, want one naming the pair's line", err)
	}
}

// TestEvaluationJSON pins the `judge eval --json` contract of docs/design.md.
func TestEvaluationJSON(t *testing.T) {
	ev := Summarize([]Outcome{
		{Pair: labels.Pair{Dataset: "wice", Label: sup}, Predicted: sup},
		{Pair: labels.Pair{Dataset: "wice", Label: par}, Predicted: uns},
	})
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"accuracy", "balanced_accuracy", "by_source", "confusion", "macro_f1", "n"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("top-level JSON keys (-want +got):\n%s", diff)
	}
	var by map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["by_source"], &by); err != nil {
		t.Fatal(err)
	}
	keys = keys[:0]
	for k := range by["wice"] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if diff := cmp.Diff([]string{"accuracy", "balanced_accuracy", "confusion", "macro_f1", "n"}, keys); diff != "" {
		t.Errorf("by_source entry keys (-want +got):\n%s", diff)
	}
	if got := string(top["confusion"]); got != `{"partial":{"unsupported":1},"supported":{"supported":1}}` {
		t.Errorf("confusion JSON = %s", got)
	}
}
