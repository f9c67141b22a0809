package lexical

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func texts(text string, spans []Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"One. Two.", []string{"One.", " Two."}},
		{"Smith et al. (2020) found it. Fig. 3 shows it.", []string{"Smith et al. (2020) found it.", " Fig. 3 shows it."}},
		{"J. Smith wrote it. It holds 3.5 points.", []string{"J. Smith wrote it.", " It holds 3.5 points."}},
		{"Use e.g. Transformers. Then stop.", []string{"Use e.g. Transformers.", " Then stop."}},
		{"It froze at -15 C. Field trials followed.", []string{"It froze at -15 C.", " Field trials followed."}},
		{"Kept at 25 °C. Then heated.", []string{"Kept at 25 °C.", " Then heated."}},
		{"Cooled to 100 μK. Then held.", []string{"Cooled to 100 μK.", " Then held."}},
		{"Near 149°-154°E. Since 2019 it moved.", []string{"Near 149°-154°E.", " Since 2019 it moved."}},
		{"He said \"Stop.\" Then left.", []string{"He said \"Stop.\"", " Then left."}},
		{"It is the state of the art. No. 5 beat it. Vol. (2) too.", []string{"It is the state of the art.", " No. 5 beat it.", " Vol. (2) too."}},
		{"James P. Johnson played.", []string{"James P. Johnson played."}},
		{"the end. but lower", []string{"the end. but lower"}},
		{"句子一。句子二。", []string{"句子一。", "句子二。"}},
		{"Steps:\nfirst one", []string{"Steps:\n", "first one"}},
	} {
		if diff := cmp.Diff(tc.want, texts(tc.text, Sentences(tc.text))); diff != "" {
			t.Errorf("Sentences(%q) (-want +got)\n%s", tc.text, diff)
		}
	}
}

// TestLowerStarts: page text lets a sentence start in lower case, never
// after an abbreviation.
func TestLowerStarts(t *testing.T) {
	text := "Fit at 20 nm. b, Raw data, e.g. spectra."
	want := []string{"Fit at 20 nm.", " b, Raw data, e.g. spectra."}
	if diff := cmp.Diff(want, texts(text, Splitter{LowerStarts: true}.Split(text, 0, len(text), nil))); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if got := Sentences(text); len(got) != 1 {
		t.Errorf("the zero Splitter split %q in %d", text, len(got))
	}
}

func TestGluedStarts(t *testing.T) {
	text := "It aided transfer.Trinidad and Tobago gained. See e.g.Foo and example.com."
	want := []string{"It aided transfer.", "Trinidad and Tobago gained.", " See e.g.Foo and example.com."}
	if diff := cmp.Diff(want, texts(text, Splitter{GluedStarts: true}.Split(text, 0, len(text), nil))); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestSplitCitation: a citation marker after a period belongs to the
// sentence it ends, and a unit letter before it is not an initial.
func TestSplitCitation(t *testing.T) {
	text := "It froze at -15 C.[^1] Field trials followed. J. Smith [2] agreed."
	var prot []Protected
	for _, m := range []string{"[^1]", "[2]"} {
		i := strings.Index(text, m)
		prot = append(prot, Protected{Start: i, End: i + len(m), Cite: true})
	}
	want := []string{"It froze at -15 C.[^1]", " Field trials followed.", " J. Smith [2] agreed."}
	if diff := cmp.Diff(want, texts(text, Split(text, 0, len(text), prot))); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func FuzzSentences(f *testing.F) {
	for _, s := range []string{"One. Two.", "It froze at -15 C.[1] Field.", "J. Smith et al. Fig. 3.5 e.g. X", "句子一。\"Q.\" 'a.' b", "a.a.a.a.a.", "Steps:\nx…y? Z! (w.)"} {
		f.Add(s, 3, 2)
	}
	f.Fuzz(func(t *testing.T, text string, ps, pl int) {
		// One protected citation span, wherever the fuzzer puts it on rune
		// boundaries (callers protect whole markers).
		var prot []Protected
		if ps >= 0 && pl > 0 && ps+pl <= len(text) && utf8.RuneStart(text[ps]) && (ps+pl == len(text) || utf8.RuneStart(text[ps+pl])) {
			prot = []Protected{{Start: ps, End: ps + pl, Cite: true}}
		}
		spans := Splitter{LowerStarts: len(text)%2 == 0, GluedStarts: len(text)%3 == 0}.Split(text, 0, len(text), prot)
		prev := 0
		for _, s := range spans {
			if s.Start != prev || s.End <= s.Start || s.End > len(text) {
				t.Fatalf("spans %v do not tile %q", spans, text)
			}
			for _, p := range prot {
				if s.End > p.Start && s.End < p.End {
					t.Fatalf("split at %d inside protected %v", s.End, p)
				}
			}
			prev = s.End
		}
		if len(text) > 0 && prev != len(text) {
			t.Fatalf("spans %v end at %d, text has %d bytes", spans, prev, len(text))
		}
		// Round trip: the sentences joined are the text.
		if got := strings.Join(texts(text, spans), ""); got != text {
			t.Fatalf("joined %q, want %q", got, text)
		}
		if utf8.ValidString(text) {
			for _, s := range spans {
				if !utf8.ValidString(text[s.Start:s.End]) {
					t.Fatalf("span %v cuts a rune", s)
				}
			}
		}
	})
}
