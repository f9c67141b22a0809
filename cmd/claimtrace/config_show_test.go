package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigShowInForce: config --show prints each value as commands use
// it (a limit left at 0 prints its default; the store as the path opened),
// a budget only when there is one, and its output read back as a config
// file shows the same.
func TestConfigShowInForce(t *testing.T) {
	dir := isolateLLMEnv(t)
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(dir, "data"))
	t.Setenv("CLAIMTRACE_STORE", "")
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("[serve]\nread_timeout_seconds = 0\nmax_conns = 10\n\n[live]\nmax_sources = 0\nmax_claims = 7\n"), 0o644)
	out, errOut, code := cli(t, "config", "--show", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"read_timeout_seconds = 30", "max_conns = 10", "max_sources = 1000", "max_claims = 7",
		`store = "` + filepath.Join(dir, "data", "claimtrace.db") + `"`,
		"# run budget: no limit (llm.max_cost and llm.max_calls not set)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config --show lacks %q:\n%s", want, out)
		}
	}
	for _, never := range []string{"max_cost =", "max_calls =", "max_sources = 0", "read_timeout_seconds = 0"} {
		if strings.Contains(out, never) {
			t.Errorf("config --show prints %q:\n%s", never, out)
		}
	}

	t.Setenv("CLAIMTRACE_MAX_COST", "2.5")
	out, _, _ = cli(t, "config", "--show", "--config", cfg)
	if !strings.Contains(out, "max_cost = 2.5") || !strings.Contains(out, "# run budget: $2.5, calls not limited") {
		t.Errorf("a budget is not shown:\n%s", out)
	}
	back := filepath.Join(dir, "back.toml")
	os.WriteFile(back, []byte(out), 0o644)
	t.Setenv("CLAIMTRACE_MAX_COST", "")
	again, errOut, code := cli(t, "config", "--show", "--config", back)
	if code != 0 {
		t.Fatalf("config --show output does not read back: %s", errOut)
	}
	strip := func(s string) string { return s[:strings.Index(s, "# config file:")] }
	if strip(again) != strip(out) {
		t.Errorf("read back, config --show differs:\n%s\nwas\n%s", strip(again), strip(out))
	}

	t.Setenv("CLAIMTRACE_MAX_COST", "0")
	if _, errOut, code := cli(t, "config", "--config", cfg); code == 0 || !strings.Contains(errOut, "CLAIMTRACE_MAX_COST") || !strings.Contains(errOut, "0 is not a budget") {
		t.Errorf("CLAIMTRACE_MAX_COST=0: exit %d, %s", code, errOut)
	}
}
