package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
)

func TestBudgetDir(t *testing.T) {
	for _, tt := range []struct {
		budgets []int
		b       int
		want    string
	}{
		{[]int{5}, 5, "."},
		{[]int{0}, 0, "."},
		{[]int{3, 5, 10}, 3, "tools-3"},
		{[]int{3, 5, 10}, 10, "tools-10"},
		{[]int{0, 2}, 0, "tools-0"},
	} {
		if got := agent.BudgetDir(tt.budgets, tt.b); got != tt.want {
			t.Errorf("BudgetDir(%v, %d) = %q, want %q", tt.budgets, tt.b, got, tt.want)
		}
	}
}

// ablationOptions are the options of fx.agent without a budget.
func (fx *fixture) ablationOptions() agent.Options {
	return agent.Options{
		Model: fx.client, ModelName: fx.f.name + ":test-model",
		Searcher: fx.searcher(), Reader: fx.reader(), SearchName: "serpapi", ReaderName: "builtin",
		SearchResults: 3,
	}
}

// TestAblationRunsEachBudgetIntoItsDirectory runs two tasks under budgets
// 0 and 2: each budget writes its own directory, reports its own budget,
// and the budget of 0 offers the model no tool.
func TestAblationRunsEachBudgetIntoItsDirectory(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	dir := t.TempDir()
	ab, err := agent.NewAblation(fx.ablationOptions(), []int{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	ids := []string{"2101.00001", "2101.00002"}
	sums, err := ab.Run(t.Context(), agent.AblationOptions{Dir: dir, Tasks: tasks(ids...), Concurrency: 2,
		OnTask: func(_ context.Context, budgetDir string, ev agent.Event) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, budgetDir+"/"+ev.Task+":"+ev.Outcome)
			return nil
		}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want 2", len(sums))
	}
	for i, want := range []struct {
		budget int
		dir    string
		calls  int
	}{{0, "tools-0", 2}, {2, "tools-2", 4}} {
		s := sums[i]
		if s.MaxToolCalls != want.budget || s.Dir != filepath.Join(dir, want.dir) || s.Done != 2 || s.Usage.Calls != want.calls {
			t.Errorf("budget %d summary = %+v", want.budget, s)
		}
		for _, id := range ids {
			rec, err := agent.LoadRecord(filepath.Join(dir, want.dir, id+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if rec.MaxToolCalls != want.budget || rec.ToolCalls > want.budget {
				t.Errorf("%s/%s: budget %d, %d tool calls", want.dir, id, rec.MaxToolCalls, rec.ToolCalls)
			}
		}
	}
	sort.Strings(seen)
	wantSeen := []string{"tools-0/2101.00001:done", "tools-0/2101.00002:done", "tools-2/2101.00001:done", "tools-2/2101.00002:done"}
	if diff := cmp.Diff(wantSeen, seen); diff != "" {
		t.Errorf("OnTask calls (-want +got):\n%s", diff)
	}
}

// TestAblationOneBudget writes into the reports directory itself.
func TestAblationOneBudget(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	dir := t.TempDir()
	ab, err := agent.NewAblation(fx.ablationOptions(), []int{2})
	if err != nil {
		t.Fatal(err)
	}
	sums, err := ab.Run(t.Context(), agent.AblationOptions{Dir: dir, Tasks: tasks("2101.00001")})
	if err != nil || len(sums) != 1 || sums[0].Done != 1 {
		t.Fatalf("Run = %+v, %v", sums, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "2101.00001.json")); err != nil {
		t.Error(err)
	}
}

// TestAblationRefusedBeforeAnyTask: a budget no agent can take refuses the
// whole ablation before a model call.
func TestAblationRefusedBeforeAnyTask(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	o := fx.ablationOptions()
	if _, err := agent.NewAblation(o, []int{3, -1}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("budget -1: %v, want ErrInvalid", err)
	}
	if _, err := agent.NewAblation(o, nil); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("no budget: %v, want ErrInvalid", err)
	}
	o.Searcher = nil
	if _, err := agent.NewAblation(o, []int{0, 3}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("budget 3 without a searcher: %v, want ErrInvalid", err)
	}
	if n := len(fx.llm.Calls()); n != 0 {
		t.Errorf("%d model calls, want none", n)
	}
}

// TestAblationStopsAtFirstError: an error from OnTask stops the run; the
// budget that stopped is summarised, later budgets are not run.
func TestAblationStopsAtFirstError(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	dir := t.TempDir()
	ab, err := agent.NewAblation(fx.ablationOptions(), []int{0, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	sums, err := ab.Run(t.Context(), agent.AblationOptions{Dir: dir, Tasks: tasks("2101.00001"),
		OnTask: func(_ context.Context, budgetDir string, _ agent.Event) error {
			if budgetDir == "tools-2" {
				return stop
			}
			return nil
		}})
	if !errors.Is(err, stop) {
		t.Fatalf("Run: %v, want the OnTask error", err)
	}
	if len(sums) != 2 || sums[1].MaxToolCalls != 2 {
		t.Fatalf("summaries = %+v, want budgets 0 and 2", sums)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools-4")); !os.IsNotExist(err) {
		t.Errorf("tools-4 exists: %v", err)
	}
}
