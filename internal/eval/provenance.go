package eval

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
)

const unitGraph = "graph"

// AAR holds a report's provenance metrics, computed on its provenance graph
// (docs/design.md's definitions), in the shape audit --json writes them
// (prov.Figures), with where the graph was written.
type AAR struct {
	prov.Figures
	// Graph is the path of the report's graph in the output directory.
	Graph string `json:"graph"`
}

// UnmarshalJSON reads the shape above, and the one results stored before it
// had (counts beside the ratios, conflicts as a number and a list), so
// that stored runs still show.
func (a *AAR) UnmarshalJSON(b []byte) error {
	type plain AAR
	var p plain
	err := json.Unmarshal(b, &p)
	if err == nil {
		*a = AAR(p)
		return nil
	}
	var old struct {
		Tau               float64
		Claims, Complete  int
		PCov, PSnd, CTran *float64
		AEffProxy         *float64              `json:"aeff_proxy"`
		AEffWords         *float64              `json:"aeff_words"`
		CitationPairs     int                   `json:"citation_pairs"`
		SoundPairs        int                   `json:"sound_pairs"`
		Conflicts         int                   `json:"conflicts"`
		SurfacedConflicts int                   `json:"surfaced_conflicts"`
		ConflictList      []prov.ConflictStatus `json:"conflict_list"`
		Graph             string
	}
	if json.Unmarshal(b, &old) != nil {
		return err
	}
	*a = AAR{Figures: prov.Figures{Tau: old.Tau, Claims: old.Claims, PCov: old.PCov, PSnd: old.PSnd, CTran: old.CTran,
		AEffProxy: old.AEffProxy, AEffWords: old.AEffWords,
		Counts:    prov.Counts{CompleteClaims: old.Complete, CitationPairs: old.CitationPairs, SoundPairs: old.SoundPairs, Conflicts: old.Conflicts, SurfacedConflicts: old.SurfacedConflicts},
		Conflicts: old.ConflictList}, Graph: old.Graph}
	return nil
}

// provenance builds the report's provenance graph from its claims, the
// works of its cited sources and the verdicts, looks for contradictions
// between the sources it read, computes the AAR metrics and writes the
// graph. It reads st.doc, the records' works, texts and verdicts
// (st.judged), and writes the result's AAR, each claim's AAR measures, the
// graph file and the graph unit.
func (e *Evaluator) provenance(ctx context.Context, st *reportState) error {
	res, doc := st.res, st.doc
	in := prov.Input{ID: res.Task, Doc: doc, Sources: map[int]prov.ResolvedSource{}, Verdicts: map[prov.Pair]claimtrace.Verdict{}}
	for i, s := range st.ofCitation {
		if s != nil && s.resolvable() {
			in.Sources[i] = prov.ResolvedSource{Work: s.work}
		}
	}
	// One verdict per (claim, work): the strongest among the claim's
	// citations of that work (an arXiv URL and a DOI of one paper).
	for ci, cr := range res.Claims {
		for j, v := range cr.Verdicts {
			s := st.graphSource(ci, st.judged[ci][j])
			if s == nil || !s.resolvable() {
				continue
			}
			p := prov.Pair{Claim: ci, Work: s.work.Key}
			if old, seen := in.Verdicts[p]; !seen || better(v, old) {
				in.Verdicts[p] = v
			}
		}
	}
	// Each source's excerpt is the evidence of its strongest verdict: what a
	// reviewer reads to check it (AEff words).
	best := map[string]claimtrace.Verdict{}
	for p, v := range in.Verdicts {
		if v.Evidence == "" {
			continue
		}
		if old, ok := best[p.Work]; !ok || better(v, old) || (!better(old, v) && v.Evidence < old.Evidence) {
			best[p.Work] = v
		}
	}
	for i, rs := range in.Sources {
		if v, ok := best[rs.Work.Key]; ok {
			rs.Excerpt = v.Evidence
			in.Sources[i] = rs
		}
	}
	g, err := prov.Build(in)
	if err != nil {
		return err
	}
	if e.opts.Detector != nil {
		var texts []prov.SourceText
		done := map[string]bool{}
		// A graph source's text is the first readable one among the cited
		// sources of its work, in key order.
		for _, gs := range g.Sources {
			for _, s := range st.sources {
				if !s.resolvable() || s.work.Key != gs.Key || done[gs.ID] {
					continue
				}
				text, ok, err := s.readText(ctx, e.opts.Store)
				if err != nil {
					return err
				}
				if ok {
					texts = append(texts, prov.SourceText{ID: gs.ID, Text: text})
					done[gs.ID] = true
				}
			}
		}
		found, err := prov.FindContradictions(ctx, g, texts, e.opts.Detector)
		if err != nil {
			return err
		}
		conflicts := make([]prov.Conflict, len(found))
		for i, f := range found {
			conflicts[i] = f.Conflict
		}
		g.Conflicts = prov.MergeConflicts(g.Conflicts, conflicts...)
	}
	m, err := prov.Compute(g, e.opts.Tau)
	if err != nil {
		return err
	}
	a := &AAR{Figures: m.Figures(), Graph: filepath.Join("graphs", res.Task+".json")}
	res.AAR = a
	for i := range res.Claims {
		if i >= len(m.PerClaim) {
			break
		}
		pc := m.PerClaim[i]
		res.Claims[i].Complete = pc.Complete
		if pc.Gap != prov.GapNone {
			res.Claims[i].Gap = pc.Gap.String()
		}
		res.Claims[i].Nodes = pc.Nodes
		res.Claims[i].PSnd = ratio(pc.PSnd)
	}
	data, err := prov.Marshal(g)
	if err != nil {
		return err
	}
	if e.opts.OutDir != "" {
		if err := writeFile(filepath.Join(e.opts.OutDir, a.Graph), data); err != nil {
			return err
		}
	}
	return e.opts.Store.PutUnit(context.WithoutCancel(ctx), store.Unit{Run: e.run, Kind: unitGraph, Key: res.Task, Status: store.StatusDone, Data: data})
}

// graphSource is the source under which claim ci's verdict on s counts in
// the graph: the first of the claim's citations shown by the label the
// verdict shows (s.claimLabel). That is s itself, unless the claim cites s
// by another spelling of its URL than the last claim citing s does
// (https://www.x.org/a and https://x.org/a): then the claim has no citation
// so labelled and the verdict is left out of the graph, as it always was
// (3 of the 18,593 pairs of the shared reports, all in onyx-drb's 60.md).
// Counting it for s instead would change those reports' AAR figures.
func (st *reportState) graphSource(ci int, s *citedSource) *citedSource {
	for _, c := range st.cites[ci] {
		if c.label == s.claimLabel {
			return c.src
		}
	}
	return nil
}

// better orders verdicts: a judged one beats unknown, then higher strength.
func better(a, b claimtrace.Verdict) bool {
	if (a.Label == claimtrace.Unknown) != (b.Label == claimtrace.Unknown) {
		return b.Label == claimtrace.Unknown
	}
	return a.Strength > b.Strength
}

func ratio(r prov.Ratio) *float64 {
	v, ok := r.Value()
	if !ok {
		return nil
	}
	return &v
}

func writeFile(path string, data []byte) error {
	var v json.RawMessage = data
	return writeJSON(path, v)
}
