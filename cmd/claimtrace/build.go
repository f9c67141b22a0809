package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/tarx"
	"github.com/claimtrace/claimtrace/internal/llm"
)

// buildFlags are shared by the build subcommands.
type buildFlags struct {
	dir   string
	llm   bool
	model string

	// select
	spec          arxivsnap.FilterSpec
	skipMalformed bool
	workers       int

	// sources
	arxivBase string
	interval  time.Duration
	limits    tarx.Limits
	maxBytes  int64

	// refs
	minRefs int

	// sample
	sample construct.SampleOptions
}

func (f *buildFlags) addFilter(fs *pflag.FlagSet) {
	def := arxivsnap.DefaultSpec()
	fs.StringVar(&f.spec.Since, "since", def.Since, "keep records whose first version is on or after this day (YYYY-MM-DD; empty: no limit)")
	fs.StringVar(&f.spec.Until, "until", "", "keep records whose first version is before this day (YYYY-MM-DD)")
	fs.StringVar(&f.spec.Title, "title", def.Title, "regular expression the title must match (empty: any)")
	fs.StringVar(&f.spec.Comments, "comments", def.Comments, "regular expression the comments must match (empty: any)")
	fs.StringSliceVar(&f.spec.Licenses, "license", def.Licenses, "allowed licence URL; repeatable (empty: any)")
	fs.StringSliceVar(&f.spec.Categories, "category", nil, "keep records in this category (cs.CL) or archive (cs); repeatable")
	fs.BoolVar(&f.skipMalformed, "skip-malformed", false, "count and skip lines that are not JSON objects instead of failing")
	fs.IntVar(&f.workers, "workers", 0, "scanning goroutines (default: number of CPUs)")
}

func (f *buildFlags) addSources(fs *pflag.FlagSet) {
	fs.StringVar(&f.arxivBase, "arxiv-base", construct.DefaultArXivBase, "e-print base URL; the arXiv id is appended")
	fs.DurationVar(&f.interval, "interval", 3*time.Second, "minimum time between downloads (arXiv asks bulk clients for 3s)")
	fs.Int64Var(&f.maxBytes, "max-download-bytes", 256<<20, "largest e-print downloaded")
	fs.IntVar(&f.limits.MaxEntries, "max-entries", 5000, "most entries (files, folders, links) read from one e-print")
	fs.IntVar(&f.limits.MaxEntries, "max-files", 5000, "")
	fs.MarkDeprecated("max-files", "use --max-entries: folders and links count too")
	fs.Int64Var(&f.limits.MaxFileBytes, "max-file-bytes", 64<<20, "largest file extracted from an e-print")
	fs.Int64Var(&f.limits.MaxTotalBytes, "max-total-bytes", 512<<20, "most bytes written to disk for one e-print (file data, 4 KiB a folder)")
}

func (f *buildFlags) addSample(fs *pflag.FlagSet) {
	fs.IntVar(&f.sample.PerDomain, "per-domain", 10, "tasks drawn from each of the ten domains")
	fs.Uint64Var(&f.sample.Seed, "seed", 42, "seed of the PCG generator (math/rand/v2)")
	fs.BoolVar(&f.sample.WithRules, "with-rules", false, "append the rules block (no self-citation, English survey) to each prompt; the release keeps it out")
}

func (f *buildFlags) addLLM(fs *pflag.FlagSet) {
	fs.BoolVar(&f.llm, "llm", false, "use a language model instead of the offline rules and templates")
	fs.StringVar(&f.model, "model", "", "model for --llm: provider:model or a configured name (default: llm.model in the config)")
}

// builder wires a construct.Builder from flags and configuration.
func (a *app) builder(ctx context.Context, f *buildFlags) (*construct.Builder, error) {
	cfg := a.cfg
	timeout := time.Duration(cfg.Fetch.TimeoutSecs) * time.Second
	if timeout < 2*time.Minute {
		timeout = 2 * time.Minute // e-prints are large
	}
	b := &construct.Builder{
		Dir:         f.dir,
		Downloader:  a.eprintDownloader(f.arxivBase, timeout, f.interval, f.maxBytes),
		ArXivBase:   f.arxivBase,
		Limits:      f.limits,
		Concurrency: cfg.Concurrency,
		MinRefs:     f.minRefs,
	}
	if f.llm {
		st, err := a.openStore(ctx, "")
		if err != nil {
			return nil, err
		}
		rc, err := a.runConfig(nil, false)
		if err != nil {
			return nil, err
		}
		c, err := a.openLLM(ctx, f.model, rc.llmRun("build", st.LLMCache(), st))
		if err != nil {
			return nil, err
		}
		comp := llmCompleter{c}
		b.Classifier = &construct.LLMClassifier{Completer: comp}
		b.Prompter = &construct.LLMPrompter{Completer: comp}
		b.DomainClassifier = &construct.LLMDomains{Completer: comp}
	}
	return b, nil
}

// llmCompleter adapts an LLM client to the build stages' Completer: a JSON
// answer decoded strictly, malformed answers re-asked, then an error.
type llmCompleter struct{ c *llm.Client }

func (l llmCompleter) CompleteJSON(ctx context.Context, stage, prompt string, out any) error {
	_, err := l.c.GenerateJSON(ctx, llm.Request{Stage: stage, Messages: []llm.Message{llm.UserMessage(prompt)}}, out)
	return err
}

// printReport prints one line per stage: what it counted and where it wrote.
func (a *app) printReport(rep *construct.Report) {
	m := rep.Manifest
	if rep.Skipped {
		fmt.Fprintf(a.stdout, "%-9s up to date (%s)\n", rep.Stage, m.Output)
		return
	}
	keys := make([]string, 0, len(m.Counts))
	for k := range m.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m.Counts[k]))
	}
	fmt.Fprintf(a.stdout, "%-9s %s → %s\n", rep.Stage, strings.Join(parts, ", "), m.Output)
}

// stageBar returns a progress bar for a build stage, or nil unless stderr
// is a terminal (a.progress decides). Select counts bytes of its input;
// a total of 0 (a stream of unknown size) shows a spinner and the count.
func (a *app) stageBar(stage string, total int64) *progressbar.ProgressBar {
	n := int(total)
	if total <= 0 {
		n = 2 // unknown: a.progress still decides whether to draw
	}
	bar := a.progress(n, stage)
	if bar == nil {
		return nil
	}
	if stage == construct.StageSelect {
		progressbar.OptionShowBytes(true)(bar)
	}
	if total <= 0 {
		bar.ChangeMax64(-1)
	}
	return bar
}

// stageProgress shows the build stages' advance on stderr, one bar per
// stage in turn. Its report method is a construct.Builder Progress callback
// (the Builder serializes the calls).
type stageProgress struct {
	a     *app
	stage string
	bar   *progressbar.ProgressBar
}

func (p *stageProgress) report(stage string, done, total int64) {
	if stage != p.stage {
		p.clear()
		p.stage, p.bar = stage, p.a.stageBar(stage, total)
	}
	if p.bar != nil {
		p.bar.Set64(done)
	}
}

// clear removes the current bar, so that a stage's summary line is not
// drawn over.
func (p *stageProgress) clear() {
	if p.bar != nil {
		p.bar.Finish()
	}
	p.stage, p.bar = "", nil
}

// runStage runs one pipeline stage of b with a progress bar and prints
// its report.
func (a *app) runStage(b *construct.Builder, run func() (*construct.Report, error)) error {
	bars := &stageProgress{a: a}
	b.Progress = bars.report
	rep, err := run()
	bars.clear()
	if err != nil {
		return err
	}
	a.printReport(rep)
	return nil
}

func (a *app) buildCmd() *cobra.Command {
	f := &buildFlags{}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build a ReportBench-format dataset from the arXiv snapshot and LaTeX sources",
		Long: `Build a benchmark the way ReportBench did (paper §2.1), one resumable stage
at a time, into DIR (--dir): DIR/ReportBench_v1.1.jsonl and
DIR/ReportBench_v1.1_GT/<arxiv_id>.jsonl in the released format; stage outputs,
journals and manifests in DIR/build.

  select    stream the arXiv metadata snapshot, keep recent peer-reviewed surveys
  classify  is it a literature survey? (offline rules)
  sources   download and safely extract each survey's e-print
  refs      the references cited in the LaTeX source (the ground truth)
  prompts   three prompts per survey with the cutoff month (offline templates)
  domains   one of ten application domains (offline category rules)
  sample    stratified, seeded draw: --per-domain 10 --seed 42
  all       every stage in order; rerun it to continue where it stopped`,
		Example: `  claimtrace build all --snapshot arxiv-metadata-oai-snapshot.json.gz --dir mybench
  claimtrace build select --snapshot arxiv-metadata-oai-snapshot.json --out surveys.jsonl
  claimtrace build refs --src paper-source/`,
	}
	cmd.PersistentFlags().StringVar(&f.dir, "dir", "reportbench-build", "dataset folder the stages read and write")
	cmd.AddCommand(a.buildSelectCmd(f), a.buildClassifyCmd(f), a.buildSourcesCmd(f), a.buildRefsCmd(f),
		a.buildPromptsCmd(f), a.buildDomainsCmd(f), a.buildSampleCmd(f), a.buildAllCmd(f))
	return cmd
}

func (a *app) buildSelectCmd(f *buildFlags) *cobra.Command {
	var snapshot, out string
	cmd := &cobra.Command{
		Use:   "select --snapshot FILE [--out FILE]",
		Short: "Keep the snapshot records that pass the survey filters, unchanged",
		Long: `Stream the arXiv metadata snapshot (Kaggle format: one JSON object a line;
.json, .gz, or - for stdin) and write the records that pass every filter,
unchanged and in order, to --out or stdout. Counts go to stderr.

Defaults are the paper's: first version on or after 2020-01-01, "survey" or
"review" in the title, "publish" or "accept" in the comments (this keeps all 100
released tasks; the literal "published|accepted" keeps 96), and a permissive
licence (CC BY 4.0, CC BY-SA 4.0, CC0 1.0, arXiv non-exclusive).

With --dir set explicitly, select runs as the first pipeline stage and writes
DIR/build/select.jsonl and its manifest instead.`,
		Example: "  claimtrace build select --snapshot arxiv-metadata-oai-snapshot.json --out surveys.jsonl\n" +
			"  zcat snapshot.json.gz | claimtrace build select --snapshot - --category cs",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("dir") {
				return a.runSelectStage(cmd.Context(), f, snapshot, out)
			}
			return a.runSelect(cmd.Context(), f, snapshot, out)
		},
	}
	cmd.Flags().StringVar(&snapshot, "snapshot", "", "snapshot file (.json or .gz), or - for stdin")
	cmd.Flags().StringVar(&out, "out", "", "output file (default: stdout); a manifest is written beside it")
	f.addFilter(cmd.Flags())
	cmd.MarkFlagRequired("snapshot")
	return cmd
}

// runSelectStage runs select as the first stage of the build folder
// --dir: DIR/build/select.jsonl and its manifest.
func (a *app) runSelectStage(ctx context.Context, f *buildFlags, snapshot, out string) error {
	if out != "" {
		return errors.New("select: give --out or --dir, not both")
	}
	if snapshot == "-" {
		return errors.New("select: the pipeline stage needs a snapshot file, not stdin")
	}
	b, err := a.builder(ctx, f)
	if err != nil {
		return err
	}
	return a.runStage(b, func() (*construct.Report, error) {
		return b.Select(ctx, construct.SelectOptions{Snapshot: snapshot, Filter: f.spec,
			Scan: arxivsnap.Options{SkipMalformed: f.skipMalformed, Workers: f.workers}})
	})
}

// runSelect streams the snapshot (a file, or stdin for "-") through the
// filters into out (stdout when empty, and then no manifest) and prints
// the counts to stderr.
func (a *app) runSelect(ctx context.Context, f *buildFlags, snapshot, out string) error {
	filter, err := f.spec.Compile()
	if err != nil {
		return err
	}
	src, name, size := a.stdin, "stdin", int64(0)
	if snapshot != "-" {
		file, err := construct.OpenInput(ctx, snapshot)
		if err != nil {
			return fmt.Errorf("open snapshot: %w", err)
		}
		defer file.Close()
		// A named pipe whose writer is silent: closing ends the read.
		defer context.AfterFunc(ctx, func() { file.Close() })()
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		src, name = file, snapshot
	}
	// The bar counts the bytes read before decompression: a .gz
	// file advances against its size on disk, stdin has no total.
	bar := a.stageBar(construct.StageSelect, size)
	if bar != nil {
		src = construct.NewProgressReader(src, size, func(done, _ int64) { bar.Set64(done) })
	}
	in, err := arxivsnap.NewReader(src, name)
	if err != nil {
		return cmp.Or(ctx.Err(), err)
	}
	var w io.Writer = a.stdout
	var outFile *os.File
	if out != "" {
		if outFile, err = os.Create(out); err != nil {
			return fmt.Errorf("select: %w", err)
		}
		defer outFile.Close()
		w = outFile
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	start := time.Now()
	st, err := arxivsnap.Select(ctx, in, bw, filter, arxivsnap.Options{Name: name, SkipMalformed: f.skipMalformed, Workers: f.workers})
	if bar != nil {
		bar.Finish()
	}
	if err == nil {
		err = bw.Flush()
	}
	if outFile != nil {
		if cerr := outFile.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return cmp.Or(ctx.Err(), err)
	}
	elapsed := time.Since(start)
	if out != "" {
		if err := construct.WriteSelectManifest(out, snapshot, f.spec, st, start, elapsed); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stderr, "select: %d records, kept %d, dropped %v, malformed %d; %.1f MB in %s (%.0f MB/s)\n",
		st.Records, st.Kept, st.Dropped, st.Malformed, float64(st.Bytes)/1e6, elapsed.Round(time.Millisecond),
		float64(st.Bytes)/1e6/max(elapsed.Seconds(), 1e-9))
	return nil
}

// stageCmd builds a pipeline-stage command that takes no arguments.
func (a *app) stageCmd(f *buildFlags, use, short, long string, run func(cmd *cobra.Command, b *construct.Builder) (*construct.Report, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := a.builder(cmd.Context(), f)
			if err != nil {
				return err
			}
			return a.runStage(b, func() (*construct.Report, error) { return run(cmd, b) })
		},
	}
}

func (a *app) buildClassifyCmd(f *buildFlags) *cobra.Command {
	cmd := a.stageCmd(f, "classify", "Decide which selected papers are literature surveys",
		`Classify every selected record as a literature survey or not, from its title and
abstract, with a transparent rule set (each decision lists the rules that fired):
it removes astronomical sky surveys, questionnaire studies, peer and code review.
Decisions are recorded one by one in DIR/build/classify.jsonl; a rerun continues.`,
		func(cmd *cobra.Command, b *construct.Builder) (*construct.Report, error) {
			return b.Classify(cmd.Context())
		})
	f.addLLM(cmd.Flags())
	return cmd
}

func (a *app) buildSourcesCmd(f *buildFlags) *cobra.Command {
	cmd := a.stageCmd(f, "sources", "Download and safely extract each survey's arXiv e-print",
		`Download each survey's e-print (--arxiv-base + id) and extract it into
DIR/build/sources/<id> (an old-form id's slash becomes "_": hep-th_9901001):
a gzip'd tar or a single gzip'd .tex; a PDF is recorded as "no source". A record
whose id is not an arXiv id fails without a download. Extraction refuses absolute
paths, ".." and links, and caps the entries (files, folders, links), each file
and the bytes on disk (tar, gzip and folder bombs stop with an error). Failed
papers are retried on the next run.`,
		func(cmd *cobra.Command, b *construct.Builder) (*construct.Report, error) {
			return b.Sources(cmd.Context())
		})
	f.addSources(cmd.Flags())
	return cmd
}

func (a *app) buildRefsCmd(f *buildFlags) *cobra.Command {
	var src, main string
	cmd := &cobra.Command{
		Use:   "refs [--src DIR [--main FILE]]",
		Short: "Extract the references cited in a survey's LaTeX source",
		Long: `With --src, print the ground truth of one LaTeX source tree as JSONL in the
released format (bib_id, title, author, meta_info): the main file (found by
\documentclass unless --main names it), \input/\include/\subfile expanded,
comments stripped, every cite command collected (\nocite excluded), keys
resolved in the \bibliography/\addbibresource databases, falling back to the
.bbl or thebibliography. A summary goes to stderr.

Without --src, run the pipeline stage over DIR/build/sources.`,
		Example: "  claimtrace build refs --src paper-source/\n  claimtrace build refs --dir mybench",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if src == "" {
				b, err := a.builder(cmd.Context(), f)
				if err != nil {
					return err
				}
				return a.runStage(b, func() (*construct.Report, error) { return b.Refs(cmd.Context()) })
			}
			res, err := construct.ExtractRefs(cmd.Context(), src, construct.RefsOptions{Main: main})
			if err != nil {
				return err
			}
			bw := bufio.NewWriter(a.stdout)
			if err := construct.WriteRefs(bw, res.Refs); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "refs: %s: %d cited keys, %d references (%s), %d missing\n", res.Main, res.Cited, len(res.Refs), res.Source, len(res.Missing))
			for _, k := range res.Missing {
				fmt.Fprintf(a.stderr, "  missing: %s\n", k)
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(a.stderr, "  warning: %s\n", w)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&src, "src", "", "LaTeX source folder of one survey")
	cmd.Flags().StringVar(&main, "main", "", "main .tex file relative to --src (default: found by \\documentclass)")
	cmd.Flags().IntVar(&f.minRefs, "min-refs", 5, "pipeline: fewest references a survey needs to become a task")
	return cmd
}

func (a *app) buildPromptsCmd(f *buildFlags) *cobra.Command {
	cmd := a.stageCmd(f, "prompts", "Write the sentence, paragraph and detail prompts of each survey",
		`Write three prompts per survey with a ground truth (reverse prompt engineering,
paper §2.1.2), each with the cutoff month of the survey's last version ("Ensure
only papers published before April 2025 are referenced."), plus the rules block
(no citing the survey itself; an English survey with citations). Offline, the
prompts are filled templates.`,
		func(cmd *cobra.Command, b *construct.Builder) (*construct.Report, error) {
			return b.Prompts(cmd.Context())
		})
	f.addLLM(cmd.Flags())
	return cmd
}

func (a *app) buildDomainsCmd(f *buildFlags) *cobra.Command {
	cmd := a.stageCmd(f, "domains", "Assign each survey one of the ten application domains",
		`Assign each survey with a ground truth one of the ten application domains of
paper §2.1.3 (or Unknown Category). Offline: application words in title and
abstract first, the arXiv categories otherwise.`,
		func(cmd *cobra.Command, b *construct.Builder) (*construct.Report, error) {
			return b.Domains(cmd.Context())
		})
	f.addLLM(cmd.Flags())
	return cmd
}

func (a *app) buildSampleCmd(f *buildFlags) *cobra.Command {
	cmd := a.stageCmd(f, "sample", "Draw the tasks: stratified by domain, seeded, one prompt level each",
		`Draw --per-domain surveys from each of the ten domains and one prompt level for
each, deterministically (math/rand/v2 PCG seeded with --seed), and write
DIR/ReportBench_v1.1.jsonl and DIR/ReportBench_v1.1_GT/ in the released format.`,
		func(cmd *cobra.Command, b *construct.Builder) (*construct.Report, error) {
			return b.Sample(cmd.Context(), f.sample)
		})
	f.addSample(cmd.Flags())
	return cmd
}

func (a *app) buildAllCmd(f *buildFlags) *cobra.Command {
	var snapshot, from string
	cmd := &cobra.Command{
		Use:   "all --snapshot FILE",
		Short: "Run every stage in order; rerun to continue where it stopped",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := a.builder(cmd.Context(), f)
			if err != nil {
				return err
			}
			bars := &stageProgress{a: a}
			b.Progress = bars.report
			err = b.All(cmd.Context(), construct.AllOptions{
				Select: construct.SelectOptions{Snapshot: snapshot, Filter: f.spec,
					Scan: arxivsnap.Options{SkipMalformed: f.skipMalformed, Workers: f.workers}},
				Sample: f.sample,
				From:   from,
			}, func(rep *construct.Report) {
				bars.clear()
				a.printReport(rep)
			})
			bars.clear()
			return err
		},
	}
	cmd.Flags().StringVar(&snapshot, "snapshot", "", "arXiv metadata snapshot (.json or .gz)")
	cmd.Flags().StringVar(&from, "from", "", "start at this stage (the earlier ones must be done)")
	cmd.Flags().IntVar(&f.minRefs, "min-refs", 5, "fewest references a survey needs to become a task")
	f.addFilter(cmd.Flags())
	f.addSources(cmd.Flags())
	f.addSample(cmd.Flags())
	f.addLLM(cmd.Flags())
	return cmd
}
