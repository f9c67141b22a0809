package prov

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// ConflictStatus says whether the graph surfaces one conflict of K (it is
// then in D) and, if so, through what.
type ConflictStatus struct {
	Conflict
	Surfaced bool `json:"surfaced"`
	// Via explains how: "contradicts edge s4 -> r3" or
	// "claim c3 cites both and states the conflict (\"whereas\")".
	Via string `json:"via,omitempty"`
}

// Surfacing decides for every conflict of K whether it is surfaced. K is
// the graph's conflicts as a set (MergeConflicts): a pair listed twice, or
// once each way, about one entity is one conflict.
// A conflict between sources a and b is surfaced when
//
//   - the graph records it: a contradicts edge u → v where one of the two
//     sources is u or has a path to u, and the other has a path to v that
//     does not pass through u (so v is reached by both sides of the
//     disagreement, and the edge says they disagree); or
//   - one claim (or reasoning step) takes direct edges from both sources and
//     its text states the disagreement ("however", "whereas", "conflicting",
//     "disagree", "while X reports … Y reports", …).
func (ix *Index) Surfacing() []ConflictStatus {
	ix.surfOnce.Do(func() { ix.surf = ix.surfacing() })
	return slices.Clone(ix.surf)
}

// surfacing computes Surfacing; the index keeps its result, since a graph
// does not change once indexed and pages ask for many claims' paths.
func (ix *Index) surfacing() []ConflictStatus {
	out := make([]ConflictStatus, len(ix.conflicts))
	if len(out) == 0 {
		return out
	}
	n := ix.Len()
	markA := make([]uint32, n)
	markB := make([]uint32, n)
	markT := make([]uint32, n)
	var stack []int32
	var candA, candB []int32
	for i, c := range ix.conflicts {
		out[i].Conflict = c
		a, _ := ix.Lookup(c.A)
		b, _ := ix.Lookup(c.B)
		stamp := uint32(i + 1)
		stack, candA = ix.descendants(a, markA, stamp, stack, candA[:0])
		stack, candB = ix.descendants(b, markB, stamp, stack, candB[:0])
		if e, ok := ix.recorded(candA, markB, stamp); ok {
			out[i].Surfaced, out[i].Via = true, ix.edgeText(e)
			continue
		}
		if e, ok := ix.recorded(candB, markA, stamp); ok {
			out[i].Surfaced, out[i].Via = true, ix.edgeText(e)
			continue
		}
		if via, ok := ix.statedConflict(a, b, markT, stamp); ok {
			out[i].Surfaced, out[i].Via = true, via
		}
	}
	return out
}

// descendants marks src and every node reachable from it, and collects the
// contradicts edges leaving the marked nodes.
func (ix *Index) descendants(src int32, mark []uint32, stamp uint32, stack, cand []int32) ([]int32, []int32) {
	stack = append(stack[:0], src)
	mark[src] = stamp
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range ix.outEdge[ix.outStart[u]:ix.outStart[u+1]] {
			if ix.rel[e] == Contradicts {
				cand = append(cand, e)
			}
			if w := ix.to[e]; mark[w] != stamp {
				mark[w] = stamp
				stack = append(stack, w)
			}
		}
	}
	return stack, cand
}

// recorded finds a contradicts edge u → v among cand (edges leaving one
// side) such that the other side reaches v but not u.
func (ix *Index) recorded(cand []int32, other []uint32, stamp uint32) (int32, bool) {
	for _, e := range cand {
		if other[ix.to[e]] == stamp && other[ix.from[e]] != stamp {
			return e, true
		}
	}
	return 0, false
}

// statedConflict finds a node with direct edges from both a and b whose text
// states a disagreement.
func (ix *Index) statedConflict(a, b int32, mark []uint32, stamp uint32) (string, bool) {
	for _, e := range ix.outEdge[ix.outStart[a]:ix.outStart[a+1]] {
		mark[ix.to[e]] = stamp
	}
	for _, e := range ix.outEdge[ix.outStart[b]:ix.outStart[b+1]] {
		v := ix.to[e]
		if mark[v] != stamp {
			continue
		}
		mark[v] = 0 // check each common target once
		var text string
		switch ix.Kind(v) {
		case KindClaim:
			text = ix.g.Claims[ix.local(v)].Statement
		case KindReasoning:
			text = ix.g.Reasoning[ix.local(v)].Inference
		}
		if cue := ConflictCue(text); cue != "" {
			return fmt.Sprintf("%s %s cites both and states the conflict (%q)", ix.Kind(v), ix.ID(v), cue), true
		}
	}
	return "", false
}

func (ix *Index) edgeText(e int32) string {
	return fmt.Sprintf("contradicts edge %s -> %s", ix.ID(ix.from[e]), ix.ID(ix.to[e]))
}

// conflictCues are words and phrases with which a text states that its
// sources disagree. "but" and "although" alone are too common to count.
var conflictCues = lazyregexp.New(`(?i)\b(however|whereas|conflicting|conflicts? with|in conflict|contradict(?:s|ed|ing|ory|ion)?|disagree(?:s|d|ment)?|inconsistent|in contrast|by contrast|on the other hand|mixed (?:evidence|results|findings)|disputed?|contested|unlike)\b|\bwhile\b[^.;]{1,200}?\b(?:reports?|reported|finds?|found|shows?|showed|suggests?|suggested|claims?|claimed|estimates?|estimated|argues?|argued|states?|stated)\b|然而|但是|相反|矛盾|不一致|争议`)

// ConflictCue returns the first phrase of text that states a disagreement
// between sources, or "".
func ConflictCue(text string) string {
	loc := conflictCues.FindStringIndex(text)
	if loc == nil {
		return ""
	}
	cue := text[loc[0]:loc[1]]
	if strings.HasPrefix(strings.ToLower(cue), "while") {
		return "while … " + lastWord(cue)
	}
	return cue
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}
