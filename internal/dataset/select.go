package dataset

import (
	"fmt"

	"github.com/claimtrace/claimtrace"
)

// Select returns the dataset's tasks, or, when ids are given, those named,
// in dataset order (not the order of ids; an id named twice counts once).
// An id the dataset does not hold is an ErrNotFound error naming it and
// the tasks file.
func (d *Dataset) Select(ids []string) ([]claimtrace.Task, error) {
	if len(ids) == 0 {
		return d.Tasks, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		if _, ok := d.Task(id); !ok {
			return nil, fmt.Errorf("no task %s in %s: %w", id, d.TaskPath, claimtrace.ErrNotFound)
		}
		want[id] = true
	}
	var out []claimtrace.Task
	for _, t := range d.Tasks {
		if want[t.ArXivID] {
			out = append(out, t)
		}
	}
	return out, nil
}
