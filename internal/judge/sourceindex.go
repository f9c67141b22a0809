package judge

import "github.com/claimtrace/claimtrace/internal/judge/passage"

// sourceIndex is a source's passage index with the quantities of its
// passages and sentences, read once: the claims citing a source are
// scored against the same few best passages, and lexical.Quantities is
// the costliest part of scoring one. Not safe for concurrent use, like
// the index.
type sourceIndex struct {
	*passage.Index
	qty map[tokenRange][]quantity
}

// tokenRange identifies a run of the index's tokens: the first one's start,
// the last one's end and how many there are.
type tokenRange struct{ start, end, n int }

func newSourceIndex(ix *passage.Index) *sourceIndex {
	return &sourceIndex{Index: ix, qty: make(map[tokenRange][]quantity)}
}

// quantities returns sentenceQuantities(ix.Text(), toks) for toks, a run
// of the index's tokens (a passage's or a sentence's). The slice is
// shared: callers must not modify it.
func (ix *sourceIndex) quantities(toks []passage.Token) []quantity {
	if len(toks) == 0 {
		return sentenceQuantities(ix.Text(), toks)
	}
	k := tokenRange{toks[0].Start, toks[len(toks)-1].End, len(toks)}
	if q, ok := ix.qty[k]; ok {
		return q
	}
	q := sentenceQuantities(ix.Text(), toks)
	ix.qty[k] = q
	return q
}
