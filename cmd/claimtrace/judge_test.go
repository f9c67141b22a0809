package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/judge"
)

var labelFixtures = filepath.Join("..", "..", "internal", "judge", "labels", "testdata")

// runCLI runs the command in-process (see cli) without any user config.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAIMTRACE_CONFIG", empty)
	return cli(t, args...)
}

func TestJudgeEvalJSON(t *testing.T) {
	out, errOut, code := runCLI(t, "judge", "eval",
		"--labels", filepath.Join(labelFixtures, "wice.jsonl"),
		"--labels", filepath.Join(labelFixtures, "attributionbench.jsonl"),
		"--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if diff := cmp.Diff([]string{"accuracy", "balanced_accuracy", "by_source", "confusion", "macro_f1", "n"}, keys); diff != "" {
		t.Errorf("JSON keys (-want +got):\n%s", diff)
	}
	var n int
	if err := json.Unmarshal(got["n"], &n); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if n != 5 {
		t.Errorf("n = %d, want 5 (3 WiCE + 2 AttributionBench pairs)", n)
	}
	var by map[string]json.RawMessage
	if err := json.Unmarshal(got["by_source"], &by); err != nil {
		t.Fatalf("decode: %v", err)
	}
	for _, k := range []string{"wice", "attributionbench", "attributionbench/ExpertQA", "attributionbench/AttributedQA"} {
		if _, ok := by[k]; !ok {
			t.Errorf("by_source lacks %q: %s", k, got["by_source"])
		}
	}
}

func TestJudgeEvalText(t *testing.T) {
	out, errOut, code := runCLI(t, "judge", "eval", "--labels", filepath.Join(labelFixtures, "plain.jsonl"), "--split", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"judge offline · split all · 6 pairs", "balanced acc.", "macro-F1", "confusion, all", "handmade", "plain"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJudgeCalibrateThenEval(t *testing.T) {
	cal := filepath.Join(t.TempDir(), "cal.json")
	labels := filepath.Join(labelFixtures, "plain.jsonl")
	_, errOut, code := runCLI(t, "judge", "calibrate", "--labels", labels, "--split", "all", "--out", cal)
	if code != 0 {
		t.Fatalf("calibrate exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "calibrated on 6 pairs (all split)") {
		t.Errorf("calibrate summary = %q", errOut)
	}
	out, errOut, code := runCLI(t, "judge", "eval", "--labels", labels, "--calibration", cal, "--json")
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"by_source"`) {
		t.Errorf("eval with the fitted calibration printed %s", out)
	}
}

func TestJudgeErrors(t *testing.T) {
	labels := filepath.Join(labelFixtures, "plain.jsonl")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"judge", "eval", "--labels", labels, "--judge", "openai:gpt-4o", "--prompts", "paper"}, `prompts "paper"`},
		{[]string{"judge", "eval", "--labels", labels, "--prompts", "reportbench"}, "--prompts reportbench needs a model judge"},
		{[]string{"judge", "eval", "--labels", labels, "--judge", "openai:gpt-4o", "--calibration", labels}, "--calibration applies to the offline judge"},
		{[]string{"judge", "eval"}, "at least one of the flags in the group [labels whole] is required"},
		{[]string{"judge", "eval", "--labels", labels, "--split", "train"}, `split "train"`},
		{[]string{"judge", "eval", "--labels", filepath.Join(labelFixtures, "missing.jsonl")}, "missing.jsonl"},
		{[]string{"judge", "eval", "--labels", labels, "--calibration", labels}, "calibration"},
		{[]string{"judge", "calibrate", "--labels", labels, "--split", "all", "--metric", "accuracy"}, `metric "accuracy"`},
	}
	for _, tt := range tests {
		_, errOut, code := runCLI(t, tt.args...)
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want failure mentioning %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestJudgeEvalSciFact reads a SciFact-layout set (claims beside
// corpus.jsonl) whole, whatever --split says, and reports the rationale
// figures.
func TestJudgeEvalSciFact(t *testing.T) {
	claims := filepath.Join(labelFixtures, "scifact", "claims.jsonl")
	out, errOut, code := runCLI(t, "judge", "eval", "--whole", claims, "--split", "test", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		N         int                        `json:"n"`
		Confusion map[string]map[string]int  `json:"confusion"`
		BySource  map[string]json.RawMessage `json:"by_source"`
		Rationale *struct {
			Pairs int `json:"pairs"`
		} `json:"rationale"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if got.N != 5 {
		t.Errorf("n = %d, want 5 (one pair per cited document of 4 claims)", got.N)
	}
	gold := make(map[string]int)
	for g, row := range got.Confusion {
		for _, n := range row {
			gold[g] += n
		}
	}
	if diff := cmp.Diff(map[string]int{"supported": 1, "contradicted": 2, "unsupported": 2}, gold); diff != "" {
		t.Errorf("gold labels (-want +got):\n%s", diff)
	}
	if _, ok := got.BySource["scifact"]; !ok {
		t.Errorf("by_source lacks the folder's name: %v", got.BySource)
	}
	if got.Rationale == nil || got.Rationale.Pairs != 3 {
		t.Errorf("rationale = %+v, want 3 pairs with one", got.Rationale)
	}
	text, errOut, code := runCLI(t, "judge", "eval", "--whole", claims)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"all contradicted: precision", "quotes overlap an annotated rationale sentence"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestRunJudgeEvalDirect calls judge eval and calibrate without cobra: the
// offline judge needs neither a store nor a configuration.
func TestRunJudgeEvalDirect(t *testing.T) {
	var out, errOut strings.Builder
	a := &app{stdout: &out, stderr: &errOut}
	labels := filepath.Join(labelFixtures, "plain.jsonl")
	cal := filepath.Join(t.TempDir(), "cal.json")
	if err := a.runCalibrate(context.Background(), calibrateFlags{files: []string{labels}, split: "all", metric: judge.MetricMacroF1, out: cal, minPrecision: judge.DefaultMinContradictedPrecision}); err != nil {
		t.Fatalf("runCalibrate: %v", err)
	}
	if !strings.Contains(errOut.String(), "calibrated on 6 pairs (all split)") {
		t.Errorf("calibrate stderr: %q", errOut.String())
	}
	verdicts := filepath.Join(t.TempDir(), "verdicts.jsonl")
	f := judgeEvalFlags{files: []string{labels}, spec: "offline", promptsMode: judge.PromptsClaimtrace, calPath: cal, split: "all", verdicts: verdicts}
	if err := a.runJudgeEval(context.Background(), f); err != nil {
		t.Fatalf("runJudgeEval: %v", err)
	}
	if !strings.Contains(out.String(), "judge offline · split all · 6 pairs") {
		t.Errorf("judge eval output:\n%s", out.String())
	}
	if data, err := os.ReadFile(verdicts); err != nil || strings.Count(string(data), "\n") != 6 {
		t.Errorf("verdicts file: %v, %d lines, want 6", err, strings.Count(string(data), "\n"))
	}
	f.promptsMode = judge.PromptsReportBench
	if err := a.runJudgeEval(context.Background(), f); err == nil {
		t.Error("--prompts reportbench with the offline judge: no error")
	}
}

// TestEvalCalibrationName: eval's offline judge is named after its
// calibration (the name keys the run and its stored verdicts), and the
// built-in default by name is the plain offline judge's run.
func TestEvalCalibrationName(t *testing.T) {
	for cal, want := range map[string]string{"": "offline", "default": "offline", "citing": "offline+citing"} {
		v := defaultVerify()
		v.calibration = cal
		var o eval.Options
		if _, err := v.apply(t.Context(), &app{}, nil, &o, RunConfig{}); err != nil {
			t.Fatalf("--calibration %q: %v", cal, err)
		}
		if o.JudgeName != want || o.Judge == nil {
			t.Errorf("--calibration %q: judge %q (set: %v), want %q", cal, o.JudgeName, o.Judge != nil, want)
		}
	}
	v := defaultVerify()
	v.calibration = "biomed"
	if _, err := v.apply(t.Context(), &app{}, nil, &eval.Options{}, RunConfig{}); err == nil || !strings.Contains(err.Error(), "citing, default") {
		t.Errorf("--calibration biomed: error %v, want one listing the built-ins", err)
	}
}
