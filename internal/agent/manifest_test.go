package agent_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
)

func manifest(model string, started time.Time) agent.Manifest {
	tm, _ := agent.DefaultTemplate()
	temp := 0.0
	return agent.Manifest{
		Model: model, Search: "serpapi", Reader: "builtin", MaxToolCalls: []int{3, 5},
		Dirs: map[string]string{"3": "tools-3", "5": "tools-5"}, SearchResults: 10, ReadChars: 20000, MaxTokens: 8192,
		Temperature: &temp, Template: tm.Info(), ToolsSHA256: agent.ToolsSHA256(agent.Tools()),
		Prompts: map[string]string{"llm/check": "abc"}, Versions: map[string]string{"agent": agent.Version},
		Updated: started, Runs: []agent.ManifestRun{{Started: started, Tasks: 100, Version: agent.Version}},
	}
}

func TestManifestContinuesTheSameRun(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := agent.WriteManifest(dir, manifest("openai:gpt-4o", t0)); err != nil {
		t.Fatal(err)
	}
	m, err := agent.WriteManifest(dir, manifest("openai:gpt-4o", t0.Add(time.Hour)))
	if err != nil {
		t.Fatalf("rerun with the same settings: %v", err)
	}
	if len(m.Runs) != 2 || !m.Created.Equal(t0) || !m.Updated.Equal(t0.Add(time.Hour)) || m.Format != agent.ManifestFormat {
		t.Errorf("manifest after rerun: %d runs, created %v, updated %v", len(m.Runs), m.Created, m.Updated)
	}
	back, err := agent.ReadManifest(dir)
	if err != nil || len(back.Runs) != 2 || back.Template.SHA256 == "" || back.Dirs["5"] != "tools-5" {
		t.Errorf("ReadManifest = %+v, %v", back, err)
	}
}

func TestManifestRefusesAnotherConfiguration(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Now()
	agent.WriteManifest(dir, manifest("openai:gpt-4o", t0))
	before, _ := os.ReadFile(filepath.Join(dir, agent.ManifestFile))

	other := manifest("gemini:gemini-2.5-pro", t0)
	other.ReadChars = 5000
	_, err := agent.WriteManifest(dir, other)
	if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), `model "openai:gpt-4o", now "gemini:gemini-2.5-pro"`) || !strings.Contains(err.Error(), "read chars") || !strings.Contains(err.Error(), "new --out") {
		t.Errorf("WriteManifest with another model = %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, agent.ManifestFile)); string(after) != string(before) {
		t.Errorf("the manifest changed")
	}

	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, agent.ManifestFile), []byte(`{"something":"else"}`), 0o644)
	if _, err := agent.WriteManifest(foreign, manifest("openai:gpt-4o", t0)); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("foreign manifest: %v", err)
	}
}
