// Package analysis computes the appendix analyses of ReportBench (seed 002,
// A.2) over the outputs of `claimtrace eval`, and the uncertainty the
// released code never reports:
//
//   - citation recall by reference importance (A.2.1): citation counts of
//     each survey's ground-truth references, quartiles within each survey,
//     recall per quartile pooled over tasks;
//   - subjective content quality (A.2.2): a model scores each report on a
//     five-dimension rubric and flags degenerate "gaming" reports;
//   - the automatic part of the error taxonomy (A.2.6): why cited works
//     missed the ground truth, fabricated identifiers, unsupported and
//     unverifiable cited statements;
//   - percentile-bootstrap confidence intervals over reports for the macro
//     metrics, and a paired bootstrap comparing two runs on the tasks both
//     scored (A.2.4 and A.2.5: is a ranking robust to the judge or the tool
//     budget?).
//
// The analyses read evaluation output directories (summary.json and
// reports/<task>.json, see docs/design.md) and never recompute the evaluation;
// the quality rubric reads the reports themselves.
package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/inputfile"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Run is one evaluation output directory: the reports it scored.
type Run struct {
	// Name is the system's name: the directory's base name.
	Name string `json:"system"`
	Dir  string `json:"dir"`
	// Summary is summary.json, nil when the directory has none.
	Summary *eval.Summary `json:"-"`
	// Reports are the scored reports (status done), sorted by task.
	Reports []*eval.Result `json:"-"`
	// Failed counts report files whose evaluation failed.
	Failed int `json:"failed"`
}

// MaxOutputBytes bounds a file of an eval output folder that LoadRun reads.
const MaxOutputBytes = 256 << 20

// LoadRun reads an evaluation output directory. When summary.json exists,
// the reports are exactly the ones it scored (a reused directory may hold
// stale files of other tasks); otherwise every reports/*.json is read.
// Errors name the directory and the file.
func LoadRun(dir string) (*Run, error) {
	r := &Run{Name: filepath.Base(filepath.Clean(dir)), Dir: dir}
	reports := filepath.Join(dir, "reports")
	if st, err := os.Stat(reports); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("run %s: no reports/ directory (is it the --out directory of claimtrace eval?): %w", dir, claimtrace.ErrNotFound)
	}
	b, err := inputfile.ReadFile(filepath.Join(dir, "summary.json"), MaxOutputBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("run %s: %w", dir, err)
	default:
		var s eval.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("run %s: summary.json: %v: %w", dir, err, claimtrace.ErrInvalid)
		}
		r.Summary = &s
	}
	var tasks []string
	if r.Summary != nil {
		for _, line := range r.Summary.Scores {
			tasks = append(tasks, line.Task)
		}
		r.Failed = r.Summary.ReportsFailed
	} else {
		entries, err := os.ReadDir(reports)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", dir, err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
				tasks = append(tasks, strings.TrimSuffix(e.Name(), ".json"))
			}
		}
	}
	if r.Summary == nil && len(tasks) == 0 {
		return nil, fmt.Errorf("run %s: no summary.json and no result in reports/ (is it the --out directory of claimtrace eval?): %w", dir, claimtrace.ErrNotFound)
	}
	sort.Strings(tasks)
	for _, task := range tasks {
		res, err := eval.ReadResult(filepath.Join(reports, task+".json"))
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", dir, err)
		}
		if r.Summary == nil && res.Status == "" {
			return nil, fmt.Errorf("run %s: %s is not an evaluation result (no status; is %s a reports directory?): %w",
				dir, filepath.Join(reports, task+".json"), dir, claimtrace.ErrInvalid)
		}
		if res.Task == "" {
			res.Task = task
		}
		if res.Status != store.StatusDone || res.Citation == nil {
			if r.Summary == nil {
				r.Failed++
			}
			continue
		}
		r.Reports = append(r.Reports, res)
	}
	return r, nil
}

// Tasks returns the ids of the scored reports, sorted.
func (r *Run) Tasks() []string {
	out := make([]string, len(r.Reports))
	for i, res := range r.Reports {
		out[i] = res.Task
	}
	return out
}
