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
// (DESIGN.md's definitions), in the shape audit --json writes them
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

// provenance builds the report's provenance graph from its claims, resolved
// sources and verdicts, looks for contradictions between the sources it
// read, computes the AAR metrics and writes the graph.
func (e *Evaluator) provenance(ctx context.Context, res *Result, doc claimtrace.Document, works map[string]claimtrace.Work, resolved map[string]sourceResult) error {
	in := prov.Input{ID: res.Task, Doc: doc, Sources: map[int]prov.ResolvedSource{}, Verdicts: map[prov.Pair]claimtrace.Verdict{}}
	for i, c := range doc.Citations {
		if !c.HasTarget() {
			continue
		}
		if w, ok := works[targetOf(c).key()]; ok {
			in.Sources[i] = prov.ResolvedSource{Work: w}
		}
	}
	// One verdict per (claim, work): the strongest among the claim's
	// citations of that work (an arXiv URL and a DOI of one paper).
	for ci, cr := range res.Claims {
		for _, v := range cr.Verdicts {
			k := targetKeyOfLabel(cr, v.URL, doc, ci)
			w, ok := works[k]
			if !ok {
				continue
			}
			p := prov.Pair{Claim: ci, Work: w.Key}
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
		for _, s := range g.Sources {
			for k, w := range works {
				r := resolved[k]
				if w.Key != s.Key || done[s.ID] || !r.Fetched || r.TextSHA == "" {
					continue
				}
				_, text, ok, err := e.opts.Store.GetText(ctx, r.TextSHA)
				if err != nil {
					return err
				}
				if ok {
					texts = append(texts, prov.SourceText{ID: s.ID, Text: text})
					done[s.ID] = true
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

// targetKeyOfLabel finds the target key behind a verdict's URL label among
// the claim's citations.
func targetKeyOfLabel(cr ClaimResult, label string, doc claimtrace.Document, ci int) string {
	for _, i := range doc.Claims[ci].Citations {
		if i < 0 || i >= len(doc.Citations) || !doc.Citations[i].HasTarget() {
			continue
		}
		t := targetOf(doc.Citations[i])
		if t.label() == label {
			return t.key()
		}
	}
	return ""
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
