package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

// leadBytes is how much of the source's opening (a page's title and first
// lines, a paper's title and the start of its abstract) is sent ahead of
// the ranked passages, at most a quarter of the budget: claims often cite
// a work's main result, which the opening states.
const leadBytes = 600

// selectExcerpts chooses what a judge call shows of src for claims: the
// whole text when it fits in budget bytes, else the opening and the
// passages BM25 ranks best for each claim, taken round-robin (every
// claim's best passage before any claim's second) until the budget is
// spent, merged where they overlap or touch, in source order. whole
// reports that the spans cover the entire source.
func selectExcerpts(ix *passage.Index, claims []string, perClaim, budget int) (spans []passage.Span, whole bool) {
	src := ix.Text()
	if len(src) <= budget {
		return []passage.Span{{Start: 0, End: len(src)}}, true
	}
	var set spanSet
	if sents := ix.Sentences(); len(sents) > 0 {
		limit := min(leadBytes, budget/4)
		end := sents[0].End
		for _, s := range sents[1:] {
			if s.End > limit {
				break
			}
			end = s.End
		}
		if end <= limit {
			set.add(passage.Span{Start: sents[0].Start, End: end})
		}
	}
	ranked := make([][]passage.Passage, len(claims))
	for i, c := range claims {
		ranked[i] = ix.Rank(c, perClaim)
	}
	for r := range perClaim {
		for i := range claims {
			if r >= len(ranked[i]) {
				continue
			}
			sp := ranked[i][r].Span
			if set.size()+set.added(sp) <= budget {
				set.add(sp)
			}
		}
	}
	return set.spans, false
}

// spanSet is a union of byte ranges, kept sorted and merged.
type spanSet struct{ spans []passage.Span }

func (s *spanSet) size() int {
	n := 0
	for _, sp := range s.spans {
		n += sp.End - sp.Start
	}
	return n
}

// added returns how many bytes sp adds to the union.
func (s *spanSet) added(sp passage.Span) int {
	n := sp.End - sp.Start
	for _, x := range s.spans {
		lo, hi := max(x.Start, sp.Start), min(x.End, sp.End)
		if hi > lo {
			n -= hi - lo
		}
	}
	return n
}

// add inserts sp, merging it with ranges it overlaps or touches.
func (s *spanSet) add(sp passage.Span) {
	if sp.End <= sp.Start {
		return
	}
	out := make([]passage.Span, 0, len(s.spans)+1)
	for _, x := range s.spans {
		if x.End < sp.Start || x.Start > sp.End {
			out = append(out, x)
			continue
		}
		sp.Start, sp.End = min(sp.Start, x.Start), max(sp.End, x.End)
	}
	out = append(out, sp)
	sort.Slice(out, func(a, b int) bool { return out[a].Start < out[b].Start })
	s.spans = out
}

// renderSource writes the source part of a judge prompt: the whole text,
// or numbered excerpts in source order.
func renderSource(src string, spans []passage.Span, whole bool) string {
	if whole {
		return "<source>\n" + src + "\n</source>"
	}
	var b strings.Builder
	b.WriteString("Excerpts of the source, in order (the text between them is left out):\n")
	if len(spans) == 0 {
		b.WriteString("(no part of the source shares a word with the statements)\n")
	}
	for i, sp := range spans {
		fmt.Fprintf(&b, "<excerpt n=\"%d\">\n%s\n</excerpt>\n", i+1, src[sp.Start:sp.End])
	}
	return strings.TrimSuffix(b.String(), "\n")
}
