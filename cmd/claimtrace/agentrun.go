package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/store"
)

type runFlags struct {
	dataset        string
	model          string
	out            string
	search         string
	reader         string
	maxToolCalls   string
	concurrency    int
	tasks          []string
	promptTemplate string
	store          string
	llm            llmFlags
	maxTokens      int
	readChars      int
	searchResults  int
	json           bool
	showTemplate   bool
	allowHosts     []string
}

func (a *app) runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --dataset DIR --model SPEC --out REPORTS_DIR",
		Short: "Run a baseline agent (model + search + reader tools) over benchmark tasks",
		Long: `Run a base model as a research agent over a ReportBench-format dataset, the
way the paper's baselines were run (seed §3.1): the task's prompt plus the
benchmark's rules and an instruction to cite with URLs, a web search tool and
a page reader offered through the model's native function calling, at most
--max-tool-calls calls per task (then the model is given what its tools
returned and asked for its final answer, with no tool offered).

Search: serpapi (Google, SERPAPI_API_KEY), brave (BRAVE_API_KEY), tavily
(TAVILY_API_KEY), searxng (your instance: SEARXNG_BASE_URL or search.base_url)
or native (the model provider's own web search instead of the tools).
Reader: builtin (claimtrace's SSRF-safe fetcher and text extraction),
firecrawl (FIRECRAWL_API_KEY) or jina (Jina Reader, JINA_API_KEY optional).

Each task is written when it ends to REPORTS_DIR/<task_id>.json: the report in
"response" (ready for claimtrace eval) and the whole transcript (messages,
tool calls and results, tokens, cost, latency). A failed task is written with
its status (failed, context_length, budget_exhausted) and no "response", so
eval refuses it instead of scoring it. Rerun the same command to resume:
finished tasks are skipped and never overwritten, failed ones are retried.

--max-tool-calls 3,5,10 runs the tool-budget ablation (seed A.2.5) into
REPORTS_DIR/tools-3/, tools-5/, tools-10/. REPORTS_DIR/run-manifest.json
records the model, tools, budgets, the prompt template's hash and versions.`,
		Example: `  claimtrace run --dataset data/reportbench --model openai:gpt-4o --out runs/gpt-4o
  claimtrace run --dataset data/reportbench --model gemini:gemini-2.5-pro --out runs/ablation --max-tool-calls 3,5,10
  claimtrace run --dataset data/reportbench --model anthropic:claude-sonnet-4-5 --search native --out runs/claude-web --tasks 2312.04861`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.showTemplate {
				_, err := a.stdout.Write(agent.BuiltinSource())
				return err
			}
			var missing []string
			for _, name := range []string{"dataset", "out"} {
				if !cmd.Flags().Changed(name) {
					missing = append(missing, strconv.Quote(name))
				}
			}
			if len(missing) > 0 {
				return fmt.Errorf("required flag(s) %s not set", strings.Join(missing, ", "))
			}
			return a.runAgents(cmd.Context(), f, cmd.Flags().Changed)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.dataset, "dataset", "", "dataset directory (ReportBench_v1.1.jsonl + ReportBench_v1.1_GT/)")
	fs.StringVar(&f.model, "model", "", "model spec provider:model or a configured name (default: llm.model)")
	fs.StringVar(&f.out, "out", "", "reports directory to write <task_id>.json into")
	fs.StringVar(&f.search, "search", "", "search: serpapi, brave, tavily, searxng or native (default: search.provider, serpapi)")
	fs.StringVar(&f.reader, "reader", "", "page reader: builtin, firecrawl or jina (default: search.reader, builtin)")
	fs.StringVar(&f.maxToolCalls, "max-tool-calls", "5", "tool calls per task; several (3,5,10) run the budget ablation into tools-N/ sub-directories")
	fs.IntVar(&f.concurrency, "concurrency", 0, "tasks run at once (default: config, 8)")
	fs.StringSliceVar(&f.tasks, "tasks", nil, "only these task ids (comma-separated)")
	fs.StringVar(&f.promptTemplate, "prompt-template", "", "prompt template file (Go text/template; --show-template prints the built-in one to start from)")
	fs.BoolVar(&f.showTemplate, "show-template", false, "print the built-in prompt template and exit")
	fs.StringVar(&f.store, "store", "", "store DSN for the response cache and call ledger (default: <data dir>/claimtrace.db)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "answer cap of each model call (default: search.max_tokens, 8192)")
	fs.IntVar(&f.readChars, "read-chars", 0, "characters of a page shown to the model (default: search.read_chars, 20000)")
	fs.IntVar(&f.searchResults, "search-results", 0, "results per search (default: search.results, 10)")
	f.llm.add(fs)
	fs.BoolVar(&f.json, "json", false, "print the summary as JSON")
	fs.StringSliceVar(&f.allowHosts, "allow-host", nil, "host or CIDR the builtin reader may reach at a private address (intranet mirrors, tests); repeatable")
	return cmd
}

// runOutput is the --json output.
type runOutput struct {
	Run     string                `json:"run"`
	Model   string                `json:"model"`
	Search  string                `json:"search"`
	Reader  string                `json:"reader,omitempty"`
	Out     string                `json:"out"`
	Budgets []*agent.BatchSummary `json:"budgets"`
}

// runAgents runs the baseline agent over the dataset's tasks once per
// tool budget: it resolves the run settings, the search and reader tools
// and the prompt template, refuses a rerun into the same directory with
// other settings (run-manifest.json), opens one model client under the
// run's budget, and writes each task's record as it finishes.
func (a *app) runAgents(ctx context.Context, f runFlags, changed func(string) bool) error {
	sc := a.cfg.Search
	rc, err := a.runConfig(&f.llm, false)
	if err != nil {
		return err
	}
	budgets, err := parseBudgets(f.maxToolCalls)
	if err != nil {
		return err
	}
	searchName := strings.ToLower(cmp.Or(f.search, sc.Provider, search.SerpAPIName))
	readerName := strings.ToLower(cmp.Or(f.reader, sc.Reader, search.BuiltinName))
	native := searchName == agent.SearchNative
	switch {
	case !native && !slices.Contains([]string{search.SerpAPIName, search.BraveName, search.TavilyName, search.SearXNGName}, searchName):
		return fmt.Errorf("--search %q: want serpapi, brave, tavily, searxng or native: %w", searchName, claimtrace.ErrInvalid)
	case !slices.Contains([]string{search.BuiltinName, search.FirecrawlName, search.JinaName}, readerName):
		return fmt.Errorf("--reader %q: want builtin, firecrawl or jina: %w", readerName, claimtrace.ErrInvalid)
	}
	if native && changed("reader") {
		return fmt.Errorf("--reader with --search native: the provider reads pages itself: %w", claimtrace.ErrInvalid)
	}
	ds, err := dataset.LoadDataset(f.dataset)
	if err != nil {
		return err
	}
	tasks, err := ds.Select(splitList(f.tasks))
	if err != nil {
		return fmt.Errorf("--tasks: %w", err)
	}
	tmpl, err := agent.DefaultTemplate()
	if f.promptTemplate != "" {
		tmpl, err = agent.LoadTemplate(f.promptTemplate)
	}
	if err != nil {
		return err
	}
	ep, epOpts, err := a.cfg.endpoint(f.model)
	if err != nil {
		return err
	}
	if native && len(budgets) > 1 && ep.Provider == llm.Gemini {
		return fmt.Errorf("--search native with --max-tool-calls %s: Gemini's Google Search grounding has no search cap, so there is no budget to vary; use a search API for the ablation (OpenAI and Anthropic native search take the budget as their cap): %w", f.maxToolCalls, claimtrace.ErrInvalid)
	}
	maxTokens := cmp.Or(f.maxTokens, sc.MaxTokens, agent.DefaultMaxTokens)
	readChars := cmp.Or(f.readChars, sc.ReadChars, agent.DefaultReadChars)
	results := cmp.Or(f.searchResults, sc.Results, agent.DefaultSearchResults)
	if f.concurrency <= 0 {
		f.concurrency = a.cfg.Concurrency
	}
	searchName, reader, usesTools := agent.ToolNames(searchName, readerName, budgets)

	dirs := map[string]string{}
	for _, b := range budgets {
		dirs[strconv.Itoa(b)] = agent.BudgetDir(budgets, b)
	}
	now := time.Now().UTC()
	m := agent.Manifest{
		Model: ep.String(), Provider: string(ep.Provider), Search: searchName, Reader: reader,
		MaxToolCalls: budgets, Dirs: dirs, SearchResults: results, ReadChars: readChars, MaxTokens: maxTokens,
		Temperature: epOpts.Temperature, Template: tmpl.Info(), Prompts: prompts.Manifest(), Dataset: ds.TaskPath,
		Versions: agent.Versions(), Updated: now, Runs: []agent.ManifestRun{{Started: now, Tasks: len(tasks), Version: agent.Version}},
	}
	if usesTools {
		m.ToolsSHA256 = agent.ToolsSHA256(agent.Tools())
	}

	st, err := a.openStore(ctx, f.store)
	if err != nil {
		return err
	}
	runID := agent.RunID(f.out, m)
	client, err := a.openLLM(ctx, f.model, rc.llmRun(runID, st.LLMCache(), st))
	if err != nil {
		return err
	}
	opts := agent.Options{
		Model: client, ModelName: ep.String(), Native: native, SearchName: searchName, ReaderName: reader,
		SearchResults: results, ReadChars: readChars, MaxTokens: maxTokens, Template: tmpl,
	}
	if usesTools {
		so := a.searchOptions(searchName)
		s, err := search.NewSearcher(searchName, so)
		if err != nil {
			return err
		}
		// Search answers and remote pages are kept in the store, so a
		// resumed run shows the model what it saw before and its cached
		// calls go on matching.
		refresh := rc.NoCache
		cs := search.NewCachedSearcher(s, st.LLMCache(), searchName+" "+so.BaseURL)
		cs.Refresh = refresh
		opts.Searcher = cs
		if readerName == search.BuiltinName {
			fetcher, err := a.newFetcher(fetchFlags{allowHosts: f.allowHosts}, st)
			if err != nil {
				return err
			}
			opts.Reader = search.NewBuiltin(fetcher)
		} else {
			ro := a.readerOptions(readerName)
			r, err := search.NewReader(readerName, ro)
			if err != nil {
				return err
			}
			cr := search.NewCachedReader(r, st.LLMCache(), readerName+" "+ro.BaseURL)
			cr.Refresh = refresh
			opts.Reader = cr
		}
	}

	// Everything is checked (keys, template, store); now the manifest: a
	// directory holding another configuration's reports is refused before
	// anything is paid.
	if _, err := agent.WriteManifest(f.out, m); err != nil {
		return err
	}
	params, _ := json.Marshal(map[string]any{"version": agent.Version, "out": f.out, "model": m.Model, "search": searchName, "reader": reader, "max_tool_calls": budgets, "dataset": ds.TaskPath})
	if err := st.EnsureRun(ctx, runID, "agent", string(params)); err != nil {
		return err
	}

	var bar interface {
		Add(int) error
		Finish() error
	} = nopBar{}
	if b := a.progress(len(tasks)*len(budgets), "run"); b != nil {
		bar = b
	}
	ab, err := agent.NewAblation(opts, budgets)
	if err != nil {
		return err
	}
	out := runOutput{Run: runID, Model: ep.String(), Search: searchName, Reader: reader, Out: f.out}
	var runErr error
	out.Budgets, runErr = ab.Run(ctx, agent.AblationOptions{Dir: f.out, Tasks: tasks, Concurrency: f.concurrency,
		OnTask: func(ctx context.Context, dir string, ev agent.Event) error {
			bar.Add(1)
			return recordUnit(ctx, st, runID, dir, ev)
		}})
	bar.Finish()

	if f.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printRun(a.stdout, out, budgets, f.dataset, runErr)
	}
	if runErr != nil {
		return runErr
	}
	failed := 0
	for _, s := range out.Budgets {
		failed += s.Failed
	}
	if failed > 0 {
		if !f.json {
			fmt.Fprintf(a.stderr, "claimtrace: %d task(s) did not finish; rerun the same command to retry them\n", failed)
		}
		return &exitError{code: 1, err: errReported}
	}
	return nil
}

// parseBudgets reads --max-tool-calls: one budget or a comma-separated
// list, each a non-negative integer, returned sorted without repeats.
func parseBudgets(s string) ([]int, error) {
	var out []int
	for _, p := range splitList([]string{s}) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--max-tool-calls %q: want non-negative integers such as 5 or 3,5,10: %w", s, claimtrace.ErrInvalid)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--max-tool-calls %q: want a budget such as 5 or 3,5,10: %w", s, claimtrace.ErrInvalid)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// searchKeyEnv and baseURLEnvOf name the environment variables of each
// search API and reader.
var searchKeyEnv = map[string]string{
	search.SerpAPIName: "SERPAPI_API_KEY", search.BraveName: "BRAVE_API_KEY", search.TavilyName: "TAVILY_API_KEY",
	search.SearXNGName: "SEARXNG_API_KEY", search.FirecrawlName: "FIRECRAWL_API_KEY", search.JinaName: "JINA_API_KEY",
}

func baseURLEnvOf(name string) string { return strings.ToUpper(name) + "_BASE_URL" }

// searchOptions resolves a search API's base URL and key: the config file
// ([search] base_url, key_env, when it names this provider), then
// <PROVIDER>_BASE_URL and the standard key variable.
func (a *app) searchOptions(name string) search.Options {
	sc := a.cfg.Search
	o := search.Options{KeyEnv: searchKeyEnv[name]}
	if strings.EqualFold(sc.Provider, name) {
		o.BaseURL = sc.BaseURL
		if sc.KeyEnv != "" {
			o.KeyEnv = sc.KeyEnv
		}
	}
	if o.BaseURL == "" {
		o.BaseURL = os.Getenv(baseURLEnvOf(name))
	}
	o.APIKey = os.Getenv(o.KeyEnv)
	return o
}

// readerOptions does the same for a remote reader.
func (a *app) readerOptions(name string) search.Options {
	sc := a.cfg.Search
	o := search.Options{KeyEnv: searchKeyEnv[name]}
	if strings.EqualFold(sc.Reader, name) {
		o.BaseURL = sc.ReaderBaseURL
		if sc.ReaderKeyEnv != "" {
			o.KeyEnv = sc.ReaderKeyEnv
		}
	}
	if o.BaseURL == "" {
		o.BaseURL = os.Getenv(baseURLEnvOf(name))
	}
	o.APIKey = os.Getenv(o.KeyEnv)
	return o
}

// recordUnit stores a task's outcome as a unit of the run, so `claimtrace
// runs` counts them.
func recordUnit(ctx context.Context, st *store.Store, run, dir string, ev agent.Event) error {
	if ev.Record == nil {
		return nil
	}
	status := store.StatusDone
	if ev.Outcome != agent.StatusDone {
		status = store.StatusFailed
	}
	data, _ := json.Marshal(map[string]any{"status": ev.Outcome, "tool_calls": ev.Record.ToolCalls, "usage": ev.Record.Usage})
	return st.PutUnit(ctx, store.Unit{Run: run, Kind: "agent_task", Key: filepath.ToSlash(filepath.Join(dir, ev.Task)), Status: status, Data: data, Err: ev.Err})
}

// printRun prints what a run did, per budget.
func printRun(w io.Writer, o runOutput, budgets []int, dataset string, runErr error) {
	tools := o.Search
	if o.Reader != "" {
		tools += " + " + o.Reader + " reader"
	}
	fmt.Fprintf(w, "claimtrace run — %s with %s (run %s)\n\n", o.Model, tools, o.Run)
	for _, s := range o.Budgets {
		label := filepath.Clean(s.Dir)
		fmt.Fprintf(w, "%s (≤%d tool calls): %d tasks — %d done now, %d finished earlier, %d failed", label, s.MaxToolCalls, s.Tasks, s.Done, s.Skipped, s.Failed)
		var parts []string
		for _, st := range []string{agent.StatusContextLength, agent.StatusBudget, agent.OutcomeConflict} {
			if n := s.ByStatus[st]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, st))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
		}
		if s.NotRun > 0 {
			fmt.Fprintf(w, ", %d not run", s.NotRun)
		}
		u := s.Usage
		fmt.Fprintf(w, "\n  %d model calls (%d from cache), %d tokens in, %d out, $%.4f\n", u.Calls, u.CacheHits, u.InputTokens, u.OutputTokens, u.CostUSD)
		for _, fl := range s.Failures {
			fmt.Fprintf(w, "  FAILED %s (%s): %s\n", fl.Task, fl.Status, fl.Error)
		}
	}
	switch {
	case errors.Is(runErr, context.Canceled):
		return
	case runErr != nil:
		fmt.Fprintf(w, "\nstopped: %v\n", runErr)
		return
	}
	fmt.Fprintf(w, "\nreports in %s (run-manifest.json describes the run); score them with:\n", o.Out)
	for _, b := range budgets {
		dir := filepath.Join(o.Out, agent.BudgetDir(budgets, b))
		fmt.Fprintf(w, "  claimtrace eval --dataset %s --reports %s --out %s\n", dataset, dir, filepath.Join("results", filepath.Base(filepath.Clean(dir))))
	}
}
