package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/report"
)

// scriptByTask answers like a small agent: one search, then a final
// answer naming the task. fail decides, per task, a fault instead.
func scriptByTask(t *testing.T, fail func(task string, c llmtest.Call) llmtest.Fault) func(context.Context, llmtest.Call) llmtest.Reply {
	return func(_ context.Context, c llmtest.Call) llmtest.Reply {
		id := taskOf(string(c.Body))
		if fail != nil {
			if f := fail(id, c); f != llmtest.NoFault {
				return llmtest.Fail(f)
			}
		}
		if len(declaredTools(t, c)) > 0 && !hasToolBlocks(c) {
			return llmtest.Tools(search1("call_"+id, "radar "+id))
		}
		return llmtest.Text("Survey for task " + id + " citing [1](https://example.org/radar-" + id + "/1).")
	}
}

// taskOf finds the "[task ID]" marker the test prompts carry.
func taskOf(s string) string {
	_, rest, ok := strings.Cut(s, "[task ")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "]")
	return id
}

func tasks(ids ...string) []claimtrace.Task {
	var out []claimtrace.Task
	for _, id := range ids {
		out = append(out, task(id))
	}
	return out
}

func readRaw(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// requestsFor counts model requests of one task.
func requestsFor(fx *fixture, id string) int {
	n := 0
	for _, c := range fx.llm.Calls() {
		if taskOf(string(c.Body)) == id {
			n++
		}
	}
	return n
}

func TestBatchResumeSkipsFinishedTasks(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	dir := t.TempDir()
	a := fx.agent(5)
	ids := []string{"2101.00001", "2101.00002", "2101.00003"}
	sum, err := a.RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks(ids...), Concurrency: 2})
	if err != nil {
		t.Fatalf("RunBatch: %v", err)
	}
	if sum.Done != 3 || sum.Skipped != 0 || sum.Failed != 0 || sum.Usage.Calls != 6 {
		t.Fatalf("first run summary = %+v", sum)
	}
	first := len(fx.llm.Calls())
	if first != 6 {
		t.Fatalf("%d model requests, want 6 (2 per task)", first)
	}
	before := map[string][]byte{}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(dir, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		before[id] = b
		text, err := report.Load(filepath.Join(dir, id+".json"))
		if err != nil || !strings.Contains(text, "Survey for task "+id) {
			t.Errorf("report.Load(%s) = %q, %v", id, text, err)
		}
	}

	sum, err = a.RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks(ids...), Concurrency: 2})
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if n := len(fx.llm.Calls()); n != first {
		t.Errorf("rerun made %d model requests, want 0", n-first)
	}
	if sum.Skipped != 3 || sum.Done != 0 || sum.ByStatus[agent.OutcomeSkipped] != 3 {
		t.Errorf("rerun summary = %+v", sum)
	}
	for _, id := range ids {
		b, _ := os.ReadFile(filepath.Join(dir, id+".json"))
		if string(b) != string(before[id]) {
			t.Errorf("%s changed on rerun", id)
		}
	}
	assertNoTempFiles(t, dir)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestBatchFailedTaskRecordedAndRetried(t *testing.T) {
	fx := newFixture(t, flavours[2])
	broken := true
	var mu sync.Mutex
	fx.llm.Handle(scriptByTask(t, func(id string, _ llmtest.Call) llmtest.Fault {
		mu.Lock()
		defer mu.Unlock()
		if id == "2101.00002" && broken {
			return llmtest.BadRequest
		}
		return llmtest.NoFault
	}))
	dir := t.TempDir()
	a := fx.agent(5)
	ids := tasks("2101.00001", "2101.00002", "2101.00003")
	sum, err := a.RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: ids, Concurrency: 3})
	if err != nil {
		t.Fatalf("RunBatch: %v", err)
	}
	if sum.Done != 2 || sum.Failed != 1 || len(sum.Failures) != 1 || sum.Failures[0].Task != "2101.00002" || sum.Failures[0].Status != agent.StatusFailed {
		t.Fatalf("summary = %+v", sum)
	}
	path := filepath.Join(dir, "2101.00002.json")
	raw := readRaw(t, path)
	if _, has := raw["response"]; has || raw["status"] != "failed" || !strings.Contains(raw["error"].(string), "bad request") {
		t.Errorf("failed record: status %v, error %v, has response %v", raw["status"], raw["error"], raw["response"] != nil)
	}
	// claimtrace eval must refuse the failed record, never score the
	// prompt or an empty text as the report.
	_, lerr := report.Load(path)
	if !errors.Is(lerr, claimtrace.ErrInvalid) || !strings.Contains(lerr.Error(), "recorded this task as failed") {
		t.Errorf("report.Load(failed record) = %v, want a clear ErrInvalid", lerr)
	}

	mu.Lock()
	broken = false
	mu.Unlock()
	before := len(fx.llm.Calls())
	sum, err = a.RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: ids, Concurrency: 3})
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if sum.Done != 1 || sum.Skipped != 2 {
		t.Errorf("rerun summary = %+v", sum)
	}
	for _, c := range fx.llm.Calls()[before:] {
		if id := taskOf(string(c.Body)); id != "2101.00002" {
			t.Errorf("rerun called the model for finished task %s", id)
		}
	}
	rec, err := agent.LoadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Finished() || len(rec.PreviousAttempts) != 1 || rec.PreviousAttempts[0].Status != agent.StatusFailed || !strings.Contains(rec.PreviousAttempts[0].Error, "bad request") {
		t.Errorf("retried record: status %s, previous %+v", rec.Status, rec.PreviousAttempts)
	}
	if text, err := report.Load(path); err != nil || !strings.Contains(text, "Survey for task 2101.00002") {
		t.Errorf("report.Load(retried) = %q, %v", text, err)
	}
}

func TestBatchContextLengthRecorded(t *testing.T) {
	fx := newFixture(t, flavours[1])
	fx.llm.Handle(scriptByTask(t, func(id string, c llmtest.Call) llmtest.Fault {
		if hasToolBlocks(c) {
			return llmtest.ContextLength
		}
		return llmtest.NoFault
	}))
	dir := t.TempDir()
	sum, err := fx.agent(5).RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks("2101.00001")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ByStatus[agent.StatusContextLength] != 1 || len(fx.llm.Calls()) != 2 {
		t.Errorf("summary %+v after %d requests; want context_length after 2", sum, len(fx.llm.Calls()))
	}
	raw := readRaw(t, filepath.Join(dir, "2101.00001.json"))
	if raw["status"] != agent.StatusContextLength || raw["response"] != nil {
		t.Errorf("record status %v, response %v", raw["status"], raw["response"])
	}
}

func TestBatchNeverTouchesOtherReports(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	dir := t.TempDir()
	files := map[string]string{
		"2101.00001.md":   "# A report written by another tool\n",
		"2101.00002.json": `{"response": "Another tool's report."}`,
		"2101.00003.json": `{not json`,
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	sum, err := fx.agent(5).RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks("2101.00001", "2101.00002", "2101.00003", "2101.00004", "hep-th/9901001")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 2 || sum.Done != 1 || sum.ByStatus[agent.OutcomeConflict] != 2 {
		t.Errorf("summary = %+v", sum)
	}
	for name, content := range files {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != content {
			t.Errorf("%s was modified", name)
		}
	}
	if requestsFor(fx, "2101.00001")+requestsFor(fx, "2101.00002")+requestsFor(fx, "2101.00003") != 0 {
		t.Errorf("tasks with existing files were run")
	}
	if len(sum.Failures) != 2 || sum.Failures[0].Task != "2101.00003" || !strings.Contains(sum.Failures[0].Error, "move it away") ||
		!strings.Contains(sum.Failures[1].Error, "cannot name a report file") {
		t.Errorf("conflicts = %+v", sum.Failures)
	}
	if _, err := os.Stat(filepath.Join(dir, "hep-th")); err == nil {
		t.Errorf("a task id with a slash created a sub-directory")
	}
}

func TestBatchStopsOnFatalError(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	fx.search.RequireKey("the-right-key")
	dir := t.TempDir()
	sum, err := fx.agent(5).RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks("2101.00001", "2101.00002", "2101.00003"), Concurrency: 1})
	var fe *agent.FatalError
	if !errors.As(err, &fe) {
		t.Fatalf("RunBatch error = %v, want a *FatalError", err)
	}
	if sum.Failed != 1 || sum.NotRun != 2 || sum.Stopped == "" {
		t.Errorf("summary = %+v", sum)
	}
	if n := len(fx.search.Requests()); n != 1 {
		t.Errorf("%d search requests after a rejected key, want 1", n)
	}
}

func TestBatchRunBudgetStopsCleanly(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.client = fx.openClient(llm.Options{Budget: llm.NewBudget(0, 3)})
	fx.llm.Handle(scriptByTask(t, nil))
	dir := t.TempDir()
	sum, err := fx.agent(5).RunBatch(t.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks("2101.00001", "2101.00002", "2101.00003"), Concurrency: 1})
	if !errors.Is(err, claimtrace.ErrBudget) {
		t.Fatalf("RunBatch error = %v, want ErrBudget", err)
	}
	if sum.Done != 1 || sum.ByStatus[agent.StatusBudget] != 1 || sum.NotRun != 1 || len(fx.llm.Calls()) != 3 {
		t.Errorf("summary %+v after %d requests", sum, len(fx.llm.Calls()))
	}
	raw := readRaw(t, filepath.Join(dir, "2101.00002.json"))
	if raw["status"] != agent.StatusBudget || raw["response"] != nil {
		t.Errorf("record = %v", raw["status"])
	}
}

func TestBatchInterruptLosesNothingFinished(t *testing.T) {
	fx := newFixture(t, flavours[0])
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var once sync.Once
	script := scriptByTask(t, nil)
	fx.llm.Handle(func(rctx context.Context, c llmtest.Call) llmtest.Reply {
		if taskOf(string(c.Body)) == "2101.00002" {
			// The second task hangs; the first has finished by then.
			once.Do(func() { go func() { time.Sleep(50 * time.Millisecond); cancel() }() })
			<-rctx.Done()
			return llmtest.Text("too late")
		}
		return script(rctx, c)
	})
	dir := t.TempDir()
	sum, err := fx.agent(5).RunBatch(ctx, agent.BatchOptions{Dir: dir, Tasks: tasks("2101.00001", "2101.00002", "2101.00003"), Concurrency: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunBatch error = %v, want context.Canceled", err)
	}
	if sum.Done != 1 || sum.NotRun != 2 {
		t.Errorf("summary = %+v", sum)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"2101.00001.json"}, names); diff != "" {
		t.Errorf("directory after Ctrl-C (-want +got):\n%s", diff)
	}
}

func TestRecordsNeverOverwriteFinishedReports(t *testing.T) {
	dir := t.TempDir()
	fx := newFixture(t, flavours[0])
	fx.llm.Handle(scriptByTask(t, nil))
	a := fx.agent(5)
	// A finished report appears while the task runs (another process):
	// the new record must not replace it.
	rec, err := a.Run(t.Context(), task("2101.00009"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "2101.00009.json")
	os.WriteFile(path, []byte(`{"response":"kept"}`), 0o644)
	if err := agent.WriteRecord(dir, rec, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteRecord over an existing report = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"response":"kept"}` {
		t.Errorf("existing report replaced: %s", b)
	}
	assertNoTempFiles(t, dir)
}
