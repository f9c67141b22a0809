package judge

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// The contradiction cues as they were before findConflict split the
// aligned sentence into clauses once for every cue and the clause and
// frame readers tested words without lowercasing them: the reference
// findConflict must agree with (checkConflictReference).

func (j *Offline) findConflictRef(ix *sourceIndex, ci *claimInfo, ps []passage.Passage) conflict {
	best, bestHits := alignedSentence(ix, ci, ps)
	if best < 0 || len(ci.terms) == 0 {
		return conflict{}
	}
	src := ix.Text()
	toks := ix.SentenceTokens(best)
	c := conflict{sent: best}
	if !lexical.Asserted(src, alignedSpanRef(src, toks, ci.terms, ci.toks)) || !lexical.Asserted(ci.text, ci.toks) {
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
	if d := numberConflictRef(ci, src, toks, ev); d != "" {
		c.kind, c.detail, c.cover = conflictNumber, d, cover(0)
		return c
	}
	compared, decided := j.comparisonConflict(ci, src, toks)
	if compared != "" {
		c.kind, c.detail, c.cover = conflictComparison, compared, cover(0)
		return c
	}
	if d, n := entityConflictRef(ci, src, toks, ix.Contains); d != "" {
		c.kind, c.detail, c.cover = conflictEntity, d, cover(n)
		return c
	}
	clause := alignedClauseRef(src, toks, ci.terms, ci.toks)
	if d := j.directionConflictRef(ci, src, toks, clause); d != "" && !decided {
		c.kind, c.detail, c.cover = conflictDirection, d, cover(1)
		return c
	}
	if negationConflictRef(ci, src, toks) {
		c.kind, c.cover = conflictNegation, cover(0)
	}
	return c
}

func negationConflictRef(ci *claimInfo, src string, stoks []passage.Token) bool {
	claimClauses := clausesRef(ci.text, ci.toks)
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
		ec := alignedClauseRef(src, stoks, terms, cc)
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

func alignedClauseRef(src string, toks []passage.Token, terms map[string]bool, claim []passage.Token) []passage.Token {
	var best []passage.Token
	bestHits, bestNums := -1, -1
	for _, cl := range clausesRef(src, toks) {
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

func clausesRef(src string, toks []passage.Token) [][]passage.Token {
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
		w := strings.ToLower(src[toks[i].Start:toks[i].End])
		switch {
		case strings.ContainsAny(gap, ",;:()"):
		case w == "but" || w == "whereas" || w == "while" || w == "although" || w == "though" || w == "than" || w == "who":
		default:
			continue
		}
		flush(i)
	}
	flush(len(toks))
	return out
}

func numberConflictRef(ci *claimInfo, src string, toks []passage.Token, ev []quantity) string {
	if len(ci.quantities) == 0 {
		return ""
	}
	claimSpans := majorClausesRef(ci.text, ci.toks)
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
		ec := alignedSpanRef(src, toks, terms, cc)
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

func majorClausesRef(src string, toks []passage.Token) [][]passage.Token {
	var out [][]passage.Token
	start := 0
	for i := 1; i < len(toks); i++ {
		gap := ""
		if toks[i-1].End <= toks[i].Start {
			gap = src[toks[i-1].End:toks[i].Start]
		}
		switch w := strings.ToLower(src[toks[i].Start:toks[i].End]); {
		case strings.Contains(gap, ";"), w == "but", w == "whereas", w == "while", w == "although", w == "though":
			out = append(out, toks[start:i])
			start = i
		}
	}
	return append(out, toks[start:])
}

func alignedSpanRef(src string, toks []passage.Token, terms map[string]bool, claim []passage.Token) []passage.Token {
	var best []passage.Token
	bestHits, bestNums := -1, -1
	for _, cl := range majorClausesRef(src, toks) {
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
			best, bestHits, bestNums = cl, hits, nums
		}
	}
	return best
}

func frameTokensRef(text string, toks []passage.Token) []frameToken {
	out := make([]frameToken, 0, len(toks))
	for i, t := range toks {
		if t.Kind == passage.CJK {
			continue
		}
		surface := text[t.Start:t.End]
		switch strings.ToLower(surface) {
		case "a", "an", "the":
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

func (j *Offline) directionConflictRef(ci *claimInfo, src string, sentence, clause []passage.Token) string {
	in := make(map[string]bool, len(clause))
	for _, t := range clause {
		if t.Kind == passage.Word {
			in[t.Term] = true
		}
	}
	inClaim := make(map[string]bool, len(ci.toks))
	for _, t := range ci.toks {
		inClaim[t.Term] = true
	}
	cl := frameTokensRef(ci.text, ci.toks)
	ev := frameTokensRef(src, clause)
	for i, t := range cl {
		if t.number || in[t.term] {
			continue
		}
		for _, a := range j.opposites.Of(t.term) {
			if !in[a] || inClaim[a] {
				continue
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

func entityConflictRef(ci *claimInfo, src string, stoks []passage.Token, have func(string) bool) (string, int) {
	cl := frameTokensRef(ci.text, ci.toks)
	ev := frameTokensRef(src, stoks)
	if len(cl) == 0 || len(ev) == 0 {
		return "", 0
	}
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

// checkConflictReference holds findConflict, and the clause and frame
// readers on every sentence of the source and on the claim, equal to
// their references, for each claim against source; it returns the kinds
// of conflict found.
func checkConflictReference(t *testing.T, j *Offline, source string, claims ...string) map[string]bool {
	t.Helper()
	ix := newSourceIndex(passage.NewIndex(source, j.opt))
	split := func(text string, toks []passage.Token) {
		t.Helper()
		if d := cmp.Diff(clausesRef(text, toks), clauses(text, toks)); d != "" {
			t.Fatalf("clauses of %q differ from the reference (-want +got):\n%s", text, d)
		}
		if d := cmp.Diff(majorClausesRef(text, toks), majorClauses(text, toks)); d != "" {
			t.Fatalf("majorClauses of %q differ from the reference (-want +got):\n%s", text, d)
		}
		if d := cmp.Diff(frameTokensRef(text, toks), frameTokens(text, toks), cmp.AllowUnexported(frameToken{})); d != "" {
			t.Fatalf("frameTokens of %q differ from the reference (-want +got):\n%s", text, d)
		}
	}
	for s := range ix.Sentences() {
		split(source, ix.SentenceTokens(s))
	}
	kinds := make(map[string]bool)
	for _, claim := range claims {
		ci := j.readClaim(ix, claim)
		split(ci.text, ci.toks)
		ps := ix.RankTokens(ci.toks, candidates)
		want := j.findConflictRef(ix, &ci, ps)
		got := j.findConflict(ix, &ci, ps)
		if got != want {
			t.Fatalf("claim %q on %q: conflict %+v, reference %+v", claim, source, got, want)
		}
		kinds[got.kind] = true
	}
	return kinds
}

func TestConflictAgreesWithReference(t *testing.T) {
	j, err := NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	source := "The ferry service, which the council runs, carried 41,000 passengers in 2022. " +
		"Fares did not rise; the council kept them at £3, but parking charges rose. " +
		"Although ridership fell in winter, the ferry was faster than the bus. " +
		"THE ORIGINAL timetable, drafted by Harbour Links Ltd, was replaced by one from Tidewater Transit."
	kinds := checkConflictReference(t, j, source,
		"The ferry carried 41,000 passengers in 2022.",
		"The ferry carried 14,000 passengers in 2022.",
		"Fares rose; the council raised them to £4.",
		"The bus was faster than the ferry.",
		"The original timetable was drafted by Coastal Routes Ltd.",
		"Parking charges did not rise.",
		"Parking charges fell in 2022, the council said.",
		"")
	// The claims reach each cue, so the comparison covers each one's path.
	for _, k := range []string{"", conflictNumber, conflictComparison, conflictEntity, conflictNegation, conflictDirection} {
		if !kinds[k] {
			t.Errorf("no claim gave a %q conflict; the fixture no longer reaches that cue", k)
		}
	}
}

func FuzzConflictAgreesWithReference(f *testing.F) {
	j, err := NewDefaultOffline()
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Sales did not fall in 2021, but profits fell 12%.", "Sales fell in 2021; profits, however, rose 12% while costs fell.")
	f.Add("Acme beat Globex on price.", "Globex beat Acme on price, although Acme was cheaper than Initech. WHO said so.")
	f.Add("The dam is THE largest in Kenya.", "The dam is the smallest in Kenya. An engineer, who built it, disagrees.")
	f.Fuzz(func(t *testing.T, claim, source string) {
		checkConflictReference(t, j, source, claim)
	})
}

func TestLowerInIsToLower(t *testing.T) {
	words := []string{"but", "the", "a", "although"}
	for _, w := range []string{"But", "BUT", "but", "butt", "Bu", "", "The", "tHe", "A", "a", "an",
		"Although", "ALTHOUGH", "bUt\u0301", "The\u00a0", "Ｂut", "th\xffe", "İ", "\u212Aelvin"} {
		if got, want := lowerIn(w, words...), slices.Contains(words, strings.ToLower(w)); got != want {
			t.Errorf("lowerIn(%q) = %v, strings.ToLower says %v", w, got, want)
		}
	}
	if !lowerIn("\u212Aeep", "keep") { // the Kelvin sign lowercases to an ASCII k
		t.Error(`lowerIn("\u212Aeep", "keep") = false, strings.ToLower says true`)
	}
}

func FuzzLowerInIsToLower(f *testing.F) {
	f.Add("But", "but")
	f.Add("\u212Aeep", "keep")
	f.Fuzz(func(t *testing.T, w, word string) {
		word = strings.ToLower(word)
		if !isASCIIString(word) {
			return // lowerIn's words are ASCII
		}
		if got, want := lowerIn(w, word), strings.ToLower(w) == word; got != want {
			t.Fatalf("lowerIn(%q, %q) = %v, strings.ToLower says %v", w, word, got, want)
		}
	})
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
