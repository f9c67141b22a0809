package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/ppi"
)

func (a *app) judgeEstimateCmd() *cobra.Command {
	var verdicts, reviews string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "estimate --verdicts VERDICTS.jsonl --reviews REVIEWS.jsonl [--json]",
		Short: "Estimate label rates with the judge's error inside: prediction-powered intervals from human reviews",
		Long: `estimate puts the judge's own error inside the rates it reports. Given
the judge's label on every pair (VERDICTS: what judge eval --verdicts
writes) and human labels on a uniform random sample of the same pairs
(REVIEWS: one {"id", "label"} a line), it prints for the rate of each
label: the judge's raw rate, the prediction-powered estimate (PPI++,
Angelopoulos et al. 2023) and its 95% interval, the interval the reviews
alone give, and n (reviewed) of N (judged).

The estimate is unbiased for the rate the humans would give on all N
pairs, whatever the judge's errors, and its interval is valid if the
reviewed pairs are a uniform random sample of the N (claimtrace review
sample draws one) and the verdicts came before the reviews. It is
narrower than the humans-only interval when the judge predicts the
humans. Labels: supported, partial, unsupported, contradicted, unknown,
or the spellings label sets use. A review of an id the verdicts do not
hold is an error naming it.

--json prints {"labels": {"supported": {"judge", "estimate", "ci",
"human_ci", "n_reviews", "n"}, …}}; estimate and the intervals are null
without reviews.`,
		Example: `  claimtrace judge eval --labels labels/wice/dev.jsonl --verdicts verdicts.jsonl
  claimtrace judge estimate --verdicts verdicts.jsonl --reviews reviews.jsonl
  claimtrace judge estimate --verdicts verdicts.jsonl --reviews reviews.jsonl --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runJudgeEstimate(verdicts, reviews, asJSON)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&verdicts, "verdicts", "", "the judge's verdicts, one JSON line a pair (judge eval --verdicts)")
	fs.StringVar(&reviews, "reviews", "", "human labels of a uniform random sample of the pairs, {\"id\", \"label\"} lines")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("verdicts")
	cmd.MarkFlagRequired("reviews")
	return cmd
}

func (a *app) runJudgeEstimate(verdictsPath, reviewsPath string, asJSON bool) error {
	var judged []judge.Judged
	err := readFile(verdictsPath, func(r io.Reader) (err error) {
		judged, err = judge.ReadVerdicts(r, verdictsPath)
		return err
	})
	if err != nil {
		return err
	}
	var reviews []judge.HumanLabel
	err = readFile(reviewsPath, func(r io.Reader) (err error) {
		reviews, err = judge.ReadReviews(r, reviewsPath)
		return err
	})
	if err != nil {
		return err
	}
	est, err := judge.EstimateRates(judged, reviews)
	if err != nil {
		return fmt.Errorf("%s, %s: %w", verdictsPath, reviewsPath, err)
	}
	if asJSON {
		return writeIndentedJSON(a.stdout, est)
	}
	return printLabelEstimates(a.stdout, est)
}

// readFile opens path and hands it to read.
func readFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(f)
}

// printLabelEstimates prints one row a label, then how many reviews would
// narrow the supported rate to ±0.05.
func printLabelEstimates(w io.Writer, est judge.LabelEstimates) error {
	present := est.Present()
	first := est.Labels[present[0]]
	fmt.Fprintf(w, "%d judged pairs, %d reviewed; 95%% intervals (prediction-powered; the reviews alone for comparison)\n\n", first.N, first.NReviews)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "label\tjudge\testimate\t95% CI\thumans only\tn/N\t")
	for _, l := range present {
		e := est.Labels[l]
		fmt.Fprintf(tw, "%s\t%.3f\t%s\t%s\t%s\t%d/%d\t\n", l, e.Judge, estimateText(e), intervalText(e.CI), intervalText(e.HumanCI), e.NReviews, e.N)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, l := range present {
		fmt.Fprintf(w, "%s: %s\n", l, reviewPlan(est.Labels[l], "pairs"))
	}
	return nil
}

// reviewPlan says what an estimate rests on and how many reviews would
// give ±0.05: without reviews, that the figure is the judge's raw rate.
func reviewPlan(e ppi.Estimate, what string) string {
	need := e.ReviewsNeeded(planHalfWidth)
	switch {
	case e.NReviews == 0:
		return fmt.Sprintf("the judge's raw rate, no human review yet; about %d reviewed %s of %d would give ±%.2f", need, what, e.N, planHalfWidth)
	case e.HalfWidth() <= planHalfWidth:
		return fmt.Sprintf("±%.3f from %d reviews of %d %s", e.HalfWidth(), e.NReviews, e.N, what)
	default:
		return fmt.Sprintf("±%.3f from %d reviews of %d %s; about %d in all would give ±%.2f", e.HalfWidth(), e.NReviews, e.N, what, max(need, e.NReviews+1), planHalfWidth)
	}
}

// planHalfWidth is the interval the review plans aim at.
const planHalfWidth = 0.05

func estimateText(e ppi.Estimate) string {
	if e.Estimate == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *e.Estimate)
}

func intervalText(i *ppi.Interval) string {
	if i == nil {
		return "—"
	}
	return fmt.Sprintf("[%.3f, %.3f]", i.Lo, i.Hi)
}
