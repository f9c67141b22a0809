package web

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	const text = "Alpha beta. Gamma délta. Epsilon."
	tests := []struct {
		name  string
		spans []span
		want  []piece
	}{
		{"none", nil, []piece{{Text: text}}},
		{"two claims", []span{{0, 11, 0}, {12, 25, 1}}, []piece{
			{Text: "Alpha beta.", Marked: true, Ref: 0}, {Text: " "}, {Text: "Gamma délta.", Marked: true, Ref: 1}, {Text: " Epsilon."},
		}},
		{"unsorted", []span{{26, 34, 2}, {0, 5, 0}}, []piece{
			{Text: "Alpha", Marked: true, Ref: 0}, {Text: " beta. Gamma délta. "}, {Text: "Epsilon.", Marked: true, Ref: 2},
		}},
		{"overlap keeps the first and longest", []span{{6, 11, 1}, {0, 11, 0}, {6, 25, 2}}, []piece{
			{Text: "Alpha beta.", Marked: true, Ref: 0}, {Text: " Gamma délta. Epsilon."},
		}},
		{"inside a UTF-8 sequence dropped", []span{{20, 25, 0}, {12, 20, 1}}, []piece{{Text: text}}},
		{"out of bounds and empty dropped", []span{{-1, 3, 0}, {30, 99, 1}, {4, 4, 2}, {9, 3, 3}}, []piece{{Text: text}}},
		{"whole text", []span{{0, len(text), 7}}, []piece{{Text: text, Marked: true, Ref: 7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, split(text, tt.spans)); diff != "" {
				t.Errorf("split (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	const text = "Results.\nDPR outperforms BM25\n  by 9%-19% absolute in top-20 accuracy. More text: DPR outperforms."
	tests := []struct {
		name, quote string
		want        string // the located bytes of text, "" when not found
	}{
		{"exact", "DPR outperforms BM25", "DPR outperforms BM25"},
		{"re-flowed white space", "BM25 by 9%-19% absolute", "BM25\n  by 9%-19% absolute"},
		{"quote with newlines", "outperforms\nBM25   by", "outperforms BM25\n  by"},
		{"trimmed", "  top-20 accuracy.  ", "top-20 accuracy."},
		{"first word repeated", "DPR  outperforms.", "DPR outperforms."},
		{"absent", "DPR underperforms BM25", ""},
		{"word glued is no match", "Results.DPR", ""},
		{"empty", "   ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end, ok := locate(text, tt.quote)
			got := ""
			if ok {
				got = text[start:end]
			}
			if got != tt.want {
				t.Errorf("locate(%q) = %q, want %q", tt.quote, got, tt.want)
			}
		})
	}
}

func TestWindow(t *testing.T) {
	text := strings.Repeat("word ", 40) + "EVIDENCE" + strings.Repeat(" wörd", 40)
	start := strings.Index(text, "EVIDENCE")
	from, to := window(text, start, start+len("EVIDENCE"), 30)
	if from <= 0 || to >= len(text) {
		t.Fatalf("window [%d,%d) of %d bytes: want cut on both sides", from, to, len(text))
	}
	if start-from > 30 || to-start-len("EVIDENCE") > 30 {
		t.Errorf("window [%d,%d) wider than the radius around [%d,%d)", from, to, start, start+8)
	}
	if got := text[from:to]; !utf8.ValidString(got) || got[0] != ' ' || !strings.Contains(got, "EVIDENCE") {
		t.Errorf("window %q: want valid UTF-8 starting at a space and holding the evidence", got)
	}
	if from, to := window("short EVIDENCE here", 6, 14, 100); from != 0 || to != 19 {
		t.Errorf("short text window = [%d,%d), want the whole text", from, to)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("Alpha beta. Gamma délta.", 0, 11, 12, 25)
	f.Add("ab", -5, 1, 1, 99)
	f.Add("\xff\xfeé", 1, 2, 0, 3)
	f.Fuzz(func(t *testing.T, text string, s1, e1, s2, e2 int) {
		pieces := split(text, []span{{s1, e1, 0}, {s2, e2, 1}})
		var b strings.Builder
		for _, p := range pieces {
			if p.Text == "" {
				t.Fatalf("empty piece in %+v", pieces)
			}
			b.WriteString(p.Text)
		}
		if b.String() != text {
			t.Fatalf("pieces %+v do not rebuild %q", pieces, text)
		}
		if utf8.ValidString(text) {
			for _, p := range pieces {
				if !utf8.ValidString(p.Text) {
					t.Fatalf("piece %q cuts a UTF-8 sequence", p.Text)
				}
			}
		}
	})
}

func FuzzLocate(f *testing.F) {
	f.Add("Results.\nDPR outperforms BM25\n  by 9%.", "BM25 by 9%.", 40)
	f.Add("a a a a b", "a  b", 3)
	f.Add("é\u2003x", "é x", 1)
	f.Fuzz(func(t *testing.T, text, quote string, radius int) {
		start, end, ok := locate(text, quote)
		if !ok {
			return
		}
		if start < 0 || end > len(text) || start > end {
			t.Fatalf("locate(%q, %q) = [%d,%d) out of bounds", text, quote, start, end)
		}
		if got, want := strings.Join(strings.Fields(text[start:end]), " "), strings.Join(strings.Fields(quote), " "); got != want {
			t.Fatalf("located %q, want the words of %q", text[start:end], quote)
		}
		radius = min(max(radius, 0), 1<<12)
		from, to := window(text, start, end, radius)
		if from < 0 || from > start || to < end || to > len(text) {
			t.Fatalf("window [%d,%d) does not hold [%d,%d)", from, to, start, end)
		}
	})
}
