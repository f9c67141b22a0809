package judge

import "github.com/claimtrace/claimtrace/internal/judge/passage"

// claimWordsRef is how the claim's words were numbered before one map
// (claimInfo.words) held them all: four maps and their ids, the reference
// inspectRef and sentenceHitsRef read.
type claimWordsRef struct {
	vocab     map[string]int32
	termIDs   []int32
	entityIDs [][]int32
	bigramIDs map[passage.Bigram]int32
	hitIDs    map[string]int32
	hitSeen   []bool
}

// numberRef is claimInfo.number as it was: the reference numbering.
func numberRef(ci *claimInfo) *claimWordsRef {
	m := &claimWordsRef{vocab: make(map[string]int32, len(ci.terms))}
	id := func(t string) int32 {
		k, ok := m.vocab[t]
		if !ok {
			k = int32(len(m.vocab))
			m.vocab[t] = k
		}
		return k
	}
	for t := range ci.terms {
		m.termIDs = append(m.termIDs, id(t))
	}
	for _, e := range ci.entities {
		ids := make([]int32, len(e))
		for k, t := range e {
			ids[k] = id(t)
		}
		m.entityIDs = append(m.entityIDs, ids)
	}
	m.bigramIDs = make(map[passage.Bigram]int32, len(ci.bigrams))
	for k, b := range ci.bigrams {
		m.bigramIDs[b] = int32(k)
	}
	m.hitIDs = make(map[string]int32, len(ci.terms))
	for t := range ci.terms {
		m.hitIDs[t] = int32(len(m.hitIDs))
	}
	for _, t := range ci.toks {
		if _, ok := m.hitIDs[t.Term]; t.Kind == passage.Number && !ok {
			m.hitIDs[t.Term] = int32(len(m.hitIDs))
		}
	}
	m.hitSeen = make([]bool, len(m.hitIDs))
	return m
}

// sentenceHitsRef is sentenceHits as it was, over the reference
// numbering.
func sentenceHitsRef(toks []passage.Token, ci *claimInfo, m *claimWordsRef) (hits, nums int) {
	seen := m.hitSeen
	clear(seen)
	for _, t := range toks {
		k, ok := m.hitIDs[t.Term]
		if !ok || seen[k] {
			continue
		}
		seen[k] = true
		switch {
		case t.Content() && ci.terms[t.Term]:
			hits++
		case t.Kind == passage.Number && numberIn(t.Term, ci.toks):
			nums++
		}
	}
	return hits, nums
}
