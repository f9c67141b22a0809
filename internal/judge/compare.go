package judge

import (
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// comparisonVerbs are the verbs that rank one side over another, by stem,
// with the side they put ahead: +1 the subject ("A outperforms B"), -1
// the object ("A trails B"). A closed class, like the quantifiers: WordNet
// has no antonym for "outperform".
var comparisonVerbs = map[string]int{
	"outperform": 1, "beat": 1, "beaten": 1, "surpass": 1, "exceed": 1, "outstrip": 1, "overtak": 1,
	"overtook": 1, "outpac": 1, "defeat": 1, "outscor": 1, "outsel": 1, "outsold": 1, "outrank": 1,
	"underperform": -1, "trail": -1, "lag": -1,
}

// downComparatives are the comparatives that put the side after "than"
// ahead ("A is slower than B" says B is faster).
var downComparatives = lexical.WordSet(`less fewer lower smaller worse slower shorter weaker cheaper narrower lighter poorer younger`)

// rankComparatives compare performance as the comparison verbs do:
// "scored higher than" ranks like "outperformed".
var rankComparatives = lexical.WordSet(`better worse higher lower`)

// comparison is one comparison a sentence makes, its sides normalized so
// that ahead holds the side that has more of what is compared (the
// subject of "outperforms", of "is faster than", the agent of "is
// outperformed by", the object of "trails"), behind the other. Words on
// both sides ("the 8B model" / "the 70B model") are on neither.
type comparison struct {
	ahead, behind map[string]bool
	// rank is true for a ranking (comparison verbs, "ahead of",
	// "better/higher than"); otherwise stem is the comparator ("faster")
	// and about the words between it and "than" ("more sediment than").
	rank  bool
	stem  string
	about map[string]bool
}

// comparisons reads the comparisons of a sentence.
func comparisons(text string, toks []passage.Token) []comparison {
	var out []comparison
	word := func(k int) string {
		if k < 0 || k >= len(toks) {
			return ""
		}
		return strings.ToLower(text[toks[k].Start:toks[k].End])
	}
	for i, t := range toks {
		if t.Kind != passage.Word {
			continue
		}
		w := word(i)
		switch {
		case comparisonVerbs[t.Term] != 0:
			c := comparison{rank: true}
			pol := comparisonVerbs[t.Term]
			subject := sideBefore(text, toks, i)
			object := sideAfter(text, toks, i+1)
			if passive(text, toks, i) { // "A was outperformed by B"
				k := i + 1
				for k < len(toks) && k <= i+3 && word(k) != "by" {
					k++
				}
				object = sideAfter(text, toks, k+1)
				pol = -pol
			}
			c.ahead, c.behind = subject, object
			if pol < 0 {
				c.ahead, c.behind = object, subject
			}
			out = append(out, c.normalized())
		case (w == "ahead" || w == "behind") && word(i+1) == "of":
			c := comparison{rank: true, ahead: sideBefore(text, toks, i), behind: sideAfter(text, toks, i+2)}
			if w == "behind" {
				c.ahead, c.behind = c.behind, c.ahead
			}
			out = append(out, c.normalized())
		case w == "than":
			// The comparator: a comparative within six words before
			// ("carries more sediment into the sea than").
			k := i - 1
			for k >= 0 && i-k <= 6 && !comparative(word(k), toks[k].Term) {
				k--
			}
			if k < 0 || i-k > 6 || toks[k].Kind != passage.Word {
				continue
			}
			cw := word(k)
			c := comparison{stem: toks[k].Term, about: make(map[string]bool)}
			for m := k + 1; m < i; m++ {
				if toks[m].Content() {
					c.about[toks[m].Term] = true
				}
			}
			if (cw == "more" || cw == "less") && k+1 < i && toks[k+1].Content() {
				c.stem = cw + " " + toks[k+1].Term // "more accurate", "less accurate"
			}
			c.rank = rankComparatives[cw]
			c.ahead, c.behind = sideBefore(text, toks, k), sideAfter(text, toks, i+1)
			if downComparatives[cw] || strings.HasPrefix(c.stem, "less ") {
				c.ahead, c.behind = c.behind, c.ahead
				c.stem = "(down)" + c.stem
			}
			out = append(out, c.normalized())
		}
	}
	return out
}

// comparative reports a comparative word: "more", "less", "fewer",
// "better", "worse", "greater", or a word in -er with opposites in the
// table ("higher", "faster", "larger"; not "water", "other", "freshwater").
func comparative(w, stem string) bool {
	switch w {
	case "more", "less", "fewer", "better", "worse", "greater":
		return true
	}
	return strings.HasSuffix(w, "er") && len(w) > 4 && len(lexical.OppositeTable().Of(stem)) > 0
}

// passive reports a form of "be" just before token i and "by" within three
// words after it: "was outperformed by", "is beaten narrowly by".
func passive(text string, toks []passage.Token, i int) bool {
	if i == 0 {
		return false
	}
	switch strings.ToLower(text[toks[i-1].Start:toks[i-1].End]) {
	case "is", "was", "were", "are", "been", "being", "be", "get", "got":
	default:
		return false
	}
	for k := i + 1; k < len(toks) && k <= i+3; k++ {
		if strings.EqualFold(text[toks[k].Start:toks[k].End], "by") {
			return true
		}
	}
	return false
}

// sideBefore returns the content words of the major clause up to token i:
// what stands before a comparison.
func sideBefore(text string, toks []passage.Token, i int) map[string]bool {
	out := make(map[string]bool)
	for k := i - 1; k >= 0; k-- {
		if k+1 < len(toks) && toks[k].End <= toks[k+1].Start && strings.ContainsAny(text[toks[k].End:toks[k+1].Start], ";") {
			break
		}
		if w := strings.ToLower(text[toks[k].Start:toks[k].End]); w == "but" || w == "whereas" || w == "while" || w == "although" {
			break
		}
		if toks[k].Content() {
			out[toks[k].Term] = true
		}
	}
	return out
}

// sideAfter returns the content words of the phrase from token i to the
// first preposition, conjunction or punctuation: what a comparison is
// compared with ("than the Mekong", "beat BM25 on two datasets").
func sideAfter(text string, toks []passage.Token, i int) map[string]bool {
	out := make(map[string]bool)
	for k := i; k < len(toks) && len(out) < 5; k++ {
		if k > i && toks[k-1].End <= toks[k].Start && strings.ContainsAny(text[toks[k-1].End:toks[k].Start], ",;:()") {
			break
		}
		switch strings.ToLower(text[toks[k].Start:toks[k].End]) {
		case "on", "in", "at", "for", "by", "with", "across", "from", "during", "over", "under", "to", "into",
			"among", "within", "when", "while", "and", "but", "or", "as", "after", "before", "since", "despite", "according":
			if len(out) > 0 {
				return out
			}
			continue
		}
		if toks[k].Content() {
			out[toks[k].Term] = true
		}
	}
	return out
}

// normalized removes the words on both sides.
func (c comparison) normalized() comparison {
	for w := range c.ahead {
		if c.behind[w] {
			delete(c.ahead, w)
			delete(c.behind, w)
		}
	}
	return c
}

// compatible reports two comparisons of the same thing: two rankings, or
// the same comparator (or opposite ones: "faster" / "slower" are read
// normalized) about the same words.
func (c comparison) compatible(d comparison, opp *lexical.Opposites) bool {
	if c.rank && d.rank {
		return true
	}
	if c.rank != d.rank || c.stem == "" || d.stem == "" {
		return false
	}
	cs, ds := strings.TrimPrefix(c.stem, "(down)"), strings.TrimPrefix(d.stem, "(down)")
	if cs == ds || opp.Opposed(cs, ds) {
		return true
	}
	for w := range c.about {
		if d.about[w] {
			return true
		}
	}
	return false
}

func overlap(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

// comparisonConflict compares the claim's comparison with the aligned
// sentence's. It returns decided when both compare the same thing on the
// same two sides, and a detail when the sentence puts them the other way
// round ("Chao Phraya carries more than the Mekong" / "the Mekong carries
// more than the Chao Phraya"; "A beat B" / "A was outperformed by B").
func (j *Offline) comparisonConflict(ci *claimInfo, src string, stoks []passage.Token) (detail string, decided bool) {
	cc := comparisons(ci.text, ci.toks)
	if len(cc) == 0 {
		return "", false
	}
	sc := comparisons(src, stoks)
	for _, c := range cc {
		if len(c.ahead) == 0 || len(c.behind) == 0 {
			continue
		}
		// The sentence's comparison that shares most words with this one.
		best, bestShared := -1, 0
		for k, s := range sc {
			if !c.compatible(s, j.opposites) {
				continue
			}
			shared := overlap(c.ahead, s.ahead) + overlap(c.behind, s.behind) + overlap(c.ahead, s.behind) + overlap(c.behind, s.ahead)
			if shared > bestShared {
				best, bestShared = k, shared
			}
		}
		if best < 0 {
			continue
		}
		s := sc[best]
		same := overlap(c.behind, s.behind)
		crossed := overlap(c.behind, s.ahead) + overlap(c.ahead, s.behind)
		switch {
		case same > 0 && overlap(c.ahead, s.behind) == 0:
			return "", true // the same order
		case same == 0 && crossed > 0:
			return "sides swapped: " + joinTerms(c.ahead) + " ahead of " + joinTerms(c.behind) + " in the claim, behind in the source", true
		}
	}
	return "", false
}

func joinTerms(m map[string]bool) string {
	ws := make([]string, 0, len(m))
	for w := range m {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	return strings.Join(ws, " ")
}
