package prov

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// SourceText is the text of one source handed to a contradiction detector:
// an excerpt or the full fetched content.
type SourceText struct {
	ID   string
	Text string
}

// Detector finds pairs of sources that make contradictory statements about
// one entity. Offline is the built-in implementation; TwoWay asks an
// entailment model.
type Detector interface {
	Detect(ctx context.Context, texts []SourceText) ([]Conflict, error)
}

// FindContradictions runs d (Offline when nil) over texts (the excerpts of
// g's sources when nil), keeps the conflicts between sources of g and says
// for each whether g surfaces it. To score them, merge them into the graph:
// g.Conflicts = MergeConflicts(g.Conflicts, found...).
func FindContradictions(ctx context.Context, g *Graph, texts []SourceText, d Detector) ([]ConflictStatus, error) {
	if d == nil {
		d = Offline{}
	}
	if texts == nil {
		for _, s := range g.Sources {
			if s.Excerpt != "" {
				texts = append(texts, SourceText{ID: s.ID, Text: s.Excerpt})
			}
		}
	}
	found, err := d.Detect(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("detect contradictions: %w", err)
	}
	known := make(map[string]bool, len(g.Sources))
	for _, s := range g.Sources {
		known[s.ID] = true
	}
	kept := found[:0]
	for _, c := range found {
		if known[c.A] && known[c.B] && c.A != c.B {
			kept = append(kept, c)
		}
	}
	h := g.Clone()
	h.Conflicts = kept
	ix, err := NewIndex(h)
	if err != nil {
		return nil, err
	}
	return ix.Surfacing(), nil
}

// MergeConflicts returns the conflicts of a followed by those of b that are
// not already present; two conflicts are the same when they join the same
// two sources (in either order) about the same entity, ignoring case.
func MergeConflicts(a []Conflict, b ...Conflict) []Conflict {
	seen := make(map[[3]string]bool, len(a)+len(b))
	key := func(c Conflict) [3]string {
		x, y := c.A, c.B
		if y < x {
			x, y = y, x
		}
		return [3]string{x, y, strings.ToLower(strings.TrimSpace(c.Entity))}
	}
	out := make([]Conflict, 0, len(a)+len(b))
	for _, list := range [][]Conflict{a, b} {
		for _, c := range list {
			k := key(c)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// Offline is a deterministic, network-free contradiction detector. It
// compares sentences of different sources that share enough content words
// and reports three kinds of disagreement:
//
//   - polarity: one sentence negates ("not", "never", "no", "n't", "fail
//     to") a word the other asserts ("did not improve accuracy" vs
//     "improved accuracy");
//   - direction: opposite change words on the same object ("latency rose"
//     vs "latency fell");
//   - numbers: quantities in the same unit about the same thing that differ
//     by more than 10% ("14-18% higher accuracy" vs "2% higher accuracy").
//
// It favours precision: sentences must share MinShared content words and a
// MinOverlap share of them to be read for polarity and direction, and
// NumberMinShared and NumberMinOverlap for numbers, whose alignment tests
// (align.go) are stricter. The zero value uses the defaults.
type Offline struct {
	// MinShared is the least number of content-word stems two sentences
	// share to be compared for polarity and direction (default 4).
	MinShared int
	// MinOverlap is the least Jaccard overlap of their stems (default 0.4).
	MinOverlap float64
	// NumberMinShared and NumberMinOverlap are the same for numbers
	// (defaults 4 and 0.4, as for polarity). Two sources often state one
	// figure in few common words ("The 2020 census counted 9.1 million
	// residents" / "the province had a population of 8.4 million"), and 3
	// and 0.2 find more such conflicts, but also more false ones: on every
	// labelled conflict pair (docs/judges.md) 16 right of 20 found against
	// 9 of 10. A false conflict costs more than a missed one.
	NumberMinShared  int
	NumberMinOverlap float64
	// MaxWords skips longer sentences: tables and run-on text (default 80).
	MaxWords int
}

func (o Offline) withDefaults() Offline {
	if o.MinShared <= 0 {
		o.MinShared = 4
	}
	if o.MinOverlap <= 0 {
		o.MinOverlap = 0.4
	}
	if o.NumberMinShared <= 0 {
		o.NumberMinShared = 4
	}
	if o.NumberMinOverlap <= 0 {
		o.NumberMinOverlap = 0.4
	}
	if o.MaxWords <= 0 {
		o.MaxWords = 80
	}
	return o
}

// analysed is one sentence prepared for comparison. analyse gives its
// stems, which pick the pairs worth comparing; complete gives the rest,
// only to the sentences of those pairs.
type analysed struct {
	src   int
	text  string
	toks  []token  // nil until asserts or complete
	stems []string // sorted, unique content stems
	// lex are lexical's tokens of text, kept with toks by asserts for
	// complete, which drops them.
	lex []lexical.Token
	// done is set by complete; checked once asserted is known (asserts
	// or complete).
	done, checked bool
	// scope[i] is true for the tokens of a negated scope; head[i] for the
	// first content token of each scope.
	scope, head []bool
	// qty are lexical's amounts, Tok re-indexed to toks.
	qty []lexical.Amount
	// values are the numbers of the sentence as the judge reads them
	// (lexical.Quantities), bare ones too: a value one sentence states
	// anywhere is no rival of the other's.
	values []lexical.Quantity
	// valueTok is the index in toks of each value's last token, valuePos
	// its byte offset in text.
	valueTok, valuePos []int
	// asserted is false for a conditional or a possibility
	// (lexical.Asserted).
	asserted bool
	// years are the calendar years the sentence names.
	years []float64
	// names are its proper names and names with digits ("Arctic", "70B"),
	// lowercased.
	names []string
	// align is what its figures are of (align.go).
	align alignment
}

// Detect finds conflicts between the texts. Conflicts come in the order of
// the texts and sentences; one per (pair of sources, entity).
func (o Offline) Detect(ctx context.Context, texts []SourceText) ([]Conflict, error) {
	o = o.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sents := o.analyse(texts)
	cands, err := o.candidates(ctx, sents)
	if err != nil {
		return nil, err
	}
	var out []Conflict
	seen := make(map[[3]string]bool)
	an := lexical.NewAnalyzer()
	shared := sharedAnalyses{}
	for _, p := range cands {
		sa, sb := &sents[p.pair[0]], &sents[p.pair[1]]
		if !mayConflict(sa, sb, p.polarity, p.numbers) {
			continue // nothing compare reads a conflict in
		}
		shared.share(sa)
		shared.share(sb)
		if !sa.asserts(an) || !sb.asserts(an) {
			continue // compare finds no conflict with a sentence that does not assert
		}
		a, b := sa.analysis(an), sb.analysis(an)
		kind, entity := compare(a, b, p.polarity, p.numbers)
		if kind == "" {
			continue
		}
		c := Conflict{
			A: texts[sa.src].ID, B: texts[sb.src].ID, Entity: entity,
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

// analyse splits the texts into sentences and keeps those worth
// comparing with their stems (interned: sentences share the strings),
// cues and negation heads (mayConflict). Their tokens are dropped, and
// the rest of their analysis is not even allocated: most sentences are
// in no candidate pair, most candidate pairs have nothing to conflict
// about, and a document's worth of tokens is a lot of memory; analysis
// computes them again, identically, for the sentences compared.
//
// Many texts (a graph's excerpts) are analysed in parallel, in chunks
// whose results are joined in order: the result does not depend on the
// number of cores.
func (o Offline) analyse(texts []SourceText) []indexed {
	workers := min(runtime.GOMAXPROCS(0), len(texts)/parallelTexts)
	if workers <= 1 {
		return o.analyseChunk(texts, 0, false)
	}
	parts := make([][]indexed, workers)
	var wg sync.WaitGroup
	size := (len(texts) + workers - 1) / workers
	for w := range workers {
		from, to := w*size, min((w+1)*size, len(texts))
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = o.analyseChunk(texts[from:to], from, false)
		}()
	}
	wg.Wait()
	return slices.Concat(parts...)
}

// parallelTexts is how many texts make a worker's share worth a goroutine.
const parallelTexts = 2048

// stemArena is how many stems analyseChunk allocates at once for the
// sentences of many texts.
const stemArena = 2048

// analyseChunk analyses texts, the first of which is texts[base] of the
// whole list. Their stems are interned unless few (a text or two, whose
// stems are not worth it); no sentence keeps its tokens: few are ever
// compared (cues), and asserts computes the tokens of those.
func (o Offline) analyseChunk(texts []SourceText, base int, few bool) []indexed {
	var out []indexed
	an := lexical.NewAnalyzer()
	var intern map[string]string
	if !few {
		intern = map[string]string{}
	}
	var ltoks []lexical.Token // reused
	var toks []token
	var buf []string // a sentence's stems, then copied
	// arena holds the sentences' stems, one allocation for many; each
	// sentence's are capped (their own capacity), so nothing appends into
	// a neighbour's.
	var arena []string
	var spans []sentence
	var scope, head []bool // negationHeads'

	for si, t := range texts {
		spans = appendSentences(spans[:0], t.Text)
		out = slices.Grow(out, len(spans))
		for _, s := range spans {
			text := t.Text[s.start:s.end]
			if len(text) > 16*o.MaxWords || !prose(text) {
				continue // far too long to be one statement, or not prose
			}
			ltoks = an.AppendTokens(ltoks[:0], text, 0)
			toks = appendTokens(slices.Grow(toks[:0], len(ltoks)+4), text, ltoks)
			if len(toks) > o.MaxWords {
				continue
			}
			buf = buf[:0]
			for _, tk := range toks {
				if tk.stem == "" {
					continue
				}
				st := tk.stem
				if !few {
					in, ok := intern[st]
					if !ok {
						in = st
						intern[st] = st
					}
					st = in
				}
				buf = append(buf, st)
			}
			slices.Sort(buf)
			buf = slices.Compact(buf)
			n := len(buf) // its stems; the heads of its negated scopes follow
			if n < min(o.MinShared, o.NumberMinShared) {
				continue
			}
			c, negation := cuesOf(text, ltoks, toks)
			if negation {
				scope, head = falses(scope, len(toks)), falses(head, len(toks))
				buf = negationHeads(buf, toks, scope, head)
			}
			if cap(arena)-len(arena) < len(buf) {
				size := stemArena
				if few {
					size = 256 // a text's
				}
				arena = make([]string, 0, max(size, len(buf)))
			}
			from := len(arena)
			arena = append(arena, buf...)
			s := indexed{src: base + si, text: text, stems: arena[from : from+n : from+n], cues: c}
			if len(buf) > n {
				s.heads = arena[from+n : len(arena) : len(arena)]
			}
			out = append(out, s)
		}
	}
	return out
}

// analysis returns the sentence's whole analysis, completed (allocated
// on the first call, or by asserts).
func (s *indexed) analysis(an *lexical.Analyzer) *analysed {
	if s.full == nil {
		s.full = &analysed{src: s.src, text: s.text, stems: s.stems}
	}
	s.full.complete(an)
	return s.full
}

// asserts reports whether the sentence asserts (lexical.Asserted), what
// compare asks first: a pair with a sentence that does not is no
// conflict, and its sentences need not be completed for it. The
// sentence's tokens are computed (and kept for complete), not the rest
// of its analysis.
func (s *indexed) asserts(an *lexical.Analyzer) bool {
	if s.full == nil {
		s.full = &analysed{src: s.src, text: s.text, stems: s.stems}
	}
	a := s.full
	if !a.checked {
		if a.toks == nil {
			a.lex = an.Tokenize(a.text)
			a.toks = tokenize(a.text, a.lex)
		}
		a.asserted, a.checked = lexical.Asserted(a.text, a.lex), true
		if !a.asserted {
			a.lex = nil // not completed for a conflict, so not kept in an index either
		}
	}
	return a.asserted
}

// complete computes a sentence's tokens, negated scopes, quantities,
// whether it asserts, its years and its names, once.
func (a *analysed) complete(an *lexical.Analyzer) {
	if a.done {
		return
	}
	ltoks := a.lex
	if a.toks == nil || ltoks == nil {
		ltoks = an.Tokenize(a.text)
		if a.toks == nil {
			a.toks = tokenize(a.text, ltoks)
		}
	}
	a.lex, a.done = nil, true
	a.scope, a.head = negationScopes(a.toks)
	a.qty = quantities(a.text, ltoks, a.toks)
	a.values = lexical.Quantities(a.text, ltoks)
	for _, q := range a.values {
		a.valueTok = append(a.valueTok, nearestToken(a.toks, ltoks[q.Last].End))
		a.valuePos = append(a.valuePos, ltoks[q.Tok].Start)
	}
	if !a.checked {
		a.asserted, a.checked = lexical.Asserted(a.text, ltoks), true
	}
	a.years = yearsOf(a.values)
	a.names = namesOf(a.text, ltoks)
	a.align = alignmentOf(a.text, a.toks)
	a.align.compares = a.align.compares || listsFigures(a.qty)
}

// listsFigures reports more than two amounts of one unit: a list or a
// comparison of figures, not one figure.
func listsFigures(qs []lexical.Amount) bool {
	for i := range qs {
		n := 0
		for k := range qs {
			if qs[k].Unit == qs[i].Unit {
				n++
			}
		}
		if n > 2 {
			return true
		}
	}
	return false
}

// prose reports whether a sentence reads as a statement worth comparing
// (notProse, scan.go). notProse only runs on sentences that hold what it
// needs to match: after leading space a '[', a digit or one of -*#|>;
// "http"; "]("; a capital letter before a '.'; or a '|'. Most sentences
// hold none of these.
func prose(s string) bool {
	return !mayBeNotProse(s) || !notProse(s)
}

// mayBeNotProse reports whether s holds something every match of
// notProse needs (see prose).
func mayBeNotProse(s string) bool {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	if i < len(s) {
		switch c := s[i]; {
		case c == '[' || c >= '0' && c <= '9' || strings.IndexByte("-*#|>", c) >= 0:
			return true
		}
	}
	if strings.Contains(s, "http") || strings.Contains(s, "](") || strings.IndexByte(s, '|') >= 0 {
		return true
	}
	for j := 1; j < len(s); j++ {
		if s[j] == '.' && s[j-1] >= 'A' && s[j-1] <= 'Z' {
			return true
		}
	}
	return false
}

// candidates returns the pairs of sentences of different sources that share
// enough stems. Pairs are generated from an inverted index of the rarer
// stems (sharing at least two of them), so unrelated sentences are never
// compared, then filtered on their exact overlap.
func (o Offline) candidates(ctx context.Context, sents []indexed) ([]candidate, error) {
	// The posting list of stem id k is post[off[k]:off[k+1]], its
	// sentences in order; the ids of sentence i's stems are
	// occ[first[i]:first[i+1]]. Two flat slices, not a slice a stem.
	ids := make(map[string]int32)
	first := make([]int32, len(sents)+1)
	n := 0
	for _, s := range sents {
		n += len(s.stems)
	}
	occ := make([]int32, 0, n)
	for i, s := range sents {
		for _, st := range s.stems {
			id, ok := ids[st]
			if !ok {
				id = int32(len(ids))
				ids[st] = id
			}
			occ = append(occ, id)
		}
		first[i+1] = int32(len(occ))
	}
	off := make([]int32, len(ids)+1)
	for _, id := range occ {
		off[id+1]++
	}
	for k := 1; k < len(off); k++ {
		off[k] += off[k-1]
	}
	post := make([]int32, len(occ))
	fill := slices.Clone(off[:len(ids)])
	for i := range sents {
		for _, id := range occ[first[i]:first[i+1]] {
			post[fill[id]] = int32(i)
			fill[id]++
		}
	}
	// Common stems say nothing about topic and would make this quadratic.
	maxDF := max(24, len(sents)/200)
	count := make([]int32, len(sents))
	var touched []int32
	var out []candidate
	minShared, minOverlap := min(o.MinShared, o.NumberMinShared), min(o.MinOverlap, o.NumberMinOverlap)
	for i := range sents {
		if i%512 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, id := range occ[first[i]:first[i+1]] {
			p := post[off[id]:off[id+1]]
			if len(p) > maxDF {
				continue
			}
			for _, j := range p {
				if int(j) <= i || sents[j].src == sents[i].src {
					continue
				}
				if count[j] == 0 {
					touched = append(touched, j)
				}
				count[j]++
			}
		}
		slices.Sort(touched)
		for _, j := range touched {
			if count[j] >= 2 || minShared <= 1 {
				shared := sharedStems(sents[i].stems, sents[j].stems)
				union := len(sents[i].stems) + len(sents[j].stems) - shared
				if shared >= minShared && float64(shared) >= minOverlap*float64(union) {
					close := shared >= o.MinShared && float64(shared) >= o.MinOverlap*float64(union)
					numbers := shared >= o.NumberMinShared && float64(shared) >= o.NumberMinOverlap*float64(union)
					out = append(out, candidate{pair: [2]int32{int32(i), j}, polarity: close, numbers: numbers})
				}
			}
			count[j] = 0
		}
		touched = touched[:0]
	}
	return out, nil
}

// candidate is a pair of sentences worth comparing, and for what: polarity
// and direction, numbers, or both.
type candidate struct {
	pair              [2]int32
	polarity, numbers bool
}

// sharedStems counts the stems two sorted lists have in common.
func sharedStems(a, b []string) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			n++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return n
}

// compare decides whether two sentences conflict, and about what. It
// prefers no conflict to a false one: two sentences of which one is not
// asserted (a condition, a possibility), that name different years, each
// a name the other lacks ("Arctic" / "Antarctic", "the 7B model" / "the
// 70B model"), each a statistic the other does not ("mean" / "median"),
// or that differ in alignment (align.go: a forecast and a fact, "phase 2"
// / "phase 3", "since 2020" / "last year", a subgroup, figures compared
// side by side) are about different things and never conflict. Numbers
// are compared only between sentences neither of which names something
// the other lacks: a figure for one country, study or product is not the
// figure for all.
//
// polarity and numbers say which cues the pair is close enough for.
func compare(a, b *analysed, polarity, numbers bool) (ConflictKind, string) {
	if !a.asserted || !b.asserted || disjoint(a.years, b.years) || differentNamesAnywhere(a, b) ||
		differentNames(measuresOf(a), measuresOf(b)) || differentAlignment(&a.align, &b.align) ||
		partLacking(a, b) || partLacking(b, a) || a.align.compares || b.align.compares {
		return "", ""
	}
	if polarity {
		if e, ok := negatedAssertion(a, b); ok {
			return ConflictPolarity, e
		}
		if e, ok := negatedAssertion(b, a); ok {
			return ConflictPolarity, e
		}
		if e, ok := oppositeDirection(a, b); ok {
			return ConflictPolarity, e
		}
	}
	if !numbers || namesLacking(a, b) || namesLacking(b, a) {
		return "", "" // "40% of hospitalised patients in a study from China" is not every patient's figure
	}
	if e, ok := conflictingNumbers(a, b); ok {
		return ConflictNumber, e
	}
	if e, ok := conflictingValues(a, b); ok {
		return ConflictNumber, e
	}
	return "", ""
}

// negatedAssertion: a negated scope of a ("did not reduce mortality in")
// is asserted in one clause of b, every content word of it outside b's
// negated scopes, and the two clauses share at least two other content
// words (they speak of the same thing). "Without significant performance
// degradation" is not denied by "can significantly enhance the
// performance": "degradation" is not asserted there.
func negatedAssertion(a, b *analysed) (string, bool) {
	for i := range a.toks {
		if !a.head[i] {
			continue
		}
		scope := []string{a.toks[i].stem}
		for k := i + 1; k < len(a.toks) && !a.toks[k].brk; k++ {
			if a.toks[k].stem == "" {
				continue
			}
			if !a.scope[k] || a.head[k] {
				break
			}
			scope = append(scope, a.toks[k].stem)
		}
		for _, cb := range clauseSpans(b.toks) {
			if !assertsAll(b, cb, scope) {
				continue
			}
			if sharedBeyond(clauseStems(a.toks, clauseAt(a.toks, i)), clauseStems(b.toks, cb), scope) >= 2 {
				return entityNear(a, b, i), true
			}
		}
	}
	return "", false
}

// clauseSpans splits a sentence's tokens into clauses at punctuation
// (token.brk) and contrast words: [start, end) token ranges.
func clauseSpans(toks []token) [][2]int {
	var out [][2]int
	start := 0
	for k := 1; k < len(toks); k++ {
		switch toks[k].word {
		case "but", "whereas", "while", "although", "though", "however":
		default:
			if !toks[k].brk {
				continue
			}
		}
		out = append(out, [2]int{start, k})
		start = k
	}
	return append(out, [2]int{start, len(toks)})
}

// clauseAt returns the clause of token i.
func clauseAt(toks []token, i int) [2]int {
	for _, c := range clauseSpans(toks) {
		if i >= c[0] && i < c[1] {
			return c
		}
	}
	return [2]int{0, len(toks)}
}

func clauseStems(toks []token, c [2]int) map[string]bool {
	out := make(map[string]bool)
	for _, t := range toks[c[0]:c[1]] {
		if t.stem != "" {
			out[t.stem] = true
		}
	}
	return out
}

// assertsAll reports whether every stem is in clause c of b outside a
// negated scope.
func assertsAll(b *analysed, c [2]int, stems []string) bool {
	for _, st := range stems {
		found := false
		for k := c[0]; k < c[1]; k++ {
			if b.toks[k].stem == st && !b.scope[k] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sharedBeyond counts the stems two clauses share besides those of skip.
func sharedBeyond(a, b map[string]bool, skip []string) int {
	n := 0
	for st := range a {
		if b[st] && !slices.Contains(skip, st) {
			n++
		}
	}
	return n
}

// yearsOf returns the calendar years among quantities, with those of
// dates.
func yearsOf(qs []lexical.Quantity) []float64 {
	var out []float64
	for _, q := range qs {
		if q.Unit == lexical.UnitYear {
			out = append(out, q.Value)
		}
	}
	return out
}

// disjoint reports two non-empty sets of years with no year in common:
// "fell between 2000 and 2019" / "increased in 2020".
func disjoint(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	for _, x := range a {
		if slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// namesOf returns the names of a sentence, lowercased: capitalized words
// that do not open it, and words with digits and letters ("70B", "H100").
func namesOf(text string, toks []lexical.Token) []string {
	var out []string
	for i, t := range toks {
		if t.Kind != lexical.Word {
			continue
		}
		w := text[t.Start:t.End]
		r, _ := utf8.DecodeRuneInString(w)
		digits := strings.ContainsAny(w, "0123456789")
		capital := unicode.IsUpper(r) && i > 0 && !strings.ContainsAny(text[toks[i-1].End:t.Start], ".!?:")
		if !capital && !digits || lexical.IsStopWord(strings.ToLower(w)) {
			continue
		}
		w = strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(w), "'s"), "’s")
		out = append(out, w)
	}
	return out
}

// differentNames reports that each sentence names something the other
// does not: two subjects, not one told twice.
func differentNames(a, b []string) bool {
	only := func(x, y []string) bool {
		for _, n := range x {
			if !slices.Contains(y, n) {
				return true
			}
		}
		return false
	}
	return only(a, b) && only(b, a)
}

// direction returns +1 for the stem of a change word up, -1 for one
// down, 0 for any other stem.
func direction(stem string) int {
	switch stem {
	case "increas", "rise", "grow", "rais", "boost", "improv", "higher", "outperform", "accel":
		return 1
	case "decreas", "declin", "fall", "drop", "reduc", "lower", "worsen", "degrad",
		"hurt", "underperform", "shrink", "shrank", "cut", "slash":
		return -1
	}
	return 0
}

// oppositeDirection: a says a thing went up where b says it went down: the
// two change words have the same content word right before or right after
// them, and neither is negated.
func oppositeDirection(a, b *analysed) (string, bool) {
	if bothWays(a) || bothWays(b) {
		return "", false // "a lower heart rate … as a higher heart rate"
	}
	for i, ta := range a.toks {
		da := direction(ta.stem)
		if da == 0 || a.scope[i] {
			continue
		}
		for j, tb := range b.toks {
			db := direction(tb.stem)
			if db == 0 || db == da || b.scope[j] {
				continue
			}
			for _, off := range [2]int{-1, 1} {
				x, y := neighbour(a.toks, i, off), neighbour(b.toks, j, off)
				if x >= 0 && y >= 0 && a.toks[x].stem == b.toks[y].stem && direction(a.toks[x].stem) == 0 &&
					(off < 0 || sameSubject(a, i, b, j)) {
					return phrase(a, b, x, off, nil), true
				}
			}
		}
	}
	return "", false
}

// sameSubject reports whether the content words before change word i of a
// and j of b in their clauses share a stem: "obesity reduces life span" is
// not denied by "fat ablation increases life span", though both speak of
// life span.
func sameSubject(a *analysed, i int, b *analysed, j int) bool {
	ca, cb := clauseAt(a.toks, i), clauseAt(b.toks, j)
	for x := ca[0]; x < i; x++ {
		st := a.toks[x].stem
		if st == "" {
			continue
		}
		for y := cb[0]; y < j; y++ {
			if b.toks[y].stem == st {
				return true
			}
		}
	}
	return false
}

// measureWords name which statistic a figure is; two sentences that name
// different ones ("mean" / "median", "real" / "nominal", "net" /
// "gross") report two figures, not one.
var measureWords = lexical.WordSet(`mean average median real nominal gross net total maximum minimum peak annual
cumulative daily weekly monthly quarterly overall fiscal calendar adjusted unadjusted gaap non-gaap headline core
underlying organic operating pretax pre-tax diluted absolute relative per-capita capita installed flash preliminary
provisional initial revised final updated`)

func measuresOf(a *analysed) []string {
	var out []string
	for _, t := range a.toks {
		if measureWords[t.word] {
			out = append(out, t.word)
		}
	}
	return out
}

// bothWays reports a sentence with change words of both directions
// outside negated scopes: it compares rather than reports a change.
func bothWays(a *analysed) bool {
	up, down := false, false
	for i, t := range a.toks {
		switch d := direction(t.stem); {
		case a.scope[i]:
		case d > 0:
			up = true
		case d < 0:
			down = true
		}
	}
	return up && down
}

// neighbour returns the index of the nearest content token before (off -1)
// or after (off +1) token i within the same clause, or -1.
func neighbour(toks []token, i, off int) int {
	for k := i + off; k >= 0 && k < len(toks); k += off {
		if off > 0 && toks[k].brk || off < 0 && toks[k+1].brk {
			return -1
		}
		if toks[k].stem != "" {
			return k
		}
	}
	return -1
}

// entityNear names what two sentences disagree about: the content words of
// a shared with b that follow token i in its clause (up to three), else
// those that precede it, else the word at i.
func entityNear(a, b *analysed, i int) string {
	if w := phrase(a, b, i+1, 1, nil); w != "" {
		return w
	}
	if w := phrase(a, b, i-1, -1, nil); w != "" {
		return w
	}
	return a.toks[i].word
}

// phrase collects up to three content words of a shared with b, starting at
// token k and moving by step, within one clause: leading stop words (and
// words for which skip is true) are passed over, and the phrase ends at the
// first word that does not qualify. Words come back in sentence order.
func phrase(a, b *analysed, k, step int, skip func(token) bool) string {
	var words []string
	for ; k >= 0 && k < len(a.toks) && len(words) < 3; k += step {
		if step > 0 && a.toks[k].brk || step < 0 && k+1 < len(a.toks) && a.toks[k+1].brk {
			break
		}
		tk := a.toks[k]
		_, shared := slices.BinarySearch(b.stems, tk.stem)
		ok := tk.stem != "" && shared && direction(tk.stem) == 0 && (skip == nil || !skip(tk))
		if !ok {
			if len(words) > 0 {
				break
			}
			continue
		}
		words = append(words, tk.word)
	}
	if step < 0 {
		slices.Reverse(words)
	}
	return strings.Join(words, " ")
}

// negationScopes marks, for each negation cue, the next content words up to
// three, stopping at punctuation; the first of them is the scope's head.
// "not only", "no more than", "no less than", "whether or not" and "no
// longer than" are not negations of what follows.
func negationScopes(toks []token) (scope, head []bool) {
	scope = make([]bool, len(toks))
	head = make([]bool, len(toks))
	markNegationScopes(scope, head, toks)
	return scope, head
}

// markNegationScopes sets negationScopes(toks) in scope and head, all
// false and as long as toks.
func markNegationScopes(scope, head []bool, toks []token) {
	for i, tk := range toks {
		// "NOT" is usually a gate or an operator; "neither X nor Y
		// stimulated" denies the verb after its subjects, which a scope of
		// the next words would take for the subjects.
		cue := lexical.IsNegation(tk.word) && !tk.caps && tk.word != "neither" && tk.word != "nor" || tk.word == "non" // "non-indexed"
		if tk.word == "fail" || tk.word == "fails" || tk.word == "failed" {
			cue = i+1 < len(toks) && toks[i+1].word == "to"
		}
		// "rather than by increasing", "instead of raising": what
		// follows is set aside, neither asserted nor denied; its words
		// are marked as a scope without a head, so no other sentence's
		// negation is read against them and they deny nothing.
		if tk.word == "than" && i > 0 && toks[i-1].word == "rather" || tk.word == "of" && i > 0 && toks[i-1].word == "instead" {
			for k := i + 1; k < len(toks) && !toks[k].brk; k++ {
				scope[k] = true
			}
			continue
		}
		if !cue {
			continue
		}
		if i+1 < len(toks) {
			next := toks[i+1].word
			if next == "only" || next == "more" || next == "less" || next == "fewer" {
				continue
			}
		}
		if tk.word == "not" && i > 0 && toks[i-1].word == "or" {
			continue
		}
		n := 0
		for k := i + 1; k < len(toks) && n < 3; k++ {
			if toks[k].brk {
				break
			}
			if toks[k].stem == "" {
				continue
			}
			scope[k] = true
			if n == 0 {
				head[k] = true
			}
			n++
		}
	}
}

// snippet shortens a sentence to at most 400 bytes on a rune boundary.
func snippet(s string) string {
	const max = 400
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
