package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/eval"
)

// leaderRow is one system on the leaderboard.
type leaderRow = analysis.LeaderRow

// leaderboardFlags are the flags of claimtrace leaderboard.
type leaderboardFlags struct {
	by        string
	json, ci  bool
	bootstrap bootstrapFlags
}

// leaderboardCmd compares evaluation runs side by side (runLeaderboard).
func (a *app) leaderboardCmd() *cobra.Command {
	var f leaderboardFlags
	cmd := &cobra.Command{
		Use:   "leaderboard OUT_DIR...",
		Short: "Compare evaluation runs side by side (ReportBench's Table 1, judge swaps, tool budgets)",
		Long: `Read the summary.json of each evaluation output directory and print one row
per system: citation precision (paper and compat), recall, F1, references per
report, cited-statement match rate, factual accuracy, PCov, PSnd, CTran and the
run's model cost. A system is named by its directory.

Use it for the paper's comparisons: several agents on one dataset, one agent
judged by two model families (A.2.4), one agent under several tool budgets
(A.2.5: the tools-3/, tools-5/, tools-10/ directories of 'claimtrace run').

--ci adds a 95% percentile bootstrap interval to each macro metric
(precision, recall, F1, match rate, factual accuracy, PCov, PSnd),
resampling the run's reports (reports/<task>.json); the seed makes it
reproducible. To test whether two rows really differ, use the paired
'claimtrace analyze compare'.`,
		Example: "  claimtrace leaderboard results/o3 results/gemini results/claude\n  claimtrace leaderboard results/* --by match --json\n  claimtrace leaderboard results/* --ci --resamples 2000",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runLeaderboard(f, args)
		},
	}
	cmd.Flags().StringVar(&f.by, "by", "precision", "sort by: precision, recall, f1, match, factual, pcov, psnd")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&f.ci, "ci", false, "add percentile bootstrap confidence intervals over reports to the macro metrics")
	f.bootstrap.add(cmd)
	return cmd
}

// runLeaderboard prints one row per evaluation output directory
// (analysis.Leaderboard), as a table, a table of intervals (--ci) or JSON.
func (a *app) runLeaderboard(f leaderboardFlags, dirs []string) error {
	if !slices.Contains(analysis.LeaderKeys(), f.by) {
		return fmt.Errorf("--by %q: want one of %s: %w", f.by, strings.Join(analysis.LeaderKeys(), ", "), claimtrace.ErrInvalid)
	}
	rows, err := analysis.Leaderboard(dirs, analysis.LeaderboardOptions{
		By: f.by, Summary: a.readSummary, CI: f.ci, Bootstrap: f.bootstrap.options(),
		LoadRun: func(dir string) (*analysis.Run, error) {
			run, err := analysis.LoadRun(dir)
			if err != nil {
				return nil, fmt.Errorf("leaderboard --ci: %w", err)
			}
			return run, nil
		},
	})
	if err != nil {
		return err
	}
	if f.json {
		return writeIndentedJSON(a.stdout, rows)
	}
	if f.ci {
		return printLeaderCI(a.stdout, rows, f.bootstrap)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\treports\tprecision\tcompat P\trecall\tF1\trefs\tmatch rate\tfactual\tPCov\tPSnd\tCTran\tcost $\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t\n", r.System, r.Reports,
			frac(r.Precision), frac(r.Compat), frac(r.Recall), frac(r.F1), num(r.Refs), pct(r.MatchRate), pct(r.Factual),
			pct(r.PCov), pct(r.PSnd), ctranCell(r.CTran, r.SurfacedConflicts, r.Conflicts), r.Cost)
	}
	return tw.Flush()
}

// printLeaderCI prints each row's macro metrics as value [lo, hi].
func printLeaderCI(w io.Writer, rows []leaderRow, bf bootstrapFlags) error {
	fmt.Fprintf(w, "macro means over reports with %.0f%% percentile bootstrap intervals (%d resamples of the reports, seed %d)\n\n", bf.level*100, bf.resamples, bf.seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "system\treports")
	if len(rows) > 0 {
		for _, iv := range rows[0].CI {
			fmt.Fprintf(tw, "\t%s", iv.Metric)
		}
	}
	fmt.Fprintln(tw, "\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d", r.System, r.Reports)
		for _, iv := range r.CI {
			cell := "—"
			switch {
			case iv.Value != nil && iv.Lo != nil:
				cell = fmt.Sprintf("%.3f [%.3f, %.3f]", *iv.Value, *iv.Lo, *iv.Hi)
			case iv.Value != nil:
				cell = fmt.Sprintf("%.3f", *iv.Value)
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw, "\t")
	}
	return tw.Flush()
}

// readSummary reads the summary.json of an evaluation output directory
// under the input check.
func (a *app) readSummary(dir string) (*eval.Summary, error) {
	b, err := a.readInput(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("leaderboard: %w (is %s the --out directory of claimtrace eval?)", err, dir)
	}
	var s eval.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("leaderboard: %s/summary.json: %w: %v", dir, claimtrace.ErrInvalid, err)
	}
	return &s, nil
}

// frac prints a 0..1 figure with three decimals, as the paper's tables do.
func frac(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v)
}
