package main

import (
	"context"
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

A report whose cited sources could not all be fetched cannot be audited:
when the network is down (no host answers, not even doi.org or arxiv.org),
or the wait for sources exceeds --fetch-timeout, gate stops and exits 2
("cannot audit: 27 of 27 sources could not be fetched: no network; …")
instead of failing PSnd on sources it never read. Audit offline from a
snapshot (claimtrace snapshot, where the network works) with --offline
--snapshot DIR.

A metric passes when it is at least its minimum. PCov is undefined for a
report without claims and PSnd for one without citations: both fail. CTran is
undefined when no conflict between sources exists, which passes: there is
nothing to surface.`,
		Example: `  claimtrace gate --min-pcov 0.8 --min-psnd 0.7 graph.json
  claimtrace gate --min-pcov 0.9 --min-psnd 0.8 --min-ctran 1 --tau 0.6 prov.json
  claimtrace gate --min-pcov 0.8 --min-psnd 0.6 --fetch-timeout 2m --progress report.md
  claimtrace gate --min-pcov 0.8 --min-psnd 0.6 --offline --snapshot snap/ report.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitError{2, fmt.Errorf("gate takes one REPORT or GRAPH, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			gate, err := gateFlags(cmd.Flags().Changed, minPCov, minPSnd, minCTran)
			if err != nil {
				return err
			}
			return a.runGate(cmd.Context(), args[0], opts, gate)
		},
	}
	opts.add(cmd.Flags())
	cmd.Flags().Float64Var(&minPCov, "min-pcov", 0, "least provenance coverage (required)")
	cmd.Flags().Float64Var(&minPSnd, "min-psnd", 0, "least provenance soundness (required)")
	cmd.Flags().Float64Var(&minCTran, "min-ctran", 0, "least contradiction transparency (checked only when given)")
	return cmd
}

// gateFlags checks the thresholds given: --min-pcov and --min-psnd are
// required, --min-ctran is checked only when given, each in [0, 1].
func gateFlags(changed func(string) bool, minPCov, minPSnd, minCTran float64) (prov.Gate, error) {
	for _, c := range []struct {
		flag string
		min  float64
	}{{"min-pcov", minPCov}, {"min-psnd", minPSnd}, {"min-ctran", minCTran}} {
		if c.flag != "min-ctran" && !changed(c.flag) {
			return prov.Gate{}, &exitError{2, fmt.Errorf("--%s is required", c.flag)}
		}
		if !changed(c.flag) {
			continue
		}
		if math.IsNaN(c.min) || c.min < 0 || c.min > 1 {
			return prov.Gate{}, &exitError{2, fmt.Errorf("--%s %v: want a value in [0, 1]", c.flag, c.min)}
		}
	}
	g := prov.Gate{MinPCov: minPCov, MinPSnd: minPSnd}
	if changed("min-ctran") {
		g.MinCTran = &minCTran
	}
	return g, nil
}

// runGate audits the report or graph at path and checks its metrics
// against gate: exit status 1 when a threshold is not met, 2 when the
// input cannot be audited.
func (a *app) runGate(ctx context.Context, path string, opts auditOptions, gate prov.Gate) error {
	opts.audited = &auditedReport{}
	g, m, err := a.audit(ctx, path, opts)
	if err != nil {
		return &exitError{2, err}
	}
	if err := notFetchedError(opts.audited.res); err != nil {
		return &exitError{2, err}
	}
	pass, checks := gate.Check(m)
	printGate(a.stdout, g, pass, checks)
	if !pass {
		return &exitError{1, errReported}
	}
	return nil
}

// printGate prints the verdict and one line per threshold.
func printGate(w io.Writer, g *prov.Graph, pass bool, checks []prov.GateCheck) {
	verdict := "PASS"
	if !pass {
		verdict = "FAIL"
	}
	name := g.ID
	if name == "" {
		name = "graph"
	}
	fmt.Fprintf(w, "gate %s: %s\n", verdict, name)
	for _, c := range checks {
		switch {
		case !c.Defined && c.Pass:
			fmt.Fprintf(w, "  ok    %-5s n/a (no conflict between sources found)\n", c.Metric)
		case !c.Defined:
			fmt.Fprintf(w, "  FAIL  %-5s n/a, need ≥ %.2f: %s\n", c.Metric, c.Min, c.Reason)
		case !c.Pass:
			fmt.Fprintf(w, "  FAIL  %-5s %.3f < %.2f: %s\n", c.Metric, c.Value, c.Min, c.Reason)
		case c.Metric == "CTran":
			fmt.Fprintf(w, "  ok    %-5s %.3f ≥ %.2f (%d/%d conflicts disclosed)\n", c.Metric, c.Value, c.Min, c.Num, c.Den)
		default:
			fmt.Fprintf(w, "  ok    %-5s %.3f ≥ %.2f\n", c.Metric, c.Value, c.Min)
		}
	}
}
