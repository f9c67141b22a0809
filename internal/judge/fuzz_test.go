package judge

import (
	"context"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

// FuzzOfflineJudge: any claim against any source gives a verdict without
// panic, its evidence a substring of the source and its label one of the
// judge's; the comparison reader's sides hold only terms of the text.
func FuzzOfflineJudge(f *testing.F) {
	for _, p := range [][2]string{
		{"The Congo discharges more water than the Amazon.", "The Amazon discharges more freshwater into the ocean than any other river."},
		{"GPT-4 is outperformed by Gemini Ultra on 30 of 32 benchmarks.", "Gemini Ultra outperforms GPT-4 on 30 of the 32 benchmarks, narrowly ahead of it."},
		{"Sales doubled to $3.4bn in Q3 2022.", "Sales rose by 100% to 3.4 billion dollars in the third quarter of 2022."},
		{"Few patients remained on treatment.", "If the trial had continued, most patients would not have remained on treatment; hardly any did."},
		{"one in four adults, 7 out of 10, two-thirds", "25%, 70 %, 0.67, half-life, the first half of 2023, 15/03/2021"},
		{"", "x"},
	} {
		f.Add(p[0], p[1])
	}
	j, err := NewDefaultOffline()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, claim, source string) {
		v, err := j.Judge(context.Background(), claim, source)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(source, v.Evidence) {
			t.Fatalf("evidence %q is not in the source", v.Evidence)
		}
		switch v.Label {
		case claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown:
		default:
			t.Fatalf("label %q", v.Label)
		}
		toks := passage.Tokenize(source)
		terms := make(map[string]bool, len(toks))
		for _, tk := range toks {
			terms[tk.Term] = true
		}
		for _, c := range comparisons(source, toks) {
			for _, side := range []map[string]bool{c.ahead, c.behind, c.about} {
				for w := range side {
					if !terms[w] {
						t.Fatalf("comparison side word %q is not a term of the source", w)
					}
				}
			}
		}
	})
}
