// Package lexical is the one home of the text facts the readers share:
// what a stem, a stop word, a negation, a sentence, a token and a quantity
// are. The report parser, the passage ranker, the offline judge, prov's
// contradiction detector and the dataset builder read them from here, so
// that parsing, ranking, judging and contradiction detection agree (see
// docs/judges.md for what each caller asks of them).
package lexical

import (
	"hash/maphash"
	"strings"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
)

// Stem returns the Snowball (Porter2) stem of a lowercased English word.
// Stop words are stemmed too, so "having" and "have" meet.
//
// Stems are remembered for the whole process (stemMemo): the judge, the
// contradiction detector and the live service analyse text after text of
// one vocabulary, each with a fresh Analyzer, and stemming a word costs
// about a microsecond where looking it up costs a few nanoseconds.
func Stem(lower string) string {
	slot := &stemMemo.slots[maphash.String(stemMemo.seed, lower)&(stemSlots-1)]
	if e := slot.Load(); e != nil && e.word == lower {
		return e.stem
	}
	s := english.Stem(lower, true)
	// Copies: lower is often a slice of a long text, which a remembered
	// word must not keep alive.
	slot.Store(&stemEntry{word: strings.Clone(lower), stem: strings.Clone(s)})
	return s
}

// stemMemo remembers the stems Stem computed: one word a slot, chosen by
// the word's hash, a later word taking the slot of an earlier one. Its
// memory is bounded whatever the text (a flood of made-up words only
// takes slots over), it takes no lock, and it changes no answer, only how
// fast one comes.
var stemMemo = struct {
	seed  maphash.Seed
	slots [stemSlots]atomic.Pointer[stemEntry]
}{seed: maphash.MakeSeed()}

// stemSlots is the number of words stemMemo holds at most: English text
// of any one domain uses fewer distinct words.
const stemSlots = 1 << 16

type stemEntry struct{ word, stem string }

// wordOf returns what the tokenizer makes of a word as written: its term
// (lowercased, curly apostrophes straightened, stemmed) and whether it is
// a stop word. Words are remembered for the whole process (wordMemo): a
// text's words are mostly words earlier texts had, and looking one up
// costs less than lowercasing, testing and stemming it again, or than
// filling a map of one's own for every text.
func wordOf(surface string) wordTerm {
	slot := &wordMemo.slots[maphash.String(wordMemo.seed, surface)&(wordSlots-1)]
	if e := slot.Load(); e != nil && e.is(surface) {
		return e.wordTerm
	}
	lower := strings.ToLower(normalizeApostrophes(surface))
	w := wordTerm{term: lower, stop: IsStopWord(lower)} // a word not in English letters is its own term
	if isASCIIWord(lower) {
		w.term = Stem(lower)
	}
	e := &wordEntry{wordTerm: wordTerm{term: strings.Clone(w.term), stop: w.stop}}
	if len(surface) <= len(e.short) {
		e.n = uint8(copy(e.short[:], surface))
	} else {
		e.n, e.long = longSurface, strings.Clone(surface)
	}
	slot.Store(e)
	return w
}

// wordTerm is a word's term and whether it is a stop word.
type wordTerm struct {
	term string
	stop bool
}

// wordEntry is a word remembered by wordMemo. A short surface (most
// words) is kept in the entry itself, so that finding the word reads one
// block of memory rather than two: 64 bytes in all.
type wordEntry struct {
	wordTerm
	n     uint8 // len(surface) when it is in short, else longSurface
	short [22]byte
	long  string
}

// longSurface marks an entry whose surface is in long.
const longSurface = 0xff

// is reports whether e remembers surface.
func (e *wordEntry) is(surface string) bool {
	if e.n == longSurface {
		return e.long == surface
	}
	return int(e.n) == len(surface) && string(e.short[:e.n]) == surface
}

// wordMemo remembers wordOf's answers, one word a slot as stemMemo does.
var wordMemo = struct {
	seed  maphash.Seed
	slots [wordSlots]atomic.Pointer[wordEntry]
}{seed: maphash.MakeSeed()}

// wordSlots is the number of words wordMemo holds at most.
const wordSlots = 1 << 16

// IsStopWord reports English function words: Snowball's list plus modal
// and discourse words that carry no checkable content, and contractions
// of function words ("it's", "don't").
func IsStopWord(lower string) bool {
	if english.IsStopWord(lower) {
		return true
	}
	switch lower {
	case "also", "would", "could", "may", "might", "must", "shall", "can",
		"however", "thus", "therefore", "although", "though", "yet", "via",
		"etc", "e.g", "i.e", "among", "per", "within", "whose", "whether",
		"upon", "onto", "us", "'s", "s", "let", "like", "many", "much",
		"well", "even", "still", "since", "including", "additionally", "furthermore", "moreover",
		"overall", "instead", "meanwhile", "hence", "indeed", "namely", "i", "thereby", "whereas":
		return true
	}
	if i := strings.IndexByte(lower, '\''); i > 0 {
		return english.IsStopWord(lower[:i]) || strings.HasSuffix(lower, "n't")
	}
	return false
}

// IsNegation reports a lowercased word that negates what it governs:
// "not", "no", "never", "without", "cannot", "failed", and every "…n't"
// contraction (with a straight or curly apostrophe).
func IsNegation(lower string) bool {
	switch lower {
	case "not", "no", "never", "none", "neither", "nor", "nobody", "nothing", "nowhere",
		"cannot", "without", "unable", "lacks", "lacked", "failed", "fails":
		return true
	}
	return strings.HasSuffix(lower, "n't") || strings.HasSuffix(lower, "n’t")
}
