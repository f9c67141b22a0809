package lexical

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// refAnalyzer is the tokenizer as it was before its ASCII fast path and
// its memo of words: the reference the fast one must agree with.
type refAnalyzer struct{ stems map[string]string }

func (a *refAnalyzer) stem(lower string) string {
	if s, ok := a.stems[lower]; ok {
		return s
	}
	s := lower
	if isASCIIWord(lower) {
		s = Stem(lower)
	}
	a.stems[lower] = s
	return s
}

func (a *refAnalyzer) Tokenize(text string) []Token {
	toks := make([]Token, 0, len(text)/6+1)
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			i++
		case IsCJKLetter(r):
			i = a.cjk(text, i, &toks)
		case unicode.IsDigit(r):
			i = a.number(text, i, &toks)
		case unicode.IsLetter(r):
			i = a.word(text, i, &toks)
		default:
			i += size
		}
	}
	return toks
}

func (a *refAnalyzer) word(text string, start int, toks *[]Token) int {
	i := start
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) && !IsCJKLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			i += size
			continue
		}
		if (r == '.' || r == ',') && i > start && i+1 < len(text) && isDigitByte(text[start]) && isDigitByte(text[i-1]) && isDigitByte(text[i+1]) {
			i++ // a decimal point or thousands comma in a number glued to letters: "1.5M", "2.5Rb", "7.5μm", "1,500M"
			continue
		}
		if isApostrophe(r) && i+size < len(text) {
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			if unicode.IsLetter(next) && !IsCJKLetter(next) {
				i += size
				continue
			}
		}
		break
	}
	surface := text[start:i]
	lower := strings.ToLower(normalizeApostrophes(surface))
	stop := IsStopWord(lower)
	*toks = append(*toks, Token{Term: a.stem(lower), Start: start, End: i, Kind: Word, Stop: stop})
	return i
}

func (a *refAnalyzer) number(text string, start int, toks *[]Token) int {
	i := start
	for i < len(text) {
		c := text[i]
		if c >= '0' && c <= '9' {
			i++
			continue
		}
		if (c == ',' || c == '.') && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' && i > start {
			i++
			continue
		}
		break
	}
	if i == start { // a non-ASCII digit: treat it as a letter-like run
		_, size := utf8.DecodeRuneInString(text[start:])
		i = start + size
	}
	if i < len(text) {
		r, _ := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) && !IsCJKLetter(r) {
			return a.word(text, start, toks)
		}
	}
	*toks = append(*toks, Token{Term: NormalizeNumber(text[start:i]), Start: start, End: i, Kind: Number})
	return i
}

func (a *refAnalyzer) cjk(text string, start int, toks *[]Token) int {
	var offs []int
	i := start
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !IsCJKLetter(r) {
			break
		}
		offs = append(offs, i)
		i += size
	}
	offs = append(offs, i)
	if len(offs) == 2 {
		*toks = append(*toks, Token{Term: text[offs[0]:offs[1]], Start: offs[0], End: offs[1], Kind: CJK})
		return i
	}
	for k := 0; k+2 < len(offs); k++ {
		*toks = append(*toks, Token{Term: text[offs[k]:offs[k+2]], Start: offs[k], End: offs[k+2], Kind: CJK})
	}
	return i
}

// FuzzTokenizeFastPath: the tokenizer gives the tokens the reference gives,
// on any text, also when one Analyzer reads several texts (its memo of
// words carries over) and a word recurs in other case.
func FuzzTokenizeFastPath(f *testing.F) {
	for _, s := range []string{
		"Retrieval-augmented generation improved accuracy by 14-18% (n=1,204) in 2023.",
		"Bieber's fans didn't say \u2019twas 1.5M or 1,500M; H2O and 3D and 2nd.",
		"NOT all GPT4 runs fail: 检索增强生成 improves 准确率, e.g. résumé naïve café.",
		"x'", "'a", "1.", "1.2.3", "a1,000b", "ﬁnance Ǆ ǅ ǆ ΣΑΣ σας",
	} {
		f.Add(s, "Retrieval RETRIEVAL retrieval's")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		fast := NewAnalyzer()
		ref := &refAnalyzer{stems: map[string]string{}}
		for _, text := range []string{a, b, a + " " + strings.ToUpper(b), b} {
			want, got := ref.Tokenize(text), fast.Tokenize(text)
			for _, tk := range got {
				if tk.Start < 0 || tk.Start >= tk.End || tk.End > len(text) {
					t.Fatalf("Tokenize(%q): token %+v out of bounds", text, tk)
				}
			}
			if len(want) == 0 && len(got) == 0 {
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Tokenize(%q) (-reference +fast):\n%s", text, diff)
			}
			// Appended after other tokens, with spans moved.
			head := []Token{{Term: "head", Start: 0, End: 4}}
			shifted := append([]Token{}, head...)
			for _, tk := range want {
				tk.Start += 7
				tk.End += 7
				shifted = append(shifted, tk)
			}
			if diff := cmp.Diff(shifted, fast.AppendTokens(head, text, 7)); diff != "" {
				t.Fatalf("AppendTokens(%q) (-want +got):\n%s", text, diff)
			}
		}
	})
}

var _ = unicode.IsLetter
var _ = utf8.RuneSelf
