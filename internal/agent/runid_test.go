package agent_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/agent"
)

func TestRunID(t *testing.T) {
	base := manifest("openai:gpt-4o", time.Now())
	id := agent.RunID("runs/a", base)
	if !regexp.MustCompile(`^agent-[0-9a-f]{12}$`).MatchString(id) {
		t.Fatalf("RunID = %q, want agent- and 12 hex digits", id)
	}
	// The same directory, however it is written, and settings that do
	// not determine the reports (times, versions) keep the id.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	same := manifest("openai:gpt-4o", time.Now().Add(time.Hour))
	same.Versions = map[string]string{"go": "other"}
	for _, dir := range []string{"runs/a/", "./runs/a", filepath.Join(wd, "runs", "a")} {
		if got := agent.RunID(dir, same); got != id {
			t.Errorf("RunID(%s) = %s, want %s", dir, got, id)
		}
	}
	// Another directory or setting makes another run.
	other := func(f func(*agent.Manifest)) agent.Manifest {
		m := manifest("openai:gpt-4o", time.Now())
		f(&m)
		return m
	}
	for name, m := range map[string]agent.Manifest{
		"model":    other(func(m *agent.Manifest) { m.Model = "openai:o3" }),
		"search":   other(func(m *agent.Manifest) { m.Search = "brave" }),
		"reader":   other(func(m *agent.Manifest) { m.Reader = "jina" }),
		"budgets":  other(func(m *agent.Manifest) { m.MaxToolCalls = []int{5} }),
		"results":  other(func(m *agent.Manifest) { m.SearchResults = 5 }),
		"chars":    other(func(m *agent.Manifest) { m.ReadChars = 1 }),
		"tokens":   other(func(m *agent.Manifest) { m.MaxTokens = 1 }),
		"template": other(func(m *agent.Manifest) { m.Template.SHA256 = "x" }),
	} {
		if got := agent.RunID("runs/a", m); got == id {
			t.Errorf("%s changed, RunID still %s", name, got)
		}
	}
	if got := agent.RunID("runs/b", base); got == id {
		t.Errorf("another directory, RunID still %s", got)
	}
}

func TestVersions(t *testing.T) {
	v := agent.Versions()
	if v["agent"] != agent.Version || v["go"] == "" {
		t.Errorf("Versions() = %v, want the agent's and Go's", v)
	}
}
