package factcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// numberClassifier answers check-worthiness prompts: a statement with a
// digit is check-worthy; statement skip is left out of the answer.
func numberClassifier(skip int) func(ctx context.Context, c llmtest.Call) llmtest.Reply {
	return func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		type item struct {
			Claim       int    `json:"claim"`
			CheckWorthy bool   `json:"check_worthy"`
			Reason      string `json:"reason"`
		}
		var items []item
		for i, st := range statements(c.Prompt) {
			if i+1 == skip {
				continue
			}
			has := strings.ContainsAny(st, "0123456789")
			items = append(items, item{Claim: i + 1, CheckWorthy: has, Reason: map[bool]string{true: "specific figure", false: "general"}[has]})
		}
		b, _ := json.Marshal(map[string]any{"claims": items})
		return llmtest.Text(string(b))
	}
}

func TestClassifyCheckWorthyBatches(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(numberClassifier(0))
	w, err := NewLLMCheckWorthy(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}), CheckWorthyOptions{Batch: 40})
	if err != nil {
		t.Fatal(err)
	}
	claims := make([]string, 50)
	for i := range claims {
		if i%2 == 0 {
			claims[i] = fmt.Sprintf("Revenue in region %d grew 12%% in 2023.", i)
		} else {
			claims[i] = "This is an exciting development for the field."
		}
	}
	worthy, reasons, err := w.ClassifyCheckWorthy(t.Context(), claims)
	if err != nil {
		t.Fatal(err)
	}
	for i := range claims {
		if worthy[i] != (i%2 == 0) {
			t.Errorf("claim %d: worthy %v", i, worthy[i])
		}
		if !strings.HasPrefix(reasons[i], "openai:gpt-4o-mini: ") {
			t.Errorf("claim %d: reason %q does not name the model", i, reasons[i])
		}
	}
	var sizes []int
	for _, c := range srv.Calls() {
		sizes = append(sizes, len(statements(c.Prompt)))
		if b := c.Chat(t); b.Temperature == nil || *b.Temperature != 0 {
			t.Errorf("temperature %v, want 0", b.Temperature)
		}
	}
	if diff := cmp.Diff([]int{25, 25}, sizes); diff != "" {
		t.Errorf("claims per call (-want +got):\n%s", diff)
	}
}

func TestClassifyCheckWorthyFallsBackOffline(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(numberClassifier(2))
	w, err := NewLLMCheckWorthy(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}), CheckWorthyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claims := []string{"GDP grew 5.2% in 2023.", "Apple released the iPhone 15 in September 2023.", ""}
	worthy, reasons, err := w.ClassifyCheckWorthy(t.Context(), claims)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bool{true, true, false}, worthy); diff != "" {
		t.Errorf("worthy (-want +got):\n%s", diff)
	}
	for _, i := range []int{1, 2} {
		if !strings.HasPrefix(reasons[i], "offline filter (no model answer): ") {
			t.Errorf("claim %d: reason %q, want the offline fallback named", i+1, reasons[i])
		}
	}
	if n := len(statements(srv.Calls()[0].Prompt)); n != 2 {
		t.Errorf("%d statements sent, want 2 (the empty one is not sent)", n)
	}
}

func TestClassifyCheckWorthyError(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Fail(llmtest.Unauthorized))
	w, _ := NewLLMCheckWorthy(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}), CheckWorthyOptions{})
	worthy, _, err := w.ClassifyCheckWorthy(t.Context(), []string{"GDP grew 5.2% in 2023."})
	if !errors.Is(err, llm.ErrAuth) || worthy != nil {
		t.Errorf("ClassifyCheckWorthy = %v, %v; want an auth error and no answer", worthy, err)
	}
}
