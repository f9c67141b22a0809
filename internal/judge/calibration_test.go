package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
)

func TestDefaultCalibration(t *testing.T) {
	c, err := DefaultCalibration()
	if err != nil {
		t.Fatal(err)
	}
	if c.Fit == nil {
		t.Fatal("shipped calibration has no fit record: it must come from judge calibrate")
	}
	if c.Fit.Split != string(labels.SplitCalib) {
		t.Errorf("shipped calibration fitted on split %q, want %q (the test half is for reporting)", c.Fit.Split, labels.SplitCalib)
	}
	for _, ds := range []string{labels.AttributionBench, labels.WiCE} {
		if c.Fit.Pairs[ds] == 0 {
			t.Errorf("shipped calibration fitted without %s pairs: %v", ds, c.Fit.Pairs)
		}
	}
	if c.Fit.Command == "" || c.Fit.Grid == 0 {
		t.Errorf("fit record incomplete: %+v", *c.Fit)
	}
	if _, err := NewOffline(c); err != nil {
		t.Errorf("NewOffline(default) = %v", err)
	}
}

func TestCalibrationValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Calibration)
	}{
		{"version", func(c *Calibration) { c.Version = 99 }},
		{"supported above 1", func(c *Calibration) { c.Supported = 1.5 }},
		{"partial negative", func(c *Calibration) { c.Partial = -0.1 }},
		{"partial above supported", func(c *Calibration) { c.Partial, c.Supported = 0.8, 0.5 }},
		{"contradiction negative", func(c *Calibration) { c.Contradiction = -1 }},
		{"number penalty", func(c *Calibration) { c.NumberPenalty = 2 }},
		{"negative weight", func(c *Calibration) { c.Weights.Bigram = -1 }},
		{"zero weights", func(c *Calibration) { c.Weights = Weights{} }},
		{"document weight", func(c *Calibration) { c.Weights.Document = 1.2 }},
		{"window", func(c *Calibration) { c.Window = 0 }},
		{"min source terms", func(c *Calibration) { c.MinSourceTerms = -1 }},
	}
	if err := testCalibration().Validate(); err != nil {
		t.Fatalf("valid calibration: %v", err)
	}
	for _, tt := range tests {
		c := testCalibration()
		tt.change(&c)
		if err := c.Validate(); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("%s: Validate = %v, want ErrInvalid", tt.name, err)
		}
	}
}

func TestCalibrationFileRoundTrip(t *testing.T) {
	c := testCalibration()
	c.Fit = &Fit{Split: "calib", Metric: MetricMacroF1, Objective: 0.5, Pairs: map[string]int{"wice": 3}, Scores: map[string]float64{"wice": 0.5}, Grid: 7}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cal.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCalibration(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	if _, err := ParseCalibration([]byte(`{"version": 1, "surprise": true}`)); err == nil {
		t.Errorf("ParseCalibration accepted an unknown field")
	}
	if _, err := LoadCalibration(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Errorf("LoadCalibration of a missing file: nil error")
	}
}

// syntheticPairs builds labelled pairs whose support is lexical by
// construction: supported claims restate a source sentence, partial ones
// join a source sentence to an unrelated clause, unsupported ones are
// unrelated.
func syntheticPairs() []labels.Pair {
	facts := []string{
		"The Danube flows through ten countries before reaching the Black Sea",
		"Marie Curie received the Nobel Prize in Chemistry for discovering radium",
		"The Golden Gate Bridge was painted international orange to improve visibility",
		"Honeybees communicate the location of flowers through a waggle dance",
		"The Antikythera mechanism predicted eclipses using bronze gears",
		"Mount Kilimanjaro has three volcanic cones named Kibo Mawenzi and Shira",
		"Penicillin was discovered when mould contaminated a bacterial culture",
		"The Rosetta Stone carries one decree written in three scripts",
	}
	others := []string{
		"quarterly shipping rates for frozen seafood rose sharply",
		"the violin competition adopted blind auditions",
		"municipal tram tickets became valid on regional ferries",
		"a startup released an open keyboard firmware",
		"desert tortoises hibernate in shallow burrows",
		"the chess federation revised its rating formula",
		"orchard growers switched to drip irrigation",
		"the choir toured coastal cathedrals every summer",
	}
	var ps []labels.Pair
	for i, f := range facts {
		src := fmt.Sprintf("Archive page %d. %s. Visitors often ask about opening hours. The archive closes at noon on Fridays.", i, f)
		o := others[i]
		ps = append(ps,
			labels.Pair{Dataset: "binary", ID: fmt.Sprint("s", i), Claim: f + ".", Evidence: src, Label: claimtrace.Supported},
			labels.Pair{Dataset: "binary", ID: fmt.Sprint("u", i), Claim: "Officials said " + o + ".", Evidence: src, Label: claimtrace.Unsupported},
			labels.Pair{Dataset: "threeway", ID: fmt.Sprint("S", i), Claim: f + ".", Evidence: src, Label: claimtrace.Supported},
			labels.Pair{Dataset: "threeway", ID: fmt.Sprint("P", i), Claim: f + ", and " + o + ".", Evidence: src, Label: claimtrace.Partial},
			labels.Pair{Dataset: "threeway", ID: fmt.Sprint("U", i), Claim: "Reports say " + o + ".", Evidence: src, Label: claimtrace.Unsupported},
		)
	}
	return ps
}

func TestCalibrateSeparable(t *testing.T) {
	pairs := syntheticPairs()
	ctx := context.Background()
	cal, err := Calibrate(ctx, pairs, CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cal.Validate(); err != nil {
		t.Fatalf("Calibrate returned an invalid calibration: %v", err)
	}
	if cal.Fit.Objective != 1 {
		t.Errorf("objective on separable data = %v, want 1 (calibration %+v)", cal.Fit.Objective, cal)
	}
	if diff := cmp.Diff(map[string]int{"binary": 16, "threeway": 24}, cal.Fit.Pairs); diff != "" {
		t.Errorf("fit pair counts (-want +got):\n%s", diff)
	}
	// The figures Calibrate computes on its fast path must be what the
	// judge then scores on the same pairs.
	j, err := NewOffline(cal)
	if err != nil {
		t.Fatal(err)
	}
	ev, _, err := Evaluate(ctx, j, pairs, EvalOptions{PartialIsSupported: cal.PartialIsSupported})
	if err != nil {
		t.Fatal(err)
	}
	for ds, want := range cal.Fit.Scores {
		if got := ev.BySource[ds].MacroF1; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: Calibrate's macro-F1 %v, Evaluate's %v", ds, want, got)
		}
	}
}

func TestCalibrateErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Calibrate(ctx, nil, CalibrateOptions{}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("Calibrate(no pairs) = %v, want ErrInvalid", err)
	}
	if _, err := Calibrate(ctx, syntheticPairs(), CalibrateOptions{Metric: "accuracy"}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("Calibrate(metric accuracy) = %v, want ErrInvalid", err)
	}
	bad := []labels.Pair{{Dataset: "d", Line: 3, Claim: "c", Evidence: "e", Label: claimtrace.Unknown}}
	if _, err := Calibrate(ctx, bad, CalibrateOptions{}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("Calibrate(gold unknown) = %v, want ErrInvalid", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Calibrate(canceled, syntheticPairs(), CalibrateOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Calibrate(canceled) = %v, want context.Canceled", err)
	}
}

// TestOpenCalibration: the built-in names are the files shipped beside the
// package, "" is the default, anything else is a path, and a name that is
// neither says so.
func TestOpenCalibration(t *testing.T) {
	for _, name := range CalibrationNames() {
		got, err := OpenCalibration(name)
		if err != nil {
			t.Fatalf("OpenCalibration(%q): %v", name, err)
		}
		file := "calibration.json"
		if name != "default" {
			file = "calibration_" + name + ".json"
		}
		want, err := LoadCalibration(file)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("built-in %q differs from %s (-file +built-in):\n%s", name, file, diff)
		}
	}
	def, err := OpenCalibration("")
	if err != nil {
		t.Fatal(err)
	}
	citing, err := OpenCalibration("citing")
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(def, citing) {
		t.Error("the citing calibration is the default one")
	}
	if d, _ := DefaultCalibration(); !cmp.Equal(d, def) {
		t.Error(`OpenCalibration("") is not DefaultCalibration()`)
	}
	path := filepath.Join(t.TempDir(), "mine.json")
	data, _ := json.Marshal(citing)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := OpenCalibration(path); err != nil || !cmp.Equal(got, citing) {
		t.Errorf("OpenCalibration(file) = %+v, %v", got, err)
	}
	if _, err := OpenCalibration("biomed"); err == nil || !strings.Contains(err.Error(), "biomed") {
		t.Errorf("OpenCalibration(unknown name) error = %v, want one naming it", err)
	}
}
