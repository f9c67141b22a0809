package entail

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/prov"
)

var entailRE = regexp.MustCompile(`(?s)<a>\n(.*?)\n</a>.*<b>\n(.*?)\n</b>`)

// negationEntailer answers entailment prompts: of two statements sharing
// five words, one negated contradicts the other both ways; otherwise A
// entails B when B is a prefix of A (a weaker statement), and neutral else.
func negationEntailer(ctx context.Context, c llmtest.Call) llmtest.Reply {
	m := entailRE.FindStringSubmatch(c.Prompt)
	if m == nil {
		return llmtest.Text("no pair")
	}
	a, b := m[1], m[2]
	dir := func(p, h string) map[string]any {
		switch {
		case strings.Contains(p, " not ") != strings.Contains(h, " not ") && shared(p, h) >= 5:
			return map[string]any{"label": "contradiction", "confidence": 0.9}
		case strings.HasPrefix(p, strings.TrimSuffix(h, ".")):
			return map[string]any{"label": "entailment", "confidence": 0.8}
		}
		return map[string]any{"label": "neutral", "confidence": 0.7}
	}
	out, _ := json.Marshal(map[string]any{"a_to_b": dir(a, b), "b_to_a": dir(b, a)})
	return llmtest.Text(string(out))
}

func TestLLMBothDirectionsOneCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(negationEntailer)
	e, err := NewLLM(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	long := "Vitamin D lowered fracture risk in older women over five years."
	short := "Vitamin D lowered fracture risk in older women."
	ab, err := e.Entail(t.Context(), long, short)
	if err != nil {
		t.Fatal(err)
	}
	ba, err := e.Entail(t.Context(), short, long)
	if err != nil {
		t.Fatal(err)
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	if diff := cmp.Diff(prov.Entailment{Entail: 0.8, Neutral: 0.1, Contradict: 0.1}, ab, approx); diff != "" {
		t.Errorf("long → short (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(prov.Entailment{Entail: 0.15, Neutral: 0.7, Contradict: 0.15}, ba, approx); diff != "" {
		t.Errorf("short → long (-want +got):\n%s", diff)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("%d requests for both directions, want 1", n)
	}
	r1, _ := e.Request(long, short)
	r2, _ := e.Request(short, long)
	if diff := cmp.Diff(r1, r2); diff != "" {
		t.Errorf("the request depends on the direction asked (-a +b):\n%s", diff)
	}
}

func TestLLMWithTwoWay(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(negationEntailer)
	e, err := NewLLM(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	texts := []prov.SourceText{
		{ID: "A", Text: "Vitamin D supplements lowered fracture risk in older women."},
		{ID: "B", Text: "Vitamin D supplements did not lower fracture risk in older women."},
	}
	got, err := prov.TwoWay{Entailer: e}.Detect(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].A != "A" || got[0].B != "B" {
		t.Fatalf("conflicts = %+v, want A-B", got)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("%d requests for one two-way pair, want 1", n)
	}
}

func TestLLMError(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(`{"a_to_b": {"label": "yes", "confidence": 2}}`), llmtest.Text("no"), llmtest.Text("{}"))
	e, _ := NewLLM(srv.Client(t, llm.OpenAI, "gpt-4o", llm.Options{}))
	if _, err := e.Entail(t.Context(), "a", "b"); !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("err = %v, want ErrMalformed", err)
	}
}

func shared(a, b string) int {
	in := map[string]bool{}
	for _, w := range strings.Fields(a) {
		in[w] = true
	}
	n := 0
	for _, w := range strings.Fields(b) {
		if in[w] {
			n++
		}
	}
	return n
}
