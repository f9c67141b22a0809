package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

var (
	fakeStatementRE = regexp.MustCompile(`<statement n="(\d+)">(.*)</statement>`)
	fakeSourceRE    = regexp.MustCompile(`(?s)<source>\n(.*?)\n</source>`)
	fakeDocumentRE  = regexp.MustCompile(`(?s)Source Document:\n(.*?)\n\nReturn any relevant content`)
)

// scriptedJudge answers the judge prompts of both prompt families: a
// statement sharing at least half of its long words with the source is
// supported (quoting the whole source, which is verbatim), else
// unsupported.
func scriptedJudge(ctx context.Context, c llmtest.Call) llmtest.Reply {
	overlap := func(claim, src string) bool {
		n, hit := 0, 0
		for _, w := range strings.Fields(strings.ToLower(claim)) {
			w = strings.Trim(w, ".,;:")
			if len(w) < 5 {
				continue
			}
			n++
			if strings.Contains(strings.ToLower(src), w) {
				hit++
			}
		}
		return n > 0 && 2*hit >= n
	}
	switch {
	case strings.Contains(c.Prompt, "<statement n="):
		src := fakeSourceRE.FindStringSubmatch(c.Prompt)
		type v struct {
			Claim    int     `json:"claim"`
			Label    string  `json:"label"`
			Strength float64 `json:"strength"`
			Evidence string  `json:"evidence"`
			Reason   string  `json:"reason"`
		}
		var vs []v
		for i, m := range fakeStatementRE.FindAllStringSubmatch(c.Prompt, -1) {
			if src != nil && overlap(m[2], src[1]) {
				vs = append(vs, v{i + 1, "supported", 0.9, src[1], "the words are there"})
			} else {
				vs = append(vs, v{i + 1, "unsupported", 0.1, "", "not there"})
			}
		}
		b, _ := json.Marshal(map[string]any{"verdicts": vs})
		return llmtest.Text(string(b))
	case strings.Contains(c.Prompt, "Source Document:"):
		if m := fakeDocumentRE.FindStringSubmatch(c.Prompt); m != nil {
			return llmtest.Text(m[1])
		}
		return llmtest.Text("NOT_FOUND")
	case strings.Contains(c.Prompt, "Source Sentence from original source:"):
		parts := strings.SplitN(c.Prompt, "Source Sentence from original source:", 2)
		claim := strings.SplitN(parts[0], "Claim from report:", 2)[1]
		if overlap(claim, parts[1]) {
			return llmtest.Text(`{"reason": "the words are there", "match": true}`)
		}
		return llmtest.Text(`{"reason": "not there", "match": false}`)
	}
	return llmtest.Text("ok")
}

type judgeEvalJSON struct {
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
	LLM      *struct {
		Calls       int64 `json:"calls"`
		CacheHits   int64 `json:"cache_hits"`
		InputTokens int64 `json:"input_tokens"`
	} `json:"llm"`
}

func TestJudgeEvalLLM(t *testing.T) {
	isolateLLMEnv(t)
	srv := llmtest.NewServer(t)
	srv.RequireKey(fakeKey)
	srv.Handle(scriptedJudge)
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", fakeKey)
	store := filepath.Join(t.TempDir(), "ct.db")
	labels := filepath.Join(labelFixtures, "plain.jsonl")

	for _, mode := range []struct {
		prompts   string
		wantCalls int64
	}{{"claimtrace", 6}, {"reportbench", 12}} {
		t.Run(mode.prompts, func(t *testing.T) {
			before := len(srv.Calls())
			args := []string{"judge", "eval", "--labels", labels, "--judge", "openai:gpt-4o-mini", "--prompts", mode.prompts, "--store", store, "--json"}
			out, errOut, code := cli(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got judgeEvalJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			// Six pairs, each with its own evidence: one batched call each,
			// or two calls each in parity mode.
			if got.N != 6 || got.LLM == nil || got.LLM.Calls != mode.wantCalls || got.LLM.InputTokens <= 0 {
				t.Fatalf("n %d, llm %+v; want 6 pairs and %d calls", got.N, got.LLM, mode.wantCalls)
			}
			if n := len(srv.Calls()) - before; int64(n) != mode.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, mode.wantCalls)
			}
			// The script supports every claim but the museum's (1 of its 3 long
			// words in the evidence): right on the Tozzer pair only, wrong on
			// the partial, contradicted and unsupported ones and the museum.
			if got.Accuracy != 1.0/6 {
				t.Errorf("accuracy %v, want 1/6", got.Accuracy)
			}
			// A rerun is answered from the store's cache.
			out2, errOut, code := cli(t, args...)
			if code != 0 {
				t.Fatalf("rerun exit %d: %s", code, errOut)
			}
			var again judgeEvalJSON
			if err := json.Unmarshal([]byte(out2), &again); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if again.LLM == nil || again.LLM.Calls != 0 || again.LLM.CacheHits != mode.wantCalls || again.Accuracy != got.Accuracy {
				t.Errorf("rerun: %+v (accuracy %v, first %v); want all cache hits and the same accuracy", again.LLM, again.Accuracy, got.Accuracy)
			}
		})
	}

	// Text output names the judge and prints the totals.
	out, errOut, code := cli(t, "judge", "eval", "--labels", labels, "--judge", "openai:gpt-4o-mini", "--store", store)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"judge openai:gpt-4o-mini · split all · 6 pairs", "llm: 0 calls (0 failed), 6 cache hits"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJudgeEvalLLMNoKey(t *testing.T) {
	isolateLLMEnv(t)
	_, errOut, code := cli(t, "judge", "eval", "--labels", filepath.Join(labelFixtures, "plain.jsonl"),
		"--judge", "openai:gpt-4o-mini", "--store", filepath.Join(t.TempDir(), "ct.db"))
	if code == 0 || !strings.Contains(errOut, "OPENAI_API_KEY") {
		t.Errorf("exit %d, stderr %q; want a failure naming OPENAI_API_KEY", code, errOut)
	}
}
