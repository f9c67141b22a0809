package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/search/searchtest"
)

// agentFixture is a tiny dataset, a fake OpenAI endpoint playing a small
// agent (search, read, answer), a fake SerpAPI whose results point at a
// local page server, and a config without per-host politeness.
type agentFixture struct {
	dir, dataset, config, store string
	llm                         *llmtest.Server
	serp                        *searchtest.Server
	pages                       *httptest.Server

	mu       sync.Mutex
	failTask string
}

const agentIDs = "2101.00001,2101.00002"

func newAgentFixture(t *testing.T) *agentFixture {
	f := &agentFixture{dir: t.TempDir()}
	f.pages = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := strings.TrimPrefix(r.URL.Path, "/p/")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>A Study of Topic %s</title><meta name="citation_title" content="A Study of Topic %s">
<meta name="citation_date" content="2021/03/01"></head><body><main><p>This paper studies topic %s in depth and reports that the method improves accuracy by 12 percent on three benchmarks.</p></main></body></html>`, n, n, n)
	}))
	t.Cleanup(f.pages.Close)

	f.dataset = filepath.Join(f.dir, "dataset")
	os.MkdirAll(filepath.Join(f.dataset, "ReportBench_v1.1_GT"), 0o755)
	var jsonl strings.Builder
	for i, id := range strings.Split(agentIDs, ",") {
		fmt.Fprintf(&jsonl, `{"arxiv_id":%q,"title":"Survey %d","prompt":"Survey topic %d [task %s]; cite papers before January 2022.","application_domain":"D"}`+"\n", id, i+1, i+1, id)
		gt := fmt.Sprintf(`{"bib_id":"b1","title":"A Study of Topic %d","author":"X","meta_info":{"year":"2021"}}`+"\n", i+1)
		os.WriteFile(filepath.Join(f.dataset, "ReportBench_v1.1_GT", id+".jsonl"), []byte(gt), 0o644)
	}
	os.WriteFile(filepath.Join(f.dataset, "ReportBench_v1.1.jsonl"), []byte(jsonl.String()), 0o644)

	f.serp = searchtest.NewServer(t, searchtest.SerpAPI)
	f.serp.Handle(func(q string) searchtest.Reply {
		n := strings.TrimPrefix(q, "topic ")
		return searchtest.Results(search.Result{Title: "A Study of Topic " + n, URL: f.pages.URL + "/p/" + n, Snippet: "Topic " + n + " in depth."})
	})
	f.llm = llmtest.NewServer(t)
	f.llm.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		b := string(c.Body)
		id := between(b, "[task ", "]")
		n := "1"
		if id == "2101.00002" {
			n = "2"
		}
		f.mu.Lock()
		fail := f.failTask == id
		f.mu.Unlock()
		if fail {
			return llmtest.Fail(llmtest.BadRequest)
		}
		page := f.pages.URL + "/p/" + n
		switch {
		case !strings.Contains(b, `"tools"`) || strings.Count(b, `"role":"tool"`) >= 2:
			return llmtest.Text(fmt.Sprintf("# Survey of topic %s\n\nThe method improves accuracy by 12 percent on three benchmarks [1](%s).\n", n, page))
		case strings.Count(b, `"role":"tool"`) == 1:
			return llmtest.Tools(llmtest.ToolCall{ID: "call_read", Name: "read", Arguments: fmt.Sprintf(`{"url":%q}`, page)})
		}
		return llmtest.Tools(llmtest.ToolCall{ID: "call_search", Name: "search", Arguments: fmt.Sprintf(`{"query":"topic %s"}`, n)})
	})

	f.config = filepath.Join(f.dir, "config.toml")
	os.WriteFile(f.config, []byte("[fetch]\nper_host_rps = -1\n"), 0o644)
	f.store = filepath.Join(f.dir, "claimtrace.db")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	t.Setenv("OPENAI_BASE_URL", f.llm.OpenAIBaseURL())
	t.Setenv("SERPAPI_API_KEY", "serp-test-0123456789")
	t.Setenv("SERPAPI_BASE_URL", f.serp.URL)
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(f.dir, "data"))
	return f
}

func between(s, a, b string) string {
	_, rest, ok := strings.Cut(s, a)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, b)
	return v
}

func (f *agentFixture) run(t *testing.T, out string, extra ...string) (string, string, int) {
	t.Helper()
	args := append([]string{"run", "--config", f.config, "--dataset", f.dataset, "--model", "openai:gpt-4o-mini", "--out", out,
		"--store", f.store, "--allow-host", "127.0.0.1", "--concurrency", "2"}, extra...)
	return cli(t, args...)
}

func (f *agentFixture) requests(id string) int {
	n := 0
	for _, c := range f.llm.Calls() {
		if between(string(c.Body), "[task ", "]") == id {
			n++
		}
	}
	return n
}

// TestRunThenEval runs the agent over a tiny dataset with one task failing,
// scores the reports with eval, then reruns: the failed task is retried,
// the finished one is not touched.
func TestRunThenEval(t *testing.T) {
	f := newAgentFixture(t)
	f.failTask = "2101.00002"
	out := filepath.Join(f.dir, "runs", "mini")
	stdout, stderr, code := f.run(t, out, "--max-tool-calls", "2")
	if code != 1 || !strings.Contains(stderr, "1 task(s) did not finish") || !strings.Contains(stdout, "FAILED 2101.00002 (failed)") {
		t.Fatalf("run with a failing task: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	rec, err := agent.LoadRecord(filepath.Join(out, "2101.00001.json"))
	if err != nil || !rec.Finished() || rec.ToolCalls != 2 || rec.Model != "openai:gpt-4o-mini" || rec.Search != "serpapi" || rec.Reader != "builtin" {
		t.Fatalf("record 1 = %+v, %v", rec, err)
	}
	if !strings.Contains(rec.Response, f.pages.URL+"/p/1") || len(rec.Transcript) != 9 {
		t.Errorf("record 1: response %q, %d turns", rec.Response, len(rec.Transcript))
	}
	m, err := agent.ReadManifest(out)
	if err != nil || m.Model != "openai:gpt-4o-mini" || m.Search != "serpapi" || m.Template.SHA256 == "" || len(m.Prompts) == 0 || m.Dirs["2"] != "." || m.Versions["go"] == "" {
		t.Errorf("manifest = %+v, %v", m, err)
	}

	// eval scores the finished report and refuses the failed record.
	res := filepath.Join(f.dir, "results")
	evalOut, evalErr, code := cli(t, "eval", "--config", f.config, "--dataset", f.dataset, "--reports", out, "--out", res,
		"--store", filepath.Join(f.dir, "eval.db"), "--no-scholar", "--allow-host", "127.0.0.1", "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, evalErr)
	}
	var sum struct {
		Reports  int `json:"reports"`
		Failures []struct {
			Task  string `json:"task"`
			Error string `json:"error"`
		} `json:"failures"`
	}
	if err := json.Unmarshal([]byte(evalOut), &sum); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, evalOut)
	}
	if sum.Reports != 1 {
		t.Errorf("eval scored %d reports, want 1", sum.Reports)
	}
	var failed bool
	for _, fl := range sum.Failures {
		switch fl.Task {
		case "2101.00002":
			failed = strings.Contains(fl.Error, "recorded this task as failed")
		default:
			t.Errorf("unexpected eval failure %+v", fl)
		}
	}
	if !failed {
		t.Errorf("eval did not refuse the failed record clearly: %+v", sum.Failures)
	}
	if _, err := os.Stat(filepath.Join(res, "reports", "2101.00001.json")); err != nil {
		t.Errorf("eval output for the finished report: %v", err)
	}

	// Rerun: the failed task is retried, the finished one untouched.
	f.mu.Lock()
	f.failTask = ""
	f.mu.Unlock()
	before1, before2 := f.requests("2101.00001"), f.requests("2101.00002")
	finished, _ := os.ReadFile(filepath.Join(out, "2101.00001.json"))
	stdout, stderr, code = f.run(t, out, "--max-tool-calls", "2")
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s%s", code, stdout, stderr)
	}
	if f.requests("2101.00001") != before1 || f.requests("2101.00002") != before2+3 {
		t.Errorf("rerun requests: task 1 +%d (want 0), task 2 +%d (want 3)", f.requests("2101.00001")-before1, f.requests("2101.00002")-before2)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "2101.00001.json")); string(b) != string(finished) {
		t.Errorf("the finished report was rewritten")
	}
	rec2, err := agent.LoadRecord(filepath.Join(out, "2101.00002.json"))
	if err != nil || !rec2.Finished() || len(rec2.PreviousAttempts) != 1 {
		t.Errorf("retried record = %+v, %v", rec2, err)
	}
	m, _ = agent.ReadManifest(out)
	if len(m.Runs) != 2 {
		t.Errorf("manifest lists %d runs, want 2", len(m.Runs))
	}
	// The store counts the run's units (the retried task's unit is done
	// now).
	runsOut, _, code := cli(t, "runs", "--store", f.store)
	if code != 0 || !strings.Contains(runsOut, "agent_task/done 2") || strings.Contains(runsOut, "agent_task/failed") {
		t.Errorf("runs:\n%s", runsOut)
	}

	// Another configuration into the same directory is refused.
	_, stderr, code = f.run(t, out, "--max-tool-calls", "2", "--read-chars", "999")
	if code == 0 || !strings.Contains(stderr, "another configuration") || !strings.Contains(stderr, "read chars") {
		t.Errorf("other settings into the same --out: exit %d, %s", code, stderr)
	}
}

// TestRunAblation runs --max-tool-calls 1,2 into tools-1/ and tools-2/.
func TestRunAblation(t *testing.T) {
	f := newAgentFixture(t)
	out := filepath.Join(f.dir, "ablation")
	stdout, stderr, code := f.run(t, out, "--max-tool-calls", "2,1", "--json", "--tasks", "2101.00001")
	if code != 0 {
		t.Fatalf("ablation: exit %d\n%s%s", code, stdout, stderr)
	}
	var res runOutput
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if len(res.Budgets) != 2 || res.Budgets[0].MaxToolCalls != 1 || res.Budgets[1].MaxToolCalls != 2 || res.Budgets[0].Done != 1 || res.Budgets[1].Done != 1 {
		t.Fatalf("summaries = %+v", res.Budgets)
	}
	for _, b := range []int{1, 2} {
		rec, err := agent.LoadRecord(filepath.Join(out, fmt.Sprintf("tools-%d", b), "2101.00001.json"))
		if err != nil || !rec.Finished() || rec.MaxToolCalls != b || rec.ToolCalls != b {
			t.Errorf("tools-%d record = %+v, %v", b, rec, err)
		}
		if _, err := os.Stat(filepath.Join(out, fmt.Sprintf("tools-%d", b), "2101.00002.json")); err == nil {
			t.Errorf("--tasks ignored in tools-%d", b)
		}
	}
	m, err := agent.ReadManifest(out)
	if err != nil || m.Dirs["1"] != "tools-1" || m.Dirs["2"] != "tools-2" || fmt.Sprint(m.MaxToolCalls) != "[1 2]" {
		t.Errorf("manifest = %+v, %v", m, err)
	}
}

func TestRunBadInput(t *testing.T) {
	f := newAgentFixture(t)
	out := filepath.Join(f.dir, "bad")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--max-tool-calls", "3,x"}, "--max-tool-calls"},
		{[]string{"--search", "bing"}, "--search"},
		{[]string{"--reader", "curl"}, "--reader"},
		{[]string{"--model", "gemini:gemini-2.5-flash", "--search", "native", "--max-tool-calls", "3,5"}, "no search cap"},
		{[]string{"--tasks", "9999.99999"}, "no task 9999.99999"},
		{[]string{"--prompt-template", filepath.Join(f.dir, "nope.tmpl")}, "nope.tmpl"},
		{[]string{"--search", "searxng"}, "instance"},
	}
	for _, tt := range tests {
		_, stderr, code := f.run(t, out, tt.args...)
		if code == 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("run %v: exit %d, stderr %q; want an error about %s", tt.args, code, stderr, tt.want)
		}
	}
	t.Setenv("SERPAPI_API_KEY", "")
	_, stderr, code := f.run(t, out)
	if code == 0 || !strings.Contains(stderr, "SERPAPI_API_KEY") {
		t.Errorf("no search key: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, agent.ManifestFile)); err == nil {
		t.Errorf("a manifest was written by runs that never started")
	}
	if len(f.llm.Calls()) != 0 {
		t.Errorf("%d model requests by invalid runs", len(f.llm.Calls()))
	}
}

// TestRunShowTemplate: the printed template is the built-in one, usable
// as a --prompt-template file as is.
func TestRunShowTemplate(t *testing.T) {
	out, errOut, code := cli(t, "run", "--show-template")
	if code != 0 {
		t.Fatalf("--show-template: exit %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "prompt.tmpl")
	os.WriteFile(path, []byte(out), 0o644)
	tm, err := agent.LoadTemplate(path)
	if err != nil || tm.SHA256 != tm.BuiltinSHA256 {
		t.Errorf("printed template: %v, sha256 %s vs built-in %s", err, tm.SHA256, tm.BuiltinSHA256)
	}
	if _, errOut, code := cli(t, "run", "--model", "openai:gpt-4o"); code == 0 || !strings.Contains(errOut, `required flag(s) "dataset", "out" not set`) {
		t.Errorf("run without --dataset and --out: exit %d, %q", code, errOut)
	}
}

// TestRunRepeatIsFree runs the same configuration twice into two
// directories on one store: the second run asks neither the model nor the
// search API anything (the model's calls and the search answers are both
// in the store), says so in its transcripts, and writes the same report.
// --no-cache asks the search API again.
func TestRunRepeatIsFree(t *testing.T) {
	f := newAgentFixture(t)
	first := filepath.Join(f.dir, "runs", "a")
	if stdout, stderr, code := f.run(t, first, "--max-tool-calls", "2"); code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, stdout, stderr)
	}
	llmCalls, searches := len(f.llm.Calls()), len(f.serp.Requests())
	if searches != 2 {
		t.Fatalf("first run: %d search requests, want 2", searches)
	}
	second := filepath.Join(f.dir, "runs", "b")
	if stdout, stderr, code := f.run(t, second, "--max-tool-calls", "2"); code != 0 {
		t.Fatalf("second run: exit %d\n%s%s", code, stdout, stderr)
	}
	if n, s := len(f.llm.Calls())-llmCalls, len(f.serp.Requests())-searches; n != 0 || s != 0 {
		t.Errorf("second run: %d model requests and %d search requests, want 0 and 0", n, s)
	}
	for _, id := range strings.Split(agentIDs, ",") {
		a, errA := agent.LoadRecord(filepath.Join(first, id+".json"))
		b, errB := agent.LoadRecord(filepath.Join(second, id+".json"))
		if errA != nil || errB != nil {
			t.Fatalf("records: %v, %v", errA, errB)
		}
		if a.Response != b.Response {
			t.Errorf("%s: the repeated run wrote another report", id)
		}
		var hits, tools int
		for _, turn := range b.Transcript {
			if turn.Role == "tool" {
				tools++
				if turn.CacheHit && turn.Tool == agent.ToolSearch {
					hits++
				}
			}
		}
		if tools != 2 || hits != 1 {
			t.Errorf("%s: %d tool turns, %d search cache hits; want 2 and 1", id, tools, hits)
		}
	}
	third := filepath.Join(f.dir, "runs", "c")
	if stdout, stderr, code := f.run(t, third, "--max-tool-calls", "2", "--no-cache"); code != 0 {
		t.Fatalf("--no-cache run: exit %d\n%s%s", code, stdout, stderr)
	}
	if s := len(f.serp.Requests()) - searches; s != 2 {
		t.Errorf("--no-cache run: %d search requests, want 2", s)
	}
}

// TestRunNativeAblation runs the tool-budget ablation with the provider's
// own web search: budget 0 sends no search tool, budget 2 caps the
// provider's searches at 2 on the wire.
func TestRunNativeAblation(t *testing.T) {
	f := newAgentFixture(t)
	web := llmtest.NewServer(t)
	web.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		return llmtest.Web("Dense retrieval beats BM25 on open-domain QA.", llmtest.Citation{URL: "https://arxiv.org/abs/2004.04906", Title: "DPR", Start: 0, End: 45})
	})
	t.Setenv("OPENAI_BASE_URL", web.OpenAIBaseURL())
	out := filepath.Join(f.dir, "native")
	if stdout, stderr, code := f.run(t, out, "--search", "native", "--max-tool-calls", "0,2", "--tasks", "2101.00001"); code != 0 {
		t.Fatalf("native ablation: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, b := range []int{0, 2} {
		rec, err := agent.LoadRecord(filepath.Join(out, fmt.Sprintf("tools-%d", b), "2101.00001.json"))
		if err != nil || !rec.Finished() {
			t.Fatalf("tools-%d record = %+v, %v", b, rec, err)
		}
		if want := map[int]string{0: agent.SearchNone, 2: agent.SearchNative}[b]; rec.Search != want {
			t.Errorf("tools-%d: search %q, want %q", b, rec.Search, want)
		}
	}
	var capped, plain int
	for _, c := range web.Calls() {
		b := string(c.Body)
		switch {
		case strings.Contains(b, `"max_tool_calls":2`) && strings.Contains(b, "web_search"):
			capped++
		case !strings.Contains(b, "web_search"):
			plain++
		}
	}
	if capped != 1 || plain != 1 {
		t.Errorf("%d capped web-search requests and %d without search; want 1 and 1", capped, plain)
	}
}
