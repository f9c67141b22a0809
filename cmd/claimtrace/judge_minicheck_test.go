package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// TestJudgeEvalMiniCheck scores --judge minicheck:openai:MODEL against a
// fake vLLM server with no key (as a local server runs): one call a pair,
// MiniCheck's prompt, verdicts read from the logprobs, reported like any
// judge; --verdicts writes them for judge estimate.
func TestJudgeEvalMiniCheck(t *testing.T) {
	isolateLLMEnv(t)
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		i := strings.LastIndex(c.Prompt, "\nClaim: ")
		if !strings.HasPrefix(c.Prompt, "Document: ") || i < 0 {
			return llmtest.Text("?")
		}
		doc, claim := strings.ToLower(c.Prompt[:i]), strings.ToLower(c.Prompt[i+8:])
		n, hit := 0, 0
		for _, w := range strings.Fields(claim) {
			if w = strings.Trim(w, ".,"); len(w) >= 5 {
				n++
				if strings.Contains(doc, w) {
					hit++
				}
			}
		}
		p := 0.1
		if n > 0 && 2*hit >= n {
			p = 0.85
		}
		return llmtest.Reply{Text: "Yes", Logprobs: []llmtest.Logprob{{Token: "Yes", Logprob: math.Log(p),
			Top: []llmtest.Logprob{{Token: "Yes", Logprob: math.Log(p)}, {Token: "No", Logprob: math.Log(1 - p)}}}}}
	})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	dir := t.TempDir()
	verdicts := filepath.Join(dir, "verdicts.jsonl")
	out, errOut, code := cli(t, "judge", "eval", "--labels", filepath.Join(labelFixtures, "plain.jsonl"),
		"--judge", "minicheck:openai:bespoke-minicheck", "--store", filepath.Join(dir, "ct.db"), "--verdicts", verdicts, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got judgeEvalJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.N != 6 || got.LLM == nil || got.LLM.Calls != 6 {
		t.Fatalf("n %d, llm %+v: want 6 pairs, one call each", got.N, got.LLM)
	}
	for _, c := range srv.Calls() {
		if b := c.Chat(t); len(b.Messages) != 2 || !strings.HasPrefix(b.Messages[0].Content, "Determine whether the provided claim") || !b.Logprobs {
			t.Fatalf("request %+v: want MiniCheck's system prompt and logprobs", b)
		}
	}
	var line struct {
		Verdict struct {
			Label    string  `json:"label"`
			Strength float64 `json:"strength"`
			Judge    string  `json:"judge"`
		} `json:"verdict"`
	}
	first, _, _ := strings.Cut(readText(t, verdicts), "\n")
	if err := json.Unmarshal([]byte(first), &line); err != nil || line.Verdict.Judge != "minicheck:openai:bespoke-minicheck" ||
		line.Verdict.Label != "supported" || math.Abs(line.Verdict.Strength-0.85) > 1e-9 {
		t.Errorf("first verdict %s: want supported 0.85 by minicheck:openai:bespoke-minicheck", first)
	}
	for _, bad := range [][]string{{"--judge", "minicheck:"}, {"--judge", "minicheck:openai:m", "--prompts", "reportbench"}, {"--judge", "minicheck:openai:m", "--calibration", "citing"}} {
		args := append([]string{"judge", "eval", "--labels", filepath.Join(labelFixtures, "plain.jsonl"), "--store", filepath.Join(dir, "ct.db")}, bad...)
		if _, errOut, code := cli(t, args...); code == 0 {
			t.Errorf("%v: exit 0, want a usage error (%s)", bad, errOut)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
