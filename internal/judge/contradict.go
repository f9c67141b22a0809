package judge

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// Kinds of contradiction the offline judge recognises.
const (
	conflictNumber    = "number"
	conflictNegation  = "negation"
	conflictDirection = "direction"
	conflictEntity    = "entity"
	// conflictComparison: the two sides of a comparison swapped.
	conflictComparison = "comparison"
)

// conflict is a contradiction cue between a claim and the one sentence of
// the source that says most of what the claim says (the aligned sentence).
type conflict struct {
	kind   string // "" when the sentence does not contradict the claim
	detail string // "24 vs 12", "decreas/increas", "Microsoft vs Google"
	// cover is the share of the claim's content words found in the aligned
	// sentence, the words the cue swaps counted as found: how surely the
	// sentence speaks of what the claim speaks of.
	cover float64
	// sent is the aligned sentence (an index of the source's sentences).
	sent int
}

func (c conflict) String() string {
	switch c.kind {
	case "":
		return ""
	case conflictNegation:
		return "negation mismatch"
	}
	return c.kind + " conflict " + c.detail
}

// findConflict aligns the claim with the best sentence among the ranked
// passages and looks for a contradiction there. Only the aligned sentence
// is read: a number or name stated elsewhere in the source is about
// something else as often as not. The sentence with most claim words
// wins, then the one with most claim numbers, then the earliest, so the
// result does not depend on the order of the passages.
func (j *Offline) findConflict(ix *sourceIndex, ci *claimInfo, ps []passage.Passage) conflict {
	best, bestHits := alignedSentence(ix, ci, ps)
	if best < 0 || len(ci.terms) == 0 {
		return conflict{}
	}
	src := ix.Text()
	toks := ix.SentenceTokens(best)
	c := conflict{sent: best}
	// The sentence's clauses, read once for every cue.
	major := majorClauses(src, toks)
	if !lexical.Asserted(src, alignedOf(major, ci.terms, ci.toks)) || !lexical.Asserted(ci.text, ci.toks) {
		return c // a condition or a possibility says nothing against the claim
	}
	// The claim's quantities count as claim words: one the sentence
	// states, or rivals with a quantity of the same kind, is a word it
	// repeats ("six hours" / "four hours").
	qHits := 0
	var ev []quantity
	if len(ci.quantities) > 0 {
		ev = ix.quantities(toks)
		for _, q := range ci.quantities {
			if slices.ContainsFunc(ev, func(e quantity) bool { return lexical.Agree(q, e) || lexical.SameKind(q, e) }) {
				qHits++
			}
		}
	}
	cover := func(extra int) float64 {
		return math.Min(1, ratio(bestHits+qHits+extra, len(ci.terms)+len(ci.quantities)))
	}
	if d := numberConflict(ci, src, toks, major, ev); d != "" {
		c.kind, c.detail, c.cover = conflictNumber, d, cover(0)
		return c
	}
	compared, decided := j.comparisonConflict(ci, src, toks)
	if compared != "" {
		c.kind, c.detail, c.cover = conflictComparison, compared, cover(0)
		return c
	}
	if d, n := entityConflict(ci, src, toks, ix.Contains); d != "" {
		c.kind, c.detail, c.cover = conflictEntity, d, cover(n)
		return c
	}
	minor := clauses(src, toks)
	clause := alignedOf(minor, ci.terms, ci.toks)
	if d := j.directionConflict(ci, src, toks, clause); d != "" && !decided {
		c.kind, c.detail, c.cover = conflictDirection, d, cover(1)
		return c
	}
	if negationConflict(ci, src, minor) {
		c.kind, c.cover = conflictNegation, cover(0)
	}
	return c
}

// negationConflict compares, clause by clause, the polarity of the claim
// with the clause of the aligned sentence that repeats most of it: a
// negation counts only where the clause it sits in says what the claim's
// clause says (at least two of its words and 60% of them). cls are the
// sentence's clauses (clauses).
func negationConflict(ci *claimInfo, src string, cls [][]passage.Token) bool {
	claimClauses := clauses(ci.text, ci.toks)
	for ci0, cc := range claimClauses {
		terms := make(map[string]bool)
		for _, t := range cc {
			if t.Content() {
				terms[t.Term] = true
			}
		}
		if len(terms) < 2 {
			continue
		}
		ec := alignedOf(cls, terms, cc)
		hits := 0
		seen := make(map[string]bool)
		for _, t := range ec {
			if terms[t.Term] && !seen[t.Term] {
				seen[t.Term] = true
				hits++
			}
		}
		if hits < 2 || ratio(hits, len(terms)) < 0.6 || bestClause(claimClauses, ec) != ci0 {
			continue // the source's clause says more of another claim clause
		}
		if negated(ci.text, cc) != negated(src, ec) && !bounded(ci.text, cc) && !bounded(src, ec) {
			return true
		}
	}
	return false
}

// bounded reports a negated bound in a clause ("never dropped below gale
// force", "did not exceed"): a bound word within three words after a
// negation. The negation of a bound is another bound ("at gale force or
// stronger"), which a difference in negation does not deny.
func bounded(text string, toks []passage.Token) bool {
	for i, t := range toks {
		if !lexical.IsNegation(strings.ToLower(text[t.Start:t.End])) {
			continue
		}
		for k := i + 1; k < len(toks) && k <= i+3; k++ {
			switch strings.ToLower(text[toks[k].Start:toks[k].End]) {
			case "below", "under", "above", "exceed", "exceeded", "exceeds", "beyond":
				return true
			}
		}
	}
	return false
}

// alignedSentence is the sentence of the passages ps with most claim
// words, then most claim numbers, then the earliest, with its count of
// claim words; -1 when none has a claim word. The passages overlap (a
// window starts at every sentence) and the order is total, so each
// sentence is read once.
func alignedSentence(ix *sourceIndex, ci *claimInfo, ps []passage.Passage) (int, int) {
	best, bestHits, bestNums := -1, 0, 0
	done := make([]bool, len(ix.Sentences()))
	for _, p := range ps {
		for s := p.First; s < p.Last; s++ {
			if done[s] {
				continue
			}
			done[s] = true
			hits, nums := sentenceHits(ix.SentenceTokens(s), ci.sentenceWords(ix, s), ci)
			if hits > bestHits || hits == bestHits && hits > 0 && (nums > bestNums || nums == bestNums && s < best) {
				best, bestHits, bestNums = s, hits, nums
			}
		}
	}
	return best, bestHits
}

// sentenceHits counts the claim's distinct content words and numbers in a
// sentence. The first token of a term decides: a term a sentence first
// has as a stop word ("does") and later as a content word ("doe") is
// not a hit. ids are the claim word ids of toks (claimInfo.tokenWords).
func sentenceHits(toks []passage.Token, ids []int32, ci *claimInfo) (hits, nums int) {
	seen := ci.hitSeen
	clear(seen)
	for i, t := range toks {
		k := ids[i]
		if k < 0 || ci.kinds[k] == 0 || seen[k] {
			continue // a term neither a claim word nor a claim number counts for nothing
		}
		seen[k] = true
		switch {
		case t.Content() && ci.kinds[k]&claimTerm != 0:
			hits++
		case t.Kind == passage.Number && ci.kinds[k]&claimNumber != 0:
			nums++
		}
	}
	return hits, nums
}

// alignedOf returns the clause of a sentence (one of cls, its clauses
// or majorClauses) that holds most claim words, then most of the numbers
// of claim (the claim's or the claim clause's tokens), then the longer:
// a negation, a direction word or a number in another clause
// ("…reduced ischaemic stroke, but not haemorrhagic stroke"; "has not
// ruled on the second licence, but the first was granted in May 2023")
// is about something else.
func alignedOf(cls [][]passage.Token, terms map[string]bool, claim []passage.Token) []passage.Token {
	var best []passage.Token
	bestHits, bestNums := -1, -1
	for _, cl := range cls {
		hits, nums := 0, 0
		for _, t := range cl {
			switch {
			case t.Content() && terms[t.Term]:
				hits++
			case t.Kind == passage.Number && numberIn(t.Term, claim):
				nums++
			}
		}
		if hits > bestHits || hits == bestHits && (nums > bestNums || nums == bestNums && len(cl) > len(best)) {
			best, bestHits, bestNums = cl, hits, nums // on a tie the longer clause, the main one more often than not
		}
	}
	return best
}

// bestClause returns the index of the clause sharing most content words
// with toks (the first on a tie).
func bestClause(cls [][]passage.Token, toks []passage.Token) int {
	in := make(map[string]bool, len(toks))
	for _, t := range toks {
		if t.Content() {
			in[t.Term] = true
		}
	}
	best, bestHits := -1, -1
	for i, cl := range cls {
		hits := 0
		for _, t := range cl {
			if t.Content() && in[t.Term] {
				hits++
			}
		}
		if hits > bestHits {
			best, bestHits = i, hits
		}
	}
	return best
}

// clauses splits a sentence's tokens at commas, semicolons, colons,
// brackets and the words that open a contrast, comparison or relative
// clause.
func clauses(src string, toks []passage.Token) [][]passage.Token {
	var out [][]passage.Token
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, toks[start:end])
		}
		start = end
	}
	for i := 1; i < len(toks); i++ {
		gap := ""
		if toks[i-1].End <= toks[i].Start { // CJK bigrams overlap
			gap = src[toks[i-1].End:toks[i].Start]
		}
		switch {
		case strings.ContainsAny(gap, ",;:()"):
		case lowerIn(src[toks[i].Start:toks[i].End], "but", "whereas", "while", "although", "though", "than", "who"):
		default:
			continue
		}
		flush(i)
	}
	flush(len(toks))
	return out
}

// numberConflict reports a claim quantity that the aligned sentence states
// otherwise: the sentence does not state it (lexical.StatedIn: also in
// another unit of its dimension, as a fraction, a proportion or a factor,
// or inside a range it gives) and the clause of the sentence that says
// what the quantity's clause of the claim says holds a quantity of the
// same kind (lexical.SameKind) — a number in another clause is about
// something else ("Wholesale prices are not regulated; retail tariffs are
// capped at 28 cents"). Clauses here are split at semicolons and contrast
// words only (majorClauses): a comma often sets off the number itself
// ("Half of the samples, 50 out of 100, tested positive").
//
// major are the sentence's majorClauses, ev its quantities
// (sentenceQuantities(src, toks)).
func numberConflict(ci *claimInfo, src string, toks []passage.Token, major [][]passage.Token, ev []quantity) string {
	if len(ci.quantities) == 0 {
		return ""
	}
	claimSpans := majorClauses(ci.text, ci.toks)
	for qi, q := range ci.quantities {
		if lexical.StatedIn(q, ev, true) || overlapsRange(ci.quantities, qi, ev) || timeFrame(ci.text, ci.toks, q) || rate(ci.text, ci.toks, q) {
			continue
		}
		// The clause of the sentence aligned with the quantity's clause.
		var terms map[string]bool
		var cc []passage.Token
		for _, c := range claimSpans {
			if len(c) > 0 && c[0].Start <= ci.toks[q.Tok].Start && ci.toks[q.Tok].Start <= c[len(c)-1].Start {
				cc, terms = c, contentTerms(c)
			}
		}
		if len(terms) == 0 {
			cc, terms = ci.toks, ci.terms
		}
		ec := alignedOf(major, terms, cc)
		if len(ec) == 0 {
			continue
		}
		for k := range ev {
			if t := toks[ev[k].Tok]; t.Start < ec[0].Start || t.Start > ec[len(ec)-1].Start {
				continue
			}
			// A value the claim states elsewhere is not a rival ("Gold at
			// 1 million, Diamond at 10 million"); nor is the same number
			// changing the other way ("decreased by 5%" / "increased by
			// 5%"), which the direction cue names.
			if timeFrame(src, toks, ev[k]) || rate(src, toks, ev[k]) {
				continue
			}
			if lexical.SameKind(q, ev[k]) && !lexical.StatedIn(ev[k], ci.quantities, false) && !(q.Unit == ev[k].Unit && q.Value == ev[k].Value) {
				return q.Lit + " vs " + ev[k].Lit
			}
		}
	}
	return ""
}

// overlapsRange reports a range of the claim (qs[k] one of its ends) that
// overlaps a range the sentence gives: "about 20–25%" and "from 22 to
// 33%" can both hold.
func overlapsRange(qs []quantity, k int, ev []quantity) bool {
	lo, hi, ok := rangeAt(qs, k)
	if !ok {
		return false
	}
	for e := range ev {
		elo, ehi, ok := rangeAt(ev, e)
		if ok && qs[k].Unit == ev[e].Unit && lo <= ehi && elo <= hi {
			return true
		}
	}
	return false
}

// rangeAt returns the range that qs[k] is an end of.
func rangeAt(qs []quantity, k int) (lo, hi float64, ok bool) {
	switch {
	case qs[k].RangeTo && k+1 < len(qs):
		return qs[k].Value, qs[k+1].Value, true
	case k > 0 && qs[k-1].RangeTo:
		return qs[k-1].Value, qs[k].Value, true
	}
	return 0, 0, false
}

// timeFrame reports a year that sets the frame of a statement rather
// than its value: "has accelerated since 2000", "from 1990", "by 2030".
// Two frames are two periods, not two answers to one question.
func timeFrame(text string, toks []passage.Token, q quantity) bool {
	if q.Unit != lexical.UnitYear || q.Tok == 0 || q.Tok >= len(toks) {
		return false
	}
	switch strings.ToLower(text[toks[q.Tok-1].Start:toks[q.Tok-1].End]) {
	case "since", "from", "until", "till", "through", "by", "before", "after":
		return true
	}
	return false
}

// rate reports a factor or change per period ("quadrupled each year",
// "doubled every six months", "5% a year"): two rates over different
// periods are not comparable by value.
func rate(text string, toks []passage.Token, q quantity) bool {
	if _, _, ok := q.Factor(); !ok {
		return false
	}
	for k := q.Last + 1; k < len(toks) && k <= q.Last+4; k++ {
		switch strings.ToLower(text[toks[k].Start:toks[k].End]) {
		case "every", "each", "per", "annually", "yearly", "annual":
			return true
		}
	}
	return false
}

// majorClauses splits a sentence's tokens at semicolons and the words that
// open a contrast: "but", "whereas", "while", "although", "though".
func majorClauses(src string, toks []passage.Token) [][]passage.Token {
	var out [][]passage.Token
	start := 0
	for i := 1; i < len(toks); i++ {
		gap := ""
		if toks[i-1].End <= toks[i].Start {
			gap = src[toks[i-1].End:toks[i].Start]
		}
		switch {
		case strings.Contains(gap, ";"), lowerIn(src[toks[i].Start:toks[i].End], "but", "whereas", "while", "although", "though"):
			out = append(out, toks[start:i])
			start = i
		}
	}
	return append(out, toks[start:])
}

// contentTerms returns the content terms of toks.
func contentTerms(toks []passage.Token) map[string]bool {
	out := make(map[string]bool, len(toks))
	for _, t := range toks {
		if t.Content() {
			out[t.Term] = true
		}
	}
	return out
}

// sentenceQuantities reads the quantities of a sentence.
func sentenceQuantities(src string, toks []passage.Token) []quantity {
	return quantities(src, toks)
}

// entityConflict reports a name of the claim that the source replaces by
// another: the claim says "developed by OpenAI", the aligned sentence
// "developed by DeepMind", and the source never names OpenAI. A name is a
// capitalized word that does not open a sentence, or one with inner
// capitals or digits ("GPT-2", "BRCA1"). The frame is the words around the
// name: two words to its left, or one to its left and one to its right
// (two to its right for a name that opens the claim). Lowercase words are
// not compared: in the same frame they are as often synonyms ("reduced" /
// "lowered") as substitutes. It returns the detail and how many claim
// words the substitution accounts for.
func entityConflict(ci *claimInfo, src string, stoks []passage.Token, have func(string) bool) (string, int) {
	cl := ci.frameTokens()
	if len(cl) == 0 {
		return "", 0
	}
	var ev []frameToken // the sentence's, read at the first name it may replace
	for i := 0; i < len(cl); i++ {
		x := cl[i]
		if !x.capital || !x.content || have(x.term) {
			continue
		}
		if i > 0 && listWord(ci.text, cl[i-1]) {
			// "popular in Iraq, Libya and Nepal" / "… and Sri Lanka": a
			// member of a list the source gives otherwise, unsupported
			// rather than denied.
			continue
		}
		if ev == nil {
			if ev = frameTokens(src, stoks); len(ev) == 0 {
				return "", 0
			}
		}
		// The run of absent names starting at i.
		j := i + 1
		for j < len(cl) && j-i < 4 && cl[j].capital && !cl[j].number && !have(cl[j].term) {
			j++
		}
		var right string // the claim's word after the run
		if j < len(cl) {
			right = cl[j].term
		}
		for k := 1; k < len(ev); k++ {
			left1 := ev[k-1].term == cl[max(i-1, 0)].term && i >= 1
			if !left1 {
				continue
			}
			left2 := i >= 2 && k >= 2 && ev[k-2].term == cl[i-2].term
			m := substituteEnd(ev, k, right)
			if m == k {
				continue
			}
			right1 := j == len(cl) && m == len(ev) || j < len(cl) && m < len(ev) && ev[m].term == right
			if (left2 || right1) && foreign(ev[k:m], ci) && !variant(surface(src, ev[k:m]), surface(ci.text, cl[i:j])) {
				return surface(src, ev[k:m]) + " for " + surface(ci.text, cl[i:j]), j - i
			}
		}
		if i == 0 && j+1 < len(cl) {
			// A name opening the claim: frame two words to its right.
			for m := 1; m+1 < len(ev); m++ {
				if ev[m].term != cl[j].term || ev[m+1].term != cl[j+1].term {
					continue
				}
				k := m
				for k > 0 && m-k < 4 && ev[k-1].capital && !ev[k-1].number {
					k--
				}
				if k < m && foreign(ev[k:m], ci) && !variant(surface(src, ev[k:m]), surface(ci.text, cl[i:j])) {
					return surface(src, ev[k:m]) + " for " + surface(ci.text, cl[i:j]), j - i
				}
			}
		}
	}
	return "", 0
}

// listWord reports "and", "or" or "nor": the word before a list's last
// member.
func listWord(text string, t frameToken) bool {
	switch strings.ToLower(text[t.start:t.end]) {
	case "and", "or", "nor":
		return true
	}
	return false
}

// frameToken is a word or number of a frame, articles left out.
type frameToken struct {
	term                  string
	start, end            int
	content, stop, number bool
	capital, strong       bool
}

func frameTokens(text string, toks []passage.Token) []frameToken {
	out := make([]frameToken, 0, len(toks))
	for i, t := range toks {
		if t.Kind == passage.CJK {
			continue
		}
		surface := text[t.Start:t.End]
		if lowerIn(surface, "a", "an", "the") {
			continue
		}
		r, _ := utf8.DecodeRuneInString(surface)
		ft := frameToken{term: t.Term, start: t.Start, end: t.End, content: t.Content(), stop: t.Stop, number: t.Kind == passage.Number}
		ft.strong = t.Kind == passage.Word && strongName(surface)
		// A capital opening a sentence is not a name unless it looks like one.
		ft.capital = t.Kind == passage.Word && unicode.IsUpper(r) && (i > 0 && !sentenceOpens(text, toks[i-1], t) || ft.strong)
		out = append(out, ft)
	}
	return out
}

// sentenceOpens reports whether t follows a sentence end after prev.
func sentenceOpens(text string, prev, t passage.Token) bool {
	gap := strings.TrimSpace(text[prev.End:t.Start])
	return strings.ContainsAny(gap, ".!?\n")
}

// substituteEnd returns the end of the name starting at k: a run of
// capitalized words, with the numbers in it ("Llama 2"), that stops before
// the claim's next word (right); k when there is none.
func substituteEnd(ev []frameToken, k int, right string) int {
	m := k
	for m < len(ev) && m-k < 4 && ev[m].term != right && (ev[m].capital || m > k && ev[m].number && ev[m-1].capital) {
		m++
	}
	return m
}

// variant reports two spellings of one name: "Africa" / "African",
// "Alemania" / "Alemanía", "Europe" / "Euroupe" — a shared start of five
// letters, or one a prefix of the other, or at most two edits apart.
func variant(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	if n >= 5 || n >= 3 && (n == len(ra) || n == len(rb)) {
		return true
	}
	return editDistance(ra, rb) <= 2 && min(len(ra), len(rb)) > 4
}

func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for k := range prev {
		prev[k] = k
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for k := 1; k <= len(b); k++ {
			cost := 1
			if a[i-1] == b[k-1] {
				cost = 0
			}
			cur[k] = min(prev[k]+1, cur[k-1]+1, prev[k-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// foreign reports whether a substitute shares no word with the claim.
func foreign(run []frameToken, ci *claimInfo) bool {
	for _, t := range run {
		if ci.terms[t.term] || t.number && numberIn(t.term, ci.toks) {
			return false
		}
	}
	return true
}

func surface(text string, run []frameToken) string {
	return text[run[0].start:run[len(run)-1].end]
}

// directionConflict reports a direction or comparison word of the claim
// that the aligned clause reverses ("increased" / "decreased", "higher" /
// "lower", "outperforms" / "underperforms", "before" / "after") in the
// same frame — the word before or after it is the claim's — unless the
// clause also swaps the two sides of the comparison ("A is faster than
// B" / "B is slower than A"). Claim words are read in order and each
// word's opposites in sorted order, so the cue is the same on every run.
func (j *Offline) directionConflict(ci *claimInfo, src string, sentence, clause []passage.Token) string {
	in := make(map[string]bool, len(clause))
	for _, t := range clause {
		if t.Kind == passage.Word {
			in[t.Term] = true
		}
	}
	cl := ci.frameTokens()
	var ev []frameToken // the clause's, read at the first opposite it holds
	evRead := false
	for i, t := range cl {
		if t.number || in[t.term] {
			continue
		}
		for _, a := range j.opposites.Of(t.term) {
			if !in[a] || slices.ContainsFunc(ci.toks, func(t passage.Token) bool { return t.Term == a }) {
				continue
			}
			if !evRead {
				ev, evRead = frameTokens(src, clause), true
			}
			for k, e := range ev {
				if e.term != a {
					continue
				}
				before := i > 0 && k > 0 && cl[i-1].term == ev[k-1].term
				after := i+1 < len(cl) && k+1 < len(ev) && cl[i+1].term == ev[k+1].term
				if !before && !after && !shareNeighbour(cl, i, ev, k, t.term, a) {
					continue
				}
				if swapped(ci.text, ci.toks, src, sentence) {
					return ""
				}
				return t.term + "/" + a
			}
		}
	}
	return ""
}

// neighbourReach is how many content words on each side of a direction
// word make its frame.
const neighbourReach = 3

// shareNeighbour reports a content word, other than the two opposites,
// among the neighbourReach content words on either side of the claim's
// word (cl[i]) and of its opposite in the clause (ev[k]): "the sector's
// gender pay gap widened" / "the gender pay gap in the sector narrowed".
func shareNeighbour(cl []frameToken, i int, ev []frameToken, k int, x, y string) bool {
	near := func(ft []frameToken, at int) map[string]bool {
		out := make(map[string]bool)
		for _, step := range [2]int{-1, 1} {
			n := 0
			for m := at + step; m >= 0 && m < len(ft) && n < neighbourReach; m += step {
				if ft[m].content && !ft[m].number {
					out[ft[m].term] = true
					n++
				}
			}
		}
		delete(out, x)
		delete(out, y)
		return out
	}
	a, b := near(cl, i), near(ev, k)
	for w := range a {
		if b[w] {
			return true
		}
	}
	return false
}

// pivots are the words a comparison turns on.
var pivots = map[string]bool{"than": true, "before": true, "after": true}

// swapped reports whether the sentence puts the claim's two sides of a
// comparison the other way round: the words only after the claim's pivot
// come before the sentence's, and the words only before it come after.
func swapped(ctext string, ctoks []passage.Token, stext string, stoks []passage.Token) bool {
	ca, cb, ok := sides(ctext, ctoks)
	if !ok {
		return false
	}
	sa, sb, ok := sides(stext, stoks)
	if !ok {
		return false
	}
	return meets(only(cb, ca), only(sa, sb)) && meets(only(ca, cb), only(sb, sa))
}

func sides(text string, toks []passage.Token) (before, after map[string]bool, ok bool) {
	before, after = make(map[string]bool), make(map[string]bool)
	cur := before
	for _, t := range toks {
		if t.Kind == passage.Word && pivots[strings.ToLower(text[t.Start:t.End])] && !ok {
			cur, ok = after, true
			continue
		}
		if t.Content() {
			cur[t.Term] = true
		}
	}
	return before, after, ok
}

func only(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool)
	for k := range a {
		if !b[k] {
			out[k] = true
		}
	}
	return out
}

func meets(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}
