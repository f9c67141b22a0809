package analysis_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/eval"
)

func TestScoredTasks(t *testing.T) {
	ds, err := dataset.LoadDataset("../dataset/testdata/mini")
	if err != nil {
		t.Fatal(err)
	}
	run := func(tasks ...string) *analysis.Run {
		r := &analysis.Run{}
		for _, task := range tasks {
			r.Reports = append(r.Reports, &eval.Result{Task: task})
		}
		return r
	}
	tests := []struct {
		name string
		runs []*analysis.Run
		want []string
	}{
		{"none", nil, nil},
		{"sorted, once each", []*analysis.Run{run("2401.00001"), run("2401.00001", "2302.00002")}, []string{"2302.00002", "2401.00001"}},
		{"not in the dataset left out", []*analysis.Run{run("9999.99999", "2401.00001")}, []string{"2401.00001"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, analysis.ScoredTasks(ds, tt.runs)); diff != "" {
			t.Errorf("%s: ScoredTasks (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestCheckSystems(t *testing.T) {
	for _, dirs := range [][]string{nil, {"runs/o3", "runs/gemini"}, {"runs/o3/"}} {
		if err := analysis.CheckSystems(dirs); err != nil {
			t.Errorf("CheckSystems(%v): %v", dirs, err)
		}
	}
	err := analysis.CheckSystems([]string{"runs/o3", "b", "results/o3/"})
	if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), `runs/o3 and results/o3/: both would be system "o3"`) {
		t.Errorf("CheckSystems of two o3 directories: %v", err)
	}
	if got := analysis.SystemName("runs/tools-5/"); got != "tools-5" {
		t.Errorf("SystemName = %q, want tools-5", got)
	}
}

func TestQualityRunID(t *testing.T) {
	id := analysis.QualityRunID("openai:gpt-4o", 60000)
	if !strings.HasPrefix(id, "quality-") || len(id) != len("quality-")+16 {
		t.Errorf("QualityRunID = %q, want quality- and 16 hex digits", id)
	}
	if id != analysis.QualityRunID("openai:gpt-4o", 60000) {
		t.Error("QualityRunID is not stable")
	}
	for _, other := range []string{analysis.QualityRunID("openai:o3", 60000), analysis.QualityRunID("openai:gpt-4o", 30000)} {
		if other == id {
			t.Errorf("another model or budget, same run %s", id)
		}
	}
	if analysis.QualityPromptHash() == "" {
		t.Error("QualityPromptHash is empty: the rubric prompt is not embedded")
	}
}
