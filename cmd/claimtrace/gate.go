package main

import (
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/prov"
)

func (a *app) gateCmd() *cobra.Command {
	var opts auditOptions
	var minPCov, minPSnd, minCTran float64
	cmd := &cobra.Command{
		Use:   "gate --min-pcov X --min-psnd Y [--min-ctran Z] REPORT|GRAPH",
		Short: "Fail CI when a report's provenance is below thresholds",
		Long: `Audit a report or graph (see 'claimtrace audit') and compare its metrics with
minimum values. Exit status: 0 when every threshold is met, 1 when one is
not (what failed and why is printed), 2 when the input cannot be audited.

A metric passes when it is at least its minimum. PCov is undefined for a
report without claims and PSnd for one without citations: both fail. CTran is
undefined when no conflict between sources exists, which passes: there is
nothing to surface.`,
		Example: `  claimtrace gate --min-pcov 0.8 --min-psnd 0.7 graph.json
  claimtrace gate --min-pcov 0.9 --min-psnd 0.8 --min-ctran 1 --tau 0.6 prov.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitError{2, fmt.Errorf("gate takes one REPORT or GRAPH, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			var checks []gateCheck
			for _, c := range []struct {
				flag string
				min  float64
			}{{"min-pcov", minPCov}, {"min-psnd", minPSnd}, {"min-ctran", minCTran}} {
				if c.flag != "min-ctran" && !fs.Changed(c.flag) {
					return &exitError{2, fmt.Errorf("--%s is required", c.flag)}
				}
				if !fs.Changed(c.flag) {
					continue
				}
				if math.IsNaN(c.min) || c.min < 0 || c.min > 1 {
					return &exitError{2, fmt.Errorf("--%s %v: want a value in [0, 1]", c.flag, c.min)}
				}
				checks = append(checks, gateCheck{name: c.flag, min: c.min})
			}
			g, m, err := a.audit(cmd.Context(), args[0], opts)
			if err != nil {
				return &exitError{2, err}
			}
			if !printGate(a.stdout, g, m, checks) {
				return &exitError{1, errReported}
			}
			return nil
		},
	}
	opts.add(cmd.Flags())
	cmd.Flags().Float64Var(&minPCov, "min-pcov", 0, "least provenance coverage (required)")
	cmd.Flags().Float64Var(&minPSnd, "min-psnd", 0, "least provenance soundness (required)")
	cmd.Flags().Float64Var(&minCTran, "min-ctran", 0, "least contradiction transparency (checked only when given)")
	return cmd
}

type gateCheck struct {
	name string
	min  float64
}

// printGate prints one line per threshold and says whether all pass.
func printGate(w io.Writer, g *prov.Graph, m *prov.Metrics, checks []gateCheck) bool {
	pass := true
	var lines []string
	for _, c := range checks {
		var r prov.Ratio
		var label, why string
		switch c.name {
		case "min-pcov":
			r, label = m.PCov, "PCov"
			why = orphanWhy(m)
			if !r.Defined() {
				why = "the report has no claims"
			}
		case "min-psnd":
			r, label = m.PSnd, "PSnd"
			why = fmt.Sprintf("%d of %d citation pairs have ν ≤ %.2f or no strength", r.Den-r.Num, r.Den, m.Tau)
			if !r.Defined() {
				why = "no claim cites a source"
			}
		case "min-ctran":
			r, label = m.CTran, "CTran"
			why = hiddenWhy(m)
		}
		v, defined := r.Value()
		switch {
		case !defined && c.name == "min-ctran":
			lines = append(lines, fmt.Sprintf("  ok    %-5s n/a (no conflict between sources found)", label))
		case !defined:
			pass = false
			lines = append(lines, fmt.Sprintf("  FAIL  %-5s n/a, need ≥ %.2f: %s", label, c.min, why))
		case v < c.min:
			pass = false
			lines = append(lines, fmt.Sprintf("  FAIL  %-5s %.3f < %.2f: %s", label, v, c.min, why))
		default:
			lines = append(lines, fmt.Sprintf("  ok    %-5s %.3f ≥ %.2f", label, v, c.min))
		}
	}
	verdict := "PASS"
	if !pass {
		verdict = "FAIL"
	}
	name := g.ID
	if name == "" {
		name = "graph"
	}
	fmt.Fprintf(w, "gate %s: %s\n", verdict, name)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return pass
}

func orphanWhy(m *prov.Metrics) string {
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
		s += sep + c.ID + " (" + gapText(c) + ")"
	}
	return s
}

func hiddenWhy(m *prov.Metrics) string {
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
