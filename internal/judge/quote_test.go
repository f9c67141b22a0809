package judge

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFindQuote(t *testing.T) {
	src := "The model was trained on  eight\nGPUs for 3.5 days.\n\nIt’s “state of the art” — by 2 BLEU.\tDone."
	tests := []struct {
		name, quote, want string
		ok                bool
	}{
		{"exact", "trained on  eight", "trained on  eight", true},
		{"re-flowed white space", "trained on eight GPUs for 3.5 days.", "trained on  eight\nGPUs for 3.5 days.", true},
		{"across a paragraph break", "3.5 days. It’s", "3.5 days.\n\nIt’s", true},
		{"straight quotes for curly", `It's "state of the art" - by 2 BLEU.`, "It’s “state of the art” — by 2 BLEU.", true},
		{"enclosing quotes and ellipses stripped", `"...eight GPUs for 3.5 days…"`, "eight\nGPUs for 3.5 days", true},
		{"surrounding white space", "  Done. \n", "Done.", true},
		{"changed word", "trained on eight GPUs for 4 days.", "", false},
		{"inner ellipsis is not verbatim", "The model was trained ... for 3.5 days.", "", false},
		{"case differs", "the model was trained", "", false},
		{"empty", "", "", false},
		{"only quotes and dots", `"..."`, "", false},
	}
	for _, tt := range tests {
		s, e, ok := findQuote(src, tt.quote)
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		if ok && src[s:e] != tt.want {
			t.Errorf("%s: found %q, want %q", tt.name, src[s:e], tt.want)
		}
	}
}

func TestFindQuoteFirstOccurrence(t *testing.T) {
	src := "BLEU rose. Later, BLEU rose."
	s, e, ok := findQuote(src, "BLEU rose.")
	if !ok || s != 0 || e != 10 {
		t.Errorf("span = %d-%d %v, want the first occurrence 0-10", s, e, ok)
	}
}

// FuzzFindQuote: a found span is in bounds, on rune boundaries, and the
// source text there normalizes to the normalized quote; a substring of
// the source is always found.
func FuzzFindQuote(f *testing.F) {
	f.Add("The model was trained on  eight\nGPUs.", "trained on eight GPUs.", 3, 10)
	f.Add("It’s “ok” — fine", `It's "ok" - fine`, 0, 4)
	f.Add("a\u00a0b\u2003c", "a b c", 1, 2)
	f.Add("\xff\xfe broken \x80 utf8", "broken", 0, 1)
	f.Add("", "x", 0, 0)
	f.Fuzz(func(t *testing.T, src, quote string, i, j int) {
		s, e, ok := findQuote(src, quote)
		if ok {
			if s < 0 || e > len(src) || s >= e {
				t.Fatalf("span %d-%d out of bounds for %d bytes", s, e, len(src))
			}
			if utf8.ValidString(src) && (!utf8.RuneStart(src[s]) || e < len(src) && !utf8.RuneStart(src[e])) {
				t.Fatalf("span %d-%d cuts a rune", s, e)
			}
			if utf8.ValidString(src) && utf8.ValidString(quote) && normalizeQuote(src[s:e]) != normalizeQuote(quote) {
				t.Fatalf("found %q for quote %q", src[s:e], quote)
			}
		}
		// Any substring of a valid source with letters at both ends is found.
		if !utf8.ValidString(src) || len(src) == 0 {
			return
		}
		i, j = abs(i)%len(src), abs(j)%len(src)
		if i > j {
			i, j = j, i
		}
		for i < len(src) && !utf8.RuneStart(src[i]) {
			i++
		}
		for j < len(src) && !utf8.RuneStart(src[j]) {
			j++
		}
		if i >= j {
			return
		}
		sub := src[i:j]
		if strings.TrimFunc(sub, func(r rune) bool {
			return strings.ContainsRune(" \t\n\r\v\f\u0085\u00a0\"'.…\u2018\u2019\u201a\u201b\u2032\u201c\u201d\u201e\u201f\u2033", r)
		}) != sub {
			return // edges normalizeQuote strips
		}
		if _, _, ok := findQuote(src, sub); !ok && normalizeQuote(sub) != "" {
			t.Fatalf("substring %q of %q not found", sub, src)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
