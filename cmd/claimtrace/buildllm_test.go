package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// TestBuildClassifyWithLLM runs the classify stage with a model behind a
// fake OpenAI server: each decision is the model's, recorded as such, and a
// rerun answers from the store's cache without a request.
func TestBuildClassifyWithLLM(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.json")
	lines := []string{
		`{"id":"2101.00001","title":"A Survey of Widget Learning","comments":"Accepted at Widget Journal","license":"http://creativecommons.org/licenses/by/4.0/","abstract":"We review two decades of widget learning research.","categories":"cs.LG","versions":[{"version":"v1","created":"Mon, 4 Jan 2021 10:00:00 GMT"}]}`,
		`{"id":"2102.00002","title":"A Review of Sky Survey Telescopes","comments":"Published in ApJ","license":"http://creativecommons.org/licenses/by/4.0/","abstract":"We present a new photometric sky survey.","categories":"astro-ph","versions":[{"version":"v1","created":"Tue, 2 Feb 2021 10:00:00 GMT"}]}`,
	}
	os.WriteFile(snap, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	srv := llmtest.NewServer(t)
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "Sky Survey") {
			return llmtest.Text(`{"survey": false, "reason": "an observational sky survey"}`)
		}
		return llmtest.Text(`{"survey": true, "reason": "reviews prior research"}`)
	})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-key-123456")
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(dir, "data"))
	work := filepath.Join(dir, "bench")
	if _, errOut, code := cli(t, "build", "select", "--snapshot", snap, "--dir", work); code != 0 {
		t.Fatalf("select: %s", errOut)
	}
	for i := 0; i < 2; i++ {
		out, errOut, code := cli(t, "build", "classify", "--dir", work, "--llm", "--model", "openai:gpt-4o-mini")
		if code != 0 {
			t.Fatalf("classify --llm (run %d): %s%s", i, out, errOut)
		}
	}
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("provider requests = %d, want 2 (one a paper; the rerun keeps finished decisions)", n)
	}
	journal, err := os.ReadFile(filepath.Join(work, "build", "classify.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(journal), `"llm"`) || !strings.Contains(string(journal), "observational sky survey") {
		t.Errorf("classify journal does not record the model's decisions:\n%s", journal)
	}
}
