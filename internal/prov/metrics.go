package prov

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/claimtrace/claimtrace"
)

// Ratio is a share Num/Den that is undefined when Den is 0. It marshals as
// a JSON number, or null when undefined, so that "no contradiction exists"
// is never confused with "none surfaced".
type Ratio struct {
	Num, Den int
}

// Value returns Num/Den and whether it is defined.
func (r Ratio) Value() (float64, bool) {
	if r.Den == 0 {
		return 0, false
	}
	return float64(r.Num) / float64(r.Den), true
}

// Defined reports whether the ratio has a non-zero denominator.
func (r Ratio) Defined() bool { return r.Den != 0 }

// String formats the ratio with three decimals, or "n/a".
func (r Ratio) String() string {
	v, ok := r.Value()
	if !ok {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", v)
}

// MarshalJSON writes the value or null.
func (r Ratio) MarshalJSON() ([]byte, error) {
	v, ok := r.Value()
	if !ok {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// Mean is an average Sum/N over claims, undefined for no claims; it marshals
// like Ratio.
type Mean struct {
	Sum float64
	N   int
}

// Value returns the mean and whether it is defined.
func (m Mean) Value() (float64, bool) {
	if m.N == 0 {
		return 0, false
	}
	return m.Sum / float64(m.N), true
}

// MarshalJSON writes the value or null.
func (m Mean) MarshalJSON() ([]byte, error) {
	v, ok := m.Value()
	if !ok {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// Gap says why a claim's provenance path is not complete.
type Gap uint8

// Gaps, in the order they are checked.
const (
	GapNone             Gap = iota // complete
	GapNoSource                    // no source has a path to the claim
	GapUnresolvedSource            // a source in the path has no fetched content or verified identifier
	GapReasoningNoInput            // a reasoning node in the path has no input
)

// String describes the gap in words.
func (g Gap) String() string {
	switch g {
	case GapNone:
		return "complete"
	case GapNoSource:
		return "no source"
	case GapUnresolvedSource:
		return "unresolved source"
	case GapReasoningNoInput:
		return "reasoning without input"
	}
	return "gap"
}

// MarshalText writes the gap's description.
func (g Gap) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// ClaimMetrics are the AAR measures of one claim c.
type ClaimMetrics struct {
	ID string `json:"id"`
	// Complete: π(c) holds ≥ 1 source, every source in it is resolved and
	// every reasoning node in it has ≥ 1 input.
	Complete bool `json:"complete"`
	// Gap and GapNode say why not (GapNode is the offending node's id).
	Gap     Gap    `json:"gap,omitzero"`
	GapNode string `json:"gap_node,omitempty"`
	// Sources and Reasoning are |S_c| and |R_c|; Nodes is their sum, the
	// AEff proxy: nodes a reviewer inspects.
	Sources   int `json:"sources"`
	Reasoning int `json:"reasoning"`
	Nodes     int `json:"nodes"`
	// Words is the number of words in the excerpts of S_c.
	Words int `json:"words"`
	// PSnd is the share of c's citation pairs (direct supports edges from a
	// source) with ν > τ; Unverifiable counts those without a ν.
	PSnd         Ratio `json:"psnd"`
	Unverifiable int   `json:"unverifiable_pairs"`
	// CTran is the share of conflicts touching a source of π(c) that the
	// graph surfaces.
	CTran Ratio `json:"ctran"`
}

// Metrics are the AAR measures of one report (AAR §4.3 as made precise in
// docs/design.md), with the per-claim detail they aggregate.
type Metrics struct {
	Tau float64 `json:"tau"`
	// Claims is |C|.
	Claims int `json:"claims"`
	// PCov is complete claims / claims.
	PCov Ratio `json:"pcov"`
	// PSnd is, over all citation pairs P = {(c, s): a supports edge s → c},
	// the share with ν(c, s) > τ. Contradicts edges are surfaced conflicts,
	// not citations, so they are not in P.
	PSnd Ratio `json:"psnd"`
	// CTran is |D| / |K|, null when K is empty.
	CTran Ratio `json:"ctran"`
	// AEffProxy is the mean over claims of |S_c| + |R_c|.
	AEffProxy Mean `json:"aeff_proxy"`
	// AEffWords is the mean over claims of the words in the excerpts of S_c.
	AEffWords Mean `json:"aeff_words"`

	// UnverifiablePairs counts the citation pairs in PSnd's denominator
	// that carry no strength (Counts.UnverifiablePairs).
	UnverifiablePairs int `json:"-"`

	// Conflicts says for each element of K whether it is surfaced, and how.
	Conflicts []ConflictStatus `json:"conflicts"`
	PerClaim  []ClaimMetrics   `json:"per_claim"`
}

// Counts are the numerators and denominators behind a report's ratios, so
// that reports can be pooled (micro figures).
type Counts struct {
	CompleteClaims    int `json:"complete_claims"`
	CitationPairs     int `json:"citation_pairs"`
	SoundPairs        int `json:"sound_pairs"`
	Conflicts         int `json:"conflicts"`
	SurfacedConflicts int `json:"surfaced_conflicts"`
	// UnverifiablePairs are the citation pairs without a strength ν: the
	// source could not be read (dead, walled, too little text) or no
	// verdict was given. PSnd counts them unsound (the AAR definition);
	// a match rate leaves them out.
	UnverifiablePairs int `json:"unverifiable_pairs"`
}

// Figures are a report's AAR metrics in the one shape every output writes
// them (an evaluation's per-report file, audit --json and metrics.json,
// the live API): each ratio, null when undefined, beside the counts it
// comes from, and K with what surfaces each conflict.
type Figures struct {
	Tau       float64  `json:"tau"`
	Claims    int      `json:"claims"`
	PCov      *float64 `json:"pcov"`
	PSnd      *float64 `json:"psnd"`
	CTran     *float64 `json:"ctran"`
	AEffProxy *float64 `json:"aeff_proxy"`
	AEffWords *float64 `json:"aeff_words"`
	// PSndUnverifiable is the share of citation pairs that are
	// unverifiable (Counts.UnverifiablePairs), beside PSnd: PSnd ≤ 1 −
	// PSndUnverifiable, and sound / (pairs − unverifiable) is on the match
	// rate's footing.
	PSndUnverifiable *float64         `json:"psnd_unverifiable"`
	Counts           Counts           `json:"counts"`
	Conflicts        []ConflictStatus `json:"conflicts"`
}

// Figures returns the report-level figures of m.
func (m *Metrics) Figures() Figures {
	f := Figures{Tau: m.Tau, Claims: m.Claims, PCov: ptr(m.PCov.Value()), PSnd: ptr(m.PSnd.Value()), CTran: ptr(m.CTran.Value()),
		AEffProxy: ptr(m.AEffProxy.Value()), AEffWords: ptr(m.AEffWords.Value()),
		PSndUnverifiable: ptr(Ratio{m.UnverifiablePairs, m.PSnd.Den}.Value()),
		Counts:           Counts{m.PCov.Num, m.PSnd.Den, m.PSnd.Num, m.CTran.Den, m.CTran.Num, m.UnverifiablePairs},
		Conflicts:        m.Conflicts}
	if f.Conflicts == nil {
		f.Conflicts = []ConflictStatus{}
	}
	return f
}

func ptr(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

// MarshalJSON writes the metrics as their Figures with the per-claim
// detail.
func (m *Metrics) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Figures
		PerClaim []ClaimMetrics `json:"per_claim"`
	}{m.Figures(), m.PerClaim})
}

// Compute validates g and computes its metrics with threshold tau.
func Compute(g *Graph, tau float64) (*Metrics, error) {
	ix, err := NewIndex(g)
	if err != nil {
		return nil, err
	}
	return ix.Metrics(tau)
}

// Metrics computes the AAR metrics with threshold tau ∈ [0, 1). Each claim
// costs one backward walk over its provenance path.
func (ix *Index) Metrics(tau float64) (*Metrics, error) {
	w, err := ix.newWalker(tau)
	if err != nil {
		return nil, err
	}
	m := &Metrics{Tau: tau, Claims: ix.nc, Conflicts: w.statuses, PerClaim: make([]ClaimMetrics, ix.nc)}
	for _, st := range w.statuses {
		m.CTran.Den++
		if st.Surfaced {
			m.CTran.Num++
		}
	}
	for ci := range ix.nc {
		cm := &m.PerClaim[ci]
		w.claim(ci, uint32(ci+1), cm)
		m.PCov.Den++
		if cm.Complete {
			m.PCov.Num++
		}
		m.PSnd.Num += cm.PSnd.Num
		m.PSnd.Den += cm.PSnd.Den
		m.UnverifiablePairs += cm.Unverifiable
		m.AEffProxy.Sum += float64(cm.Nodes)
		m.AEffProxy.N++
		m.AEffWords.Sum += float64(cm.Words)
		m.AEffWords.N++
	}
	return m, nil
}

// Orphans returns the claims whose provenance is not complete.
func (m *Metrics) Orphans() []ClaimMetrics {
	var out []ClaimMetrics
	for _, c := range m.PerClaim {
		if !c.Complete {
			out = append(out, c)
		}
	}
	return out
}

// walker holds the scratch state of per-claim walks: visited stamps, the
// conflicts touching each source (CSR) and whether each is surfaced.
type walker struct {
	ix       *Index
	tau      float64
	statuses []ConflictStatus
	surfaced []bool
	kStart   []int32
	kList    []int32
	mark     []uint32
	kMark    []uint32
	stack    []int32
	visited  []int32 // nodes of the last walk, when keep is set
	keep     bool
}

func (ix *Index) newWalker(tau float64) (*walker, error) {
	if math.IsNaN(tau) || tau < 0 || tau >= 1 {
		return nil, fmt.Errorf("tau %v: want 0 ≤ τ < 1: %w", tau, claimtrace.ErrInvalid)
	}
	w := &walker{ix: ix, tau: tau, statuses: ix.Surfacing()}
	nk := len(ix.conflicts)
	w.surfaced = make([]bool, nk)
	for i, st := range w.statuses {
		w.surfaced[i] = st.Surfaced
	}
	deg := make([]int32, ix.ns+1)
	ends := make([][2]int32, nk)
	for i, c := range ix.conflicts {
		a, _ := ix.Lookup(c.A)
		b, _ := ix.Lookup(c.B)
		ends[i] = [2]int32{a, b}
		deg[a]++
		deg[b]++
	}
	w.kStart = prefixSums(deg)
	w.kList = make([]int32, 2*nk)
	fill := append([]int32(nil), w.kStart[:ix.ns]...)
	for i, e := range ends {
		for _, s := range e {
			w.kList[fill[s]] = int32(i)
			fill[s]++
		}
	}
	w.mark = make([]uint32, ix.Len())
	w.kMark = make([]uint32, nk)
	w.stack = make([]int32, 0, 64)
	return w, nil
}

// claim computes the metrics of claim ci with a stamp no earlier walk of
// this walker used.
func (w *walker) claim(ci int, stamp uint32, cm *ClaimMetrics) {
	ix := w.ix
	c := int32(ix.ns + ix.nr + ci)
	cm.ID = ix.g.Claims[ci].ID
	gap, gapNode := GapNone, int32(-1)

	// Citation pairs: direct supports edges from sources.
	for _, e := range ix.inEdge[ix.inStart[c]:ix.inStart[c+1]] {
		if ix.rel[e] == Supports && int(ix.from[e]) < ix.ns {
			cm.PSnd.Den++
			switch nu := ix.nu[e]; {
			case math.IsNaN(nu): // unknown: never sound
				cm.Unverifiable++
			case nu > w.tau:
				cm.PSnd.Num++
			}
		}
	}

	// Backward walk over π(c).
	w.visited = w.visited[:0]
	stack := append(w.stack[:0], c)
	w.mark[c] = stamp
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range ix.inEdge[ix.inStart[u]:ix.inStart[u+1]] {
			v := ix.from[e]
			if w.mark[v] == stamp {
				continue
			}
			w.mark[v] = stamp
			if w.keep {
				w.visited = append(w.visited, v)
			}
			if int(v) < ix.ns {
				cm.Sources++
				cm.Words += int(ix.words[v])
				if !ix.resolved[v] && gap == GapNone {
					gap, gapNode = GapUnresolvedSource, v
				}
				for _, k := range w.kList[w.kStart[v]:w.kStart[v+1]] {
					if w.kMark[k] != stamp {
						w.kMark[k] = stamp
						cm.CTran.Den++
						if w.surfaced[k] {
							cm.CTran.Num++
						}
					}
				}
				continue // sources have no inputs
			}
			cm.Reasoning++
			if ix.inStart[v] == ix.inStart[v+1] && gap == GapNone {
				gap, gapNode = GapReasoningNoInput, v
			}
			stack = append(stack, v)
		}
	}
	w.stack = stack
	if cm.Sources == 0 {
		gap, gapNode = GapNoSource, -1
	}
	cm.Gap = gap
	if gapNode >= 0 {
		cm.GapNode = ix.ID(gapNode)
	}
	cm.Complete = gap == GapNone
	cm.Nodes = cm.Sources + cm.Reasoning
}
