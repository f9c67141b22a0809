package prov

import "fmt"

// A Gate holds the least values a report's metrics may take, the rules of
// 'claimtrace gate': a metric passes when it is at least its minimum.
// PCov is undefined for a report without claims and PSnd for one without
// citations: both fail. CTran is checked only when MinCTran is set, and an
// undefined CTran (no conflict between sources) passes: there is nothing
// to surface.
type Gate struct {
	MinPCov  float64
	MinPSnd  float64
	MinCTran *float64
}

// A GateCheck is the outcome of one threshold of a Gate.
type GateCheck struct {
	// Metric is "PCov", "PSnd" or "CTran".
	Metric string
	Min    float64
	// Value is the metric's value when Defined.
	Value   float64
	Defined bool
	Pass    bool
	// Reason says why a failed check failed: the claims without complete
	// provenance, the unsound citation pairs or the hidden conflicts
	// (the first three named). Empty when the check passes.
	Reason string
	// Num and Den are the metric's counts ("0/1 conflicts disclosed").
	Num, Den int
}

// Check compares m with the gate's thresholds, in the order PCov, PSnd,
// CTran, and says whether every one passes.
func (g Gate) Check(m *Metrics) (pass bool, checks []GateCheck) {
	checks = []GateCheck{
		g.check("PCov", g.MinPCov, m.PCov, false, func() string {
			if !m.PCov.Defined() {
				return "the report has no claims"
			}
			return orphanReason(m)
		}),
		g.check("PSnd", g.MinPSnd, m.PSnd, false, func() string {
			if !m.PSnd.Defined() {
				return "no claim cites a source"
			}
			return fmt.Sprintf("%d of %d citation pairs have ν ≤ %.2f or no strength", m.PSnd.Den-m.PSnd.Num, m.PSnd.Den, m.Tau)
		}),
	}
	if g.MinCTran != nil {
		checks = append(checks, g.check("CTran", *g.MinCTran, m.CTran, true, func() string { return hiddenReason(m) }))
	}
	pass = true
	for _, c := range checks {
		pass = pass && c.Pass
	}
	return pass, checks
}

// check compares r with min; undefinedPasses says whether an undefined
// ratio passes.
func (Gate) check(metric string, min float64, r Ratio, undefinedPasses bool, why func() string) GateCheck {
	c := GateCheck{Metric: metric, Min: min, Num: r.Num, Den: r.Den}
	c.Value, c.Defined = r.Value()
	c.Pass = c.Defined && c.Value >= min || !c.Defined && undefinedPasses
	if !c.Pass {
		c.Reason = why()
	}
	return c
}

// GapText says why a claim's provenance is incomplete: the gap, and the
// node where it is when there is one ("unresolved source s3").
func (c ClaimMetrics) GapText() string {
	if c.GapNode != "" {
		return c.Gap.String() + " " + c.GapNode
	}
	return c.Gap.String()
}

// orphanReason counts the claims without complete provenance and names
// the first three.
func orphanReason(m *Metrics) string {
	orphans := m.Orphans()
	s := fmt.Sprintf("%d of %d claims lack complete provenance", len(orphans), m.Claims)
	for i, c := range orphans {
		if i == 3 {
			s += ", …"
			break
		}
		sep := ": "
		if i > 0 {
			sep = ", "
		}
		s += sep + c.ID + " (" + c.GapText() + ")"
	}
	return s
}

// hiddenReason counts the conflicts the graph does not surface and names
// the first three.
func hiddenReason(m *Metrics) string {
	var hidden []string
	for _, st := range m.Conflicts {
		if !st.Surfaced {
			hidden = append(hidden, fmt.Sprintf("%s ↔ %s about %q", st.A, st.B, st.Entity))
		}
	}
	s := fmt.Sprintf("%d of %d conflicts between sources are hidden", len(hidden), len(m.Conflicts))
	for i, h := range hidden {
		if i == 3 {
			s += ", …"
			break
		}
		sep := ": "
		if i > 0 {
			sep = ", "
		}
		s += sep + h
	}
	return s
}
