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
per system: citation precision (strict, and beside it the optimistic bound
over verifiable citations, then compat), the reports flagged because walls
could move their precision, recall, F1, references per report,
cited-statement match rate, factual accuracy, PCov, PSnd, CTran and the run's
model cost. A system is named by its directory. Rows rank by strict
precision unless --by says otherwise.

Use it for the paper's comparisons: several agents on one dataset, one agent
judged by two model families (A.2.4), one agent under several tool budgets
(A.2.5: the tools-3/, tools-5/, tools-10/ directories of 'claimtrace run').

--ci adds a 95% percentile bootstrap interval to each macro metric
(precision, recall, F1, match rate, factual accuracy, PCov, PSnd),
resampling the run's reports (reports/<task>.json); the seed makes it
reproducible. To test whether two rows really differ, use the paired
'claimtrace analyze compare'.

Where people reviewed a run's sample (claimtrace review), the match rate,
factual accuracy and PSnd show the prediction-powered estimate with its
95% interval (the judge's error inside it), and rows sort by the
estimate. The rank column gives the places each system can take on the
sort metric: "1" when its interval lies above every other row's, "2–4"
when it overlaps those of the rows ranked 2 to 4. A run without reviews
counts its judge's raw figure as a point.`,
		Example: "  claimtrace leaderboard results/o3 results/gemini results/claude\n  claimtrace leaderboard results/* --by match --json\n  claimtrace leaderboard results/* --ci --resamples 2000",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runLeaderboard(f, args)
		},
	}
	cmd.Flags().StringVar(&f.by, "by", "precision", "sort by: precision (strict), verifiable, recall, f1, match, factual, pcov, psnd")
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
	fmt.Fprintln(tw, "rank\tsystem\treports\tprecision\tverifiable P\tflagged\tcompat P\trecall\tF1\trefs\tmatch rate\tfactual\tPCov\tPSnd\tCTran\tcost $\t")
	reviewed, ranges := false, false
	for _, r := range rows {
		rank := "—"
		if r.Rank != nil {
			rank = r.Rank.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t\n", rank, r.System, r.Reports,
			frac(r.Precision), frac(r.Verifiable), r.Flagged, frac(r.Compat), frac(r.Recall), frac(r.F1), num(r.Refs), judgedCell(r.MatchRate, r.MatchRatePPI),
			judgedCell(r.Factual, r.FactualPPI), pct(r.PCov), judgedCell(r.PSnd, r.PSndPPI), ctranCell(r.CTran, r.SurfacedConflicts, r.Conflicts), r.Cost)
		for _, f := range []*eval.ReviewedFigure{r.MatchRatePPI, r.FactualPPI, r.PSndPPI} {
			reviewed = reviewed || (f != nil && f.Estimate.Estimate != nil)
		}
		ranges = ranges || (r.Rank != nil && r.Rank.Best != r.Rank.Worst)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if ranges || reviewed {
		fmt.Fprintf(a.stdout, "\nrank: the places a system can take by %s; a range (2–4) when its figure's interval overlaps those of the systems ranked there, or equals theirs.\n", f.by)
	}
	if reviewed {
		fmt.Fprintln(a.stdout, "match rate, factual, PSnd: estimate [95% interval] from human reviews of the run's sample, the judge's error inside it (claimtrace review);")
		fmt.Fprintln(a.stdout, "a bare figure is the judge's raw rate, a point: its run has no review.")
	}
	return nil
}

// judgedCell is a figure the judge feeds: the estimate and its interval
// where the run's sample was reviewed, else the summary's figure (the
// judge's raw rate).
func judgedCell(raw *float64, f *eval.ReviewedFigure) string {
	if f == nil || f.Estimate.Estimate == nil || f.CI == nil {
		return pct(raw)
	}
	return fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100**f.Estimate.Estimate, 100*f.CI.Lo, 100*f.CI.Hi)
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
	few := 0 // intervals over fewer reports than minCIReports
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d", r.System, r.Reports)
		for _, iv := range r.CI {
			cell := "—"
			switch {
			case iv.Value != nil && iv.Lo != nil && iv.N < 2:
				cell = fmt.Sprintf("%.3f (one report: no interval)", *iv.Value)
			case iv.Value != nil && iv.Lo != nil:
				cell = fmt.Sprintf("%.3f [%.3f, %.3f]", *iv.Value, *iv.Lo, *iv.Hi)
				if iv.N < minCIReports {
					cell += "*"
					few++
				}
			case iv.Value != nil:
				cell = fmt.Sprintf("%.3f", *iv.Value)
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw, "\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if few > 0 {
		fmt.Fprintf(w, "\n* over fewer than %d reports: a bootstrap interval that narrow says little about the system (resampling a handful of reports cannot show how much other reports vary)\n", minCIReports)
	}
	return nil
}

// minCIReports is the fewest reports below which a bootstrap interval is
// printed with a warning: with so few, the resampled means cannot show the
// spread of reports the system was not run on.
const minCIReports = 10

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
