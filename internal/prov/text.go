package prov

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// countWords counts the words a reader reads in s: runs of letters and
// digits, with every Han, Hiragana, Katakana or Hangul character counted as
// one word (those scripts do not separate words with spaces). It is a
// count for the AEff measure, not a tokenizer: "long-form" and "don't" are
// one word each, where lexical.Tokenize reads two terms and CJK bigrams.
func countWords(s string) int {
	n := 0
	in := false
	for _, r := range s {
		if r < 0x80 { // ASCII fast path
			switch {
			case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
				if !in {
					n++
					in = true
				}
			case r == '\'' || r == '-':
			default:
				in = false
			}
			continue
		}
		switch {
		case lexical.IsCJKLetter(r):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				n++
				in = true
			}
		case r == '\'' || r == '’' || r == '-':
			// inside a word ("don't", "long-form") these do not split it
		default:
			in = false
		}
	}
	return n
}

// CountWords returns the number of words a reader reads in s, as used by
// the AEff words measure.
func CountWords(s string) int { return countWords(s) }

// sentence is a span of a text, [start, end) in bytes.
type sentence struct{ start, end int }

// splitSentences splits text into the sentences of each line, trimmed of
// blanks and never empty. Sources are page and PDF text: a line break ends
// a statement, and a sentence may start in lower case (a caption's "b,", a
// symbol).
func splitSentences(text string) []sentence {
	return appendSentences(nil, text)
}

// appendSentences appends splitSentences(text) to out.
func appendSentences(out []sentence, text string) []sentence {
	var spans []lexical.Span // a line's, reused
	for ls := 0; ls <= len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		spans = (lexical.Splitter{LowerStarts: true}).AppendSplit(spans[:0], text, ls, le, nil)
		for _, sp := range spans {
			s, e := sp.Start, sp.End
			for s < e && isSpaceByte(text[s]) {
				s++
			}
			for e > s && isSpaceByte(text[e-1]) {
				e--
			}
			if e > s {
				out = append(out, sentence{s, e})
			}
		}
		ls = le + 1
	}
	return out
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// token is one word of a sentence: lower-cased surface form, stem (empty
// for stop words and numbers), and its byte offset in the text.
type token struct {
	word string
	stem string
	pos  int
	// brk is true when punctuation (, ; : ( ) separates this token from the
	// previous one; negation scopes and entity phrases stop there.
	brk bool
	// caps is true for a word written in capitals ("NOT", "RAG").
	caps bool
}

// tokenize reads the words of s with lexical's tokenizer (toks are
// an.Tokenize(s)), as the detector needs them: a "…n't" contraction is its
// word and a separate "not" ("didn't" → "did", "not"), so negation scopes
// start at one token; CJK bigrams are left out (the detector compares
// English sentences); a token records the punctuation before it (brk) and
// capitals (caps).
func tokenize(s string, toks []lexical.Token) []token {
	return appendTokens(make([]token, 0, len(toks)), s, toks)
}

// appendTokens appends tokenize(s, toks) to out.
func appendTokens(out []token, s string, toks []lexical.Token) []token {
	prevEnd := 0
	for _, t := range toks {
		if t.Kind == lexical.CJK {
			continue
		}
		brk := breaks(s[prevEnd:t.Start])
		prevEnd = t.End
		orig := s[t.Start:t.End]
		w := strings.ReplaceAll(strings.ToLower(orig), "’", "'")
		caps := len(orig) > 1 && w != orig && upperCase(orig)
		if base, ok := strings.CutSuffix(w, "n't"); ok && base != "" {
			switch base {
			case "ca":
				base = "can"
			case "wo":
				base = "will"
			}
			out = append(out, token{word: base, stem: stemOf(base, lexical.Stem(base), lexical.IsStopWord(base)), pos: t.Start, brk: brk, caps: caps})
			out = append(out, token{word: "not", pos: t.Start, caps: caps})
			continue
		}
		out = append(out, token{word: w, stem: stemOf(w, t.Term, t.Stop), pos: t.Start, brk: brk, caps: caps})
	}
	return out
}

// breaks reports whether the text between two tokens holds punctuation
// that separates them: one of , ; : ( ) [ ] — –. Most hold a space only.
func breaks(gap string) bool {
	for i := 0; i < len(gap); i++ {
		switch c := gap[i]; c {
		case ',', ';', ':', '(', ')', '[', ']':
			return true
		default:
			if c >= utf8.RuneSelf { // a dash, perhaps
				return strings.ContainsAny(gap[i:], ",;:()[]—–")
			}
		}
	}
	return false
}

// upperCase reports whether strings.ToUpper(s) == s, without building
// the upper-case copy for ASCII text.
func upperCase(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return strings.ToUpper(s) == s
		case 'a' <= c && c <= 'z':
			return false
		}
	}
	return true
}

// stemOf returns the stem of a content word (term is lexical's), or "" for
// stop words, negations, numbers and single letters.
func stemOf(w, term string, stop bool) string {
	if len(w) < 2 || stop || lexical.IsNegation(w) || topicless(w) || isNumberWord(w) {
		return ""
	}
	if l := irregular(w); l != "" {
		return l
	}
	return term
}

func isNumberWord(w string) bool {
	digits := 0
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			digits++
		}
	}
	return digits > 0 && digits*2 >= len(w)
}

// irregular returns the stem of the base form of an irregular verb form
// ("held" → "hold", "rose" → "rise"), so that the two match, or "".
func irregular(w string) string {
	switch w {
	case "held", "holds":
		return "hold"
	case "found":
		return "find"
	case "shown", "showed":
		return "show"
	case "rose", "risen":
		return "rise"
	case "fell", "fallen":
		return "fall"
	case "grew", "grown":
		return "grow"
	case "made":
		return "make"
	case "led":
		return "lead"
	case "gave", "given":
		return "give"
	case "took", "taken":
		return "take"
	case "saw", "seen":
		return "see"
	case "went", "gone":
		return "go"
	case "began", "begun":
		return "begin"
	case "won":
		return "win"
	case "lost":
		return "lose"
	case "beat":
		return "beat"
	case "outperformed", "outperforms":
		return "outperform"
	case "better":
		return "good"
	case "worse":
		return "bad"
	}
	return ""
}

// topicless reports the words beyond lexical's stop words that say nothing
// of what two source sentences are about: "et al.", "across", the forms of
// "use". Adding them to lexical's list lowers the judge's calibration
// score on WiCE (0.674 → 0.667), so they stay the detector's.
func topicless(w string) bool {
	switch w {
	case "et", "al", "across", "use", "used", "uses", "using":
		return true
	}
	return false
}
