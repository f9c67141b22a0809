package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/llm"
)

func (a *app) judgeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "judge",
		Short: "Evaluate and calibrate judges on labelled claim–evidence pairs",
		Long: `judge measures how well a judge agrees with human labels, fits the
offline judge's thresholds, and estimates label rates with the judge's
error inside them from a sample of human reviews (judge estimate).

Label files are JSONL in any of four shapes, detected line by line:
{claim, evidence, label} (label: supported / partial / unsupported /
contradicted, synonyms, or a boolean), AttributionBench lines, WiCE
claim-level lines, and the SciFact layout (SciFact, Citation-Integrity):
{id, claim, evidence: {doc_id: [{sentences, label}]}, cited_doc_ids}, with
the documents in corpus.jsonl in the same folder as the claims file.
A SciFact-layout claim gives one pair per cited document; the judge reads
the whole document (title and every abstract sentence) as it would read a
source, and the labelled sentences are the rationale. Its labels map
SUPPORT → supported, REFUTE (or CONTRADICT) → contradicted, and
NOT_ENOUGH_INFO (empty evidence) → unsupported: the document does not back
the claim (unknown is kept for sources a judge cannot read). Such a set is
named after its folder ("citint").

A deterministic hash split halves every dataset: calibrate on --split
calib, report on --split test. A set with its own train and dev files is
better used whole: --whole FILE reads a file whatever --split says.`,
	}
	cmd.AddCommand(a.judgeEvalCmd(), a.judgeCalibrateCmd(), a.judgeEstimateCmd())
	return cmd
}

func (a *app) judgeEvalCmd() *cobra.Command {
	var f judgeEvalFlags
	cmd := &cobra.Command{
		Use:   "eval --labels FILE [--whole FILE] [--judge offline|MODEL] [--prompts claimtrace|reportbench] [--json]",
		Short: "Score a judge against labelled pairs",
		Long: `eval judges every labelled pair and prints accuracy, balanced accuracy,
macro-F1 and the confusion matrix, overall and per source dataset.

--judge offline (the default) is the lexical judge: no network, no key.
--judge MODEL (provider:model, or a name under [llm.models] in the config)
is an LLM judge: one call per evidence text with all its claims, evidence
quotes checked against the text. --judge minicheck:MODEL is
Bespoke-MiniCheck-7B served by an OpenAI-compatible server (vLLM, Ollama):
its own prompt, one claim per call, the probability of "Yes" from the
server's logprobs as the verdict's strength (docs/judges.md). --prompts reportbench runs the paper's
prompts instead (A.4.3 then A.4.4, two calls per pair), for parity
studies. Answers are cached in the store and every call is accounted:
a rerun costs nothing, and the calls, tokens and cost are printed.

Label files: see claimtrace judge --help (SciFact-layout sets such as
Citation-Integrity map SUPPORT → supported, REFUTE → contradicted,
NOT_ENOUGH_INFO → unsupported). Precision and recall of each predicted
label are printed, and for sets with annotated rationale sentences how
often the judge's evidence quote overlaps one.

Each dataset is scored in its own label space: contradicted counts as
unsupported where the gold labels do not separate them, and on binary
datasets (AttributionBench) partial counts as supported or unsupported as
the offline calibration says (LLM judges: unsupported). Unknown verdicts
always count as wrong. A judge error stops the evaluation; the answers
already paid for are in the cache.

--json prints {n, accuracy, balanced_accuracy, macro_f1, confusion, contradicted, by_source}
(contradicted: {said, right, precision, ci} of the contradicted verdicts as given),
and llm {calls, cache_hits, failed, input_tokens, output_tokens, cost_usd, …}
for LLM judges.`,
		Example: `  claimtrace judge eval --labels labels/wice/dev.jsonl --split test
  claimtrace judge eval --whole labels/citint/claims_dev.jsonl
  claimtrace judge eval --labels labels/wice/dev.jsonl --judge openai:gpt-4o-mini --json
  claimtrace judge eval --labels labels/wice/dev.jsonl --judge openai:gpt-4o --prompts reportbench
  OPENAI_BASE_URL=http://localhost:8000/v1 claimtrace judge eval --labels labels/wice/dev.jsonl \
    --judge minicheck:openai:bespokelabs/Bespoke-MiniCheck-7B`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runJudgeEval(cmd.Context(), f)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&f.files, "labels", nil, "label file (JSONL, AttributionBench, WiCE or SciFact layout); repeatable")
	fs.StringArrayVar(&f.whole, "whole", nil, "label file read whole, whatever --split says (a set's own dev split); repeatable")
	fs.StringVar(&f.spec, "judge", "offline", "judge to score: offline, a model (provider:model or a configured name), or minicheck:MODEL (Bespoke-MiniCheck on an OpenAI-compatible server)")
	fs.StringVar(&f.promptsMode, "prompts", judge.PromptsClaimtrace, "LLM judge prompts: claimtrace (batched, verified quotes) or reportbench (the paper's A.4, one pair per call)")
	fs.StringVar(&f.calPath, "calibration", "", calibrationHelp)
	fs.StringVar(&f.split, "split", "all", "which half of each dataset: calib, test or all")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	fs.StringVar(&f.verdicts, "verdicts", "", "also write every pair's verdict to this JSONL file")
	fs.StringVar(&f.storeDSN, "store", "", "store for the LLM response cache and call ledger (default: <data dir>/claimtrace.db)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "evidence texts judged at once (default: GOMAXPROCS offline, llm.concurrency or 8 for models)")
	cmd.MarkFlagsOneRequired("labels", "whole")
	return cmd
}

// judgeEvalFlags are the settings of judge eval.
type judgeEvalFlags struct {
	files, whole                                []string
	spec, promptsMode, calPath, split, verdicts string
	storeDSN                                    string
	asJSON                                      bool
	concurrency                                 int
}

// runJudgeEval scores the judge f.spec against the labelled pairs and
// prints the evaluation (with the model calls' totals for an LLM judge).
func (a *app) runJudgeEval(ctx context.Context, f judgeEvalFlags) error {
	pairs, sp, err := readLabelFiles(ctx, f.files, f.whole, f.split)
	if err != nil {
		return err
	}
	if err := checkJudgeFlags(f.spec, f.calPath, f.promptsMode); err != nil {
		return err
	}
	var run llmRun
	if f.spec != "offline" {
		st, err := a.openStore(ctx, f.storeDSN)
		if err != nil {
			return err
		}
		rc, err := a.runConfig(nil, false)
		if err != nil {
			return err
		}
		run = rc.llmRun("judge-eval", st.LLMCache(), st)
	}
	j, partialIsSupported, client, err := a.openJudge(ctx, f.spec, f.calPath, f.promptsMode, run)
	if err != nil {
		return err
	}
	opt := judge.EvalOptions{PartialIsSupported: partialIsSupported, Concurrency: f.concurrency}
	if opt.Concurrency <= 0 && client != nil {
		opt.Concurrency = cmp.Or(a.cfg.LLM.Concurrency, 8)
	}
	ev, outcomes, err := judge.Evaluate(ctx, j, pairs, opt)
	if err != nil {
		return err
	}
	out := judgeEvalOutput{Evaluation: ev}
	if client != nil {
		t := client.Totals()
		out.LLM = &t
	}
	if f.verdicts != "" {
		if err := writeOutcomes(f.verdicts, outcomes); err != nil {
			return err
		}
	}
	if f.asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	name := f.spec
	if f.promptsMode == judge.PromptsReportBench && f.spec != "offline" {
		name += " (reportbench prompts)"
	}
	if err := printEvaluation(a.stdout, ev, name, sp); err != nil {
		return err
	}
	if out.LLM != nil {
		printTotals(a.stdout, *out.LLM)
	}
	return nil
}

// judgeEvalOutput is the `judge eval --json` document: the evaluation's
// keys, and llm with the calls' totals for an LLM judge.
type judgeEvalOutput struct {
	judge.Evaluation
	LLM *llm.Totals `json:"llm,omitempty"`
}

func printTotals(w io.Writer, t llm.Totals) {
	fmt.Fprintf(w, "\nllm: %d calls (%d failed), %d cache hits; %d input tokens (%d cached), %d output tokens (%d reasoning); $%.4f\n",
		t.Calls, t.Failed, t.CacheHits, t.InputTokens, t.CachedTokens, t.OutputTokens, t.ReasoningTokens, t.Cost)
}

func (a *app) judgeCalibrateCmd() *cobra.Command {
	var cf calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate --labels FILE [--out FILE]",
		Short: "Fit the offline judge's weights and thresholds",
		Long: `calibrate grid-searches the offline judge's weights and thresholds to
maximize the mean over datasets of macro-F1 (or balanced accuracy) on the
chosen split, and writes the calibration as JSON (to --out, or stdout).
Load it with judge eval --calibration FILE. Fit on --split calib (the
default) and report on --split test; a set with its own train file is fit
whole with --whole FILE (label files: see claimtrace judge --help).

The contradiction threshold is not searched for the metric: it is the
lowest at which contradicted is right on at least 60% of the pairs it is
said of (--min-contradicted-precision), and is said of at least 10, gold
contradicted or, where a set does not separate them, unsupported; its
95% interval is printed and stored. --contradiction-labels FILE (read
whole) adds a set with refutations that chooses only that threshold, not
the weights and support thresholds, e.g. a set from another domain.`,
		Example: `  claimtrace judge calibrate --contradiction-labels labels/citint/claims_train.jsonl \
    --labels labels/attributionbench/dev.jsonl --labels labels/wice/dev.jsonl --split calib --out cal.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCalibrate(cmd.Context(), cf)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&cf.files, "labels", nil, "label file (JSONL, AttributionBench, WiCE or SciFact layout); repeatable")
	fs.StringArrayVar(&cf.whole, "whole", nil, "label file fitted whole, whatever --split says (a set's own train split); repeatable")
	fs.StringArrayVar(&cf.contra, "contradiction-labels", nil, "label file with refutations, read whole, that chooses only the contradiction threshold; repeatable")
	fs.Float64Var(&cf.minPrecision, "min-contradicted-precision", judge.DefaultMinContradictedPrecision, "precision of contradicted the contradiction threshold must reach")
	fs.StringVar(&cf.out, "out", "", "write the calibration here (default: stdout)")
	fs.StringVar(&cf.split, "split", "calib", "which half of each dataset to fit on: calib, test or all")
	fs.StringVar(&cf.metric, "metric", judge.MetricMacroF1, "metric to maximize: macro_f1 or balanced_accuracy")
	cmd.MarkFlagsOneRequired("labels", "whole")
	return cmd
}

// calibrateFlags are the settings of judge calibrate.
type calibrateFlags struct {
	files, whole, contra []string
	minPrecision         float64
	out, split, metric   string
}

// runCalibrate fits the offline judge on the labelled pairs and writes
// the calibration to cf.out or stdout.
func (a *app) runCalibrate(ctx context.Context, cf calibrateFlags) error {
	pairs, sp, err := readLabelFiles(ctx, cf.files, append(slices.Clone(cf.whole), cf.contra...), cf.split)
	if err != nil {
		return err
	}
	var only []string
	for _, f := range cf.contra {
		ps, err := labels.ReadFileContext(ctx, f)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if !slices.Contains(only, p.Dataset) {
				only = append(only, p.Dataset)
			}
		}
	}
	cal, err := judge.Calibrate(ctx, pairs, judge.CalibrateOptions{Metric: cf.metric, ContradictionOnly: only, MinContradictedPrecision: cf.minPrecision})
	if err != nil {
		return err
	}
	cal.Fit.Split = string(sp)
	cal.Fit.Labels = cf.files
	cal.Fit.Whole = cf.whole
	cal.Fit.ContradictionLabels = cf.contra
	cal.Fit.Command = calibrateCommand(cf.files, cf.whole, cf.contra, sp, cal.Fit.Metric)
	data, err := cal.Marshal()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "calibrated on %d pairs (%s split): %s %.4f over %d grid points\n",
		len(pairs), sp, cal.Fit.Metric, cal.Fit.Objective, cal.Fit.Grid)
	if c := cal.Fit.Contradicted; c != nil && c.CI != nil {
		fmt.Fprintf(a.stderr, "contradiction threshold %.2f: contradicted right on %d of %d calibration pairs (95%% CI %.2f–%.2f)\n",
			cal.Contradiction, c.Correct, c.Predicted, c.CI[0], c.CI[1])
	}
	if cf.out == "" {
		_, err := a.stdout.Write(data)
		return err
	}
	if err := os.WriteFile(cf.out, data, 0o644); err != nil {
		return fmt.Errorf("write calibration: %w", err)
	}
	return nil
}

func calibrateCommand(files, whole, contra []string, sp labels.Split, metric string) string {
	var b strings.Builder
	b.WriteString("claimtrace judge calibrate")
	for _, f := range contra {
		b.WriteString(" --contradiction-labels " + f)
	}
	for _, f := range whole {
		b.WriteString(" --whole " + f)
	}
	for _, f := range files {
		b.WriteString(" --labels " + f)
	}
	fmt.Fprintf(&b, " --split %s --metric %s", sp, metric)
	return b.String()
}

// readLabelFiles reads and concatenates label files: whole files entire,
// the others keeping the split.
func readLabelFiles(ctx context.Context, files, whole []string, split string) ([]labels.Pair, labels.Split, error) {
	sp, err := labels.ParseSplit(split)
	if err != nil {
		return nil, "", err
	}
	var all []labels.Pair
	for _, f := range whole {
		ps, err := labels.ReadFileContext(ctx, f)
		if err != nil {
			return nil, "", err
		}
		all = append(all, ps...)
	}
	for _, f := range files {
		ps, err := labels.ReadFileContext(ctx, f)
		if err != nil {
			return nil, "", err
		}
		all = append(all, labels.Filter(ps, sp)...)
	}
	if len(all) == 0 {
		return nil, "", fmt.Errorf("no labelled pairs in %s (split %s): %w", strings.Join(append(whole, files...), ", "), sp, claimtrace.ErrInvalid)
	}
	return all, sp, nil
}

// calibrationHelp is the --calibration flag's help wherever it is taken.
const calibrationHelp = "offline judge calibration: built-in default (web claims against their pages), built-in citing (biomedical citing sentences against cited abstracts), or a file written by judge calibrate"

// newJudge builds the offline judge and says how it maps partial on
// binary datasets. Model judges need a client: see openJudge.
func newJudge(spec, calPath string) (judge.SourceJudge, bool, error) {
	if spec != "offline" {
		return nil, false, fmt.Errorf("judge %q: this command takes only --judge offline so far (claimtrace judge eval takes model judges): %w", spec, claimtrace.ErrInvalid)
	}
	cal, err := judge.OpenCalibration(calPath)
	if err != nil {
		return nil, false, err
	}
	j, err := judge.NewOffline(cal)
	if err != nil {
		return nil, false, err
	}
	return j, cal.PartialIsSupported, nil
}

// openJudge builds the judge named by spec: the offline judge, or a model
// judge (spec a model spec or configured name) with our batched prompts
// or, with promptsMode reportbench, the paper's. It says how the judge
// maps partial on binary datasets, and returns the model client (nil for
// the offline judge) whose Totals account for the calls.
func (a *app) openJudge(ctx context.Context, spec, calPath, promptsMode string, run llmRun) (judge.SourceJudge, bool, *llm.Client, error) {
	if err := checkJudgeFlags(spec, calPath, promptsMode); err != nil {
		return nil, false, nil, err
	}
	if spec == "offline" {
		j, partial, err := newJudge(spec, calPath)
		return j, partial, nil, err
	}
	if model, ok := miniCheckModel(spec); ok {
		c, err := a.openLLM(ctx, model, run)
		if err != nil {
			return nil, false, nil, err
		}
		j, err := judge.NewMiniCheck(c, judge.MiniCheckOptions{})
		return j, false, c, err
	}
	c, err := a.openLLM(ctx, spec, run)
	if err != nil {
		return nil, false, nil, err
	}
	if promptsMode == judge.PromptsReportBench {
		j, err := judge.NewReportBenchJudge(c)
		return j, false, c, err
	}
	var opt judge.LLMJudgeOptions
	if _, o, err := a.cfg.endpoint(spec); err == nil && o.Temperature != nil {
		opt.Temperature = o.Temperature // a configured temperature wins over the judge's 0
	}
	j, err := judge.NewLLMJudge(c, opt)
	return j, false, c, err
}

// miniCheckModel reads a MiniCheck judge spec, "minicheck:MODEL": MODEL
// is the model spec or configured name of the OpenAI-compatible server
// serving Bespoke-MiniCheck (vLLM, Ollama).
func miniCheckModel(spec string) (string, bool) {
	return strings.CutPrefix(spec, "minicheck:")
}

// checkJudgeFlags rejects judge flag combinations that cannot work,
// before anything is opened.
func checkJudgeFlags(spec, calPath, promptsMode string) error {
	switch promptsMode {
	case judge.PromptsClaimtrace, judge.PromptsReportBench:
	default:
		return fmt.Errorf("prompts %q: want %s or %s: %w", promptsMode, judge.PromptsClaimtrace, judge.PromptsReportBench, claimtrace.ErrInvalid)
	}
	if model, ok := miniCheckModel(spec); ok {
		switch {
		case model == "":
			return fmt.Errorf("judge %q: want minicheck:MODEL, MODEL a provider:model or a configured name (minicheck:openai:bespoke-minicheck): %w", spec, claimtrace.ErrInvalid)
		case promptsMode != judge.PromptsClaimtrace:
			return fmt.Errorf("--prompts %s: MiniCheck has its own prompt: %w", promptsMode, claimtrace.ErrInvalid)
		}
	}
	switch {
	case spec == "offline" && promptsMode != judge.PromptsClaimtrace:
		return fmt.Errorf("--prompts %s needs a model judge (--judge provider:model): %w", promptsMode, claimtrace.ErrInvalid)
	case spec != "offline" && calPath != "":
		return fmt.Errorf("--calibration applies to the offline judge, not %s: %w", spec, claimtrace.ErrInvalid)
	}
	return nil
}

func writeOutcomes(path string, outcomes []judge.Outcome) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("verdicts: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, o := range outcomes {
		rec := struct {
			Dataset   string             `json:"dataset"`
			ID        string             `json:"id"`
			Line      int                `json:"line"`
			Claim     string             `json:"claim"`
			Gold      claimtrace.Label   `json:"gold"`
			Predicted claimtrace.Label   `json:"predicted"`
			Verdict   claimtrace.Verdict `json:"verdict"`
		}{o.Pair.Dataset, o.Pair.ID, o.Pair.Line, o.Pair.Claim, o.Pair.Label, o.Predicted, o.Verdict}
		if err := enc.Encode(rec); err != nil {
			f.Close()
			return fmt.Errorf("verdicts %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("verdicts %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("verdicts %s: %w", path, err)
	}
	return nil
}

var printedLabels = []claimtrace.Label{claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown}

func printEvaluation(w io.Writer, ev judge.Evaluation, spec string, sp labels.Split) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "judge %s · split %s · %d pairs\n\n", spec, sp, ev.N)
	fmt.Fprintln(tw, "source\tn\taccuracy\tbalanced acc.\tmacro-F1\t")
	row := func(name string, s judge.Scores) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t\n", name, s.N, s.Accuracy, s.BalancedAccuracy, s.MacroF1)
	}
	row("all", ev.Scores)
	for _, name := range ev.SourceNames() {
		row(name, ev.BySource[name])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printConfusion(w, "all", ev.Confusion)
	printClasses(w, "all", ev.Scores)
	var datasets []string
	for _, name := range ev.SourceNames() {
		if !strings.Contains(name, "/") {
			datasets = append(datasets, name)
		}
	}
	if len(datasets) > 1 {
		for _, name := range datasets {
			printConfusion(w, name, ev.BySource[name].Confusion)
			printClasses(w, name, ev.BySource[name])
		}
	}
	return nil
}

// printClasses prints each predicted label's precision and recall, and
// how often the evidence quote falls in an annotated rationale.
func printClasses(w io.Writer, name string, s judge.Scores) {
	for _, l := range printedLabels {
		c := s.Class(l)
		if c.Gold == 0 && c.Predicted == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s: precision %.3f (%d/%d predicted), recall %.3f (%d/%d gold)\n",
			name, l, c.Precision, c.Correct, c.Predicted, c.Recall, c.Correct, c.Gold)
	}
	if c := s.Contradicted; c != nil {
		fmt.Fprintf(w, "%s contradicted verdicts right %d of %d (%.3f, 95%% CI %.2f–%.2f; right: gold contradicted, or unsupported where the set does not separate them)\n",
			name, c.Right, c.Said, c.Precision, c.CI[0], c.CI[1])
	}
	if r := s.Rationale; r != nil {
		fmt.Fprintf(w, "%s rationale: %d of %d quotes overlap an annotated rationale sentence (%.3f; %d pairs with one)\n",
			name, r.Hits, r.Quoted, r.Rate, r.Pairs)
	}
}

func printConfusion(w io.Writer, name string, c judge.Confusion) {
	fmt.Fprintf(w, "\nconfusion, %s (rows gold, columns predicted):\n", name)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	var cols []claimtrace.Label
	for _, l := range printedLabels {
		for _, row := range c {
			if row[l] > 0 {
				cols = append(cols, l)
				break
			}
		}
	}
	fmt.Fprint(tw, "\t")
	for _, l := range cols {
		fmt.Fprintf(tw, "%s\t", l)
	}
	fmt.Fprintln(tw)
	for _, gold := range printedLabels {
		row, ok := c[gold]
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t", gold)
		for _, l := range cols {
			fmt.Fprintf(tw, "%d\t", row[l])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
