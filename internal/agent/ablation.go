package agent

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/claimtrace/claimtrace"
)

// BudgetDir is the reports directory of budget b relative to a run's
// reports directory: the directory itself when the run has one budget,
// tools-<b> in a tool-budget ablation (seed A.2.5), so that each budget's
// reports can be scored apart.
func BudgetDir(budgets []int, b int) string {
	if len(budgets) == 1 {
		return "."
	}
	return fmt.Sprintf("tools-%d", b)
}

// Ablation runs the same tasks under several tool budgets, one Agent per
// budget, each into its own directory (BudgetDir).
type Ablation struct {
	budgets []int
	agents  []*Agent
}

// NewAblation checks opts once per budget (opts.MaxToolCalls is replaced
// by each budget in turn), so that a configuration no budget can run is
// refused before any task starts.
func NewAblation(opts Options, budgets []int) (*Ablation, error) {
	if len(budgets) == 0 {
		return nil, fmt.Errorf("agent: no tool budget: %w", claimtrace.ErrInvalid)
	}
	ab := &Ablation{budgets: budgets}
	for _, b := range budgets {
		o := opts
		o.MaxToolCalls = b
		a, err := New(o)
		if err != nil {
			return nil, err
		}
		ab.agents = append(ab.agents, a)
	}
	return ab, nil
}

// AblationOptions configure Ablation.Run.
type AblationOptions struct {
	// Dir is the run's reports directory; each budget writes into
	// Dir/BudgetDir(budgets, b).
	Dir   string
	Tasks []claimtrace.Task
	// Concurrency bounds tasks in flight within a budget.
	Concurrency int
	// OnTask, if set, is called after each task's outcome with its
	// budget's directory relative to Dir; an error from it stops the run.
	OnTask func(ctx context.Context, budgetDir string, ev Event) error
}

// Run runs the tasks under each budget, one budget after the other in
// the order NewAblation was given. It returns one summary per budget run, the one that
// stopped included, and the error that stopped it (as RunBatch does:
// the context's error or a *FatalError); budgets after it are not run.
func (ab *Ablation) Run(ctx context.Context, opts AblationOptions) ([]*BatchSummary, error) {
	var sums []*BatchSummary
	for i, b := range ab.budgets {
		rel := BudgetDir(ab.budgets, b)
		bo := BatchOptions{Dir: filepath.Join(opts.Dir, rel), Tasks: opts.Tasks, Concurrency: opts.Concurrency}
		if opts.OnTask != nil {
			bo.OnTask = func(ctx context.Context, ev Event) error { return opts.OnTask(ctx, rel, ev) }
		}
		sum, err := ab.agents[i].RunBatch(ctx, bo)
		sums = append(sums, sum)
		if err != nil {
			return sums, err
		}
	}
	return sums, nil
}
