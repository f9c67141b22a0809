package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/search/searchtest"
)

var statementRE = regexp.MustCompile(`<statement n="(\d+)">`)

// scriptedModel answers every stage of eval like a careful model would:
// the batched judge quotes the RAG abstract when it sees it, the
// check-worthiness classifier keeps every claim, fact-checkers vote true.
func scriptedModel(t *testing.T) *llmtest.Server {
	srv := llmtest.NewServer(t)
	const quote = "Large pre-trained language models store factual knowledge in their parameters"
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		p := c.Prompt
		switch {
		case strings.Contains(p, "You verify several factual statements"):
			var vs []string
			for _, m := range statementRE.FindAllStringSubmatch(p, -1) {
				vs = append(vs, fmt.Sprintf(`{"statement": %s, "verdict": "true", "reason": "sources agree", "sources": []}`, m[1]))
			}
			return llmtest.Text(`{"verdicts": [` + strings.Join(vs, ",") + `]}`)
		case strings.Contains(p, `"verdicts"`):
			var vs []string
			for _, m := range statementRE.FindAllStringSubmatch(p, -1) {
				if strings.Contains(p, quote) {
					vs = append(vs, fmt.Sprintf(`{"claim": %s, "label": "supported", "strength": 0.9, "evidence": %q, "reason": "stated"}`, m[1], quote))
				} else {
					vs = append(vs, fmt.Sprintf(`{"claim": %s, "label": "unsupported", "strength": 0.1, "evidence": "", "reason": "not stated"}`, m[1]))
				}
			}
			return llmtest.Text(`{"verdicts": [` + strings.Join(vs, ",") + `]}`)
		case strings.Contains(p, `"check_worthy"`):
			var cs []string
			for _, m := range regexp.MustCompile(`n="(\d+)"`).FindAllStringSubmatch(p, -1) {
				cs = append(cs, fmt.Sprintf(`{"claim": %s, "check_worthy": true, "reason": "specific"}`, m[1]))
			}
			return llmtest.Text(`{"claims": [` + strings.Join(cs, ",") + `]}`)
		case strings.Contains(p, `"verdict"`):
			return llmtest.Text(`{"verdict": "true", "reason": "sources agree"}`)
		}
		t.Errorf("unexpected prompt: %.200s", p)
		return llmtest.Text("{}")
	})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-999999")
	return srv
}

// TestEvalWithModels runs eval on the demo with an LLM judge, an LLM
// check-worthiness classifier and a 2 × 3 web fact-check ensemble behind a
// fake OpenAI server: every stage's answers land in the report, the calls
// are accounted in the summary, and a rerun makes no request.
func TestEvalWithModels(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	srv := scriptedModel(t)
	args := []string{"eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--out", filepath.Join(dir, "out"), "--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline",
		"--judge", "openai:gpt-4o-mini", "--check-worthy", "openai:gpt-4o-mini",
		"--fact-checkers", "openai:gpt-4o-mini,openai:gpt-4o", "--votes", "3", "--json"}
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, "sk-test-secret-999999") {
		t.Fatal("the API key leaked into the output")
	}
	var sum struct {
		Cited struct {
			MatchRate *float64 `json:"match_rate"`
			Judged    int      `json:"judged"`
			Judge     string   `json:"judge"`
		} `json:"cited"`
		NonCited struct {
			Accuracy *float64 `json:"factual_accuracy"`
			Decided  int      `json:"decided"`
		} `json:"non_cited"`
		LLM struct {
			Calls     int64 `json:"calls"`
			CacheHits int64 `json:"cache_hits"`
			Input     int64 `json:"input_tokens"`
		} `json:"llm"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	calls := int64(len(srv.Calls()))
	if sum.Cited.Judge != "llm:openai:gpt-4o-mini" || sum.Cited.Judged == 0 || sum.Cited.MatchRate == nil {
		t.Errorf("cited = %+v", sum.Cited)
	}
	// Three non-cited claims, all check-worthy, 2 models × 3 votes each;
	// the first four votes agree, so the early stop ends there, and the
	// three claims share each call: four fact-check calls in all.
	if sum.NonCited.Decided != 3 || sum.NonCited.Accuracy == nil || *sum.NonCited.Accuracy != 1 {
		t.Errorf("non-cited = %+v", sum.NonCited)
	}
	factCalls := 0
	for _, c := range srv.Calls() {
		if strings.Contains(c.Prompt, "You verify several factual statements") {
			factCalls++
			if n := len(statementRE.FindAllString(c.Prompt, -1)); n != 3 {
				t.Errorf("a fact-check call asks about %d statements, want the 3", n)
			}
		} else if strings.Contains(c.Prompt, "You verify one factual statement") {
			t.Errorf("a single-statement fact-check call: %.100s", c.Prompt)
		}
	}
	if factCalls != 4 {
		t.Errorf("%d fact-check calls, want 4 (2 models × 2 votes, 3 statements a call)", factCalls)
	}
	if sum.LLM.Calls != calls || sum.LLM.Input == 0 {
		t.Errorf("llm.calls = %d for %d requests the server saw (input %d)", sum.LLM.Calls, calls, sum.LLM.Input)
	}
	if calls < 1+1+4 {
		t.Errorf("only %d requests: the judge, the classifier and 4 fact-check calls were expected", calls)
	}
	res, err := os.ReadFile(filepath.Join(dir, "out", "reports", "2312.10997.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `"evidence": "Large pre-trained language models store factual knowledge in their parameters"`) {
		t.Errorf("the judge's verified quote is not in the report file")
	}
	var man struct {
		Judge   string            `json:"judge"`
		Fact    string            `json:"fact_check"`
		Prompts map[string]string `json:"prompts"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", "manifest.json")); err != nil || json.Unmarshal(b, &man) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if man.Judge != "llm:openai:gpt-4o-mini" || !strings.Contains(man.Fact, "×3") || len(man.Prompts["judge/cited_batch"]) != 12 {
		t.Errorf("manifest = %+v", man)
	}
	// A rerun resumes from the store: no request.
	if _, errOut, code := cli(t, args...); code != 0 {
		t.Fatalf("rerun: %s", errOut)
	}
	if n := int64(len(srv.Calls())); n != calls {
		t.Errorf("the rerun sent %d requests", n-calls)
	}
	// A fresh run in another output directory and store, same cache? No:
	// a new store has no cache, so it is a full run; --dry-run sends nothing.
	out, errOut, code = cli(t, append(args[:len(args)-1], "--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: %s", errOut)
	}
	if n := int64(len(srv.Calls())); n != calls {
		t.Errorf("--dry-run sent %d requests", n-calls)
	}
	for _, want := range []string{"judge", "fact_check", "check_worthy", "total", "the released ReportBench code would make about"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry-run output lacks %q:\n%s", want, out)
		}
	}
}

// TestEvalSearchFactCheckers fact-checks with any model plus a search API
// (MODEL@searxng): the votes search the self-hosted instance (one search
// serves the votes of one claim) and the model cites the results it used.
func TestEvalSearchFactCheckers(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		if !strings.Contains(c.Prompt, `"sources"`) {
			t.Errorf("a fact-check prompt without search results: %.200s", c.Prompt)
		}
		return llmtest.Text(`{"verdict": "false", "reason": "the results say otherwise", "sources": [1]}`)
	})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-999999")
	sx := searchtest.NewServer(t, searchtest.SearXNG)
	t.Setenv("SEARXNG_BASE_URL", sx.URL)
	out, errOut, code := cli(t, "eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--out", filepath.Join(dir, "out"), "--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline",
		"--judge", "none", "--fact-checkers", "openai:gpt-4o-mini@searxng", "--votes", "2", "--json")
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	var sum struct {
		NonCited struct {
			Accuracy *float64 `json:"factual_accuracy"`
			Decided  int      `json:"decided"`
		} `json:"non_cited"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if sum.NonCited.Decided != 1 || sum.NonCited.Accuracy == nil || *sum.NonCited.Accuracy != 0 {
		t.Errorf("non-cited = %+v (one check-worthy claim, voted false)", sum.NonCited)
	}
	// Both votes ask the same question: one search serves them (the search
	// cache and its single flight), and each vote is its own model call.
	if n := len(sx.Requests()); n != 1 {
		t.Errorf("searxng saw %d searches for one claim's votes, want 1", n)
	}
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("%d model calls, want one per vote (2)", n)
	}
	res, _ := os.ReadFile(filepath.Join(dir, "out", "reports", "2312.10997.json"))
	if !strings.Contains(string(res), `"urls"`) {
		t.Errorf("the votes do not record the URLs the checker used")
	}
}

// TestEvalMetadataModel runs the demo with the model rung of the metadata
// ladder: only pages nothing cheaper identified reach the model, its
// answers are checked against the page, the calls are accounted, a rerun
// sends nothing and --dry-run prices the stage.
func TestEvalMetadataModel(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	var urls []string
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		if !strings.Contains(string(c.Body), "work_metadata") {
			t.Errorf("unexpected prompt: %.200s", c.Prompt)
			return llmtest.Fail(llmtest.BadRequest)
		}
		u := between(c.Prompt, "URL: ", "\n")
		urls = append(urls, u)
		// A title no page holds: never taken.
		return llmtest.Text(`{"scholarly": true, "title": "An Invented Title About Retrieval Augmentation", "authors": [], "doi": "", "arxiv_id": "", "reason": "looks like a paper"}`)
	})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-999999")
	base := []string{"eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--out", filepath.Join(dir, "out"), "--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline", "--json"}
	plain, errOut, code := cli(t, base...)
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	args := append(append([]string{}, base...), "--metadata-model", "openai:gpt-4o-mini")
	args[6] = filepath.Join(dir, "out-md")
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("eval --metadata-model: %s", errOut)
	}
	calls := len(srv.Calls())
	if calls == 0 {
		t.Fatal("no page reached the model rung")
	}
	for _, u := range urls {
		if strings.Contains(u, "arxiv.org") || strings.Contains(u, "doi.org") {
			t.Errorf("a page identified by its URL reached the model: %s", u)
		}
	}
	var a, b struct {
		Citation struct {
			Precision *float64 `json:"precision"`
			Recall    float64  `json:"recall"`
		} `json:"citation"`
		LLM struct {
			Calls int `json:"calls"`
		} `json:"llm"`
	}
	if err := json.Unmarshal([]byte(plain), &a); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	// The invented title was refused everywhere, so the scores are those
	// of the run without the rung.
	if b.LLM.Calls != calls || a.Citation.Precision == nil || b.Citation.Precision == nil || *a.Citation.Precision != *b.Citation.Precision || a.Citation.Recall != b.Citation.Recall {
		t.Errorf("llm.calls %d for %d requests; precision %v vs %v", b.LLM.Calls, calls, a.Citation.Precision, b.Citation.Precision)
	}
	rep, _ := os.ReadFile(filepath.Join(dir, "out-md", "reports", "2312.10997.json"))
	if !strings.Contains(string(rep), `is not in the page`) {
		t.Errorf("the refused guesses are not noted in the report's sources")
	}
	if _, errOut, code := cli(t, args...); code != 0 || len(srv.Calls()) != calls {
		t.Errorf("rerun: exit %d, %d new requests: %s", code, len(srv.Calls())-calls, errOut)
	}
	dry, errOut, code := cli(t, append(args[:len(args)-3], "--metadata-model", "openai:gpt-4o-mini", "--dry-run")...)
	if code != 0 || len(srv.Calls()) != calls || !strings.Contains(dry, "metadata") {
		t.Errorf("--dry-run: exit %d, %d requests sent:\n%s%s", code, len(srv.Calls())-calls, dry, errOut)
	}
}

// TestEvalParityExtraction runs the paper's non-cited pipeline end to end
// (--prompts reportbench): the A.4.2 extraction over the whole report with
// the cited statements listed, then A.4.5 web verification of each
// extracted statement; the extraction is one stored call a report, and
// --dry-run prices both stages without sending anything.
func TestEvalParityExtraction(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		p := c.Prompt
		switch {
		case strings.Contains(p, "Already cited statements"):
			if !strings.Contains(p, "https://arxiv.org/abs/2005.11401") {
				t.Errorf("the cited statements are not in the extraction prompt")
			}
			return llmtest.Text("```json\n" + `[{"statement": "RAG will likely be the dominant architecture for knowledge-intensive applications for years to come."}, {"statement": "GPT-4 was released in March 2023."}]` + "\n```")
		case strings.Contains(p, `"decision"`):
			return llmtest.Text(`{"reason": "checked", "decision": true}`)
		}
		t.Errorf("unexpected prompt: %.200s", p)
		return llmtest.Text("{}")
	})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-999999")
	args := []string{"eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--out", filepath.Join(dir, "out"), "--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline",
		"--judge", "none", "--prompts", "reportbench", "--check-worthy", "openai:gpt-4o-mini",
		"--fact-checkers", "openai:gpt-4o-mini", "--votes", "1", "--json"}
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	var sum struct {
		NonCited struct {
			Accuracy  *float64 `json:"factual_accuracy"`
			Decided   int      `json:"decided"`
			PerReport *float64 `json:"statements_per_report"`
		} `json:"non_cited"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.NonCited.Decided != 2 || sum.NonCited.PerReport == nil || *sum.NonCited.PerReport != 2 || sum.NonCited.Accuracy == nil || *sum.NonCited.Accuracy != 1 {
		t.Errorf("non-cited = %+v", sum.NonCited)
	}
	calls := len(srv.Calls())
	if calls != 3 {
		t.Errorf("%d requests, want 1 extraction + 2 verifications", calls)
	}
	if _, errOut, code := cli(t, args...); code != 0 || len(srv.Calls()) != calls {
		t.Errorf("rerun: exit %d, %d new requests: %s", code, len(srv.Calls())-calls, errOut)
	}
	dry, errOut, code := cli(t, append(args[:len(args)-1], "--dry-run")...)
	if code != 0 || len(srv.Calls()) != calls || !strings.Contains(dry, "extract") || !strings.Contains(dry, "fact_check") {
		t.Errorf("--dry-run: exit %d, %d sent:\n%s%s", code, len(srv.Calls())-calls, dry, errOut)
	}
}
