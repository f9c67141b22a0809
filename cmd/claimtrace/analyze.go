package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

func (a *app) analyzeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "analyze",
		Short: "ReportBench's appendix analyses: recall by reference importance, content quality, error taxonomy, paired comparisons",
		Long: `The analyses of ReportBench's appendix A.2, over the outputs of claimtrace eval:

  importance   citation recall by reference-importance quartile (A.2.1, Table 2)
  quality      a model scores each report's survey quality on a rubric (A.2.2, Table 3)
  errors       why citations miss and cited statements fail (A.2.6, automatic part)
  compare      paired bootstrap of two runs on their common tasks (A.2.4, A.2.5)

Confidence intervals of a single run's metrics: claimtrace leaderboard --ci.`,
	}
	cmd.AddCommand(a.analyzeImportanceCmd(), a.analyzeQualityCmd(), a.analyzeErrorsCmd(), a.analyzeCompareCmd())
	return cmd
}

// loadRuns reads evaluation output directories.
func loadRuns(dirs []string) ([]*analysis.Run, error) {
	var out []*analysis.Run
	for _, d := range dirs {
		r, err := analysis.LoadRun(d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// ---- importance ----

type importanceFlags struct {
	dataset, cache                        string
	offline, retryNotFound, asJSON        bool
	sources                               []string
	openAlexURL, crossrefURL, semanticURL string
	concurrency, minCounted               int
}

func (a *app) analyzeImportanceCmd() *cobra.Command {
	var f importanceFlags
	cmd := &cobra.Command{
		Use:   "importance --dataset DIR OUT_DIR...",
		Short: "Citation recall by reference-importance quartile (ReportBench A.2.1)",
		Long: `Look up how often every ground-truth reference of the scored tasks is cited
(OpenAlex cited_by_count by DOI, arXiv DataCite DOI or title, Crossref
is-referenced-by-count as fallback, Semantic Scholar citationCount if
listed in --sources), cut each survey's references at the 25/50/75%
quantiles of their counts (Q1 least cited … Q4 most cited; references with
equal counts always share a quartile), and report each system's recall per
quartile, pooling the references of all the tasks it scored (Table 2).

Counts are kept in a JSONL cache file (--cache; by default
<data dir>/citation-counts.jsonl): a rerun asks the APIs only for what is
missing, and an interrupted lookup resumes. Lookups that failed (an API
unreachable) are not cached and are retried on the next run. --offline uses
the cache alone. References without a count, and surveys with fewer than
--min-counted counts, are reported apart as "unranked".

Set CLAIMTRACE_MAILTO to join the APIs' polite pools, and
SEMANTIC_SCHOLAR_API_KEY for Semantic Scholar's.`,
		Example: `  claimtrace analyze importance --dataset data/reportbench results/o3 results/gemini-dr
  claimtrace analyze importance --dataset data/reportbench results/* --offline --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runImportance(cmd.Context(), f, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.dataset, "dataset", "", "dataset directory (ReportBench_v1.1.jsonl + ReportBench_v1.1_GT/)")
	fs.StringVar(&f.cache, "cache", "", "citation-count cache file (default: <data dir>/citation-counts.jsonl)")
	fs.BoolVar(&f.offline, "offline", false, "use only the cache: never query an API")
	fs.BoolVar(&f.retryNotFound, "retry-not-found", false, "ask again for references the cache holds as not found")
	fs.StringSliceVar(&f.sources, "sources", []string{analysis.SourceOpenAlex, analysis.SourceCrossref}, "indexes tried in order: openalex, crossref, semanticscholar")
	fs.StringVar(&f.openAlexURL, "openalex-url", scholar.DefaultOpenAlexURL, "OpenAlex API base URL")
	fs.StringVar(&f.crossrefURL, "crossref-url", scholar.DefaultCrossrefURL, "Crossref API base URL")
	fs.StringVar(&f.semanticURL, "semantic-scholar-url", scholar.DefaultSemanticScholarURL, "Semantic Scholar Graph API base URL (…/graph/v1)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "lookups in flight (each API's rate limit still applies)")
	fs.IntVar(&f.minCounted, "min-counted", 4, "fewest references with a count a survey needs to be cut into quartiles")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("dataset")
	return cmd
}

func (a *app) runImportance(ctx context.Context, f importanceFlags, dirs []string) error {
	ds, err := dataset.LoadDataset(f.dataset)
	if err != nil {
		return err
	}
	runs, err := loadRuns(dirs)
	if err != nil {
		return err
	}
	surveys, err := analysis.Surveys(ds, analysis.ScoredTasks(ds, runs))
	if err != nil {
		return err
	}
	var queries []analysis.RefQuery
	for _, s := range surveys {
		queries = append(queries, s.Queries()...)
	}
	path := f.cache
	if path == "" {
		path = filepath.Join(a.cfg.DataDir, "citation-counts.jsonl")
	}
	cache, err := analysis.LoadCountCache(path)
	if err != nil {
		return err
	}
	defer cache.Close()
	counter := &analysis.Counter{Cache: cache, Sources: splitList(f.sources), Concurrency: f.concurrency, Offline: f.offline, RetryNotFound: f.retryNotFound}
	if !f.offline {
		counter.Scholar = scholar.New(scholar.Options{
			OpenAlexURL: f.openAlexURL, CrossrefURL: f.crossrefURL, SemanticScholarURL: f.semanticURL,
			Mailto: os.Getenv("CLAIMTRACE_MAILTO"), SemanticScholarKey: os.Getenv("SEMANTIC_SCHOLAR_API_KEY"),
		})
		var bar interface{ Add(int) error }
		counter.Progress = func(done, total int) {
			if bar == nil {
				if b := a.progress(total, "citation counts"); b != nil {
					bar = b
				} else {
					bar = nopBar{}
				}
			}
			bar.Add(1)
		}
	}
	counts, stats, err := counter.Counts(ctx, queries)
	if err != nil {
		return err
	}
	imp, err := analysis.Stratify(surveys, counts, runs, analysis.ImportanceOptions{MinCounted: f.minCounted})
	if err != nil {
		return err
	}
	if f.asJSON {
		return writeIndentedJSON(a.stdout, struct {
			Cache   string               `json:"cache"`
			Lookups analysis.LookupStats `json:"lookups"`
			*analysis.Importance
		}{path, stats, imp})
	}
	printImportance(a.stdout, imp, stats, path, cache.Skipped())
	return nil
}

func printImportance(w io.Writer, imp *analysis.Importance, st analysis.LookupStats, cache string, skipped int) {
	r := imp.References
	fmt.Fprintf(w, "citation recall by reference importance (ReportBench A.2.1): %d surveys, %d distinct references\n", len(imp.Surveys), r.Total)
	fmt.Fprintf(w, "counts: %d found, %d not found, %d lookups failed (rerun to retry), %d not looked up (offline), %d without identifier or title\n",
		r.Found, r.NotFound, r.Failed, r.Missing, r.NoQuery)
	fmt.Fprintf(w, "lookups: %d from the cache, %d now (%d found, %d not found, %d failed); cache %s", st.Cached, st.Found+st.NotFound+st.Failed, st.Found, st.NotFound, st.Failed, cache)
	if skipped > 0 {
		fmt.Fprintf(w, " (%d unreadable lines skipped)", skipped)
	}
	fmt.Fprintln(w)
	if len(imp.SmallSurveys) > 0 {
		fmt.Fprintf(w, "%d survey(s) with fewer than %d counted references are not cut into quartiles (unranked): %s\n",
			len(imp.SmallSurveys), imp.MinCounted, strings.Join(imp.SmallSurveys, ", "))
	}
	fmt.Fprintln(w, "\nrecall in %, pooled over each system's scored tasks; Q1 least cited … Q4 most cited within each survey")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\ttasks\tQ1\tQ2\tQ3\tQ4\tunranked\tall\t")
	for _, s := range imp.Systems {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.System, s.Tasks,
			stratum(s.Quartiles[0]), stratum(s.Quartiles[1]), stratum(s.Quartiles[2]), stratum(s.Quartiles[3]), stratum(s.Unranked), stratum(s.All))
	}
	tw.Flush()
	for _, s := range imp.Systems {
		if len(s.MissingTasks) > 0 {
			fmt.Fprintf(w, "%s: %d scored task(s) not in the dataset, left out: %s\n", s.System, len(s.MissingTasks), strings.Join(s.MissingTasks, ", "))
		}
		if s.UnknownBibIDs > 0 {
			fmt.Fprintf(w, "%s: %d matched bib_id(s) not in the ground truth (evaluated with another dataset version?)\n", s.System, s.UnknownBibIDs)
		}
	}
}

func stratum(s analysis.Stratum) string {
	if s.Recall == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f (%d/%d)", *s.Recall*100, s.Hits, s.Refs)
}

// ---- quality ----

type qualityFlags struct {
	dataset, model, out, store string
	reports                    []string
	maxChars, concurrency      int
	dryRun, asJSON             bool
	llm                        llmFlags
}

func (a *app) analyzeQualityCmd() *cobra.Command {
	var f qualityFlags
	cmd := &cobra.Command{
		Use:   "quality --dataset DIR --reports DIR --model SPEC [--out FILE]",
		Short: "Score each report's survey quality on a rubric with a model (ReportBench A.2.2)",
		Long: `A model reads each report with its task prompt and scores five dimensions
from 1 to 5 (content depth, synthesis & structure, insight & trends, future
directions, survey-ness) and flags "gaming" (a bag of sentences instead of a
survey), with a short justification each: one call a report, strict JSON.
Reports longer than --max-report-chars keep their beginning and end, and the
prompt says what was left out. Repeat --reports for several systems; the
table shows each system's means (Table 3).

A call that fails, or answers malformed JSON after two re-asks, is a failed
report: counted and listed, never a score. A wrong key, an exhausted quota
or the run budget (--max-cost, --max-calls) stops the run. Answers are
cached in the store and every call is accounted there: a rerun costs
nothing. --dry-run prints the calls, tokens and cost a run would take.`,
		Example: `  claimtrace analyze quality --dataset data/reportbench --reports runs/o3 --reports runs/gemini-dr --model openai:gpt-4.1 --out quality.json
  claimtrace analyze quality --dataset data/reportbench --reports runs/o3 --model gemini:gemini-2.5-pro --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runQuality(cmd.Context(), f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.dataset, "dataset", "", "dataset directory (the task prompts)")
	fs.StringSliceVar(&f.reports, "reports", nil, "directory of reports named <arxiv_id>.json|.md|.txt; repeatable, one per system")
	fs.StringVar(&f.model, "model", "", "judge model spec or configured name (default: llm.model from the config)")
	fs.StringVar(&f.out, "out", "", "write every score and justification, and the means, to this JSON file")
	fs.StringVar(&f.store, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	fs.IntVar(&f.maxChars, "max-report-chars", analysis.DefaultMaxReportChars, "longest report sent in characters; longer ones keep their start and end")
	fs.IntVar(&f.concurrency, "concurrency", 4, "reports scored at once (the model's rate limits still apply)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "build every request and print calls, tokens and cost; send none")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	f.llm.add(fs)
	cmd.MarkFlagRequired("dataset")
	cmd.MarkFlagRequired("reports")
	return cmd
}

// qualityOutput is what --out and --json write.
type qualityOutput struct {
	Run     string                 `json:"run"`
	Model   string                 `json:"model"`
	Prompt  string                 `json:"prompt_hash"`
	Systems []*analysis.QualityRun `json:"systems"`
	LLM     eval.LLMSection        `json:"llm"`
}

// runQuality scores every report of each --reports directory on the
// rubric, one call a report, under the run's budget: the run id names the
// model, the prompt and the report cap, so a rerun finds its units and
// cached answers again. A dry run builds the same requests and prices
// them (dryQuality) without opening a run in the store.
func (a *app) runQuality(ctx context.Context, f qualityFlags) error {
	rc, err := a.runConfig(&f.llm, f.dryRun)
	if err != nil {
		return err
	}
	ds, err := dataset.LoadDataset(f.dataset)
	if err != nil {
		return err
	}
	dirs := splitList(f.reports)
	if err := analysis.CheckSystems(dirs); err != nil {
		return fmt.Errorf("--reports %w", err)
	}
	ep, _, err := a.cfg.endpoint(f.model)
	if err != nil {
		return err
	}
	opt := analysis.QualityOptions{MaxReportChars: f.maxChars, Load: a.loadReport}
	st, err := a.openStore(ctx, f.store)
	if err != nil {
		return err
	}
	if rc.DryRun {
		c, err := a.openLLM(ctx, f.model, rc.llmRun("", st.LLMCache(), nil))
		if err != nil {
			return err
		}
		j, err := analysis.NewQualityJudge(c, opt)
		if err != nil {
			return err
		}
		return a.dryQuality(ctx, j, st, ds, dirs, f.asJSON)
	}
	runID := analysis.QualityRunID(ep.String(), f.maxChars)
	params, _ := json.Marshal(map[string]any{"model": ep.String(), "max_report_chars": f.maxChars, "reports": dirs})
	if err := st.EnsureRun(ctx, runID, "quality", string(params)); err != nil {
		return err
	}
	c, err := a.openLLM(ctx, f.model, rc.llmRun(runID, st.LLMCache(), &runLedger{st: st, run: runID}))
	if err != nil {
		return err
	}
	j, err := analysis.NewQualityJudge(c, opt)
	if err != nil {
		return err
	}
	out := qualityOutput{Run: runID, Model: j.Model(), Prompt: analysis.QualityPromptHash(), Systems: []*analysis.QualityRun{}}
	for _, dir := range dirs {
		system := analysis.SystemName(dir)
		files, _, err := analysis.ReportFiles(ds, dir)
		if err != nil {
			return err
		}
		bar := a.progress(len(files), "quality "+system)
		run, err := j.ScoreReports(ctx, ds, dir, f.concurrency, func(s analysis.QualityScore) error {
			if bar != nil {
				bar.Add(1)
			}
			data, err := json.Marshal(s)
			if err != nil {
				return err
			}
			status := store.StatusDone
			if s.Status != "done" {
				status = store.StatusFailed
			}
			return st.PutUnit(context.WithoutCancel(ctx), store.Unit{Run: runID, Kind: "quality", Key: system + "|" + s.Task, Status: status, Data: data, Err: s.Err})
		})
		if bar != nil {
			bar.Finish()
		}
		if err != nil {
			return fmt.Errorf("quality of %s: %w", dir, err)
		}
		out.Systems = append(out.Systems, run)
	}
	out.LLM = eval.LLMTotals(ctx, st, runID)
	if f.out != "" {
		if err := writeJSONFile(f.out, out); err != nil {
			return err
		}
	}
	if f.asJSON {
		return writeIndentedJSON(a.stdout, out)
	}
	var b strings.Builder
	printQuality(&b, out, f.out)
	// Failure messages come from providers: scrub any key they echo.
	fmt.Fprint(a.stdout, a.redact(b.String()))
	scored := 0
	for _, r := range out.Systems {
		scored += r.Means.Scored
	}
	if scored == 0 {
		return errors.New("no report could be scored; see the failures above")
	}
	return nil
}

// writeJSONFile writes v as indented JSON, atomically.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--out %s: %w", path, err)
		}
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}

func printQuality(w io.Writer, out qualityOutput, file string) {
	fmt.Fprintf(w, "subjective content quality (ReportBench A.2.2), judge %s, prompt %s: means over scored reports, 1–5; G = gaming rate\n\n", out.Model, out.Prompt)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\treports\tscored\tfailed\tD\tS\tI\tF\tSV\tG\ttruncated\t")
	for _, r := range out.Systems {
		m := r.Means
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.System, m.Reports, m.Scored, m.Failed,
			rubricScore(m.ContentDepth), rubricScore(m.Synthesis), rubricScore(m.Insight), rubricScore(m.FutureDirections), rubricScore(m.SurveyNess), pct(m.GamingRate), m.Truncated)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nD content depth · S synthesis & structure · I insight & trends · F future directions · SV survey-ness")
	for _, r := range out.Systems {
		for _, s := range r.Scores {
			if s.Status != "done" {
				fmt.Fprintf(w, "FAILED %s %s: %s\n", r.System, s.Task, s.Err)
			}
		}
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "skipped %s %s\n", r.System, s)
		}
	}
	printModelCalls(w, out.LLM)
	if file != "" {
		fmt.Fprintf(w, "wrote %s\n", file)
	}
}

func rubricScore(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

// dryQuality prices the run without sending a request
// (analysis.QualityJudge.Estimate); requests the store's cache already
// answered cost nothing.
func (a *app) dryQuality(ctx context.Context, j *analysis.QualityJudge, st *store.Store, ds *dataset.Dataset, dirs []string, asJSON bool) error {
	lines, err := j.Estimate(ctx, ds, dirs, analysis.EstimateOptions{Cache: st.LLMCache()})
	if err != nil {
		return err
	}
	if asJSON {
		return writeIndentedJSON(a.stdout, map[string]any{"model": j.Model(), "systems": lines})
	}
	fmt.Fprintf(a.stdout, "dry run: quality rubric with %s, one call a report; output tokens counted at the %d-token cap (an upper bound)\n\n", j.Model(), analysis.DefaultQualityTokens)
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\treports\tcached\tcalls\tinput tokens\toutput tokens\tcost $\ttruncated\t")
	for _, l := range lines {
		cost := fmt.Sprintf("%.4f", l.Cost)
		if l.Unpriced {
			cost = "unknown"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t\n", l.System, l.Reports, l.Cached, l.Calls, l.InputTokens, l.OutputTokens, cost, l.Truncated)
	}
	tw.Flush()
	fmt.Fprintln(a.stdout, "\nno request was sent; cached reports cost nothing on a real run")
	return nil
}

// ---- errors ----

func (a *app) analyzeErrorsCmd() *cobra.Command {
	var examples int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "errors OUT_DIR...",
		Short: "Why citations miss and cited statements fail, per system (ReportBench A.2.6, automatic part)",
		Long: `From each evaluation's per-report files: the cited works that are not
ground-truth hits by reason (post_cutoff: the temporal-cutoff violation;
unresolvable: the unverifiable reference, broken down into fabricated arXiv
ids and DOIs that resolvers reject, dead links, walls and unreachable
hosts; not_a_paper; source_survey; not_in_ground_truth), the verdicts on
cited statements (unsupported and contradicted shares of the judged pairs;
unknown pairs by cause: a dead, walled or unreachable source, or one with no
text to read, versus a judge that failed, answered without a verifiable
quote, or abstained) and the
fact-checks of non-cited statements.

The paper's third category, a misaligned research direction, needs a
reader: not_in_ground_truth is only its upper bound. --examples N prints N
instances of each category with the task and the URL.`,
		Example: "  claimtrace analyze errors results/o3 results/gemini-dr --examples 3",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := loadRuns(args)
			if err != nil {
				return err
			}
			var ts []*analysis.Taxonomy
			for _, r := range runs {
				ts = append(ts, analysis.Classify(r, examples))
			}
			if asJSON {
				return writeIndentedJSON(a.stdout, ts)
			}
			printTaxonomy(a.stdout, ts)
			return nil
		},
	}
	cmd.Flags().IntVar(&examples, "examples", 0, "print this many examples of each category (task, URL, detail)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printShares prints a table of one share per key (columns) and system
// (rows).
func printShares(w io.Writer, ts []*analysis.Taxonomy, keys []string, of func(*analysis.Taxonomy) map[string]analysis.Share) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\t"+strings.Join(keys, "\t")+"\t")
	for _, t := range ts {
		fmt.Fprint(tw, t.System)
		for _, k := range keys {
			fmt.Fprintf(tw, "\t%s", shareCell(of(t)[k]))
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
}

func printTaxonomy(w io.Writer, ts []*analysis.Taxonomy) {
	fmt.Fprintln(w, "cited works that are not ground-truth hits, by reason (% of non-hits)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\treports\tworks\thits\tnon-hits\tpost_cutoff\tunresolvable\tunverifiable\tmisattributed\tnot_a_paper\tsource_survey\tnot_in_GT\tnot_fetched\tfabricated ids\t")
	for _, t := range ts {
		c := t.Citations
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.System, t.Reports, c.Works, c.Hits, c.NonHits,
			shareCell(c.PostCutoff), shareCell(c.Unresolvable), shareCell(c.Unverifiable), shareCell(c.Misattributed), shareCell(c.NotAPaper), shareCell(c.SourceSurvey),
			shareCell(c.NotInGT), shareCell(c.NotFetched), shareCell(c.Fabricated))
	}
	tw.Flush()
	fmt.Fprintln(w, "(fabricated ids: arXiv ids and DOIs resolvers reject, % of all cited works)")

	fmt.Fprintln(w, "\nunresolvable citations by cause (% of unresolvable)")
	causes := []string{analysis.CauseFabricatedArXiv, analysis.CauseFabricatedDOI, analysis.CauseDead, analysis.CauseWalled,
		analysis.CauseUnreachable, analysis.CauseUnreadable, analysis.CauseInvalidURL, analysis.CauseOther}
	printShares(w, ts, causes, func(t *analysis.Taxonomy) map[string]analysis.Share { return t.Citations.UnresolvableBy })

	fmt.Fprintln(w, "\ncited statements: verdicts on (statement, source) pairs (% of judged; unknown: % of all pairs, its causes % of unknown)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\tpairs\tjudged\tsupported\tpartial\tunsupported\tcontradicted\tunknown\tby source\tby judge\t")
	for _, t := range ts {
		s := t.Statements
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.System, s.Pairs, s.Judged, shareCell(s.Supported), shareCell(s.Partial),
			shareCell(s.Unsupported), shareCell(s.Contradicted), shareCell(s.Unknown), shareCell(s.UnknownSource), shareCell(s.UnknownJudge))
	}
	tw.Flush()
	unknown := []string{analysis.UnknownSourceDead, analysis.UnknownSourceWalled, analysis.UnknownSourceUnreachable, analysis.UnknownSourceNoText,
		analysis.UnknownJudgeFailed, analysis.UnknownEvidenceRejected, analysis.UnknownJudgeAbstained}
	printShares(w, ts, unknown, func(t *analysis.Taxonomy) map[string]analysis.Share { return t.Statements.UnknownBy })

	fmt.Fprintln(w, "\nnon-cited statements: fact-checks (false: % of decided; undecided: % of checked)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\tchecked\tdecided\tfalse\tundecided\t")
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t\n", t.System, t.Facts.Checked, t.Facts.Decided, shareCell(t.Facts.False), shareCell(t.Facts.Undecided))
	}
	tw.Flush()

	order := []string{score.ReasonPostCutoff, score.ReasonUnresolvable, analysis.CauseFabricatedArXiv, analysis.CauseFabricatedDOI,
		score.ReasonUnverifiable, score.ReasonMisattributed, score.ReasonNotAPaper, score.ReasonSourceSurvey, score.ReasonNotInGT, score.ReasonNotFetched,
		analysis.ExampleUnsupported, analysis.ExampleContradicted}
	order = append(order, unknown...)
	order = append(order, analysis.ExampleFalseFact)
	for _, t := range ts {
		if len(t.Examples) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nexamples — %s\n", t.System)
		for _, cat := range order {
			ex := t.Examples[cat]
			if len(ex) == 0 {
				continue
			}
			fmt.Fprintf(w, "  %s:\n", cat)
			for _, e := range ex {
				parts := []string{e.Task}
				if e.URL != "" {
					parts = append(parts, e.URL)
				}
				if e.Title != "" {
					parts = append(parts, fmt.Sprintf("%q", e.Title))
				}
				if e.Claim != "" {
					parts = append(parts, fmt.Sprintf("claim %q", shorten(e.Claim, 160)))
				}
				if e.Detail != "" {
					parts = append(parts, "— "+shorten(e.Detail, 160))
				}
				fmt.Fprintf(w, "    %s\n", strings.Join(parts, "  "))
			}
		}
	}
}

func shareCell(s analysis.Share) string {
	if s.Share == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%% (%d)", *s.Share*100, s.N)
}

// ---- compare ----

type bootstrapFlags struct {
	resamples int
	seed      uint64
	level     float64
}

func (b *bootstrapFlags) add(cmd *cobra.Command) {
	cmd.Flags().IntVar(&b.resamples, "resamples", analysis.DefaultResamples, "bootstrap resamples")
	cmd.Flags().Uint64Var(&b.seed, "seed", analysis.DefaultSeed, "random seed of the resampling (same seed, same intervals)")
	cmd.Flags().Float64Var(&b.level, "level", analysis.DefaultLevel, "confidence level of the percentile intervals")
}

func (b bootstrapFlags) options() analysis.BootstrapOptions {
	return analysis.BootstrapOptions{Resamples: b.resamples, Seed: b.seed, Level: b.level}
}

func (a *app) analyzeCompareCmd() *cobra.Command {
	var bf bootstrapFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare OUT_A OUT_B",
		Short: "Paired bootstrap of two evaluation runs on the tasks both scored (A.2.4 judge swap, A.2.5 tool budget)",
		Long: `Compare two evaluation runs task by task: the difference A − B of each macro
metric (citation precision, recall, F1, match rate, factual accuracy, PCov,
PSnd) over the tasks both runs scored and where both define the metric,
with a percentile bootstrap interval that resamples those tasks, and the
share of resamples in which A is ahead. Use it to ask whether a ranking
survives swapping the judge (the same reports judged by Gemini and GPT) or
the tool budget (tools-3/ vs tools-5/ of claimtrace run): an interval that
straddles 0 says the data cannot tell the two apart.`,
		Example: "  claimtrace analyze compare results/gemini-judge results/gpt-judge\n  claimtrace analyze compare runs/tools-5 runs/tools-10 --resamples 5000 --json",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := loadRuns(args)
			if err != nil {
				return err
			}
			c, err := analysis.Compare(runs[0], runs[1], analysis.Metrics(), bf.options())
			if err != nil {
				return err
			}
			if asJSON {
				return writeIndentedJSON(a.stdout, c)
			}
			if c.Common == 0 {
				return fmt.Errorf("compare %s and %s: no task scored by both: %w", args[0], args[1], claimtrace.ErrInvalid)
			}
			fmt.Fprintf(a.stdout, "A = %s, B = %s: %d common tasks (%d only in A, %d only in B, left out); paired percentile bootstrap, %.0f%%, %d resamples, seed %d\n\n",
				c.A, c.B, c.Common, c.OnlyA, c.OnlyB, c.Level*100, bf.resamples, bf.seed)
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "metric\ttasks\tA\tB\tA − B\t%.0f%% CI\tA > B\t\n", c.Level*100)
			few := false
			for _, d := range c.Metrics {
				ci := "—"
				switch {
				case d.Lo != nil && d.Tasks < 2:
					ci = "(one task: no interval)"
				case d.Lo != nil:
					ci = fmt.Sprintf("[%s, %s]", signed(d.Lo), signed(d.Hi))
					if d.Tasks < minCIReports {
						ci += "*"
						few = true
					}
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", d.Metric, d.Tasks, frac(d.A), frac(d.B), signed(d.Diff), ci, pct(d.AWins))
			}
			tw.Flush()
			fmt.Fprintln(a.stdout, "\nA > B: share of resamples in which A's mean is higher; an interval containing 0 means the runs are not distinguishable on that metric")
			if few {
				fmt.Fprintf(a.stdout, "* over fewer than %d common tasks: the interval says little about tasks not compared\n", minCIReports)
			}
			return nil
		},
	}
	bf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func signed(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%+.3f", *v)
}
