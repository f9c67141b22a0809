package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
// dollar limit (0 = no limit), so the same run goes through.
func TestMaxCostFlagOverridesConfig(t *testing.T) {
	args, requests := budgetFixture(t)
	out := filepath.Join(t.TempDir(), "out")
	_, errOut, code := cli(t, append(args, "--out", out, "--store", filepath.Join(t.TempDir(), "s.db"), "--max-cost", "0")...)
	if code != 0 || requests() == 0 {
		t.Fatalf("--max-cost 0: exit %d, %d requests: %s", code, requests(), errOut)
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
