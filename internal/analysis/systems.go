package analysis

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset"
)

// SystemName is the name a reports or evaluation directory stands for in
// the analyses' tables: its base name.
func SystemName(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// CheckSystems refuses directories that would stand for the same system
// (runs/a/o3 and results/o3), whose rows and stored units would mix.
func CheckSystems(dirs []string) error {
	names := map[string]string{}
	for _, d := range dirs {
		n := SystemName(d)
		if other, dup := names[n]; dup {
			return fmt.Errorf("%s and %s: both would be system %q; rename one: %w", other, d, n, claimtrace.ErrInvalid)
		}
		names[n] = d
	}
	return nil
}

// ScoredTasks returns the tasks that any of runs scored and ds holds,
// sorted and once each: the surveys whose references the importance
// analysis stratifies. Tasks ds lacks are left out here and reported per
// system by Stratify.
func ScoredTasks(ds *dataset.Dataset, runs []*Run) []string {
	var tasks []string
	for _, r := range runs {
		for _, t := range r.Tasks() {
			if _, ok := ds.Task(t); ok {
				tasks = append(tasks, t)
			}
		}
	}
	sort.Strings(tasks)
	return slices.Compact(tasks)
}
