package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// longSource is a web page far over the passage budget, with the two
// facts the claims need buried in filler about other things.
func longSource() string {
	var b strings.Builder
	b.WriteString("Global Semiconductor Outlook 2024\n\nThis page summarises the industry association's annual outlook.\n\n")
	for i := range 120 {
		fmt.Fprintf(&b, "Section %d covers regional logistics, warehouse staffing and packaging standards for shipment lot %d. ", i, i*7)
		if i == 40 {
			b.WriteString("Worldwide semiconductor revenue reached 527 billion dollars in 2023, down 11 percent from the prior year. ")
		}
		if i == 95 {
			b.WriteString("Memory chip sales fell 37 percent, the steepest decline of any product category. ")
		}
		if i%5 == 4 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

func TestSelectExcerptsWithinBudget(t *testing.T) {
	src := longSource()
	ix := passage.NewIndex(src, passage.Options{})
	claims := []string{
		"Semiconductor revenue was $527 billion in 2023, down 11%.",
		"Memory sales fell 37 percent.",
	}
	const budget = 2000
	spans, whole := selectExcerpts(ix, claims, 3, budget)
	if whole {
		t.Fatalf("a %d-byte source was sent whole under a %d-byte budget", len(src), budget)
	}
	var total int
	var text strings.Builder
	for i, sp := range spans {
		total += sp.End - sp.Start
		text.WriteString(src[sp.Start:sp.End])
		if i > 0 && sp.Start <= spans[i-1].End {
			t.Errorf("spans %v and %v overlap or touch", spans[i-1], sp)
		}
	}
	if total > budget {
		t.Errorf("excerpts hold %d bytes, budget %d", total, budget)
	}
	for _, want := range []string{"Global Semiconductor Outlook 2024", "reached 527 billion dollars in 2023", "Memory chip sales fell 37 percent"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("excerpts lack %q", want)
		}
	}
	short := "A short page. It fits."
	spans, whole = selectExcerpts(passage.NewIndex(short, passage.Options{}), claims, 3, budget)
	if diff := cmp.Diff([]passage.Span{{Start: 0, End: len(short)}}, spans); !whole || diff != "" {
		t.Errorf("short source: whole=%v (-want +got):\n%s", whole, diff)
	}
}

func TestLLMJudgeSendsPassagesNotTheWholeSource(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(oracleJudge(nil))
	j := newTestJudge(t, srv, llm.Options{}, LLMJudgeOptions{PassageTokens: 500})
	src := longSource()
	got, err := j.JudgeSource(t.Context(), src, []string{
		"Worldwide semiconductor revenue reached 527 billion dollars in 2023.",
		"Memory chip sales fell 37 percent.",
		"Logic chip sales rose 5 percent.",
	})
	if err != nil {
		t.Fatal(err)
	}
	prompt := srv.Calls()[0].Prompt
	if shown := len(shownSource(prompt)); shown > 2100 || shown < 200 {
		t.Errorf("%d bytes of source shown, budget 500 tokens ≈ 2000 bytes", shown)
	}
	if len(prompt) > len(src)/2 {
		t.Errorf("prompt of %d bytes for a %d-byte source", len(prompt), len(src))
	}
	var labels []string
	for _, v := range got {
		labels = append(labels, string(v.Label))
	}
	if diff := cmp.Diff([]string{"supported", "supported", "unsupported"}, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

func TestSpanSet(t *testing.T) {
	var s spanSet
	s.add(passage.Span{Start: 10, End: 20})
	s.add(passage.Span{Start: 30, End: 40})
	if got := s.added(passage.Span{Start: 15, End: 35}); got != 10 {
		t.Errorf("added = %d, want 10 new bytes", got)
	}
	s.add(passage.Span{Start: 15, End: 35})
	s.add(passage.Span{Start: 40, End: 45}) // touches: merged
	s.add(passage.Span{Start: 0, End: 5})
	s.add(passage.Span{Start: 7, End: 7}) // empty: ignored
	want := []passage.Span{{Start: 0, End: 5}, {Start: 10, End: 45}}
	if diff := cmp.Diff(want, s.spans); diff != "" || s.size() != 40 {
		t.Errorf("spans (-want +got):\n%s size %d", diff, s.size())
	}
}

// FuzzSelectExcerpts: spans are in bounds, sorted, disjoint, and within
// the budget unless the whole source fits.
func FuzzSelectExcerpts(f *testing.F) {
	f.Add("Revenue reached 527 billion dollars in 2023. Memory chip sales fell 37 percent. Logistics were slow.", "revenue reached 527 billion", "memory fell 37 percent", 80)
	f.Add("One. Two. Three.", "two", "", 5)
	f.Add("", "x", "y", 10)
	f.Add("日本語の文。もう一つの文。", "文", "一つ", 12)
	f.Fuzz(func(t *testing.T, src, c1, c2 string, budget int) {
		budget = abs(budget)%5000 + 1
		ix := passage.NewIndex(src, passage.Options{})
		spans, whole := selectExcerpts(ix, []string{c1, c2}, 3, budget)
		total := 0
		for i, sp := range spans {
			if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
				t.Fatalf("span %v out of bounds (%d bytes)", sp, len(src))
			}
			if i > 0 && sp.Start <= spans[i-1].End {
				t.Fatalf("spans %v, %v not disjoint", spans[i-1], sp)
			}
			total += sp.End - sp.Start
		}
		if !whole && total > budget {
			t.Fatalf("%d bytes over budget %d", total, budget)
		}
		if whole && len(src) > budget {
			t.Fatalf("whole source of %d bytes over budget %d", len(src), budget)
		}
		_ = renderSource(src, spans, whole)
	})
}
