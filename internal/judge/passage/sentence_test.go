package passage

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func texts(text string, spans []Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s.Start:s.End]
	}
	return out
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{
			name: "simple",
			text: "The bridge opened in 1932. It carries six lanes! Does it toll? Yes.",
			want: []string{"The bridge opened in 1932.", "It carries six lanes!", "Does it toll?", "Yes."},
		},
		{
			name: "abbreviations and initials",
			text: "Dr. Smith and J. R. Tolkien met e.g. at Oxford. Smith et al. reported it in Fig. 3 of the paper. The U.S. Army agreed.",
			want: []string{"Dr. Smith and J. R. Tolkien met e.g. at Oxford.", "Smith et al. reported it in Fig. 3 of the paper.", "The U.S. Army agreed."},
		},
		{
			name: "decimals, domains and quotes",
			text: `Growth was 3.5 percent per example.com data. "It is over," she said. (See the note.) Next one.`,
			want: []string{"Growth was 3.5 percent per example.com data.", `"It is over," she said.`, "(See the note.)", "Next one."},
		},
		{
			name: "lines",
			text: "# Heading\nFirst line of a paragraph that wraps\nonto the next line. Second sentence.\n\n- bullet one\n- bullet two",
			want: []string{"# Heading", "First line of a paragraph that wraps\nonto the next line.", "Second sentence.", "- bullet one", "- bullet two"},
		},
		{
			name: "missing space after period",
			text: "to provide financing and technological transfer.Trinidad and Tobago spoke next.",
			want: []string{"to provide financing and technological transfer.", "Trinidad and Tobago spoke next."},
		},
		{
			name: "CJK",
			text: "北京是中国的首都。上海是最大的城市！真的吗？",
			want: []string{"北京是中国的首都。", "上海是最大的城市！", "真的吗？"},
		},
		{
			name: "lower case after period is not a break",
			text: "The value was approx. three times higher. Done.",
			want: []string{"The value was approx. three times higher.", "Done."},
		},
		{name: "empty", text: "", want: []string{}},
		{name: "whitespace", text: " \n\n\t ", want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(tt.text, Sentences(tt.text))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Sentences mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSentencesCapLength(t *testing.T) {
	text := strings.Repeat("word ", 1000) // 5,000 bytes without a sentence end
	spans := Sentences(text)
	if len(spans) < 5 {
		t.Fatalf("got %d sentences, want the run cut into pieces of at most %d bytes", len(spans), MaxSentenceBytes)
	}
	checkSpans(t, text, spans)
	for _, s := range spans {
		if s.End-s.Start > MaxSentenceBytes {
			t.Errorf("sentence of %d bytes exceeds MaxSentenceBytes", s.End-s.Start)
		}
		if strings.HasPrefix(text[s.Start:s.End], "ord") {
			t.Errorf("cut inside a word: %q", text[s.Start:s.Start+10])
		}
	}
	// A run without any whitespace is cut at rune boundaries.
	cjk := strings.Repeat("漢", 1000)
	checkSpans(t, cjk, Sentences(cjk))
}

// checkSpans asserts the invariants of Sentences: in bounds, ordered,
// non-overlapping, non-empty, trimmed, on rune boundaries.
func checkSpans(t *testing.T, text string, spans []Span) {
	t.Helper()
	prev := 0
	for _, s := range spans {
		if s.Start < prev || s.End <= s.Start || s.End > len(text) {
			t.Fatalf("bad span %+v after %d in text of %d bytes", s, prev, len(text))
		}
		sub := text[s.Start:s.End]
		if strings.TrimSpace(sub) != sub {
			t.Errorf("span %+v not trimmed: %q", s, sub)
		}
		if !utf8.RuneStart(text[s.Start]) || (s.End < len(text) && !utf8.RuneStart(text[s.End])) {
			t.Errorf("span %+v splits a rune", s)
		}
		prev = s.End
	}
}

// TestSentencesLinear guards against quadratic scans: a run of "a.a.a…"
// once took 40 s for 100 kB when every period looked back over the run.
func TestSentencesLinear(t *testing.T) {
	text := strings.Repeat("a.", 50000)
	start := time.Now()
	spans := Sentences(text)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Sentences on %d bytes took %v", len(text), d)
	}
	checkSpans(t, text, spans)
}

func FuzzSentences(f *testing.F) {
	for _, s := range []string{
		"The bridge opened in 1932. It carries six lanes!",
		"Dr. Smith met J. R. Tolkien e.g. at Oxford.\n\nNext.",
		"北京是中国的首都。上海！",
		"transfer.Trinidad and Tobago",
		strings.Repeat("x ", 600),
		"a.\n\n.\xff\xfe. B",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans := Sentences(text)
		prev := 0
		for _, s := range spans {
			if s.Start < prev || s.End <= s.Start || s.End > len(text) {
				t.Fatalf("bad span %+v after %d in text of %d bytes", s, prev, len(text))
			}
			prev = s.End
		}
	})
}
