package prov

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// countWords counts the words a reader reads in s: runs of letters and
// digits, with every Han, Hiragana, Katakana or Hangul character counted as
// one word (those scripts do not separate words with spaces).
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
		case isIdeograph(r):
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

func isIdeograph(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// sentence is a span of a text, [start, end) in bytes.
type sentence struct{ start, end int }

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"al": true, "e.g": true, "i.e": true, "fig": true, "figs": true, "eq": true, "eqs": true,
	"vs": true, "cf": true, "etc": true, "no": true, "vol": true, "pp": true, "approx": true,
	"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true, "sec": true, "ref": true,
	"refs": true, "tab": true, "ch": true, "inc": true, "ltd": true, "co": true, "jr": true,
	"st": true, "u.s": true, "e.u": true, "ca": true, "resp": true,
}

// splitSentences splits text at sentence ends (. ! ? and their full-width
// forms followed by a space or the end) and at line breaks, skipping the
// periods of common scholarly abbreviations and of decimal numbers.
func splitSentences(text string) []sentence {
	var out []sentence
	start := 0
	emit := func(end int) {
		s, e := start, end
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
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch r {
		case '\n':
			emit(i)
			start = next
		case '。', '！', '？':
			emit(next)
			start = next
		case '.', '!', '?':
			if next < len(text) && !isSpaceByte(text[next]) && text[next] != '"' && text[next] != ')' {
				break
			}
			if r == '.' && isAbbreviation(text[start:i]) {
				break
			}
			emit(next)
			start = next
		}
		i = next
	}
	emit(len(text))
	return out
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// isAbbreviation reports whether the text before a period ends with a known
// abbreviation or a single capital letter (an initial).
func isAbbreviation(before string) bool {
	j := len(before)
	for j > 0 && before[j-1] != ' ' && before[j-1] != '(' && before[j-1] != '\n' {
		j--
	}
	w := strings.ToLower(before[j:])
	if abbreviations[w] {
		return true
	}
	return len(w) == 1 && w[0] >= 'a' && w[0] <= 'z'
}

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

// tokenize splits s into word tokens. Hyphenated words are split into their
// parts ("retrieval-augmented" → "retrieval", "augmented"); "n't" is kept
// as a separate negation token "not". memo, when not nil, caches stems.
func tokenize(s string, base int, memo map[string]string) []token {
	var out []token
	brk := false
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || isIdeograph(r) {
			if strings.ContainsRune(",;:()[]—–", r) {
				brk = true
			}
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r2, size2 := utf8.DecodeRuneInString(s[j:])
			if unicode.IsLetter(r2) && !isIdeograph(r2) || unicode.IsDigit(r2) {
				j += size2
				continue
			}
			// keep decimal points and apostrophes inside a word
			if (r2 == '.' || r2 == '\'' || r2 == '’') && j+size2 < len(s) {
				r3, _ := utf8.DecodeRuneInString(s[j+size2:])
				if unicode.IsLetter(r3) || unicode.IsDigit(r3) {
					j += size2
					continue
				}
			}
			break
		}
		orig := s[i:j]
		w := strings.ToLower(orig)
		w = strings.ReplaceAll(w, "’", "'")
		caps := len(orig) > 1 && orig == strings.ToUpper(orig) && w != orig
		if strings.HasSuffix(w, "n't") {
			stemWord := strings.TrimSuffix(w, "n't")
			switch stemWord {
			case "ca":
				stemWord = "can"
			case "wo":
				stemWord = "will"
			}
			out = append(out, token{word: stemWord, stem: stemCached(stemWord, memo), pos: base + i, brk: brk, caps: caps})
			out = append(out, token{word: "not", pos: base + i, caps: caps})
		} else {
			out = append(out, token{word: w, stem: stemCached(w, memo), pos: base + i, brk: brk, caps: caps})
		}
		brk = false
		i = j
	}
	return out
}

func stemCached(w string, memo map[string]string) string {
	if memo == nil {
		return stemOf(w)
	}
	st, ok := memo[w]
	if !ok {
		st = stemOf(w)
		memo[w] = st
	}
	return st
}

// stemOf returns the stem of a content word, or "" for stop words, numbers
// and single letters.
func stemOf(w string) string {
	if len(w) < 2 || stopWords[w] || isNumberWord(w) {
		return ""
	}
	if l, ok := irregular[w]; ok {
		return l
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return w // not English: keep the word as is
		}
	}
	return english.Stem(w, false)
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

// irregular maps irregular verb forms to the stem of their base form, so
// that "held" and "hold" or "rose" and "rise" match.
var irregular = map[string]string{
	"held": "hold", "holds": "hold", "found": "find", "shown": "show", "showed": "show",
	"rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "grew": "grow",
	"grown": "grow", "made": "make", "led": "lead", "gave": "give", "given": "give",
	"took": "take", "taken": "take", "saw": "see", "seen": "see", "went": "go", "gone": "go",
	"began": "begin", "begun": "begin", "won": "win", "lost": "lose", "beat": "beat",
	"outperformed": "outperform", "outperforms": "outperform", "better": "good", "worse": "bad",
}

// stopWords are function words that carry no topic.
var stopWords = toSet(`a about above after again against all also am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself just
me more most my myself nor of off on once only or other our ours ourselves out over own same she should so some
such than that the their theirs them themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours yourself yourselves
not no never cannot without neither none may might must shall per via et al using used use across among
within upon onto however whereas although though also thus hence therefore yet still even many much`)

func toSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// negations start a negated scope over the next few content words.
var negations = toSet(`not no never cannot without neither nor none`)
