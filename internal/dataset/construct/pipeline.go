package construct

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/latex"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/tarx"
)

// Stage names, in pipeline order.
const (
	StageSelect   = "select"
	StageClassify = "classify"
	StageSources  = "sources"
	StageRefs     = "refs"
	StagePrompts  = "prompts"
	StageDomains  = "domains"
	StageSample   = "sample"
)

// Stages lists the stages in the order Builder.All runs them.
var Stages = []string{StageSelect, StageClassify, StageSources, StageRefs, StagePrompts, StageDomains, StageSample}

// Released file names.
const (
	TaskFile = "ReportBench_v1.1.jsonl"
	GTDir    = "ReportBench_v1.1_GT"
)

// Builder runs the construction stages in one dataset folder. The final
// dataset (TaskFile and GTDir) is written to Dir in the released layout;
// stage outputs, journals and manifests go to Dir/build. Every stage
// records each finished paper at once and skips finished papers when run
// again; failed papers are retried.
type Builder struct {
	// Dir is the dataset folder.
	Dir string
	// Classifier, Prompter and DomainClassifier default to the offline
	// rules, templates and category rules.
	Classifier       SurveyClassifier
	Prompter         Prompter
	DomainClassifier DomainClassifier
	// Downloader fetches e-prints from ArXivBase + id (default
	// DefaultArXivBase). Required by the sources stage.
	Downloader Downloader
	ArXivBase  string
	// Limits caps e-print extraction.
	Limits tarx.Limits
	// Concurrency bounds parallel papers (default 4).
	Concurrency int
	// MinRefs is the fewest ground-truth references a survey needs to
	// become a task (default 5, the smallest released list).
	MinRefs int
	// Tool names the program in manifests ("claimtrace build v0.1").
	Tool string
	// Now returns the time for manifests (default time.Now).
	Now func() time.Time
	// Progress, if set, is told how far the running stage is: done of
	// total units. The units are bytes of the snapshot file for select
	// (compressed bytes for a .gz; reported every 4 MiB), tasks drawn for
	// sample, and papers for the other stages, where papers finished by an
	// earlier run count as done from the first call. Calls are serialized, so Progress need
	// not be safe for concurrent use, but it runs on the stage's workers
	// and should return quickly. Within a stage done never decreases and
	// never exceeds total; a stage that completes ends with done == total,
	// and all its calls happen before the stage method returns. A stage
	// that is up to date or has nothing to do reports nothing.
	Progress func(stage string, done, total int64)
}

func (b *Builder) path(parts ...string) string {
	return filepath.Join(append([]string{b.Dir, "build"}, parts...)...)
}

func (b *Builder) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Builder) tool() string {
	if b.Tool != "" {
		return b.Tool
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return "claimtrace " + bi.Main.Version
	}
	return "claimtrace"
}

func (b *Builder) concurrency() int {
	if b.Concurrency > 0 {
		return b.Concurrency
	}
	return 4
}

func (b *Builder) minRefs() int {
	if b.MinRefs > 0 {
		return b.MinRefs
	}
	return 5
}

// Report says what a stage did.
type Report struct {
	Stage string
	// Skipped is true when the stage was already complete for the same
	// inputs and parameters.
	Skipped  bool
	Manifest *Manifest
}

// SelectOptions configures the select stage.
type SelectOptions struct {
	// Snapshot is the snapshot file (.json or .gz).
	Snapshot string
	Filter   arxivsnap.FilterSpec
	Scan     arxivsnap.Options
}

// Select filters the snapshot into Dir/build/select.jsonl.
func (b *Builder) Select(ctx context.Context, opt SelectOptions) (*Report, error) {
	if opt.Snapshot == "" {
		return nil, errors.New("select: no snapshot file given")
	}
	f, err := opt.Filter.Compile()
	if err != nil {
		return nil, err
	}
	in, err := describeInput(opt.Snapshot)
	if err != nil {
		return nil, err
	}
	in.SHA256 = "" // a multi-GB snapshot is identified by size and time
	params := map[string]string{
		"since": opt.Filter.Since, "until": opt.Filter.Until, "title": opt.Filter.Title,
		"comments": opt.Filter.Comments, "licenses": strings.Join(opt.Filter.Licenses, " "),
		"categories": strings.Join(opt.Filter.Categories, " "),
	}
	mpath := b.path(StageSelect + ".manifest.json")
	old, err := readManifest(mpath)
	if err != nil {
		return nil, err
	}
	if sameRun(old, []Input{in}, params) {
		return &Report{Stage: StageSelect, Skipped: true, Manifest: old}, nil
	}
	m := newManifest(StageSelect, b.tool(), b.now())
	m.Inputs, m.Params, m.Output = []Input{in}, params, "build/select.jsonl"
	file, err := OpenInput(ctx, opt.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	defer file.Close()
	// A read from a pipe whose writer is silent waits too: closing the
	// file ends it.
	defer context.AfterFunc(ctx, func() { file.Close() })()
	var src io.Reader = file
	prog := b.progress(StageSelect, in.Bytes)
	if prog != nil {
		// Count the bytes of the file, under the decompressor: a .gz
		// snapshot advances against its size on disk.
		src = NewProgressReader(file, in.Bytes, func(done, _ int64) { prog.set(done) })
		prog.set(0)
	}
	r, err := arxivsnap.NewReader(src, opt.Snapshot)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	out := b.path("select.jsonl")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".tmp-select-*")
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	scan := opt.Scan
	if scan.Name == "" {
		scan.Name = opt.Snapshot
	}
	st, err := arxivsnap.Select(ctx, r, w, f, scan)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("select: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	prog.finish()
	m.Counts["lines"], m.Counts["records"], m.Counts["kept"] = st.Lines, st.Records, st.Kept
	m.Counts["malformed"], m.Counts["bytes"] = st.Malformed, st.Bytes
	for why, n := range st.Dropped {
		m.Counts["dropped_"+string(why)] = n
	}
	m.Finished, m.Complete = b.now().UTC(), true
	if err := writeManifest(mpath, m); err != nil {
		return nil, err
	}
	return &Report{Stage: StageSelect, Manifest: m}, nil
}

// OpenInput opens a stage input that may be a named pipe (a snapshot
// streamed from zcat). Opening a pipe waits for a writer, and the wait
// cannot be interrupted: it is left to a goroutine, abandoned when ctx
// ends, which closes the file should a writer ever come. A read from a
// pipe whose writer is silent waits too: callers close the file when ctx
// ends (context.AfterFunc).
func OpenInput(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// papers reads the selected records.
func (b *Builder) papers() ([]Paper, error) {
	path := b.path("select.jsonl")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read selected records (run the select stage first): %w", err)
	}
	defer f.Close()
	var out []Paper
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	seen := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		p, err := ParsePaper(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// Rows of the stage journals.
type (
	classifyRow struct {
		ID string `json:"id"`
		SurveyDecision
		Error string `json:"error,omitempty"`
	}
	sourceRow struct {
		ID       string `json:"id"`
		Status   string `json:"status"` // ok, no_source, failed
		Kind     string `json:"kind,omitempty"`
		Files    int    `json:"files,omitempty"`
		Bytes    int64  `json:"bytes,omitempty"`
		Skipped  int    `json:"skipped,omitempty"`
		Error    string `json:"error,omitempty"`
		Fetched  string `json:"fetched,omitempty"`
		Download int64  `json:"download_bytes,omitempty"`
	}
	refsRow struct {
		ID       string   `json:"id"`
		Status   string   `json:"status"` // ok, too_few, failed
		Refs     int      `json:"refs"`
		Cited    int      `json:"cited"`
		Missing  int      `json:"missing"`
		Main     string   `json:"main,omitempty"`
		Source   string   `json:"source,omitempty"`
		Warnings []string `json:"warnings,omitempty"`
		Error    string   `json:"error,omitempty"`
	}
	promptRow struct {
		ID string `json:"id"`
		PromptSet
		Error string `json:"error,omitempty"`
	}
	domainRow struct {
		ID string `json:"id"`
		DomainDecision
		Error string `json:"error,omitempty"`
	}
)

// unitStage runs fn for every paper of todo that has no final row yet,
// with bounded concurrency, and writes the stage manifest. fn returns the
// row to record, or an error that aborts the stage (infrastructure
// failures only: a paper that fails is a row with an error).
func unitStage[T any](ctx context.Context, b *Builder, stage string, todo []Paper, key func(T) string,
	done func(T) bool, params map[string]string, inputs []string, count func(T, map[string]int64),
	fn func(context.Context, Paper) (T, error)) (*Report, error) {
	j, err := openJournal(b.path(stage+".jsonl"), key)
	if err != nil {
		return nil, err
	}
	defer j.close()
	m := newManifest(stage, b.tool(), b.now())
	m.Params, m.Output = params, "build/"+stage+".jsonl"
	for _, p := range inputs {
		in, err := describeInput(p)
		if err != nil {
			return nil, err
		}
		m.Inputs = append(m.Inputs, in)
	}
	var left []Paper
	for _, p := range todo {
		if row, ok := j.get(p.ID); !ok || !done(row) {
			left = append(left, p)
		}
	}
	prog := b.progress(stage, int64(len(todo)))
	prog.set(int64(len(todo) - len(left)))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.concurrency())
	for _, p := range left {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			row, err := fn(gctx, p)
			if err != nil {
				return err
			}
			if gctx.Err() != nil {
				// Interrupted: a row made under a cancelled context may
				// record the cancellation as a failure; leave it to the
				// next run.
				return gctx.Err()
			}
			if err := j.add(row); err != nil {
				return err
			}
			prog.add(1)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("%s: %w", stage, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.Counts["papers"] = int64(len(todo))
	for _, p := range todo {
		if row, ok := j.get(p.ID); ok {
			count(row, m.Counts)
		}
	}
	m.Finished, m.Complete = b.now().UTC(), true
	if err := writeManifest(b.path(stage+".manifest.json"), m); err != nil {
		return nil, err
	}
	return &Report{Stage: stage, Manifest: m}, nil
}

// Classify decides, for every selected paper, whether it is a literature
// survey.
func (b *Builder) Classify(ctx context.Context) (*Report, error) {
	papers, err := b.papers()
	if err != nil {
		return nil, err
	}
	c := b.Classifier
	if c == nil {
		c = NewRuleClassifier()
	}
	return unitStage(ctx, b, StageClassify, papers,
		func(r classifyRow) string { return r.ID },
		func(r classifyRow) bool { return r.Error == "" },
		map[string]string{"classifier": fmt.Sprintf("%T", c)},
		[]string{b.path("select.jsonl")},
		func(r classifyRow, c map[string]int64) {
			switch {
			case r.Error != "":
				c["failed"]++
			case r.Survey:
				c["survey"]++
			default:
				c["not_survey"]++
			}
		},
		func(ctx context.Context, p Paper) (classifyRow, error) {
			d, err := c.Classify(ctx, p)
			if err != nil {
				return classifyRow{ID: p.ID, Error: err.Error()}, nil
			}
			return classifyRow{ID: p.ID, SurveyDecision: d}, nil
		})
}

// surveys returns the selected papers classified as surveys.
func (b *Builder) surveys() ([]Paper, error) {
	papers, err := b.papers()
	if err != nil {
		return nil, err
	}
	rows, err := readJournal(b.path(StageClassify+".jsonl"), func(r classifyRow) string { return r.ID })
	if err != nil {
		return nil, fmt.Errorf("run the classify stage first: %w", err)
	}
	var out []Paper
	for _, p := range papers {
		if r, ok := rows[p.ID]; ok && r.Error == "" && r.Survey {
			out = append(out, p)
		}
	}
	return out, nil
}

// sourceDir is where a paper's e-print is extracted: one folder in
// Dir/build/sources named for the id (see idName), or an error for an id
// that is no arXiv id.
func (b *Builder) sourceDir(id string) (string, error) {
	name, err := idName(id)
	if err != nil {
		return "", err
	}
	return b.path("sources", name), nil
}

// Sources downloads and safely extracts the e-print of every survey.
func (b *Builder) Sources(ctx context.Context) (*Report, error) {
	if b.Downloader == nil {
		return nil, errors.New("sources: no downloader configured")
	}
	todo, err := b.surveys()
	if err != nil {
		return nil, err
	}
	base := b.ArXivBase
	if base == "" {
		base = DefaultArXivBase
	}
	return unitStage(ctx, b, StageSources, todo,
		func(r sourceRow) string { return r.ID },
		func(r sourceRow) bool { return r.Status != "failed" },
		map[string]string{"arxiv_base": base},
		[]string{b.path(StageClassify + ".jsonl")},
		func(r sourceRow, c map[string]int64) { c[r.Status]++ },
		func(ctx context.Context, p Paper) (sourceRow, error) {
			return b.fetchSource(ctx, base, p.ID)
		})
}

// fetchSource downloads one e-print to a temporary file and extracts it
// into a temporary folder renamed into place on success. Only the paper's
// own folder in Dir/build/sources is ever removed or replaced; a record
// whose id is no arXiv id fails without a download.
func (b *Builder) fetchSource(ctx context.Context, base, id string) (sourceRow, error) {
	row := sourceRow{ID: id, Fetched: b.now().UTC().Format(time.RFC3339)}
	dir, err := b.sourceDir(id)
	if err != nil {
		row.Status, row.Error = "failed", err.Error()
		return row, nil
	}
	parent := filepath.Dir(dir)
	if parent != b.path("sources") {
		row.Status, row.Error = "failed", fmt.Sprintf("%s is not a folder of %s", dir, b.path("sources"))
		return row, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return row, fmt.Errorf("sources: %w", err)
	}
	tmpFile, err := os.CreateTemp(parent, ".download-*")
	if err != nil {
		return row, fmt.Errorf("sources: %w", err)
	}
	defer os.Remove(tmpFile.Name())
	defer tmpFile.Close()
	url := base + id
	if _, err := b.Downloader.Download(ctx, url, tmpFile); err != nil {
		row.Status, row.Error = "failed", err.Error()
		return row, nil
	}
	if fi, err := tmpFile.Stat(); err == nil {
		row.Download = fi.Size()
	}
	if _, err := tmpFile.Seek(0, io.SeekStart); err != nil {
		return row, fmt.Errorf("sources: %w", err)
	}
	tmpDir, err := os.MkdirTemp(parent, ".extract-*")
	if err != nil {
		return row, fmt.Errorf("sources: %w", err)
	}
	defer os.RemoveAll(tmpDir)
	res, err := tarx.Extract(ctx, bufio.NewReader(tmpFile), tmpDir, url, b.Limits)
	if err != nil {
		row.Status, row.Error = "failed", err.Error()
		return row, nil
	}
	row.Kind, row.Files, row.Bytes, row.Skipped = string(res.Kind), len(res.Files), res.Bytes, len(res.Skipped)
	if res.Kind == tarx.KindPDF {
		row.Status = "no_source"
		return row, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return row, fmt.Errorf("sources: %w", err)
	}
	if err := os.Rename(tmpDir, dir); err != nil {
		return row, fmt.Errorf("sources: %w", err)
	}
	row.Status = "ok"
	return row, nil
}

// gtPath is where refs writes a survey's ground truth.
func (b *Builder) gtPath(id string) (string, error) {
	name, err := idName(id)
	if err != nil {
		return "", err
	}
	return b.path("gt", name+".jsonl"), nil
}

// Refs extracts the ground truth of every downloaded survey into
// Dir/build/gt/<id>.jsonl in the released format.
func (b *Builder) Refs(ctx context.Context) (*Report, error) {
	surveys, err := b.surveys()
	if err != nil {
		return nil, err
	}
	srcRows, err := readJournal(b.path(StageSources+".jsonl"), func(r sourceRow) string { return r.ID })
	if err != nil {
		return nil, fmt.Errorf("run the sources stage first: %w", err)
	}
	var todo []Paper
	for _, p := range surveys {
		if r, ok := srcRows[p.ID]; ok && r.Status == "ok" {
			todo = append(todo, p)
		}
	}
	minRefs := b.minRefs()
	return unitStage(ctx, b, StageRefs, todo,
		func(r refsRow) string { return r.ID },
		func(r refsRow) bool { return r.Status == "ok" || r.Status == "too_few" },
		map[string]string{"min_refs": strconv.Itoa(minRefs)},
		[]string{b.path(StageSources + ".jsonl")},
		func(r refsRow, c map[string]int64) {
			c[r.Status]++
			c["references"] += int64(r.Refs)
			c["missing_keys"] += int64(r.Missing)
		},
		func(ctx context.Context, p Paper) (refsRow, error) {
			row := refsRow{ID: p.ID}
			dir, err := b.sourceDir(p.ID)
			if err != nil {
				row.Status, row.Error = "failed", err.Error()
				return row, nil
			}
			gt, err := b.gtPath(p.ID)
			if err != nil {
				row.Status, row.Error = "failed", err.Error()
				return row, nil
			}
			res, err := ExtractRefs(ctx, dir, RefsOptions{})
			if err != nil {
				if ctx.Err() != nil {
					return row, ctx.Err()
				}
				row.Status, row.Error = "failed", err.Error()
				return row, nil
			}
			row.Refs, row.Cited, row.Missing = len(res.Refs), res.Cited, len(res.Missing)
			row.Main, row.Source = res.Main, res.Source
			row.Warnings = res.Warnings[:min(len(res.Warnings), 20)]
			if len(res.Refs) < minRefs {
				row.Status = "too_few"
				return row, nil
			}
			var buf bytes.Buffer
			if err := WriteRefs(&buf, res.Refs); err != nil {
				return row, err
			}
			if err := writeFileAtomic(gt, buf.Bytes()); err != nil {
				return row, err
			}
			row.Status = "ok"
			return row, nil
		})
}

// withRefs returns the surveys that have a ground truth.
func (b *Builder) withRefs() ([]Paper, error) {
	surveys, err := b.surveys()
	if err != nil {
		return nil, err
	}
	rows, err := readJournal(b.path(StageRefs+".jsonl"), func(r refsRow) string { return r.ID })
	if err != nil {
		return nil, fmt.Errorf("run the refs stage first: %w", err)
	}
	var out []Paper
	for _, p := range surveys {
		if r, ok := rows[p.ID]; ok && r.Status == "ok" {
			out = append(out, p)
		}
	}
	return out, nil
}

// Prompts writes the three prompts of every survey with a ground truth.
func (b *Builder) Prompts(ctx context.Context) (*Report, error) {
	todo, err := b.withRefs()
	if err != nil {
		return nil, err
	}
	pr := b.Prompter
	if pr == nil {
		pr = TemplatePrompter{}
	}
	return unitStage(ctx, b, StagePrompts, todo,
		func(r promptRow) string { return r.ID },
		func(r promptRow) bool { return r.Error == "" },
		map[string]string{"prompter": fmt.Sprintf("%T", pr)},
		[]string{b.path(StageRefs + ".jsonl")},
		func(r promptRow, c map[string]int64) {
			if r.Error != "" {
				c["failed"]++
			} else {
				c["ok"]++
			}
		},
		func(ctx context.Context, p Paper) (promptRow, error) {
			set, err := pr.Prompts(ctx, p, b.surveyText(p.ID))
			if err != nil {
				if ctx.Err() != nil {
					return promptRow{}, ctx.Err()
				}
				return promptRow{ID: p.ID, Error: err.Error()}, nil
			}
			return promptRow{ID: p.ID, PromptSet: set}, nil
		})
}

// surveyText returns the survey's expanded LaTeX as plain text, for the
// LLM prompter; "" when it cannot be read.
func (b *Builder) surveyText(id string) string {
	dir, err := b.sourceDir(id)
	if err != nil {
		return ""
	}
	tree, err := latex.OpenTree(dir)
	if err != nil {
		return ""
	}
	defer tree.Close()
	main, err := tree.FindMain()
	if err != nil {
		return ""
	}
	doc, err := tree.Expand(main)
	if err != nil {
		return ""
	}
	text := doc.Text
	if i := strings.Index(text, `\begin{document}`); i >= 0 {
		text = text[i:]
	}
	return latex.ToUnicode(text)
}

// Domains assigns an application domain to every survey with a ground
// truth.
func (b *Builder) Domains(ctx context.Context) (*Report, error) {
	todo, err := b.withRefs()
	if err != nil {
		return nil, err
	}
	dc := b.DomainClassifier
	if dc == nil {
		dc = NewCategoryDomains()
	}
	return unitStage(ctx, b, StageDomains, todo,
		func(r domainRow) string { return r.ID },
		func(r domainRow) bool { return r.Error == "" },
		map[string]string{"classifier": fmt.Sprintf("%T", dc)},
		[]string{b.path(StageRefs + ".jsonl")},
		func(r domainRow, c map[string]int64) {
			if r.Error != "" {
				c["failed"]++
				return
			}
			c[r.Domain]++
		},
		func(ctx context.Context, p Paper) (domainRow, error) {
			d, err := dc.Domain(ctx, p)
			if err != nil {
				if ctx.Err() != nil {
					return domainRow{}, ctx.Err()
				}
				return domainRow{ID: p.ID, Error: err.Error()}, nil
			}
			return domainRow{ID: p.ID, DomainDecision: d}, nil
		})
}

// SampleOptions configures the sample stage.
type SampleOptions struct {
	// PerDomain is the number of tasks drawn from each domain (default 10).
	PerDomain int
	// Seed seeds the PCG generator (default 42, as in the paper).
	Seed uint64
	// WithRules appends the rules block to each prompt. The released
	// prompt column omits it (the evaluation appends it), so the default
	// matches the release.
	WithRules bool
}

// Sample draws the tasks and writes TaskFile and GTDir in Dir. Ground-truth
// files in GTDir that the new draw does not include (left by an earlier
// draw) are removed, so the folder always matches the task file.
func (b *Builder) Sample(ctx context.Context, opt SampleOptions) (*Report, error) {
	if opt.PerDomain <= 0 {
		opt.PerDomain = 10
	}
	papers, err := b.withRefs()
	if err != nil {
		return nil, err
	}
	prompts, err := readJournal(b.path(StagePrompts+".jsonl"), func(r promptRow) string { return r.ID })
	if err != nil {
		return nil, fmt.Errorf("run the prompts stage first: %w", err)
	}
	domains, err := readJournal(b.path(StageDomains+".jsonl"), func(r domainRow) string { return r.ID })
	if err != nil {
		return nil, fmt.Errorf("run the domains stage first: %w", err)
	}
	byID := make(map[string]Paper)
	var cands []Candidate
	for _, p := range papers {
		pr, ok1 := prompts[p.ID]
		d, ok2 := domains[p.ID]
		if !ok1 || !ok2 || pr.Error != "" || d.Error != "" {
			continue
		}
		byID[p.ID] = p
		cands = append(cands, Candidate{ID: p.ID, Domain: d.Domain})
	}
	picks := Sample(cands, opt.PerDomain, opt.Seed)
	m := newManifest(StageSample, b.tool(), b.now())
	m.Params = map[string]string{
		"per_domain": strconv.Itoa(opt.PerDomain), "seed": strconv.FormatUint(opt.Seed, 10),
		"prng": "math/rand/v2 PCG(seed, 0)", "with_rules": strconv.FormatBool(opt.WithRules),
	}
	m.Output = TaskFile
	for _, stage := range []string{StagePrompts, StageDomains} {
		in, err := describeInput(b.path(stage + ".jsonl"))
		if err != nil {
			return nil, err
		}
		m.Inputs = append(m.Inputs, in)
	}
	var tasks []byte
	gtDir := filepath.Join(b.Dir, GTDir)
	if err := os.MkdirAll(gtDir, 0o755); err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	keep := map[string]bool{}
	prog := b.progress(StageSample, int64(len(picks)))
	prog.set(0)
	for _, pk := range picks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := byID[pk.ID]
		set := prompts[pk.ID].PromptSet
		prompt := set.Level(pk.Level)
		if opt.WithRules {
			prompt += "\n\n" + set.Rules
		}
		if tasks, err = AppendTask(tasks, p.Record, pk.Domain, prompt); err != nil {
			return nil, fmt.Errorf("sample %s: %w", pk.ID, err)
		}
		gtPath, err := b.gtPath(pk.ID)
		if err != nil {
			return nil, fmt.Errorf("sample: %w", err)
		}
		gt, err := os.ReadFile(gtPath)
		if err != nil {
			return nil, fmt.Errorf("sample: ground truth of %s: %w", pk.ID, err)
		}
		name := filepath.Base(gtPath)
		keep[name] = true
		if err := writeFileAtomic(filepath.Join(gtDir, name), gt); err != nil {
			return nil, err
		}
		m.Counts["level_"+pk.Level]++
		m.Counts["domain "+pk.Domain]++
		prog.add(1)
	}
	// Drop ground truths of an earlier sample that are not drawn now.
	entries, err := os.ReadDir(gtDir)
	if err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") && !keep[e.Name()] {
			if err := os.Remove(filepath.Join(gtDir, e.Name())); err != nil {
				return nil, fmt.Errorf("sample: %w", err)
			}
		}
	}
	if err := writeFileAtomic(filepath.Join(b.Dir, TaskFile), tasks); err != nil {
		return nil, err
	}
	m.Counts["candidates"] = int64(len(cands))
	m.Counts["tasks"] = int64(len(picks))
	m.Finished, m.Complete = b.now().UTC(), true
	if err := writeManifest(b.path(StageSample+".manifest.json"), m); err != nil {
		return nil, err
	}
	return &Report{Stage: StageSample, Manifest: m}, nil
}

// AllOptions configures Builder.All.
type AllOptions struct {
	Select SelectOptions
	Sample SampleOptions
	// From skips the stages before it (resume an interrupted run from a
	// later stage without re-reading the snapshot).
	From string
}

// All runs every stage in order. Each stage skips the work it has already
// done, so an interrupted run continues where it stopped.
func (b *Builder) All(ctx context.Context, opt AllOptions, progress func(*Report)) error {
	start := 0
	if opt.From != "" {
		start = slices.Index(Stages, opt.From)
		if start < 0 {
			return fmt.Errorf("unknown stage %q (want one of %s)", opt.From, strings.Join(Stages, ", "))
		}
	}
	for _, stage := range Stages[start:] {
		var rep *Report
		var err error
		switch stage {
		case StageSelect:
			rep, err = b.Select(ctx, opt.Select)
		case StageClassify:
			rep, err = b.Classify(ctx)
		case StageSources:
			rep, err = b.Sources(ctx)
		case StageRefs:
			rep, err = b.Refs(ctx)
		case StagePrompts:
			rep, err = b.Prompts(ctx)
		case StageDomains:
			rep, err = b.Domains(ctx)
		case StageSample:
			rep, err = b.Sample(ctx, opt.Sample)
		}
		if err != nil {
			return err
		}
		if progress != nil {
			progress(rep)
		}
	}
	return nil
}
