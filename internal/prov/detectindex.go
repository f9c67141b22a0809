package prov

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// OfflineIndex holds the texts the offline detector has seen, analysed
// and indexed by their sentences' content stems, so that a new text is
// compared with all of them at the cost of its own sentences and of the
// sentences it shares stems with: what a live session needs when every
// new source is checked against the earlier ones, where running Detect
// over all the texts again would cost the whole session each time.
//
// Its answer is exact: Conflicts(t) is what Detect over the indexed texts
// followed by t finds between t and an indexed text, in the same order,
// the candidate pairs chosen by the same rule (the same stems too common to
// say anything, counted over all the sentences of the texts and t).
//
// An OfflineIndex is not safe for concurrent use.
type OfflineIndex struct {
	o     Offline
	ids   []string
	sents []indexed // sentences of the indexed texts
	// stemID numbers the indexed sentences' stems, which most share;
	// stems[k] is stem k, the one copy the sentences point to, and
	// post[k] lists the sentences with it, in order.
	stemID map[string]int32
	stems  []string
	post   [][]int32
	// analyses are those of the sentences compared.
	analyses sharedAnalyses
	// arena holds the indexed sentences' stems and heads, many
	// sentences' to an allocation.
	arena []string
	bytes int64 // estimated memory (Bytes)
	// count is Conflicts' tally of stems shared with each indexed
	// sentence, inNew its count of a new text's sentences with each stem:
	// all zero between calls.
	count, inNew []int32
}

// indexed is a sentence of a text: its stems, cues and the heads of its
// negated scopes (mayConflict), and all the rest of its analysis once it
// has been compared (asserts, analysis).
type indexed struct {
	src   int
	text  string
	stems []string
	heads []string // stems too, most often none
	cues  cues
	full  *analysed
}

// AnalysedText is one text analysed by the offline detector (Analyse),
// to compare with an OfflineIndex and add to it.
type AnalysedText struct {
	o     Offline
	sents []indexed
	// ids are the index ids of its sentences' stems in idsOf, one after
	// the other, -1 for a stem idsOf lacked (Conflicts, for Add).
	ids   []int32
	idsOf *OfflineIndex
}

// NewIndex returns an empty index for the detector o.
func (o Offline) NewIndex() *OfflineIndex {
	return &OfflineIndex{o: o.withDefaults(), stemID: map[string]int32{}, analyses: sharedAnalyses{}}
}

// Len is the number of texts in the index.
func (x *OfflineIndex) Len() int { return len(x.ids) }

// Bytes estimates the memory the index holds beyond the texts themselves:
// its sentences' stems, the tokens of those compared, and posting lists.
func (x *OfflineIndex) Bytes() int64 { return x.bytes }

// Analyse splits text into sentences and analyses them as Detect would,
// for an index of the same detector. It touches no index, so a text is
// analysed outside the lock that guards one.
func (o Offline) Analyse(text string) *AnalysedText {
	o = o.withDefaults()
	return &AnalysedText{o: o, sents: o.analyseChunk([]SourceText{{Text: text}}, 0, true)}
}

// Conflicts returns the conflicts between t, the text of source id, and
// the indexed texts: those Detect over the indexed texts followed by t
// reports with t at one end, in its order (each with an indexed text as A
// and id as B).
func (x *OfflineIndex) Conflicts(ctx context.Context, id string, t *AnalysedText) ([]Conflict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.o != x.o {
		return nil, fmt.Errorf("detect contradictions: a text analysed with settings %+v compared with an index of %+v: %w", t.o, x.o, claimtrace.ErrInvalid)
	}
	if len(x.sents) == 0 || len(t.sents) == 0 {
		return nil, nil
	}
	// A stem in more sentences than maxDF, counting t's, says nothing of
	// the topic (candidates).
	maxDF := max(24, (len(x.sents)+len(t.sents))/200)
	// Each of t's stems by its id in the index, -1 for one it lacks
	// (no indexed sentence shares it); inNew counts t's sentences with
	// each stem of the index.
	n := 0
	for _, s := range t.sents {
		n += len(s.stems)
	}
	stemIDs := make([]int32, 0, n)
	if len(x.inNew) < len(x.post) {
		x.inNew = make([]int32, len(x.post)+len(x.post)/2)
	}
	inNew := x.inNew
	for _, s := range t.sents {
		for _, st := range s.stems {
			id, ok := x.stemID[st]
			if !ok {
				id = -1
			} else {
				inNew[id]++
			}
			stemIDs = append(stemIDs, id)
		}
	}
	t.ids, t.idsOf = stemIDs, x // for Add
	defer func() {
		for _, id := range stemIDs {
			if id >= 0 {
				inNew[id] = 0
			}
		}
	}()
	if len(x.count) < len(x.sents) {
		x.count = make([]int32, len(x.sents)+len(x.sents)/2)
	}
	count := x.count
	var touched []int32
	var pairs []candidate // indexed sentence, t's sentence
	minShared, minOverlap := min(x.o.MinShared, x.o.NumberMinShared), min(x.o.MinOverlap, x.o.NumberMinOverlap)
	ids := stemIDs
	for j := range t.sents {
		if j%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		b := &t.sents[j]
		for _, id := range ids[:len(b.stems)] {
			if id < 0 {
				continue
			}
			p := x.post[id]
			if len(p)+int(inNew[id]) > maxDF {
				continue
			}
			for _, i := range p {
				if count[i] == 0 {
					touched = append(touched, i)
				}
				count[i]++
			}
		}
		ids = ids[len(b.stems):]
		for _, i := range touched {
			if count[i] >= 2 || minShared <= 1 {
				shared := sharedStems(x.sents[i].stems, b.stems)
				union := len(x.sents[i].stems) + len(b.stems) - shared
				if shared >= minShared && float64(shared) >= minOverlap*float64(union) {
					pairs = append(pairs, candidate{pair: [2]int32{i, int32(j)},
						polarity: shared >= x.o.MinShared && float64(shared) >= x.o.MinOverlap*float64(union),
						numbers:  shared >= x.o.NumberMinShared && float64(shared) >= x.o.NumberMinOverlap*float64(union)})
				}
			}
			count[i] = 0
		}
		touched = touched[:0]
	}
	// Detect compares pairs in the order of their first sentence, then of
	// their second: here an indexed sentence, then one of t's.
	slices.SortFunc(pairs, func(p, q candidate) int {
		return cmp.Or(cmp.Compare(p.pair[0], q.pair[0]), cmp.Compare(p.pair[1], q.pair[1]))
	})
	var out []Conflict
	seen := make(map[[3]string]bool)
	an := lexical.NewAnalyzer()
	for _, p := range pairs {
		// An indexed sentence compared once is likely compared again (it
		// shares stems with the session's topic): it keeps its tokens,
		// and gives its analysis to the other sentences of its text, of
		// which a session often has several.
		s, sb := &x.sents[p.pair[0]], &t.sents[p.pair[1]]
		if !mayConflict(s, sb, p.polarity, p.numbers) {
			continue // nothing compare reads a conflict in
		}
		fresh, freshB := x.analyses.share(s), x.analyses.share(sb)
		asserts := s.asserts(an)
		if fresh {
			x.bytes += analysedBytes + 64*int64(len(s.full.toks)) + 48
		}
		if freshB {
			x.bytes += analysedBytes + 48 // its tokens once completed (Add)
		}
		if !asserts || !sb.asserts(an) {
			continue // compare finds no conflict with a sentence that does not assert
		}
		a, b := s.analysis(an), sb.analysis(an)
		kind, entity := compare(a, b, p.polarity, p.numbers)
		if kind == "" {
			continue
		}
		c := Conflict{
			A: x.ids[s.src], B: id, Entity: entity,
			SnippetA: snippet(a.text), SnippetB: snippet(b.text),
			Kind: kind, Detector: "offline",
		}
		k := [3]string{c.A, c.B, strings.ToLower(entity)}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out, nil
}

// sharedAnalyses are the analyses of the sentences compared, by their
// text: a sentence takes that of an earlier one of the same text (share),
// which is the one its own would be. Pages repeat sentences, and so do
// the sources of a session.
type sharedAnalyses map[string]*analysed

// share gives s the analysis of the sentences of its text compared
// before, or makes its own (allocated, not computed) the one they get,
// and reports the latter. An analysis shared is the text's, not the
// sentence's: its src is the first sentence's.
func (m sharedAnalyses) share(s *indexed) bool {
	if s.full != nil {
		return false
	}
	if a, ok := m[s.text]; ok {
		s.full = a
		return false
	}
	s.full = &analysed{src: s.src, text: s.text, stems: s.stems}
	m[s.text] = s.full
	return true
}

// Add puts t, the text of source id, into the index after the texts
// already there. Its sentences keep their stems and text, not their
// tokens: few are ever compared, and Conflicts computes the tokens of
// those (once). A text analysed with other settings than the index's is
// refused.
func (x *OfflineIndex) Add(id string, t *AnalysedText) error {
	if t.o != x.o {
		return fmt.Errorf("index a text analysed with settings %+v in an index of %+v: %w", t.o, x.o, claimtrace.ErrInvalid)
	}
	src := len(x.ids)
	x.ids = append(x.ids, id)
	x.bytes += int64(len(id)) + 16
	// The ids Conflicts looked up in this index, if it did: a stem's id
	// never changes, and those it lacked are looked up again.
	var known []int32
	if t.idsOf == x {
		known = t.ids
	}
	n := 0
	for _, s := range t.sents {
		n += len(s.stems) + len(s.heads)
	}
	if cap(x.arena)-len(x.arena) < n {
		x.arena = make([]string, 0, max(stemArena, n))
	}
	for _, s := range t.sents {
		i := int32(len(x.sents))
		from := len(x.arena)
		for k, st := range s.stems {
			id := int32(-1)
			if known != nil {
				id = known[k]
			}
			if id < 0 {
				var ok bool
				if id, ok = x.stemID[st]; !ok {
					id = int32(len(x.post))
					x.stemID[st] = id
					x.stems = append(x.stems, st)
					x.post = append(x.post, nil)
					x.bytes += int64(len(st)) + 48
				}
			}
			x.post[id] = append(x.post[id], i)
			x.arena = append(x.arena, x.stems[id])
		}
		if known != nil {
			known = known[len(s.stems):]
		}
		stems := x.arena[from:len(x.arena):len(x.arena)]
		var heads []string
		if len(s.heads) > 0 {
			for _, h := range s.heads {
				k, _ := slices.BinarySearch(s.stems, h) // found: a head is one of the stems
				x.arena = append(x.arena, stems[k])
			}
			heads = x.arena[from+len(stems) : len(x.arena) : len(x.arena)]
		}
		x.sents = append(x.sents, indexed{src: src, text: s.text, stems: stems, heads: heads, cues: s.cues})
		x.bytes += 64 + 20*int64(len(stems)+len(heads))
	}
	return nil
}

// analysedBytes is the size of an analysed sentence without the arrays
// it points to.
const analysedBytes = int64(unsafe.Sizeof(analysed{}))
