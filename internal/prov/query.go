package prov

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Queries across reports are pure functions over graphs, so that any store
// can serve them: load the graphs (or the ones matching a filter) and call
// these.

// SourceUse counts how often one source (by Identity) is cited across
// graphs.
type SourceUse struct {
	Identity string `json:"identity"`
	URL      string `json:"url,omitempty"`
	DOI      string `json:"doi,omitempty"`
	Title    string `json:"title,omitempty"`
	// Reports is the number of graphs citing it, Claims the number of claims
	// with a direct edge from it, summed over graphs.
	Reports int `json:"reports"`
	Claims  int `json:"claims"`
}

// MostCited returns the n sources cited by the most claims across graphs
// (all when n ≤ 0), ties broken by reports and then identity. Sources
// without an identity (known only by a graph-local id) are not counted.
func MostCited(graphs []*Graph, n int) []SourceUse {
	uses := make(map[string]*SourceUse)
	for _, g := range graphs {
		idOf := make(map[string]string, len(g.Sources))
		seen := make(map[string]bool)
		for _, s := range g.Sources {
			id := s.Identity()
			if id == "" {
				continue
			}
			idOf[s.ID] = id
			u := uses[id]
			if u == nil {
				u = &SourceUse{Identity: id, URL: s.URL, DOI: s.DOI, Title: s.Title}
				uses[id] = u
			}
			if !seen[id] {
				seen[id] = true
				u.Reports++
			}
		}
		claim := make(map[string]bool, len(g.Claims))
		for _, c := range g.Claims {
			claim[c.ID] = true
		}
		counted := make(map[[2]string]bool)
		for _, e := range g.Edges {
			id, ok := idOf[e.From]
			if !ok || !claim[e.To] || counted[[2]string{id, e.To}] {
				continue
			}
			counted[[2]string{id, e.To}] = true
			uses[id].Claims++
		}
	}
	out := make([]SourceUse, 0, len(uses))
	for _, u := range uses {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b SourceUse) int {
		return cmp.Or(cmp.Compare(b.Claims, a.Claims), cmp.Compare(b.Reports, a.Reports), strings.Compare(a.Identity, b.Identity))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// Dependent is a claim whose provenance includes a source of interest.
type Dependent struct {
	Graph  string `json:"graph"`
	Claim  Claim  `json:"claim"`
	Source Source `json:"source"`
	// Direct is true when the source has an edge straight into the claim;
	// otherwise the claim depends on it through reasoning.
	Direct bool `json:"direct"`
}

// DependentClaims returns, for every graph, the claims whose provenance path
// π(c) contains a source for which match is true — for example the claims
// resting on a retracted DOI (see MatchIdentity). Claims come in graph order,
// then claim order.
func DependentClaims(graphs []*Graph, match func(Source) bool) ([]Dependent, error) {
	var out []Dependent
	for _, g := range graphs {
		ix, err := NewIndex(g)
		if err != nil {
			return nil, fmt.Errorf("graph %q: %w", g.ID, err)
		}
		// Walk forward from each matching source.
		n := ix.Len()
		hit := make([]int32, n) // 1 + source index of the first matching ancestor
		direct := make([]bool, n)
		mark := make([]uint32, n)
		var stack []int32
		for si, s := range g.Sources {
			if !match(s) {
				continue
			}
			stamp := uint32(si) + 1
			stack = append(stack[:0], int32(si))
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, e := range ix.outEdge[ix.outStart[u]:ix.outStart[u+1]] {
					v := ix.to[e]
					if u == int32(si) && ix.Kind(v) == KindClaim && (hit[v] == 0 || hit[v] == int32(si)+1) {
						direct[v] = true
					}
					if mark[v] == stamp {
						continue
					}
					mark[v] = stamp
					if hit[v] == 0 {
						hit[v] = int32(si) + 1
					}
					stack = append(stack, v)
				}
			}
		}
		for ci, c := range g.Claims {
			v := ix.ns + ix.nr + ci
			if hit[v] == 0 {
				continue
			}
			out = append(out, Dependent{Graph: g.ID, Claim: c, Source: g.Sources[hit[v]-1], Direct: direct[v]})
		}
	}
	return out, nil
}

// MatchIdentity returns a matcher for sources whose Identity, DOI or URL
// equals one of ids (DOIs compared without case, with or without a "doi:"
// prefix or a https://doi.org/ resolver).
func MatchIdentity(ids ...string) func(Source) bool {
	want := make(map[string]bool, 2*len(ids))
	for _, id := range ids {
		want[id] = true
		if d := normDOI(id); d != "" {
			want["doi:"+d] = true
		}
	}
	return func(s Source) bool {
		if want[s.Identity()] || (s.URL != "" && want[s.URL]) || (s.Key != "" && want[s.Key]) {
			return true
		}
		if d := normDOI(s.DOI); d != "" && want["doi:"+d] {
			return true
		}
		if d := normDOI(s.URL); d != "" && want["doi:"+d] {
			return true
		}
		return false
	}
}

// normDOI returns a lower-case bare DOI from "10.…", "doi:10.…" or a
// doi.org URL, or "".
func normDOI(s string) string {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
		l = strings.TrimPrefix(l, p)
	}
	if strings.HasPrefix(l, "10.") && strings.Contains(l, "/") {
		return l
	}
	return ""
}
