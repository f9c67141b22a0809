package passage

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

type tok struct {
	Surface, Term string
	Kind          Kind
	Stop          bool
}

func simplify(text string, toks []Token) []tok {
	out := make([]tok, len(toks))
	for i, t := range toks {
		out[i] = tok{text[t.Start:t.End], t.Term, t.Kind, t.Stop}
	}
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		text string
		want []tok
	}{
		{
			text: "The libraries hold 260,000 volumes.",
			want: []tok{
				{"The", "the", Word, true}, {"libraries", "librari", Word, false}, {"hold", "hold", Word, false},
				{"260,000", "260000", Number, false}, {"volumes", "volum", Word, false},
			},
		},
		{
			text: "Bieber’s fresh-frozen plasma isn't 41.3% cheaper",
			want: []tok{
				{"Bieber’s", "bieber", Word, false}, {"fresh", "fresh", Word, false}, {"frozen", "frozen", Word, false},
				{"plasma", "plasma", Word, false}, {"isn't", "isn't", Word, true}, {"41.3", "41.3", Number, false},
				{"cheaper", "cheaper", Word, false},
			},
		},
		{
			text: "GPT4 and 3D models, v1.2.3",
			want: []tok{
				{"GPT4", "gpt4", Word, false}, {"and", "and", Word, true}, {"3D", "3d", Word, false},
				{"models", "model", Word, false}, {"v1", "v1", Word, false}, {"2.3", "2.3", Number, false},
			},
		},
		{
			text: "北京大学 is in 北京",
			want: []tok{
				{"北京", "北京", CJK, false}, {"京大", "京大", CJK, false}, {"大学", "大学", CJK, false},
				{"is", "is", Word, true}, {"in", "in", Word, true}, {"北京", "北京", CJK, false},
			},
		},
		{
			text: "猫 sat",
			want: []tok{{"猫", "猫", CJK, false}, {"sat", "sat", Word, false}},
		},
		{
			text: "Überraschung: ÉCOLE",
			want: []tok{{"Überraschung", "überraschung", Word, false}, {"ÉCOLE", "école", Word, false}},
		},
		{text: "", want: []tok{}},
		{text: "... --- !!!", want: []tok{}},
	}
	for _, tt := range tests {
		got := simplify(tt.text, Tokenize(tt.text))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestTokenizeInvalidUTF8(t *testing.T) {
	text := "valid \xff\xfe words \xc3"
	for _, tk := range Tokenize(text) {
		if !utf8.ValidString(tk.Term) {
			t.Errorf("term %q is not valid UTF-8", tk.Term)
		}
	}
}

func TestNormalizeNumber(t *testing.T) {
	tests := map[string]string{
		"260,000":     "260000",
		"1,234,567.5": "1234567.5",
		"41.3":        "41.3",
		"1,5":         "1.5",
		"12,34":       "12.34",
		"2016":        "2016",
	}
	for in, want := range tests {
		if got := NormalizeNumber(in); got != want {
			t.Errorf("NormalizeNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemMatchesTokenize(t *testing.T) {
	an := NewAnalyzer()
	for _, w := range []string{"Volumes", "running", "libraries", "decreased"} {
		toks := an.Tokenize(w)
		if len(toks) != 1 || toks[0].Term != an.Stem(w) {
			t.Errorf("Stem(%q) = %q, Tokenize gives %+v", w, an.Stem(w), toks)
		}
	}
}
