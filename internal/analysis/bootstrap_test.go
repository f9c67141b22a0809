package analysis_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/score"
)

func TestLoadRun(t *testing.T) {
	dir := t.TempDir()
	reports := []report{
		{task: "2101.00001", gt: 10, matched: []string{"a", "b"}},
		{task: "2101.00002", gt: 20, matched: []string{"c"}, unmatched: []score.Unmatched{{URL: "https://x.org/p", Reason: score.ReasonNotInGT}}},
		{task: "2101.00003", failed: true},
	}
	run := writeRun(t, filepath.Join(dir, "o3"), reports, true)
	// A stale report of an earlier evaluation with other tasks.
	writeJSON(t, filepath.Join(run, "reports", "1999.00001.json"), report{task: "1999.00001", gt: 5, matched: []string{"z"}}.result())

	r, err := analysis.LoadRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2101.00001", "2101.00002"}, r.Tasks()); diff != "" {
		t.Errorf("tasks with a summary (-want +got):\n%s", diff)
	}
	if r.Name != "o3" || r.Failed != 1 || r.Summary == nil {
		t.Errorf("run = %s, failed %d, summary %v", r.Name, r.Failed, r.Summary != nil)
	}

	// Without summary.json every reports/*.json counts; the failed one is
	// counted apart.
	os.Remove(filepath.Join(run, "summary.json"))
	r, err = analysis.LoadRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1999.00001", "2101.00001", "2101.00002"}, r.Tasks()); diff != "" || r.Failed != 1 {
		t.Errorf("tasks without a summary (-want +got):\n%s; failed %d", diff, r.Failed)
	}

	if _, err := analysis.LoadRun(dir); !errors.Is(err, claimtrace.ErrNotFound) || !strings.Contains(err.Error(), dir) {
		t.Errorf("a directory without reports/: %v", err)
	}
	// A directory holding a reports/ directory of agent outputs (the
	// input of eval) is no evaluation.
	inputs := filepath.Join(dir, "inputs")
	os.MkdirAll(filepath.Join(inputs, "reports"), 0o755)
	os.WriteFile(filepath.Join(inputs, "reports", "2101.00001.md"), []byte("# A report"), 0o644)
	if _, err := analysis.LoadRun(inputs); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("reports/ of markdown files: %v", err)
	}
	os.WriteFile(filepath.Join(inputs, "reports", "2101.00002.json"), []byte(`{"response": "# A report"}`), 0o644)
	if _, err := analysis.LoadRun(inputs); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "2101.00002.json") {
		t.Errorf("reports/ of agent outputs: %v", err)
	}
	os.WriteFile(filepath.Join(run, "reports", "2101.00002.json"), []byte(`{"task_id": "2101.00002", "citation": [`), 0o644)
	if _, err := analysis.LoadRun(run); err == nil || !strings.Contains(err.Error(), "2101.00002.json") {
		t.Errorf("a corrupt report: error %v does not name the file", err)
	}
	os.WriteFile(filepath.Join(run, "summary.json"), []byte(`{"reports": "many"}`), 0o644)
	if _, err := analysis.LoadRun(run); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "summary.json") {
		t.Errorf("a corrupt summary: %v", err)
	}
}

// sample draws n reports whose metrics come from a fixed distribution:
// precision uniform in [0, 0.6], recall around 0.03, every fifth report
// citing nothing (precision undefined), match rate from 3 of 4 verdicts.
func sample(seed uint64, n int) []*eval.Result {
	rng := rand.New(rand.NewPCG(seed, 7))
	labels := []claimtrace.Label{claimtrace.Supported, claimtrace.Unsupported, claimtrace.Partial, claimtrace.Unknown}
	var out []*eval.Result
	for i := range n {
		r := report{task: "t" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)), gt: 100, pcov: f(rng.Float64()), psnd: f(rng.Float64())}
		if i%5 != 4 {
			hits := rng.IntN(7)
			for h := range hits {
				r.matched = append(r.matched, "b"+string(rune('a'+h)))
			}
			for range 10 - hits {
				r.unmatched = append(r.unmatched, score.Unmatched{Reason: score.ReasonNotInGT})
			}
		}
		for range 3 {
			r.verdicts = append(r.verdicts, labels[rng.IntN(len(labels))])
		}
		out = append(out, r.result())
	}
	return out
}

func TestIntervals(t *testing.T) {
	reports := sample(1, 60)
	opt := analysis.BootstrapOptions{Resamples: 2000, Seed: 42}
	got, err := analysis.Intervals(reports, analysis.Metrics(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, iv := range got {
		names = append(names, iv.Metric)
		// The point estimate is the macro mean over defined values, as
		// summary.json computes it.
		var m score.Mean
		for _, r := range reports {
			for _, met := range analysis.Metrics() {
				if met.Name == iv.Metric {
					m.Add(met.Value(r))
				}
			}
		}
		if iv.N != m.N() {
			t.Errorf("%s: n = %d, want %d", iv.Metric, iv.N, m.N())
		}
		if iv.Metric == analysis.MetricFactual {
			if iv.Value != nil || iv.Lo != nil || iv.Resamples != 0 {
				t.Errorf("factual accuracy without facts = %+v, want undefined", iv)
			}
			continue
		}
		if iv.Value == nil || math.Abs(*iv.Value-*m.Value()) > 1e-12 {
			t.Errorf("%s: value %v, want the macro mean %v", iv.Metric, iv.Value, *m.Value())
			continue
		}
		if !(*iv.Lo <= *iv.Value && *iv.Value <= *iv.Hi) || *iv.Hi-*iv.Lo <= 0 {
			t.Errorf("%s: interval [%v, %v] does not contain %v", iv.Metric, *iv.Lo, *iv.Hi, *iv.Value)
		}
		if iv.Resamples != 2000 || iv.Level != 0.95 {
			t.Errorf("%s: resamples %d, level %v", iv.Metric, iv.Resamples, iv.Level)
		}
	}
	want := []string{"precision", "recall", "f1", "match_rate", "factual_accuracy", "pcov", "psnd"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}

	// The seed makes intervals reproducible; another seed moves them.
	again, _ := analysis.Intervals(reports, analysis.Metrics(), opt)
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("same seed, different intervals (-first +second):\n%s", diff)
	}
	other, _ := analysis.Intervals(reports, analysis.Metrics(), analysis.BootstrapOptions{Resamples: 2000, Seed: 43})
	if *other[0].Lo == *got[0].Lo && *other[0].Hi == *got[0].Hi {
		t.Errorf("seeds 42 and 43 gave the same precision interval [%v, %v]", *got[0].Lo, *got[0].Hi)
	}

	// More reports, narrower intervals (about 1/√n).
	small, _ := analysis.Intervals(sample(2, 25), analysis.Metrics(), opt)
	large, _ := analysis.Intervals(sample(2, 400), analysis.Metrics(), opt)
	for i := range small {
		if small[i].Lo == nil {
			continue
		}
		ws, wl := *small[i].Hi-*small[i].Lo, *large[i].Hi-*large[i].Lo
		if wl >= ws/2 {
			t.Errorf("%s: width %.4f with 400 reports, %.4f with 25; want it to shrink about 4×", small[i].Metric, wl, ws)
		}
	}
}

// TestIntervalCoverage checks the intervals are honest: over many samples
// from a known distribution, about 95% of the 95% intervals contain the
// true mean.
func TestIntervalCoverage(t *testing.T) {
	const trials, n = 200, 40
	rng := rand.New(rand.NewPCG(9, 9))
	covered := 0
	for range trials {
		reports := make([]*eval.Result, n)
		for i := range reports {
			// Recall uniform on [0, 0.1]: true mean 0.05.
			reports[i] = &eval.Result{Citation: &score.CitationScore{Recall: rng.Float64() * 0.1}}
		}
		iv, err := analysis.Intervals(reports, analysis.Metrics()[1:2], analysis.BootstrapOptions{Resamples: 1000, Seed: rng.Uint64()})
		if err != nil {
			t.Fatal(err)
		}
		if *iv[0].Lo <= 0.05 && 0.05 <= *iv[0].Hi {
			covered++
		}
	}
	if rate := float64(covered) / trials; rate < 0.88 || rate > 0.99 {
		t.Errorf("coverage %.3f over %d trials, want about 0.95", rate, trials)
	}
}

func TestIntervalsEdgeCases(t *testing.T) {
	one := []*eval.Result{report{task: "a", gt: 4, matched: []string{"x"}, pcov: f(0.5)}.result()}
	got, err := analysis.Intervals(one, analysis.Metrics(), analysis.BootstrapOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p := got[0]; *p.Value != 1 || *p.Lo != 1 || *p.Hi != 1 || p.N != 1 || p.Resamples != analysis.DefaultResamples {
		t.Errorf("one report: %+v, want the degenerate interval [1, 1]", p)
	}
	none, err := analysis.Intervals(nil, analysis.Metrics(), analysis.BootstrapOptions{})
	if err != nil || none[0].Value != nil || none[0].Lo != nil || none[0].N != 0 {
		t.Errorf("no reports: %+v, %v", none[0], err)
	}
	for _, opt := range []analysis.BootstrapOptions{{Resamples: -1}, {Level: 1}, {Level: -0.5}} {
		if _, err := analysis.Intervals(one, analysis.Metrics(), opt); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("options %+v: error %v, want ErrInvalid", opt, err)
		}
	}
}

func TestCompare(t *testing.T) {
	var a, b []report
	for i := range 30 {
		task := "2201." + string(rune('a'+i%26)) + string(rune('a'+i/26))
		p := 0.2 + 0.02*float64(i%10)
		a = append(a, report{task: task, gt: 10, pcov: f(p + 0.1), psnd: f(p)})
		b = append(b, report{task: task, gt: 10, pcov: f(p), psnd: f(p)})
	}
	// B scored two tasks A did not, A one B did not: left out.
	b = append(b, report{task: "2299.00001", gt: 10, pcov: f(0)}, report{task: "2299.00002", gt: 10, pcov: f(0)})
	a = append(a, report{task: "2299.00003", gt: 10, pcov: f(1)})
	dir := t.TempDir()
	ra, err := analysis.LoadRun(writeRun(t, filepath.Join(dir, "judge-gemini"), a, true))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := analysis.LoadRun(writeRun(t, filepath.Join(dir, "judge-gpt"), b, true))
	if err != nil {
		t.Fatal(err)
	}
	var metrics []analysis.Metric
	for _, m := range analysis.Metrics() {
		if m.Name == analysis.MetricPCov || m.Name == analysis.MetricPSnd || m.Name == analysis.MetricPrecision {
			metrics = append(metrics, m)
		}
	}
	c, err := analysis.Compare(ra, rb, metrics, analysis.BootstrapOptions{Resamples: 500, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if c.A != "judge-gemini" || c.B != "judge-gpt" || c.Common != 30 || c.OnlyA != 1 || c.OnlyB != 2 {
		t.Errorf("comparison = %+v", c)
	}
	byName := map[string]analysis.Difference{}
	for _, d := range c.Metrics {
		byName[d.Metric] = d
	}
	// A is 0.1 better on every common task: the difference is exactly 0.1
	// in every resample.
	pcov := byName["pcov"]
	if pcov.Tasks != 30 || math.Abs(*pcov.Diff-0.1) > 1e-9 || math.Abs(*pcov.Lo-0.1) > 1e-9 || math.Abs(*pcov.Hi-0.1) > 1e-9 || *pcov.AWins != 1 {
		t.Errorf("pcov difference = %+v, want 0.1 [0.1, 0.1] with A winning every resample", pcov)
	}
	if *pcov.A-*pcov.B-*pcov.Diff > 1e-12 {
		t.Errorf("pcov: A %v − B %v ≠ diff %v", *pcov.A, *pcov.B, *pcov.Diff)
	}
	psnd := byName["psnd"]
	if *psnd.Diff != 0 || *psnd.Ties != 1 || *psnd.AWins != 0 {
		t.Errorf("psnd difference = %+v, want a tie in every resample", psnd)
	}
	// No report cites anything: precision is undefined on every task.
	if p := byName["precision"]; p.Tasks != 0 || p.Diff != nil || p.Lo != nil {
		t.Errorf("precision difference = %+v, want undefined", p)
	}
}

func TestCompareNoisy(t *testing.T) {
	// A is better on average by 0.05 with noise: the interval contains
	// 0.05, excludes 0, and A wins nearly every resample; swapping the
	// runs mirrors everything.
	rng := rand.New(rand.NewPCG(5, 5))
	var a, b []report
	for i := range 80 {
		task := "2301." + string(rune('a'+i%26)) + string(rune('a'+i/26))
		base := rng.Float64() * 0.5
		a = append(a, report{task: task, gt: 10, pcov: f(base + 0.05 + (rng.Float64()-0.5)*0.1)})
		b = append(b, report{task: task, gt: 10, pcov: f(base)})
	}
	dir := t.TempDir()
	ra, _ := analysis.LoadRun(writeRun(t, filepath.Join(dir, "a"), a, false))
	rb, _ := analysis.LoadRun(writeRun(t, filepath.Join(dir, "b"), b, false))
	var pcov []analysis.Metric
	for _, m := range analysis.Metrics() {
		if m.Name == analysis.MetricPCov {
			pcov = append(pcov, m)
		}
	}
	ab, _ := analysis.Compare(ra, rb, pcov, analysis.BootstrapOptions{Seed: 11})
	ba, _ := analysis.Compare(rb, ra, pcov, analysis.BootstrapOptions{Seed: 11})
	d, r := ab.Metrics[0], ba.Metrics[0]
	if !(*d.Lo > 0 && *d.Lo < 0.05 && *d.Hi > 0.05) || *d.AWins < 0.99 {
		t.Errorf("A − B = %.4f [%.4f, %.4f], A wins %.3f; want an interval around 0.05 above 0", *d.Diff, *d.Lo, *d.Hi, *d.AWins)
	}
	if math.Abs(*r.Diff+*d.Diff) > 1e-12 || math.Abs(*r.Lo+*d.Hi) > 1e-12 || math.Abs(*r.AWins-(1-*d.AWins-*d.Ties)) > 1e-12 {
		t.Errorf("B − A = %.4f [%.4f, %.4f] wins %.3f does not mirror A − B", *r.Diff, *r.Lo, *r.Hi, *r.AWins)
	}
}
