package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"github.com/claimtrace/claimtrace/internal/search/searchtest"
)

// budgetFixture is the demo with a config file whose dollar limit is too
// small for any call, and a fake OpenAI server counting the requests.
func budgetFixture(t *testing.T) (args []string, requests func() int) {
	isolateLLMEnv(t)
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[llm]\nmax_cost = 0.0000001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := scriptedModel(t)
	args = []string{"eval", "--config", cfg, "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--snapshot", filepath.Join(dir, "snapshot"), "--offline", "--judge", "openai:gpt-4o-mini", "--json"}
	return args, func() int { return len(srv.Calls()) }
}

// TestMaxCallsKeepsConfiguredMaxCost: --max-calls sets the call limit
// only; the dollar limit of the config file still holds (bug 1 of issue
// 13: either flag used to replace the whole budget).
func TestMaxCallsKeepsConfiguredMaxCost(t *testing.T) {
	args, requests := budgetFixture(t)
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"config alone", nil},
		{"with --max-calls", []string{"--max-calls", "1000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := requests()
			out := filepath.Join(t.TempDir(), "out")
			a := append(append(append([]string(nil), args...), "--out", out, "--store", filepath.Join(t.TempDir(), "s.db")), tc.extra...)
			_, errOut, code := cli(t, a...)
			if n := requests() - before; n != 0 {
				t.Errorf("%d requests sent under a $0.0000001 budget (exit %d)", n, code)
			}
			if code == 0 {
				t.Errorf("exit 0 although no judge call could be made: %s", errOut)
			}
		})
	}
}

// TestMaxCostFlagOverridesConfig: --max-cost given replaces the config's
// dollar limit (none = no limit), so the same run goes through.
func TestMaxCostFlagOverridesConfig(t *testing.T) {
	args, requests := budgetFixture(t)
	out := filepath.Join(t.TempDir(), "out")
	_, errOut, code := cli(t, append(args, "--out", out, "--store", filepath.Join(t.TempDir(), "s.db"), "--max-cost", "none")...)
	if code != 0 || requests() == 0 {
		t.Fatalf("--max-cost none: exit %d, %d requests: %s", code, requests(), errOut)
	}
}

type dryStage struct {
	Calls       int64   `json:"calls"`
	InputTokens int64   `json:"input_tokens"`
	Cost        float64 `json:"cost_usd"`
}

func dryStages(t *testing.T, out string) map[string]dryStage {
	t.Helper()
	var d struct {
		Stages map[string]dryStage `json:"stages"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("dry run --json: %v\n%s", err, out)
	}
	return d.Stages
}

// TestDryRunSearchFactChecker: --dry-run prices MODEL@engine as what it
// is, the model reading search results from the search API: no web-search
// fee, and the prompt with the results (bug 2 of issue 13: it used to be
// priced as MODEL with the provider's own web search). Nothing is sent,
// neither to the model nor to the search API.
func TestDryRunSearchFactChecker(t *testing.T) {
	isolateLLMEnv(t)
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	srv := scriptedModel(t)
	sx := searchtest.NewServer(t, searchtest.SearXNG)
	t.Setenv("SEARXNG_BASE_URL", sx.URL)
	base := []string{"eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--out", filepath.Join(dir, "out"), "--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline",
		"--judge", "none", "--votes", "3", "--dry-run", "--json"}
	web, errOut, code := cli(t, append(base, "--fact-checkers", "openai:gpt-4o-mini")...)
	if code != 0 {
		t.Fatalf("dry run (web): %s", errOut)
	}
	api, errOut, code := cli(t, append(base, "--fact-checkers", "openai:gpt-4o-mini@searxng")...)
	if code != 0 {
		t.Fatalf("dry run (searxng): %s", errOut)
	}
	if n := len(srv.Calls()) + len(sx.Requests()); n != 0 {
		t.Fatalf("the dry runs sent %d requests", n)
	}
	w, s := dryStages(t, web)["fact_check"], dryStages(t, api)["fact_check"]
	if w.Calls == 0 || s.Calls != w.Calls {
		t.Fatalf("fact_check calls: web %d, searxng %d; want the same votes", w.Calls, s.Calls)
	}
	// gpt-4o-mini's web search costs $10 a thousand calls; a search API
	// run pays none of it.
	if fee := 0.01 * float64(w.Calls); w.Cost < fee {
		t.Errorf("web fact-check priced $%.4f for %d calls, less than their search fee", w.Cost, w.Calls)
	}
	if fee := 0.01 * float64(s.Calls); s.Cost >= fee {
		t.Errorf("searxng fact-check priced $%.4f for %d calls: a web-search fee the search API run never pays", s.Cost, s.Calls)
	}
	// The search-API prompt carries the results: it is longer.
	if s.InputTokens <= w.InputTokens {
		t.Errorf("searxng prompts estimated at %d input tokens, web ones at %d: the search results are not priced", s.InputTokens, w.InputTokens)
	}
}

// TestWriteJSONFileConcurrent: two processes writing one --out file never
// share a temporary file (the helper's fixed PATH.tmp made one's rename
// fail, or publish the other's half-written file).
func TestWriteJSONFileConcurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "quality.json")
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Go(func() {
			if err := writeJSONFile(p, map[string]any{"writer": i, "pad": strings.Repeat("x", 64<<10)}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var v map[string]any
	if b, err := os.ReadFile(p); err != nil || json.Unmarshal(b, &v) != nil {
		t.Errorf("the file is not one writer's whole JSON: %v", err)
	}
}

// TestRunConfigPrecedence: defaults < config file < CLAIMTRACE_* < flags,
// each setting on its own: a flag given replaces only its own setting.
func TestRunConfigPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		file  string
		env   map[string]string
		flags []string
		want  RunConfig
	}{
		{name: "defaults", want: RunConfig{}},
		{name: "file", file: "[llm]\nmax_cost = 2.5\nmax_calls = 40\nno_cache = true\n", want: RunConfig{MaxCost: 2.5, MaxCalls: 40, NoCache: true}},
		{name: "env over file", file: "[llm]\nmax_cost = 2.5\nmax_calls = 40\n", env: map[string]string{"CLAIMTRACE_MAX_COST": "7", "CLAIMTRACE_MAX_CALLS": "9"},
			want: RunConfig{MaxCost: 7, MaxCalls: 9}},
		{name: "--max-calls keeps the dollar limit", file: "[llm]\nmax_cost = 2.5\nmax_calls = 40\n", flags: []string{"--max-calls", "1000"},
			want: RunConfig{MaxCost: 2.5, MaxCalls: 1000}},
		{name: "--max-cost keeps the call limit", file: "[llm]\nmax_cost = 2.5\nmax_calls = 40\n", env: map[string]string{"CLAIMTRACE_MAX_CALLS": "9"}, flags: []string{"--max-cost", "1"},
			want: RunConfig{MaxCost: 1, MaxCalls: 9}},
		{name: "an explicit none lifts a limit", file: "[llm]\nmax_cost = 2.5\n", flags: []string{"--max-cost=none"}, want: RunConfig{}},
		{name: "none in the environment", file: "[llm]\nmax_calls = 40\n", env: map[string]string{"CLAIMTRACE_MAX_CALLS": "none"}, want: RunConfig{}},
		{name: "--no-cache=false over the file", file: "[llm]\nno_cache = true\n", flags: []string{"--no-cache=false"}, want: RunConfig{}},
		{name: "--no-cache", flags: []string{"--no-cache"}, want: RunConfig{NoCache: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := isolateLLMEnv(t)
			a := &app{}
			if tc.file != "" {
				a.configPath = filepath.Join(dir, "config.toml")
				if err := os.WriteFile(a.configPath, []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if err := a.loadConfig(); err != nil {
				t.Fatal(err)
			}
			var f llmFlags
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			f.add(fs)
			if err := fs.Parse(tc.flags); err != nil {
				t.Fatal(err)
			}
			got, err := a.runConfig(&f, false)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("runConfig = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSettingsValidate: settings no command can run with are refused
// where they are read, naming the setting.
func TestSettingsValidate(t *testing.T) {
	for _, tc := range []struct{ file, flag, want string }{
		{file: "[llm]\nmax_cost = -1\n", want: "llm.max_cost"},
		{file: "[llm]\nmax_calls = -3\n", want: "llm.max_calls"},
		{file: "concurrency = 0\n", want: "concurrency"},
		{flag: "--max-cost=-2", want: "--max-cost"},
		{flag: "--max-calls=-1", want: "--max-calls"},
		{flag: "--max-cost=NaN", want: "--max-cost"},
		{file: "[llm]\nmax_cost = 0\n", want: "llm.max_cost = 0: 0 is not a budget"},
		{file: "[llm]\nmax_calls = 0\n", want: "llm.max_calls = 0: 0 is not a budget"},
		{flag: "--max-cost=0", want: "write none, or leave the setting out"},
		{flag: "--max-calls=0", want: "write none, or leave the setting out"},
	} {
		dir := isolateLLMEnv(t)
		cfg := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(cfg, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"analyze", "quality", "--config", cfg, "--dataset", dir, "--reports", dir, "--model", "openai:gpt-4o-mini"}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		_, errOut, code := cli(t, args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q %s: exit %d, %s; want an error naming %s", tc.file, tc.flag, code, errOut, tc.want)
		}
	}
}
