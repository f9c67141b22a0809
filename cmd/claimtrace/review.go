package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/ppi"
	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/web"
)

func (a *app) reviewCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Draw a run's sample for human review; put the judge's error into its figures",
		Long: `review draws the sample of a run that people review, and reports how far
the review is and what it does to the run's figures.

Every figure the judge feeds (match rate, factual accuracy, PSnd) is the
judge's raw rate until people review a uniform random sample of the run's
units: then it is reported with a prediction-powered estimate and its 95%
interval (PPI++), which are valid whatever the judge's errors, and narrower
than the reviews alone give when the judge predicts the reviewers.

The units are the run's (claim, cited source) pairs and its fact-checked
non-cited claims. Review them in the audit view (claimtrace serve: the run
page shows "73 of 150 reviewed · next: …") in the sample's order, or label
them in a file ({"id", "label"} lines, ids from review sample --out) and
pass it with --reviews to review status and eval. Only reviews of the
sample's units count: a claim chosen by hand is not a random sample.`,
	}
	cmd.AddCommand(a.reviewSampleCmd(), a.reviewStatusCmd())
	return cmd
}

// reviewSampleFlags are the settings of review sample.
type reviewSampleFlags struct {
	run, dsn, out string
	size          int
	seed          int64
	replace       bool
	asJSON        bool
}

func (a *app) reviewSampleCmd() *cobra.Command {
	var f reviewSampleFlags
	cmd := &cobra.Command{
		Use:   "sample --run RUN [--size N] [--seed S] [--out FILE] [--json]",
		Short: "Draw the units of a run to review, uniformly at random, and store them with the run",
		Long: `sample draws --size units of the run (its (claim, source) pairs and
fact-checked non-cited claims) uniformly at random with --seed, in the order
to review them, and stores the sample with the run: the audit view shows
its progress and the next unit, and eval and review status count the
reviews of its units.

Without --size, the size is planned so that the match rate would get an
interval of about ±0.05 (from the judge's own rate: the humans-only plan,
since nothing yet says how good the judge is). Without --seed, a seed is
chosen at random and printed (it is stored with the sample). A sample
drawn again with the same seed and a larger --size starts with the
smaller one, so reviews done in order keep counting; anything else
replaces the sample only with --replace.

--out FILE writes the sample as JSON lines {"id", "kind", "task", "claim",
"url", "text"} for labelling outside the audit view: add a "label" to each
line (a verdict label for a pair, true/false for a non-cited claim) and
pass the file to --reviews.`,
		Example: `  claimtrace runs
  claimtrace review sample --run eval-0123456789abcdef
  claimtrace review sample --run eval-0123456789abcdef --size 300     # extends the sample drawn before
  claimtrace review sample --run eval-0123456789abcdef --out sample.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.seed, f.size = seedFlag(cmd, f.seed), sizeFlag(cmd, f.size)
			return a.runReviewSample(cmd.Context(), f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.run, "run", "", "run id (claimtrace runs lists them; summary.json's \"run\")")
	fs.StringVar(&f.dsn, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	fs.IntVar(&f.size, "size", 0, "units to draw (default: planned for ±0.05 on the match rate)")
	fs.Int64Var(&f.seed, "seed", 0, "seed of the draw (default: the stored sample's, or a random one)")
	fs.BoolVar(&f.replace, "replace", false, "replace a stored sample drawn from other units, with another seed, or larger than this one")
	fs.StringVar(&f.out, "out", "", "also write the sample as JSON lines to label outside the audit view")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("run")
	return cmd
}

// seedFlag and sizeFlag mark a flag left unset as -1.
func seedFlag(cmd *cobra.Command, v int64) int64 {
	if !cmd.Flags().Changed("seed") {
		return -1
	}
	return v
}

func sizeFlag(cmd *cobra.Command, v int) int {
	if !cmd.Flags().Changed("size") {
		return -1
	}
	return v
}

// runReviewSample draws, extends or shows the run's review sample.
func (a *app) runReviewSample(ctx context.Context, f reviewSampleFlags) error {
	if f.seed < -1 || f.size == 0 || f.size < -1 {
		return fmt.Errorf("review sample: --seed must be 0 or more, --size 1 or more: %w", claimtrace.ErrInvalid)
	}
	st, err := a.openStore(ctx, f.dsn)
	if err != nil {
		return err
	}
	results, params, err := runResults(ctx, st, f.run)
	if err != nil {
		return err
	}
	frame := eval.ReviewFrame(results)
	if len(frame) == 0 {
		return fmt.Errorf("review sample: run %s has nothing to review: no (claim, source) pair and no fact-checked claim: %w", f.run, claimtrace.ErrInvalid)
	}
	old, had, err := eval.ReadReviewSample(ctx, st, f.run)
	if err != nil {
		return err
	}
	seed, size := f.seed, f.size
	if seed < 0 {
		seed = old.Seed
		if !had {
			seed = randomSeed()
		}
	}
	if size < 0 {
		size = len(old.Units)
		if !had {
			rv, err := eval.ReviewedFigures(results, nil, nil, eval.ReviewOptionsOf(results, params))
			if err != nil {
				return err
			}
			if size = eval.PlannedSampleSize(frame, rv); size == 0 {
				size = min(150, len(frame))
			}
		}
	}
	sample := eval.StoredSample{Seed: seed, Frame: len(frame), Units: eval.DrawReviewSample(frame, size, seed)}
	switch {
	case !had:
	case len(sample.Units) >= len(old.Units) && slices.Equal(sample.Units[:len(old.Units)], old.Units):
		// The same draw, as large or larger: the old sample is its start.
	case !f.replace:
		return fmt.Errorf("review sample: run %s has a sample of %d units drawn from %d with seed %d; this one (%d units from %d, seed %d) would drop units of it and the reviews of those would stop counting: add --replace to draw it anyway: %w",
			f.run, len(old.Units), old.Frame, old.Seed, len(sample.Units), len(frame), seed, claimtrace.ErrInvalid)
	}
	if err := eval.WriteReviewSample(ctx, st, f.run, sample); err != nil {
		return err
	}
	if f.out != "" {
		if err := writeSampleLines(f.out, sample.Units, results); err != nil {
			return err
		}
	}
	if f.asJSON {
		return writeIndentedJSON(a.stdout, map[string]any{"run": f.run, "seed": seed, "frame": len(frame), "size": len(sample.Units), "units": sample.Units})
	}
	pairs := 0
	for _, u := range sample.Units {
		if u.Kind == eval.ReviewPair {
			pairs++
		}
	}
	fmt.Fprintf(a.stdout, "review sample of run %s: %d units drawn from %d (seed %d): %d (claim, source) pairs, %d non-cited claims\n",
		f.run, len(sample.Units), len(frame), seed, pairs, len(sample.Units)-pairs)
	return a.printReviewStatus(ctx, st, f.run, nil)
}

// randomSeed returns a non-negative random seed.
func randomSeed() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// runResults reads a run's stored results and parameters.
func runResults(ctx context.Context, st *store.Store, run string) ([]*eval.Result, string, error) {
	runs, err := st.Runs(ctx)
	if err != nil {
		return nil, "", err
	}
	for _, r := range runs {
		if r.ID == run {
			results, err := eval.ReviewResults(ctx, st, run)
			return results, r.Params, err
		}
	}
	return nil, "", fmt.Errorf("run %q is not in the store %s (claimtrace runs lists them): %w", run, st, claimtrace.ErrNotFound)
}

// writeSampleLines writes the sample for labelling outside the audit view.
func writeSampleLines(path string, units []eval.ReviewUnit, results []*eval.Result) error {
	text := map[[2]string]string{}
	for _, r := range results {
		for _, c := range r.Claims {
			text[[2]string{r.Task, c.ID}] = c.Text
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("review sample --out: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, u := range units {
		line := struct {
			ID    string `json:"id"`
			Kind  string `json:"kind"`
			Task  string `json:"task"`
			Claim string `json:"claim"`
			URL   string `json:"url,omitempty"`
			Text  string `json:"text"`
		}{u.ID(), u.Kind, u.Task, u.Claim, u.URL, text[[2]string{u.Task, u.Claim}]}
		if err := enc.Encode(line); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("review sample --out %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("review sample --out %s: %w", path, err)
	}
	return nil
}

func (a *app) reviewStatusCmd() *cobra.Command {
	var run, dsn, reviewsPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status --run RUN [--reviews FILE] [--json]",
		Short: "How far a run's review is, and its figures with the judge's error inside them",
		Long: `status prints how many of the run's sampled units are reviewed (the audit
view's reviews, each claim's reviewers' majority, and --reviews FILE) and
the run's match rate, factual accuracy and PSnd: the judge's raw value,
and once reviews exist the prediction-powered estimate with its 95%
interval beside the interval the reviews alone give.

--json prints {"review": {drawn, reviewed, disputed, seed, frame, next},
"match_rate", "factual_accuracy", "psnd"}, each figure as
{judge, estimate, ci, human_ci, n_reviews, n, reviews_needed}.`,
		Example: `  claimtrace review status --run eval-0123456789abcdef
  claimtrace review status --run eval-0123456789abcdef --reviews labelled.jsonl --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			extra, err := readReviewFile(reviewsPath)
			if err != nil {
				return err
			}
			st, err := a.openStore(ctx, dsn)
			if err != nil {
				return err
			}
			if asJSON {
				rv, err := reviewedFigures(ctx, st, run, extra)
				if err != nil {
					return err
				}
				return writeIndentedJSON(a.stdout, map[string]any{"review": rv.Progress, "match_rate": rv.MatchRate,
					"factual_accuracy": rv.FactualAccuracy, "psnd": rv.PSnd})
			}
			return a.printReviewStatus(ctx, st, run, extra)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&run, "run", "", "run id (claimtrace runs lists them)")
	fs.StringVar(&dsn, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	fs.StringVar(&reviewsPath, "reviews", "", "human labels of sampled units, {\"id\", \"label\"} lines (ids from review sample --out)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("run")
	return cmd
}

// readReviewFile reads a --reviews file; "" reads nothing.
func readReviewFile(path string) ([]eval.HumanReview, error) {
	if path == "" {
		return nil, nil
	}
	var out []eval.HumanReview
	err := readFile(path, func(r io.Reader) (err error) {
		out, err = eval.ReadReviewFile(r, path)
		return err
	})
	return out, err
}

// humanReviews returns the function eval asks for a run's human labels:
// the audit view's reviews in st and the extra ones of a reviews file.
func humanReviews(st *store.Store, extra []eval.HumanReview) (func(ctx context.Context, run string) ([]eval.HumanReview, error), error) {
	srv, err := web.New(web.Options{Store: st})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, run string) ([]eval.HumanReview, error) {
		rvs, err := srv.HumanReviews(ctx, run)
		return append(rvs, extra...), err
	}, nil
}

// reviewedFigures computes a run's figures from the store's results,
// sample and reviews, and extra.
func reviewedFigures(ctx context.Context, st *store.Store, run string, extra []eval.HumanReview) (eval.Reviewed, error) {
	results, params, err := runResults(ctx, st, run)
	if err != nil {
		return eval.Reviewed{}, err
	}
	var sample *eval.StoredSample
	var reviews []eval.HumanReview
	s, ok, err := eval.ReadReviewSample(ctx, st, run)
	if err != nil {
		return eval.Reviewed{}, err
	}
	if ok {
		sample = &s
		read, err := humanReviews(st, extra)
		if err != nil {
			return eval.Reviewed{}, err
		}
		if reviews, err = read(ctx, run); err != nil {
			return eval.Reviewed{}, err
		}
	}
	return eval.ReviewedFigures(results, sample, reviews, eval.ReviewOptionsOf(results, params))
}

// printReviewStatus prints the run's review progress and figures.
func (a *app) printReviewStatus(ctx context.Context, st *store.Store, run string, extra []eval.HumanReview) error {
	rv, err := reviewedFigures(ctx, st, run, extra)
	if err != nil {
		return err
	}
	printReviewProgress(a.stdout, run, rv.Progress)
	printReviewed(a.stdout, run, rv.MatchRate, rv.FactualAccuracy, rv.PSnd)
	return nil
}

// printReviewProgress prints "73 of 150 reviewed · next: …".
func printReviewProgress(w io.Writer, run string, p *eval.ReviewProgress) {
	if p == nil {
		fmt.Fprintf(w, "no review sample drawn for run %s: claimtrace review sample --run %s\n", run, run)
		return
	}
	if p.FrameChanged {
		fmt.Fprintf(w, "warning: the run's units changed since its sample was drawn from %d of them: it is no longer a uniform sample; draw it again (claimtrace review sample --run %s --replace)\n", p.Frame, run)
	}
	fmt.Fprintf(w, "review sample: %d of %d reviewed", p.Reviewed, p.Drawn)
	if p.Disputed > 0 {
		fmt.Fprintf(w, " (%d disputed: no majority)", p.Disputed)
	}
	if n := p.Next; n != nil {
		fmt.Fprintf(w, " · next: report %s, claim %s", n.Task, n.Claim)
		if n.URL != "" {
			fmt.Fprintf(w, ", source %s", n.URL)
		}
	} else {
		fmt.Fprint(w, " · all reviewed")
	}
	fmt.Fprintln(w)
}

// printReviewed prints each figure with the judge's error inside it, or
// says it is the judge's raw rate and how many reviews would give ±0.05.
func printReviewed(w io.Writer, run string, match, factual, psnd *eval.ReviewedFigure) {
	for _, f := range []struct {
		name, unit string
		fig        *eval.ReviewedFigure
	}{{"match rate", "pairs", match}, {"factual accuracy", "claims", factual}, {"PSnd", "pairs", psnd}} {
		if f.fig == nil {
			continue
		}
		e := f.fig.Estimate
		if e.Estimate == nil {
			fmt.Fprintf(w, "%s %s is the judge's raw rate: no sampled %s reviewed yet; about %d reviewed %s of %d would give ±%.0f points (claimtrace review sample --run %s)\n",
				f.name, pctOf(e.Judge), f.unit, f.fig.ReviewsNeeded, f.unit, e.N, 100*eval.PlanHalfWidth, run)
			continue
		}
		fmt.Fprintf(w, "%s: judge %s; estimate %s %s from %d of %d %s reviewed (reviews alone %s)",
			f.name, pctOf(e.Judge), pctOf(*e.Estimate), intervalPctText(e.CI), e.NReviews, e.N, f.unit, intervalPctText(e.HumanCI))
		if e.HalfWidth() > eval.PlanHalfWidth {
			fmt.Fprintf(w, "; about %d in all would give ±%.0f points", max(f.fig.ReviewsNeeded, e.NReviews+1), 100*eval.PlanHalfWidth)
		}
		fmt.Fprintln(w)
	}
}

func pctOf(v float64) string { return pct(&v) }

func intervalPctText(i *ppi.Interval) string {
	if i == nil {
		return "—"
	}
	return fmt.Sprintf("[%s, %s]", pctOf(i.Lo), pctOf(i.Hi))
}

// printSummaryReviewed prints eval's lines on the review sample and the
// figures with the judge's error inside them.
func printSummaryReviewed(w io.Writer, s *eval.Summary) {
	if r := s.Review; r != nil {
		if r.Error != "" {
			fmt.Fprintf(w, "review sample: unreadable (%s); the figures are the judge's raw rates\n", r.Error)
		}
		if r.ReviewProgress != nil {
			printReviewProgress(w, s.Run, r.ReviewProgress)
		}
	}
	printReviewed(w, s.Run, s.Cited.MatchRatePPI, s.NonCited.FactualAccuracyPPI, s.AAR.PSndPPI)
}
