package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
)

// BatchOptions configure RunBatch.
type BatchOptions struct {
	// Dir is the reports directory (created if needed).
	Dir   string
	Tasks []claimtrace.Task
	// Concurrency bounds tasks in flight (default 1).
	Concurrency int
	// OnTask, if set, is called after each task's outcome, one call at a
	// time; an error from it stops the batch.
	OnTask func(ctx context.Context, ev Event) error
}

// Outcomes of a task in a batch, besides the record statuses.
const (
	OutcomeSkipped  = "skipped"  // a finished report was already there
	OutcomeConflict = "conflict" // a file that is not ours is in the way
)

// Event is one task's outcome in a batch.
type Event struct {
	Task string
	// Outcome is a record status (done, failed, context_length,
	// budget_exhausted), OutcomeSkipped or OutcomeConflict.
	Outcome string
	// Record is the record written (nil when skipped or in conflict).
	Record *Record
	Err    string
	// Done counts the tasks accounted for so far, of Total.
	Done, Total int
}

// Failure is a task a batch could not finish.
type Failure struct {
	Task   string `json:"task"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// BatchSummary is what a batch did.
type BatchSummary struct {
	Dir          string `json:"dir"`
	MaxToolCalls int    `json:"max_tool_calls"`
	Tasks        int    `json:"tasks"`
	// Skipped were finished before; Done finished in this run; Failed
	// failed in this run (ByStatus splits them); NotRun were not started or
	// not finished when the batch stopped early.
	Skipped  int            `json:"skipped"`
	Done     int            `json:"done"`
	Failed   int            `json:"failed"`
	NotRun   int            `json:"not_run"`
	ByStatus map[string]int `json:"by_status"`
	// Usage sums this run's model calls.
	Usage    Usage     `json:"usage"`
	Failures []Failure `json:"failures,omitempty"`
	// Stopped says why the batch stopped early, if it did.
	Stopped string `json:"stopped,omitempty"`
}

// RunBatch runs the tasks into opts.Dir. A task whose report is already
// there (our done record, or a .md/.txt/.json report of another tool) is
// skipped; our failed record is retried and replaced, its history kept in
// PreviousAttempts. Each record is written when its task ends.
//
// It returns the context's error when ctx ends (finished tasks are on
// disk; tasks in flight are not written and run again next time), or a
// *FatalError when a task met a failure that dooms the others (no new
// task starts then). Task failures are in the summary, not the error.
func (a *Agent) RunBatch(ctx context.Context, opts BatchOptions) (*BatchSummary, error) {
	sum := &BatchSummary{Dir: opts.Dir, MaxToolCalls: a.o.MaxToolCalls, Tasks: len(opts.Tasks), ByStatus: map[string]int{}}
	if opts.Dir == "" {
		return sum, fmt.Errorf("agent: no reports directory: %w", claimtrace.ErrInvalid)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return sum, fmt.Errorf("agent: reports directory: %w", err)
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 1
	}

	var (
		mu    sync.Mutex
		done  int
		evErr error
	)
	emit := func(ctx context.Context, ev Event) error {
		mu.Lock()
		defer mu.Unlock()
		done++
		ev.Done, ev.Total = done, len(opts.Tasks)
		switch ev.Outcome {
		case OutcomeSkipped:
			sum.Skipped++
		case StatusDone:
			sum.Done++
		default:
			sum.Failed++
			sum.Failures = append(sum.Failures, Failure{Task: ev.Task, Status: ev.Outcome, Error: ev.Err})
		}
		sum.ByStatus[ev.Outcome]++
		if ev.Record != nil {
			sum.Usage.Merge(ev.Record.Usage)
		}
		if opts.OnTask != nil && evErr == nil {
			evErr = opts.OnTask(ctx, ev)
		}
		return evErr
	}

	// Plan: finished tasks are skipped before anything starts.
	type job struct {
		task claimtrace.Task
		prev *Record
	}
	var jobs []job
	seen := map[string]bool{}
	for _, t := range opts.Tasks {
		if seen[t.ArXivID] {
			continue
		}
		seen[t.ArXivID] = true
		if err := checkID(t.ArXivID); err != nil {
			if err := emit(ctx, Event{Task: t.ArXivID, Outcome: OutcomeConflict, Err: err.Error()}); err != nil {
				return sum, err
			}
			continue
		}
		st, prev, err := inspect(opts.Dir, t.ArXivID)
		switch {
		case err != nil:
			if err := emit(ctx, Event{Task: t.ArXivID, Outcome: OutcomeConflict, Err: err.Error()}); err != nil {
				return sum, err
			}
		case st == stateFinished:
			if err := emit(ctx, Event{Task: t.ArXivID, Outcome: OutcomeSkipped}); err != nil {
				return sum, err
			}
		default:
			jobs = append(jobs, job{task: t, prev: prev})
		}
	}

	stop, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g := new(errgroup.Group)
	g.SetLimit(opts.Concurrency)
	var finished sync.Map
	for _, j := range jobs {
		if stop.Err() != nil {
			break
		}
		g.Go(func() error {
			if stop.Err() != nil {
				return nil
			}
			rec, err := a.Run(stop, j.task)
			if rec == nil {
				return nil // interrupted: nothing to write, the task runs again next time
			}
			if j.prev != nil {
				rec.PreviousAttempts = append(append([]Attempt(nil), j.prev.PreviousAttempts...), Attempt{
					Status: j.prev.Status, Error: j.prev.Error, ToolCalls: j.prev.ToolCalls, Usage: j.prev.Usage,
					StartedAt: j.prev.StartedAt, FinishedAt: j.prev.FinishedAt,
				})
			}
			if werr := writeRecord(opts.Dir, rec, j.prev != nil); werr != nil {
				cancel(werr)
				return werr
			}
			finished.Store(j.task.ArXivID, true)
			if eerr := emit(stop, Event{Task: rec.TaskID, Outcome: rec.Status, Record: rec, Err: rec.Error}); eerr != nil {
				cancel(eerr)
				return eerr
			}
			if err != nil {
				cancel(err)
			}
			return nil
		})
	}
	werr := g.Wait()
	for _, j := range jobs {
		if _, ok := finished.Load(j.task.ArXivID); !ok {
			sum.NotRun++
		}
	}
	sort.Slice(sum.Failures, func(i, k int) bool { return sum.Failures[i].Task < sum.Failures[k].Task })
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	if werr != nil {
		return sum, werr
	}
	if cause := context.Cause(stop); cause != nil && !errors.Is(cause, context.Canceled) {
		sum.Stopped = cause.Error()
		return sum, cause
	}
	return sum, nil
}

// checkID refuses task ids that cannot name a file in the reports
// directory (old-style arXiv ids such as hep-th/9901001 hold a slash).
func checkID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`+"\x00") || strings.HasPrefix(id, ".") {
		return fmt.Errorf("task id %q cannot name a report file <task_id>.json: %w", id, claimtrace.ErrInvalid)
	}
	return nil
}
