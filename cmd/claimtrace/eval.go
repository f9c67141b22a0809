package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/web"
)

type evalFlags struct {
	dataset     string
	reports     string
	out         string
	store       string
	concurrency int
	tasks       []string
	retryFailed bool
	json        bool
	noScholar   bool
	dryRun      bool
	html        bool
	reviews     string
	fetch       fetchFlags
	sources     sourceFlags
	verify      verifyFlags
}

func (a *app) evalCmd() *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval --dataset DIR --reports DIR --out DIR",
		Short: "Score reports against a ReportBench dataset",
		Long: `Score every report in a reports directory against a ReportBench-format dataset.

Each report is parsed (claims and citations with byte spans), every cited
source is resolved (snapshot, page cache or the web; identifiers; arXiv,
Crossref and OpenAlex), cited works are matched against the survey's
ground-truth references (precision, recall, F1, with a reason for every
miss), every (claim, source) pair is judged (match rate; the offline judge by
default, --judge MODEL for a model), check-worthy non-cited claims are
fact-checked when --fact-check is given (factual accuracy), and the report's
provenance graph is scored (PCov, PSnd, CTran, AEff). Figures are aggregated
macro, micro and per domain.

Precision is strict: dead, fabricated and walled citations whose identity
nothing established count against the report; "Verifiable P" beside it
leaves the walled ones out, and reports the two could set far apart are
FLAGGED. A citation whose stated title is another paper's is misattributed.
Sources that could not be fetched (no network, --fetch-timeout) are no
verdict: left out, and fetched again by the next run. See docs/scoring.md.

Reports are <arxiv_id>.json (text in "response", "content", "text",
"message", "output" or "result"), <arxiv_id>.md, .txt, .pdf (its text
layer) or .docx; spans index the text read ('claimtrace parse --text FILE'
prints it). A run that scores no report exits 1 and says why.

Outputs: OUT/summary.json, OUT/reports/<arxiv_id>.json (every claim with its
span, citations, verdicts and evidence), OUT/graphs/<arxiv_id>.json and
OUT/manifest.json; with --html, OUT/html/ (the audit view as static pages).
Once people have reviewed the run's sample (claimtrace review sample), a
rerun reports the match rate, factual accuracy and PSnd with the judge's
error inside them: the estimate and its 95% interval (--reviews FILE adds
labels from a file).
Every unit of work is stored as soon as it is done: after
a crash or Ctrl-C, rerun the same command and it resumes; --retry-failed
redoes what failed. --dry-run prices the model calls before spending.`,
		Example: `  claimtrace eval --dataset data/reportbench --reports runs/o3 --out results/o3
  claimtrace eval --dataset data/reportbench --reports runs/o3 --out results/o3 --snapshot snap --offline
  claimtrace eval --dataset data/reportbench --reports runs/o3 --out results/o3 --tasks 2312.04861 --json
  claimtrace eval --dataset data/reportbench --reports runs/o3 --out results/o3 --judge openai:gpt-4o --fact-check --dry-run
  claimtrace eval --dataset data/reportbench --reports runs/o3 --out results/o3 --fetch-timeout 30m --source-progress 2> fetch.log`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runEval(cmd, f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.dataset, "dataset", "", "dataset directory (ReportBench_v1.1.jsonl + ReportBench_v1.1_GT/)")
	fs.StringVar(&f.reports, "reports", "", "directory of reports named <arxiv_id>.json|.md|.txt|.pdf|.docx")
	fs.StringVar(&f.out, "out", "", "output directory for summary.json and reports/")
	fs.StringVar(&f.store, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "reports evaluated at once (default: config, 8)")
	fs.StringSliceVar(&f.tasks, "tasks", nil, "only these task ids (comma-separated)")
	fs.BoolVar(&f.retryFailed, "retry-failed", false, "retry units that failed in an earlier run")
	fs.BoolVar(&f.json, "json", false, "print the summary as JSON")
	fs.BoolVar(&f.noScholar, "no-scholar", false, "do not query arXiv, Crossref or OpenAlex (implied by --offline)")
	fs.BoolVar(&f.html, "html", false, "also write OUT/html/: index.html and one self-contained audit page per report (no script, loads nothing; open from disk or mail it)")
	fs.StringVar(&f.reviews, "reviews", "", "human labels of the run's review sample, {\"id\", \"label\"} lines (claimtrace review sample --out), counted with the audit view's reviews")
	fs.BoolVar(&f.dryRun, "dry-run", false, "resolve sources and build every model request, but send none: print the calls, tokens and cost a run would take")
	f.fetch.add(fs)
	f.sources.add(fs)
	f.verify.add(fs)
	for _, name := range []string{"dataset", "reports", "out"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

// runEval scores the reports: it resolves the run settings first, wires
// the fetcher, the scholarly APIs and the verification stages (apply) into
// one eval.Options, and runs the pipeline, or its dry run (dryEval).
func (a *app) runEval(cmd *cobra.Command, f evalFlags) error {
	ctx := cmd.Context()
	rc, err := a.runConfig(&f.verify.llm, f.dryRun)
	if err != nil {
		return err
	}
	ds, err := dataset.LoadDataset(f.dataset)
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx, f.store)
	if err != nil {
		return err
	}
	fetcher, err := a.newFetcher(f.fetch, st)
	if err != nil {
		return err
	}
	if f.concurrency <= 0 {
		f.concurrency = a.cfg.Concurrency
	}
	timeout, err := a.fetchTimeout(f.sources)
	if err != nil {
		return err
	}
	opts := eval.Options{
		Dataset: ds, ReportsDir: f.reports, OutDir: f.out, Tasks: splitList(f.tasks),
		Concurrency: f.concurrency, FetchConcurrency: 4 * f.concurrency, RetryFailed: f.retryFailed,
		Mode: f.fetch.mode(), Snapshot: f.fetch.snapshot, Fetcher: fetcher, Store: st,
		Manifest: runManifest(os.Args[1:]), MaxReportBytes: a.inputLimit(), FetchTimeout: timeout,
	}
	a.cfg.Eval.apply(&opts)
	if s := a.newScholar(f.fetch); s != nil && !f.noScholar {
		opts.Scholar = s
	}
	if st.Backend() == "postgres" {
		// Several evaluators may share this run: each report is leased to
		// one of them, a dead one's reports are taken over.
		opts.Leaser, opts.Owner = st, store.NewOwner()
	}
	if rc.DryRun {
		return a.dryEval(ctx, f, opts, rc)
	}
	m, err := f.verify.apply(ctx, a, st, &opts, rc)
	if err != nil {
		return err
	}
	extra, err := readReviewFile(f.reviews)
	if err != nil {
		return err
	}
	if opts.HumanReviews, err = humanReviews(st, extra); err != nil {
		return err
	}
	if f.verify.judge != "offline" && f.verify.judge != "none" {
		// A model judges: its client paces the calls, not the report
		// concurrency (the offline judge's work is CPU, bounded by it).
		opts.JudgeConcurrency = max(opts.Concurrency, m.ceiling())
	}
	var bar interface {
		Add(int) error
		Finish() error
	}
	opts.Progress = func(p eval.Progress) {
		if bar == nil {
			if b := a.progress(p.Total, "eval"); b != nil && !f.sources.progress {
				bar = b
			} else {
				bar = nopBar{}
			}
		}
		bar.Add(1)
	}
	if f.sources.progress {
		// A line per source instead of the bar of reports.
		opts.SourceProgress = a.sourceProgress(f.sources)
	}
	ev, err := eval.New(opts)
	if err != nil {
		return err
	}
	m.setRun(ev.RunID())
	sum, err := ev.Run(ctx)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	if f.html {
		srv, err := web.New(web.Options{Store: st})
		if err != nil {
			return err
		}
		exp, err := srv.Export(ctx, sum.Run, filepath.Join(f.out, "html"), f.tasks)
		if err != nil {
			return err
		}
		for task, why := range exp.Failed {
			fmt.Fprintf(a.stderr, "html: no page for %s: %s\n", task, why)
		}
	}
	if f.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		printSummary(a.stdout, sum, f.out)
	}
	return nothingScored(f.reports, sum)
}

// nothingScored returns why a run scored no report, as the error that
// makes it exit non-zero: every report failed, or the folder holds none
// (naming what it holds instead); nil when a report was scored.
func nothingScored(dir string, sum *eval.Summary) error {
	switch {
	case sum.Reports > 0:
		return nil
	case sum.ReportsFailed > 0:
		return fmt.Errorf("no report could be scored: %d failed (the reasons are listed above and in summary.json)", sum.ReportsFailed)
	case len(sum.Ignored) > 0:
		shown := sum.Ignored[:min(len(sum.Ignored), 5)]
		more := ""
		if len(sum.Ignored) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(sum.Ignored)-len(shown))
		}
		return fmt.Errorf("no report scored: %s holds no report file named <task_id>%s, only %s%s", dir, report.Extensions(), strings.Join(shown, ", "), more)
	}
	return fmt.Errorf("no report scored: %s holds no report file named <task_id>%s", dir, report.Extensions())
}

// dryEval runs the pipeline with clients that price every model request
// instead of sending it (the dry run of rc), into a scratch store and
// output directory: sources are resolved (and cached in the real store),
// nothing else is kept.
func (a *app) dryEval(ctx context.Context, f evalFlags, opts eval.Options, rc RunConfig) error {
	tmp, err := os.MkdirTemp("", "claimtrace-dry-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	scratch, err := store.Open(ctx, filepath.Join(tmp, "dry.db"))
	if err != nil {
		return err
	}
	defer scratch.Close()
	var worthy *worthyRate
	if f.verify.checkWorthy != "offline" {
		// What the classifier will call check-worthy, from the real
		// store's history of it.
		ep, _, err := a.cfg.endpoint(f.verify.checkWorthy)
		if err != nil {
			return err
		}
		r, err := dryWorthyRate(ctx, opts.Store, ep.String(), f.verify.worthyRate)
		if err != nil {
			return err
		}
		f.verify.dryWorthy, worthy = r, &r
	}
	opts.Store, opts.OutDir, opts.Leaser = scratch, filepath.Join(tmp, "out"), nil
	m, err := f.verify.apply(ctx, a, scratch, &opts, rc)
	if err != nil {
		return err
	}
	ev, err := eval.New(opts)
	if err != nil {
		return err
	}
	sum, err := ev.Run(ctx)
	if err != nil {
		return err
	}
	dry := m.dryRun()
	var stages map[string]llm.StageEstimate
	if dry != nil {
		stages = dry.Stages()
	}
	var results []*eval.Result
	for _, line := range sum.Scores {
		if r, err := eval.ReadResult(filepath.Join(opts.OutDir, "reports", line.Task+".json")); err == nil {
			results = append(results, r)
		}
	}
	if f.json {
		out := map[string]any{"reports": sum.Reports, "stages": stages, "reference": eval.ReferenceEstimate(results)}
		if worthy != nil {
			out["check_worthy_rate"] = worthy
		}
		return writeIndentedJSON(a.stdout, out)
	}
	fmt.Fprintf(a.stdout, "dry run over %d reports (%d failed to load):\n\n", sum.Reports, sum.ReportsFailed)
	if len(stages) == 0 {
		fmt.Fprintln(a.stdout, "no stage calls a model with these flags: the run is free (offline judge and rules)")
	} else {
		printDryRun(a.stdout, dry, results, worthy)
	}
	return nil
}

// printFlagged names the reports whose precision the walls they cite could
// move: more than 20% of their citations unverifiable, or strict and
// verifiable-only precision more than 0.1 apart.
func printFlagged(w io.Writer, s *eval.Summary) {
	var ids []string
	for _, l := range s.Scores {
		for _, f := range l.Flags {
			if f != score.FlagNotFetched {
				ids = append(ids, l.Task)
				break
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	n, more := len(ids), ""
	if n > 10 {
		ids, more = ids[:10], fmt.Sprintf(" and %d more", n-10)
	}
	fmt.Fprintf(w, "FLAGGED: %d report(s) whose precision walls could move (unverifiable > %.0f%% of citations, or strict and verifiable-only precision > %.1f apart): %s%s\n",
		n, score.FlagUnverifiableShare*100, score.FlagPrecisionGap, strings.Join(ids, ", "), more)
}

type nopBar struct{}

func (nopBar) Add(int) error { return nil }
func (nopBar) Finish() error { return nil }

// printSummary prints the leaderboard-style table of a run.
func printSummary(w io.Writer, s *eval.Summary, out string) {
	c := s.Citation
	fmt.Fprintf(w, "claimtrace eval — %s scored, %d failed (mode %s, run %s)\n\n", plural(s.Reports, "report"), s.ReportsFailed, s.Mode, s.Run)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tReports\tPrecision\tVerifiable P\tCompat P\tRecall\tF1\tMicro P\tMicro R\tRefs/report\tMatch rate\tPCov\tPSnd\tCTran\t")
	fmt.Fprintf(tw, "all\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Reports, pct(c.Precision), pct(c.PrecisionVerifiable), pct(c.CompatPrecision), pct(c.Recall),
		pct(c.F1), pct(c.MicroPrecision), pct(c.MicroRecall), num(c.RefsPerReport), pct(s.Cited.MatchRate), pct(s.AAR.PCov), pct(s.AAR.PSnd), ctranCell(s.AAR.CTran, s.AAR.SurfacedConflicts, s.AAR.Conflicts))
	domains := make([]string, 0, len(c.ByDomain))
	for d := range c.ByDomain {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	if len(domains) > 1 {
		for _, d := range domains {
			b := c.ByDomain[d]
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t\t\t\t\n", shorten(d, 34), b.Reports, pct(b.Precision), pct(b.PrecisionVerifiable), pct(b.CompatPrecision), pct(b.Recall),
				pct(b.F1), pct(b.MicroPrecision), pct(b.MicroRecall), num(b.RefsPerReport))
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "  (Precision: hits / cited scholarly works, strict: dead, fabricated and unverifiable ones count against the report; Verifiable P: the optimistic bound, unverifiable ones left out; Compat P: the released ReportBench code's precision, which leaves every miss out)")
	fmt.Fprintf(w, "\ncited works: %d papers (%d matched the ground truth, %d after the cutoff, %d the survey itself, %d misattributed), %d web pages, %d unresolvable (dead or fabricated), %d unverifiable (alive, unreadable, no identity); %d dangling markers\n",
		c.Papers, c.Hits, c.PostCutoff, c.SourceSurvey, c.Misattributed, c.Web, c.Unresolvable, c.Unverifiable, c.Dangling)
	if c.ReportsWithoutRefs > 0 {
		fmt.Fprintf(w, "%d report(s) cite no paper (only web pages, or nothing): precision undefined, excluded from its mean\n", c.ReportsWithoutRefs)
	}
	printFlagged(w, s)
	if c.NotFetched > 0 {
		fmt.Fprintf(w, "NOT FETCHED: %d source(s) of %d report(s) could not be fetched (no network, or the fetch time limit): no verdict on them, left out of every figure; rerun to fetch them, or use --offline --snapshot DIR\n",
			c.NotFetched, c.ReportsNotFetched)
	}
	if s.Cited.Judge != "" {
		fmt.Fprintf(w, "cited statements (judge %s): match rate %s over %d judged (claim, source) pairs; %d pairs unknown (source unreadable or unjudged)\n",
			s.Cited.Judge, pct(s.Cited.MatchRate), s.Cited.Judged, s.Cited.Unknown)
	}
	if s.NonCited.StatementsPerReport != nil {
		if s.NonCited.Decided == 0 {
			fmt.Fprintf(w, "non-cited statements: %.1f check-worthy per report on average, %d undecided (no fact-checker configured)\n", *s.NonCited.StatementsPerReport, s.NonCited.Undecided)
		} else {
			fmt.Fprintf(w, "non-cited statements: factual accuracy %s (%d decided, %d undecided)\n", pct(s.NonCited.FactualAccuracy), s.NonCited.Decided, s.NonCited.Undecided)
		}
	}
	fmt.Fprintf(w, "provenance (τ = %.2f): PCov %s, PSnd %s (%s of citation pairs unverifiable), CTran %s (%d/%d conflicts disclosed, %d report(s) with conflicting sources), AEff proxy %s nodes per claim\n",
		s.AAR.Tau, pct(s.AAR.PCov), pct(s.AAR.PSnd), pct(s.AAR.MicroPSndUnverifiable), pct(s.AAR.CTran), s.AAR.SurfacedConflicts, s.AAR.Conflicts, s.AAR.ReportsWithConflicts, num(s.AAR.AEffProxy))
	printSummaryReviewed(w, s)
	if l := s.LLM; l.Error != "" || l.Calls > 0 || l.CacheHits > 0 || l.Failed > 0 {
		printModelCalls(w, l)
	}
	for _, fl := range s.Failures {
		fmt.Fprintf(w, "FAILED %s: %s\n", fl.Task, fl.Err)
	}
	if out != "" {
		fmt.Fprintf(w, "\nwrote %s/summary.json and %s/reports/<task_id>.json\n", strings.TrimRight(out, "/"), strings.TrimRight(out, "/"))
	}
}

// printModelCalls prints a run's model calls, or why they are unknown.
func printModelCalls(w io.Writer, l eval.LLMSection) {
	if l.Error != "" {
		fmt.Fprintf(w, "model calls: unknown (%s)\n", l.Error)
		return
	}
	fmt.Fprintf(w, "model calls: %d sent, %d from the cache, %d failed; %d input and %d output tokens; $%.4f\n",
		l.Calls, l.CacheHits, l.Failed, l.InputTokens, l.OutputTokens, l.CostUSD)
}

func pct(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", *v*100)
}

// ctranCell prints CTran with its counts, "0.0% 0/1": a rate over one
// conflict is no rate to read alone.
func ctranCell(v *float64, disclosed, conflicts int) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%s %d/%d", pct(v), disclosed, conflicts)
}

func num(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", *v)
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// plural writes a count with its noun, singular for one ("1 report",
// "3 reports").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
