package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The tokenizer is shared by the passage ranker, the offline judge and the
// quantity reader, so that ranking, judging and number checks see the same
// terms: lowercased English words stemmed with Stem, numbers without
// thousands separators, and overlapping character bigrams for Chinese,
// Japanese and Korean text.

// Kind classifies a token.
type Kind uint8

// Token kinds.
const (
	Word   Kind = iota // a run of letters (and digits mixed with letters: "GPT4", "H2O")
	Number             // digits with optional thousands separators and decimals: "260,000", "41.3"
	CJK                // a character bigram (or a lone character) of Han, Kana or Hangul text
)

// Token is one unit of analysed text.
type Token struct {
	// Term is the normalized form used for matching: a lowercased Snowball
	// stem for English words, the digits (without separators) for numbers,
	// the characters themselves for CJK bigrams.
	Term string
	// Start and End are byte offsets of the surface form in the analysed text.
	Start, End int
	Kind       Kind
	// Stop marks English stop words and function words; they are kept for
	// negation and phrase cues but are not content terms.
	Stop bool
}

// Content reports whether the token carries meaning for matching: a
// non-stop word or a CJK bigram. Numbers are matched separately.
func (t Token) Content() bool {
	return !t.Stop && (t.Kind == Word || t.Kind == CJK)
}

// Analyzer tokenizes text. It memoizes stems, so reuse one Analyzer for the
// texts of one job; it is not safe for concurrent use. (The words of its
// texts are looked up in the process's memo of words, wordMemo, which
// fresh Analyzers share.)
type Analyzer struct {
	stems map[string]string
}

// NewAnalyzer returns an Analyzer with an empty stem cache.
func NewAnalyzer() *Analyzer {
	return &Analyzer{stems: make(map[string]string)}
}

// Tokenize is a convenience for NewAnalyzer().Tokenize(text).
func Tokenize(text string) []Token {
	return NewAnalyzer().Tokenize(text)
}

// Stem returns the normalized term of one English word (lowercased and
// stemmed), as Tokenize would produce it.
func (a *Analyzer) Stem(word string) string {
	return a.stem(strings.ToLower(word))
}

// Tokenize splits text into tokens with byte spans. Invalid UTF-8 is
// skipped, never copied into a term.
func (a *Analyzer) Tokenize(text string) []Token {
	return a.AppendTokens(make([]Token, 0, len(text)/6+1), text, 0)
}

// AppendTokens appends the tokens of text, with their spans moved by
// offset, to toks: what Tokenize gives, for a caller tokenizing a text a
// piece at a time (text[s:e] with offset s) into one slice.
func (a *Analyzer) AppendTokens(toks []Token, text string, offset int) []Token {
	first := len(toks)
	i := 0
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			// ASCII, most of any text: what the tests below make of it.
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
				i = a.word(text, i, &toks)
			case '0' <= c && c <= '9':
				i = a.number(text, i, &toks)
			default:
				i++
			}
			continue
		}
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
	if offset != 0 {
		for k := first; k < len(toks); k++ {
			toks[k].Start += offset
			toks[k].End += offset
		}
	}
	return toks
}

// word scans a run of letters and digits with internal apostrophes
// ("Bieber's", "don't"), and decimal points and thousands commas when it
// starts with a digit ("1.5M" is one word, not "1" and "5m"; so is
// "1,500M"). Hyphens split words ("fresh-frozen" is two).
func (a *Analyzer) word(text string, start int, toks *[]Token) int {
	i := start
	for i < len(text) {
		if c := text[i]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			i++ // an ASCII letter or digit, as the rune tests below would find
			continue
		}
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
	w := wordOf(text[start:i])
	*toks = append(*toks, Token{Term: w.term, Start: start, End: i, Kind: Word, Stop: w.stop})
	return i
}

// number scans digits with "," or "." separators between digit groups. A
// digit run that continues into letters ("3D", "2nd", "H2O" starting with a
// digit) becomes a word instead.
func (a *Analyzer) number(text string, start int, toks *[]Token) int {
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

// cjk emits overlapping character bigrams for a run of CJK characters; a
// run of one character yields that character.
func (a *Analyzer) cjk(text string, start int, toks *[]Token) int {
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

func (a *Analyzer) stem(lower string) string {
	if s, ok := a.stems[lower]; ok {
		return s
	}
	s := lower
	if isASCIIWord(lower) {
		s = Stem(lower)
	}
	if a.stems != nil {
		a.stems[lower] = s
	}
	return s
}

// NormalizeNumber removes thousands separators from a numeric literal:
// "260,000" → "260000". A comma followed by other than three digits is
// kept as a decimal mark only when no "." is present ("1,5" → "1.5").
func NormalizeNumber(lit string) string {
	if !strings.Contains(lit, ",") {
		return lit
	}
	groups := strings.Split(lit, ",")
	thousands := true
	for _, g := range groups[1:] {
		head, _, _ := strings.Cut(g, ".")
		if len(head) != 3 {
			thousands = false
			break
		}
	}
	if thousands {
		return strings.ReplaceAll(lit, ",", "")
	}
	if !strings.Contains(lit, ".") && len(groups) == 2 {
		return groups[0] + "." + groups[1]
	}
	return strings.ReplaceAll(lit, ",", "")
}

// IsCJKLetter is the tokenizer's test for a Han, Kana or Hangul character
// (IsCJK, the splitter's, also takes a few CJK punctuation marks); prov's
// word count counts each as one word.
func IsCJKLetter(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

func normalizeApostrophes(s string) string {
	if strings.ContainsRune(s, '’') {
		return strings.ReplaceAll(s, "’", "'")
	}
	return s
}

func isASCIIWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
