package judge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

func render(t *testing.T, name string, data map[string]string) string {
	t.Helper()
	p, err := prompts.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Render(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReportBenchJudgeTwoHopFlow(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		// Claim 1: the extraction re-flows white space; the verifier agrees.
		llmtest.Text("Our model achieves 28.4 BLEU on the WMT 2014 English-to-German translation task"),
		llmtest.Text(`{"reason": "The passage gives the same score.", "match": true}`),
		// Claim 2: the extraction paraphrases; the verifier disagrees.
		llmtest.Text("The model trained 3.5 days on 8 GPUs."),
		llmtest.Text("```json\n{\"reason\": \"3.5 days, not 12.\", \"match\": false}\n```"),
	)
	j, err := NewReportBenchJudge(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims[:2])
	if err != nil {
		t.Fatal(err)
	}
	want := []claimtrace.Verdict{
		{Label: claimtrace.Supported, Strength: 1, Judge: "reportbench:openai:gpt-4o", Reason: "The passage gives the same score.",
			Evidence: "Our model achieves 28.4 BLEU on the WMT 2014\nEnglish-to-German translation task"},
		{Label: claimtrace.Unsupported, Judge: "reportbench:openai:gpt-4o", Reason: "3.5 days, not 12. [the extracted passage does not occur verbatim in the source]"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}

	calls := srv.Calls()
	if len(calls) != 4 {
		t.Fatalf("%d requests, want 2 per pair", len(calls))
	}
	// Each request is exactly the paper's prompt: the statement without its
	// citation marker, the source after it, then the extracted passage.
	wantPrompts := []string{
		render(t, "reportbench/source_extraction", map[string]string{"Statement": ClaimText(transformerClaims[0]), "SourceText": transformerAbstract}),
		render(t, "reportbench/consistency_verification", map[string]string{"Statement": ClaimText(transformerClaims[0]), "SourceSentence": "Our model achieves 28.4 BLEU on the WMT 2014 English-to-German translation task"}),
		render(t, "reportbench/source_extraction", map[string]string{"Statement": ClaimText(transformerClaims[1]), "SourceText": transformerAbstract}),
		render(t, "reportbench/consistency_verification", map[string]string{"Statement": ClaimText(transformerClaims[1]), "SourceSentence": "The model trained 3.5 days on 8 GPUs."}),
	}
	for i, c := range calls {
		b := c.Chat(t)
		if len(b.Messages) != 1 || b.Messages[0].Content != wantPrompts[i] {
			t.Errorf("request %d is not the A.4 prompt (-want +got):\n%s", i+1, cmp.Diff(wantPrompts[i], b.Messages[0].Content))
		}
		if len(b.ResponseFormat) != 0 {
			t.Errorf("request %d sets response_format %s; the released code sends none", i+1, b.ResponseFormat)
		}
		if b.Temperature == nil || *b.Temperature != 0 || b.MaxTokens == nil || *b.MaxTokens != 8192 {
			t.Errorf("request %d: temperature %v, max tokens %v; want 0 and 8192 (config.py)", i+1, b.Temperature, b.MaxTokens)
		}
	}
	if at := strings.Index(wantPrompts[0], ClaimText(transformerClaims[0])); at < 0 || at > strings.Index(wantPrompts[0], "Attention Is All You Need") {
		t.Errorf("A.4.3 puts the statement before the source; the template does not")
	}
}

func TestReportBenchJudgeStrictMatch(t *testing.T) {
	// The released code reads bool("false") as true (REFERENCE B2); here a
	// string is malformed and asked again.
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Text("NOT_FOUND"),
		llmtest.Text(`{"reason": "no support", "match": "false"}`),
		llmtest.Text(`{"reason": "no support", "match": false}`),
	)
	j, err := NewReportBenchJudge(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims[2:])
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Label != claimtrace.Unsupported || got[0].Evidence != "" || !strings.Contains(got[0].Reason, "NOT_FOUND") {
		t.Errorf("verdict = %+v, want unsupported, no evidence, NOT_FOUND noted", got[0])
	}
	if len(srv.Calls()) != 3 {
		t.Errorf("%d requests, want 3 (match, verify, verify again)", len(srv.Calls()))
	}
}

func TestReportBenchJudgeErrors(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Fail(llmtest.ModelNotFound))
	j, err := NewReportBenchJudge(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims[:1]); !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "claim 1: match") {
		t.Errorf("err = %v, want a match error naming the claim", err)
	}
}

func TestReportBenchSourceCap(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "Respond with JSON") {
			return llmtest.Text(`{"reason": "r", "match": false}`)
		}
		return llmtest.Text("NOT_FOUND")
	})
	j, _ := NewReportBenchJudge(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	src := strings.Repeat("é", ParitySourceBytes) // 2 bytes a rune
	if _, err := j.JudgeSource(t.Context(), src, []string{"claim"}); err != nil {
		t.Fatal(err)
	}
	p := srv.Calls()[0].Prompt
	if n := strings.Count(p, "é"); n != ParitySourceBytes/2 {
		t.Errorf("%d runes of source sent, want the first %d bytes", n, ParitySourceBytes)
	}
}

func TestExtractNonCited(t *testing.T) {
	var report strings.Builder
	report.WriteString("# Survey of retrieval\n\n")
	for range 3 {
		report.WriteString("## Section\n\n" + strings.Repeat("RAG was introduced in 2020 by Lewis et al. ", 200) + "\n\n")
	}
	cited := []CitedStatement{{Statement: "RAG couples a retriever with a generator.", URL: "https://arxiv.org/abs/2005.11401"}}
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		return llmtest.Text(`[{"statement": "RAG was introduced in 2020."}, {"statement": "  "}]`)
	})
	j, _ := NewReportBenchJudge(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	got, err := j.ExtractNonCited(t.Context(), report.String(), cited)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"RAG was introduced in 2020."}, got); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
	blocks := splitBlocks(report.String(), ParityBlockBytes)
	calls := srv.Calls()
	if len(calls) != len(blocks) || len(blocks) < 2 {
		t.Fatalf("%d requests for %d blocks", len(calls), len(blocks))
	}
	list, _ := json.Marshal(cited)
	for i, c := range calls {
		want := render(t, "reportbench/noncited_extraction", map[string]string{"Report": blocks[i], "CitedStatements": string(list)})
		if c.Prompt != want {
			t.Errorf("request %d is not A.4.2 with block %d and the full cited list", i+1, i+1)
		}
	}
}

func TestSplitBlocks(t *testing.T) {
	sec := func(title string, n int) string { return "## " + title + "\n\n" + strings.Repeat("x", n) + "\n\n" }
	tests := []struct {
		name  string
		text  string
		limit int
		sizes []int
	}{
		{"fits", sec("A", 10), 100, []int{len(sec("A", 10))}},
		{"cut at headings", sec("A", 40) + sec("B", 40) + sec("C", 40), 100, []int{len(sec("A", 40)) * 2, len(sec("C", 40))}},
		{"leading blank lines are kept, not dropped", "\n\n\n" + sec("A", 60), 100, []int{3 + len(sec("A", 60))}},
		{"oversized section cut at paragraphs", "## Big\n\n" + strings.Repeat("y", 50) + "\n\n" + strings.Repeat("z", 50) + "\n\n", 60, []int{60, 52}},
		{"one huge line cut", strings.Repeat("w", 250), 100, []int{100, 100, 50}},
		{"white space only", " \n\n  ", 100, nil},
	}
	for _, tt := range tests {
		got := splitBlocks(tt.text, tt.limit)
		var sizes []int
		for _, b := range got {
			sizes = append(sizes, len(b))
		}
		if diff := cmp.Diff(tt.sizes, sizes); diff != "" {
			t.Errorf("%s: block sizes (-want +got):\n%s", tt.name, diff)
		}
		if strings.TrimSpace(tt.text) != "" && strings.Join(got, "") != tt.text {
			t.Errorf("%s: blocks do not reassemble the text", tt.name)
		}
	}
}

// FuzzSplitBlocks: blocks are within the limit, non-blank, and
// reassemble the text minus blank blocks.
func FuzzSplitBlocks(f *testing.F) {
	f.Add("# A\n\nText.\n\n## B\n\nMore text.", 16)
	f.Add("\n\n\n## A\n"+strings.Repeat("é", 40), 7)
	f.Add("", 1)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		limit = abs(limit)%200 + 4
		blocks := splitBlocks(text, limit)
		var b strings.Builder
		for _, bl := range blocks {
			if len(bl) > limit {
				t.Fatalf("block of %d bytes over %d", len(bl), limit)
			}
			if strings.TrimSpace(bl) == "" {
				t.Fatalf("blank block")
			}
			b.WriteString(bl)
		}
		if strings.Join(strings.Fields(b.String()), "") != strings.Join(strings.Fields(text), "") {
			t.Fatalf("blocks lose text: %q → %q", text, b.String())
		}
	})
}
