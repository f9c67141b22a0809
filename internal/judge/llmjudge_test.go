package judge

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// transformerAbstract is a source as the fetcher extracts it from a PDF:
// hard line breaks inside sentences.
const transformerAbstract = `Attention Is All You Need

Abstract

The dominant sequence transduction models are based on complex recurrent or
convolutional neural networks that include an encoder and a decoder. We propose a new simple
network architecture, the Transformer, based solely on attention mechanisms, dispensing with
recurrence and convolutions entirely. Our model achieves 28.4 BLEU on the WMT 2014
English-to-German translation task, improving over the existing best results by over 2 BLEU.
On the WMT 2014 English-to-French translation task, our model establishes a new single-model
state-of-the-art BLEU score of 41.8 after training for 3.5 days on eight GPUs.`

var transformerClaims = []string{
	"The Transformer reaches 28.4 BLEU on WMT 2014 English-to-German [[1]](https://arxiv.org/abs/1706.03762).",
	"The Transformer was trained for 12 days on eight GPUs [[1]](https://arxiv.org/abs/1706.03762).",
	"The Transformer is the first model to use attention [[1]](https://arxiv.org/abs/1706.03762).",
}

func newTestJudge(t *testing.T, srv *llmtest.Server, opts llm.Options, jo LLMJudgeOptions) *LLMJudge {
	t.Helper()
	j, err := NewLLMJudge(srv.Client(t, llm.OpenAI, "gpt-4o", opts), jo)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestLLMJudgeOneRequestPerSource(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(verdictJSON(
		// White space re-flowed, as models copy PDF text.
		claimVerdict{Claim: 1, Label: "supported", Strength: 0.95, Evidence: "Our model achieves 28.4 BLEU on the WMT 2014 English-to-German translation task", Reason: "The abstract states the score."},
		claimVerdict{Claim: 2, Label: "contradicted", Strength: 0.7, Evidence: "after training for 3.5 days on eight GPUs.", Reason: "Trained 3.5 days, not 12."},
		claimVerdict{Claim: 3, Label: "unsupported", Strength: 0.1, Evidence: "", Reason: "The abstract does not say it was first."},
	)))
	j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{})
	got, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims)
	if err != nil {
		t.Fatal(err)
	}
	want := []claimtrace.Verdict{
		{Label: claimtrace.Supported, Strength: 0.95, Judge: "llm:openai:gpt-4o", Reason: "The abstract states the score.",
			Evidence: "Our model achieves 28.4 BLEU on the WMT 2014\nEnglish-to-German translation task"},
		{Label: claimtrace.Contradicted, Strength: 0, Judge: "llm:openai:gpt-4o", Reason: "Trained 3.5 days, not 12.",
			Evidence: "after training for 3.5 days on eight GPUs."},
		{Label: claimtrace.Unsupported, Strength: 0.1, Judge: "llm:openai:gpt-4o", Reason: "The abstract does not say it was first."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	for _, v := range got {
		if !strings.Contains(transformerAbstract, v.Evidence) {
			t.Errorf("evidence %q is not a substring of the source", v.Evidence)
		}
	}

	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d requests, want one for the source", len(calls))
	}
	body := calls[0].Chat(t)
	if len(body.Messages) != 1 || body.Messages[0].Role != "user" {
		t.Fatalf("messages = %+v, want one user turn", body.Messages)
	}
	prompt := body.Messages[0].Content
	// The source first, then the claims, numbered in order, citation
	// markers removed.
	at := strings.Index(prompt, "convolutional neural networks that include an encoder")
	last := at
	if at < 0 {
		t.Fatalf("the source is not in the prompt:\n%s", prompt)
	}
	for i, c := range []string{
		`<statement n="1">The Transformer reaches 28.4 BLEU on WMT 2014 English-to-German.</statement>`,
		`<statement n="2">The Transformer was trained for 12 days on eight GPUs.</statement>`,
		`<statement n="3">The Transformer is the first model to use attention.</statement>`,
	} {
		k := strings.Index(prompt, c)
		if k < 0 {
			t.Fatalf("prompt lacks claim %d %q:\n%s", i+1, c, prompt)
		}
		if k < last {
			t.Errorf("claim %d comes before the source or the previous claim", i+1)
		}
		last = k
	}
	if strings.Contains(prompt, "arxiv.org") {
		t.Errorf("citation markers reached the prompt")
	}
	if body.Temperature == nil || *body.Temperature != 0 {
		t.Errorf("temperature = %v, want 0", body.Temperature)
	}
	if !strings.Contains(string(body.ResponseFormat), `"strict":true`) || !strings.Contains(string(body.ResponseFormat), `"contradicted"`) {
		t.Errorf("response_format = %s, want the strict verdict schema", body.ResponseFormat)
	}
}

func TestLLMJudgeSplitsLargeBatches(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(oracleJudge(nil))
	j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{MaxClaims: 20})
	claims := make([]string, 45)
	for i := range claims {
		claims[i] = fmt.Sprintf("Claim number %d says the Transformer dispenses with recurrence.", i+1)
	}
	claims[7] = "Our model achieves 28.4 BLEU on WMT 2014 English-to-German translation."
	got, err := j.JudgeSource(t.Context(), transformerAbstract, claims)
	if err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	var sizes []int
	var seen []string
	for _, c := range calls {
		st := statements(c.Prompt)
		sizes = append(sizes, len(st))
		seen = append(seen, st...)
	}
	if diff := cmp.Diff([]int{15, 15, 15}, sizes); diff != "" {
		t.Errorf("claims per request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(claims, seen); diff != "" {
		t.Errorf("claims sent, in order (-want +got):\n%s", diff)
	}
	if len(got) != 45 {
		t.Fatalf("%d verdicts for 45 claims", len(got))
	}
	for i, v := range got {
		want := claimtrace.Unsupported
		if i == 7 {
			want = claimtrace.Supported
		}
		if v.Label != want {
			t.Errorf("claim %d: %s, want %s", i+1, v.Label, want)
		}
	}
}

func TestLLMJudgeReasksBadQuote(t *testing.T) {
	srv := llmtest.NewServer(t)
	first := verdictJSON(
		claimVerdict{Claim: 1, Label: "supported", Strength: 0.9, Evidence: "Our model achieves 28.4 BLEU on the WMT 2014 English-to-German translation task", Reason: "stated"},
		claimVerdict{Claim: 2, Label: "contradicted", Strength: 0, Evidence: "The model was trained for 3.5 days on 8 GPUs.", Reason: "paraphrased quote"},
		claimVerdict{Claim: 3, Label: "supported", Strength: 0.6, Evidence: "", Reason: "no quote"},
	)
	srv.Enqueue(
		llmtest.Text(first),
		llmtest.Text(verdictJSON(
			claimVerdict{Claim: 2, Label: "contradicted", Strength: 0, Evidence: "after training for 3.5 days on eight GPUs", Reason: "3.5 days"},
			claimVerdict{Claim: 3, Label: "unsupported", Strength: 0.2, Evidence: "", Reason: "not said"},
		)),
	)
	j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{})
	got, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims)
	if err != nil {
		t.Fatal(err)
	}
	labels := []claimtrace.Label{got[0].Label, got[1].Label, got[2].Label}
	if diff := cmp.Diff([]claimtrace.Label{claimtrace.Supported, claimtrace.Contradicted, claimtrace.Unsupported}, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if got[1].Evidence != "after training for 3.5 days on eight GPUs" {
		t.Errorf("claim 2 evidence = %q, want the corrected quote", got[1].Evidence)
	}
	calls := srv.Calls()
	if len(calls) != 2 {
		t.Fatalf("%d requests, want the call and one re-ask", len(calls))
	}
	body := calls[1].Chat(t)
	if len(body.Messages) != 3 || body.Messages[1].Role != "assistant" || body.Messages[1].Content != first {
		t.Fatalf("re-ask does not replay the first answer: %+v", body.Messages)
	}
	if body.Messages[0].Content != calls[0].Chat(t).Messages[0].Content {
		t.Errorf("re-ask changed the first turn: the cached prefix is lost")
	}
	fix := body.Messages[2].Content
	for _, want := range []string{`statement 2: the evidence "The model was trained for 3.5 days on 8 GPUs." does not occur in the source`,
		`statement 3: the label "supported" needs an evidence passage`, "statements 2, 3 only"} {
		if !strings.Contains(fix, want) {
			t.Errorf("re-ask lacks %q:\n%s", want, fix)
		}
	}
	if strings.Contains(fix, "statement 1") {
		t.Errorf("re-ask mentions the accepted claim 1:\n%s", fix)
	}
}

func TestLLMJudgeUnknownAfterSecondBadQuote(t *testing.T) {
	srv := llmtest.NewServer(t)
	bad := claimVerdict{Claim: 1, Label: "supported", Strength: 0.9, Evidence: "The Transformer gets 28.4 BLEU.", Reason: "stated"}
	srv.Enqueue(llmtest.Text(verdictJSON(bad)), llmtest.Text(verdictJSON(bad)))
	j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{})
	got, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims[:1])
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Label != claimtrace.Unknown || got[0].Evidence != "" || got[0].Strength != 0 {
		t.Errorf("verdict = %+v, want unknown without evidence", got[0])
	}
	for _, want := range []string{"re-ask", `"The Transformer gets 28.4 BLEU."`, "does not occur in the source"} {
		if !strings.Contains(got[0].Reason, want) {
			t.Errorf("reason %q lacks %q", got[0].Reason, want)
		}
	}
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("%d requests, want 2 (one re-ask, then give up)", n)
	}
}

func TestLLMJudgeMissingAndExtraVerdicts(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Text(verdictJSON(
			claimVerdict{Claim: 1, Label: "unsupported", Strength: 0, Reason: "no"},
			claimVerdict{Claim: 1, Label: "supported", Strength: 1, Evidence: "Attention Is All You Need", Reason: "second answer for 1 is ignored"},
			claimVerdict{Claim: 9, Label: "supported", Strength: 1, Evidence: "Abstract", Reason: "no such claim"},
		)),
		llmtest.Text(`{"verdicts": []}`), // the re-ask answers nothing
	)
	j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{})
	got, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims[:2])
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Label != claimtrace.Unsupported || got[0].Reason != "no" {
		t.Errorf("claim 1 = %+v, want the first answer given", got[0])
	}
	if got[1].Label != claimtrace.Unknown || !strings.Contains(got[1].Reason, "no verdict was given") {
		t.Errorf("claim 2 = %+v, want unknown: no verdict", got[1])
	}
	if fix := srv.Calls()[1].Prompt; !strings.Contains(fix, "statement 2: no verdict was given") {
		t.Errorf("re-ask = %q", fix)
	}
}

func TestLLMJudgeErrorsAreNotVerdicts(t *testing.T) {
	tests := []struct {
		name    string
		replies []llmtest.Reply
		kind    error
	}{
		{"context too long", []llmtest.Reply{llmtest.Fail(llmtest.ContextLength)}, llm.ErrContextLength},
		{"server errors after retries", []llmtest.Reply{llmtest.Fail(llmtest.ServerError), llmtest.Fail(llmtest.ServerError)}, llm.ErrTransient},
		{"malformed three times", []llmtest.Reply{llmtest.Text(`{"verdicts": "none"}`), llmtest.Text("I cannot judge this."), llmtest.Text(`{"verdicts": [{"claim": 1}]}`)}, llm.ErrMalformed},
		{"re-ask fails", []llmtest.Reply{llmtest.Text(verdictJSON(claimVerdict{Claim: 1, Label: "supported", Strength: 1, Evidence: "not there", Reason: "x"})), llmtest.Fail(llmtest.BadRequest)}, llm.ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(tt.replies...)
			j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{})
			got, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims[:1])
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			if got != nil {
				t.Errorf("verdicts %+v returned with an error", got)
			}
			if !strings.Contains(err.Error(), "llm judge openai:gpt-4o: claims 1") {
				t.Errorf("error %q does not name the judge and claims", err)
			}
		})
	}
}

func TestLLMJudgeCachedRerun(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(oracleJudge(nil))
	cache := llm.NewMemoryCache()
	c := srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{Cache: cache})
	j, err := NewLLMJudge(c, LLMJudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims)
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := j.Requests(transformerAbstract, transformerClaims)
	r2, _ := j.Requests(transformerAbstract, transformerClaims)
	if len(r1) != 1 || c.Key(r1[0]) != c.Key(r2[0]) {
		t.Fatalf("requests are not deterministic: %d, keys %s %s", len(r1), c.Key(r1[0]), c.Key(r2[0]))
	}
	again, err := j.JudgeSource(t.Context(), transformerAbstract, transformerClaims)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("rerun differs (-first +rerun):\n%s", diff)
	}
	if n, tot := len(srv.Calls()), c.Totals(); n != 1 || tot.CacheHits != 1 {
		t.Errorf("requests %d, totals %+v; want 1 request and 1 cache hit", n, tot)
	}
}

func TestLLMJudgeDegenerateInput(t *testing.T) {
	srv := llmtest.NewServer(t)
	j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{})
	got, err := j.JudgeSource(t.Context(), "  \n ", []string{"A claim about BLEU.", ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Label != claimtrace.Unknown || got[1].Label != claimtrace.Unknown {
		t.Errorf("verdicts = %+v, want two unknowns", got)
	}
	if len(srv.Calls()) != 0 {
		t.Errorf("a call was made for an empty source")
	}
	got, err = j.JudgeSource(t.Context(), transformerAbstract, nil)
	if err != nil || len(got) != 0 || len(srv.Calls()) != 0 {
		t.Errorf("no claims: %v, %v, %d calls", got, err, len(srv.Calls()))
	}
}

func TestNewLLMJudgeNeedsClient(t *testing.T) {
	if _, err := NewLLMJudge(nil, LLMJudgeOptions{}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("NewLLMJudge(nil) = %v, want ErrInvalid", err)
	}
}

// FuzzReviewAnswer feeds arbitrary model answers to the verdict review:
// every accepted verdict has a valid label and evidence that is a
// substring of the source, and every claim number asked about is either
// accepted or has a problem to re-ask.
func FuzzReviewAnswer(f *testing.F) {
	f.Add(transformerAbstract, verdictJSON(claimVerdict{Claim: 1, Label: "supported", Strength: 2, Evidence: "Our model achieves 28.4 BLEU", Reason: "r"}))
	f.Add("a  b\nc", `{"verdicts": [{"claim": 2, "label": "partial", "strength": -1, "evidence": "\"a b c\"", "reason": ""}, {"claim": 2, "label": "unknown", "strength": 0, "evidence": "", "reason": ""}]}`)
	f.Add("x", `{"verdicts": [{"claim": 1, "label": "maybe", "strength": 0.5, "evidence": "x", "reason": "?"}]}`)
	f.Add("", "not json")
	j := &LLMJudge{name: "llm:test"}
	f.Fuzz(func(t *testing.T, source, answer string) {
		var ans verdictAnswer
		if llm.DecodeJSON(answer, &ans) != nil {
			return
		}
		want := []int{1, 2, 3}
		got, problems := j.review(source, newQuoteIndex(source), ans, want)
		for _, n := range want {
			v, ok := got[n]
			_, bad := problems[n]
			if ok == bad {
				t.Fatalf("claim %d: accepted %v and problem %v", n, ok, bad)
			}
			if !ok {
				continue
			}
			if classIndex(v.Label) < 0 || v.Strength < 0 || v.Strength > 1 {
				t.Fatalf("claim %d: verdict %+v", n, v)
			}
			if !strings.Contains(source, v.Evidence) {
				t.Fatalf("claim %d: evidence %q not in source", n, v.Evidence)
			}
			if (v.Label == claimtrace.Supported || v.Label == claimtrace.Partial || v.Label == claimtrace.Contradicted) && v.Evidence == "" {
				t.Fatalf("claim %d: %s without evidence", n, v.Label)
			}
		}
	})
}
