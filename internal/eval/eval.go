// Package eval is the evaluation pipeline, the one package that composes the
// others: it parses each report, resolves every cited source (snapshot,
// cache or live fetch; identifiers; scholarly APIs), matches cited works
// against the survey's ground truth, scores the report and writes the
// results. Every unit of work is written to the store as soon as it is
// done, so a crash loses only what was in flight and a rerun resumes.
package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Version identifies the pipeline's semantics. It is part of every run id,
// so results stored by an older, different pipeline are never reused.
const Version = "eval/3"

// Unit kinds stored for a run.
const (
	unitReport = "report"
	unitSource = "source"
)

// Fetcher fetches a cited URL (from a snapshot, the cache or the web).
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) (*fetch.Page, error)
}

// Scholar looks works up in scholarly APIs (arXiv, Crossref, OpenAlex).
type Scholar interface {
	ArXiv(ctx context.Context, ids ...string) (map[string]scholar.Record, error)
	CrossrefDOI(ctx context.Context, doi string) (scholar.Record, error)
	SearchTitle(ctx context.Context, title string) ([]scholar.Record, error)
	// WorkByID looks up a paper by an identifier its URL carries other
	// than an arXiv id or a DOI (biblio.ExtID: kind and value).
	WorkByID(ctx context.Context, kind, value string) (scholar.Record, error)
}

// Options configures an evaluation.
type Options struct {
	Dataset    *dataset.Dataset
	ReportsDir string
	OutDir     string
	// Tasks restricts the run to these task ids (all reports when empty).
	Tasks []string
	// Concurrency bounds reports in flight; FetchConcurrency bounds sources
	// being resolved at once; JudgeConcurrency bounds judging and
	// fact-checking operations in flight across the run (default
	// Concurrency). Model-backed judges are paced by their clients'
	// limits (llm.Limits), so a caller using them sets it higher.
	Concurrency      int
	FetchConcurrency int
	JudgeConcurrency int
	// RetryFailed recomputes failed units and the reports that used them.
	RetryFailed bool
	// MaxReportBytes lowers the size limit on a report file (default and
	// ceiling report.MaxReportBytes); a report over it fails unread.
	MaxReportBytes int64
	// ReportLimits bound the claims, citations and line length of one
	// report (zero fields take report.DefaultLimits); a report past one
	// fails alone, saying which.
	ReportLimits report.Limits
	// MaxInflightBytes bounds the memory the reports being evaluated at
	// once are estimated to take (default DefaultMaxInflightBytes): a
	// report is admitted by its size before it is read, then by its
	// parsed claims and cited sources (reportCost), waiting until the
	// reports in flight leave room for it, so a batch of large reports runs
	// a few at a time whatever Concurrency says. A report estimated larger
	// than the bound runs alone.
	MaxInflightBytes int64
	// Mode names how sources are reached ("offline", "snapshot", "live"); it
	// is part of the run identity.
	Mode     string
	Snapshot string

	Fetcher Fetcher
	// Scholar is nil when scholarly APIs are not to be used (offline).
	Scholar Scholar
	Store   *store.Store

	// Judge verifies cited claims against their sources; nil skips
	// cited-statement verification. JudgeName identifies it in verdicts and
	// in the run identity.
	Judge     Judge
	JudgeName string
	// PartialWeight is what a partial verdict counts in the match rate
	// (default 0.5); Tau is PSnd's strength threshold (default 0.5).
	PartialWeight float64
	Tau           float64
	// CheckWorthy filters non-cited claims worth fact-checking; nil skips.
	// ClassifyCheckWorthy, when set, replaces it with a batched classifier
	// (an LLM) over all the non-cited claims of a report.
	CheckWorthy         CheckWorthy
	ClassifyCheckWorthy func(ctx context.Context, claims []string) ([]bool, []string, error)
	// ExtractNonCited, when set, replaces both: a model extracts the
	// report's non-cited factual statements from its whole text, told the
	// cited ones (the paper's A.4.2, for --prompts reportbench).
	ExtractNonCited func(ctx context.Context, report string, cited []CitedStatement) ([]string, error)
	// FactCheck decides whether a check-worthy non-cited claim is true (an
	// ensemble of web-connected fact-checkers); nil leaves them undecided.
	// FactCheckName identifies it in the run identity.
	FactCheck     func(ctx context.Context, in FactInput) (claimtrace.Fact, error)
	FactCheckName string
	// FactCheckAll, when set with FactBatch above 1, fact-checks up to
	// FactBatch check-worthy claims of a report together (in document
	// order), returning for each the Fact and error FactCheck would: the
	// fact-checkers then answer several claims a call. Each claim is still
	// its own stored unit.
	FactCheckAll func(ctx context.Context, in []FactInput) ([]claimtrace.Fact, []error)
	FactBatch    int
	// Metadata is the last rung of the metadata ladder: a model reading the
	// start of a fetched page that looks scholarly but that no identifier,
	// meta tag or scholarly API identified. It returns what the page
	// confirms (identify.CheckGuess); nil skips the rung. MetadataName
	// identifies it in the run identity.
	Metadata     func(ctx context.Context, page MetadataPage) (MetadataGuess, error)
	MetadataName string
	// Detector finds contradictions between the sources a report read;
	// nil skips (CTran is then null).
	Detector prov.Detector

	// Leaser, when set, lets several evaluators share one run on one
	// database (PostgreSQL): each takes a lease on a report before working
	// on it, so the others do the next reports instead of the same one, and
	// reads the reports they finished. A worker that dies stops renewing
	// its leases; after LeaseTTL (default DefaultLeaseTTL) another takes
	// its reports over. Owner names this evaluator (default: a fresh id).
	Leaser   Leaser
	LeaseTTL time.Duration
	Owner    string

	// HumanReviews, when set, reads the human labels of the run's claims
	// (the audit view's reviews, a reviews file): with the run's review
	// sample they put the judge's error into the summary's figures
	// (ReviewedFigures).
	HumanReviews func(ctx context.Context, run string) ([]HumanReview, error)

	// Manifest holds what the caller knows about the run (models, prompt
	// hashes, versions); it is written with the pipeline's own settings to
	// OUT/manifest.json.
	Manifest map[string]any

	// FetchTimeout bounds the whole time a run spends resolving sources
	// (fetches and scholarly lookups), from its start; a source still
	// unresolved then is not fetched (a failure of the run, not a verdict
	// on the source: the next run fetches it). Zero: no bound.
	FetchTimeout time.Duration

	// Progress, if set, receives an event after each report.
	Progress func(Progress)
	// SourceProgress, if set, receives an event after each source of a
	// report is resolved (from the store, or fetched). Calls never
	// overlap.
	SourceProgress func(SourceEvent)
	Now            func() time.Time
}

// SourceEvent reports one resolved source of a report: the report, how
// many of its sources are resolved out of how many, the source, what it
// turned out to be, and how long it took (zero when it was known).
type SourceEvent struct {
	Task        string
	Done, Total int
	Target      string
	Kind        claimtrace.WorkKind
	Status      string
	Elapsed     time.Duration
}

// DefaultMaxInflightBytes is the default of Options.MaxInflightBytes: a
// real report is estimated at a few megabytes, so a hundred fit; one of
// 19,000 claims citing as many URLs at about 420 MB, so one runs at a
// time.
const DefaultMaxInflightBytes = 512 << 20

// Cost model of a report in flight (measured on reports of 19,000 cited
// claims, each citing its own URL: about 25 KiB allocated a cited source,
// most of it the source's unit and the graph; parsing allocates about 16
// bytes a byte of text).
const (
	costPerTextByte = 20
	costPerSource   = 16 << 10
	costPerClaim    = 4 << 10
)

// reportCost estimates the memory evaluating a report takes, from its
// text's size and, once parsed, its claims and distinct cited sources.
func reportCost(textBytes int64, claims, sources int) int64 {
	return costPerTextByte*max(textBytes, 1) + costPerClaim*int64(claims) + costPerSource*int64(sources)
}

// Progress reports how far a run is.
type Progress struct {
	Done, Total int
	Task        string
	Err         error
}

// Evaluator runs one evaluation.
type Evaluator struct {
	opts   Options
	run    string
	fetchs chan struct{}
	judges chan struct{}
	flight singleflight.Group
	mu     sync.Mutex
	// sources resolved in this process, by target key.
	sources map[string]sourceResult
	// started is when the evaluator was made: a failed unit written since,
	// by another worker of the run, is not retried again (retriedSince).
	started time.Time
	// fetchBy is when resolving sources stops (zero: never), from
	// Options.FetchTimeout; progressMu serializes SourceProgress.
	fetchBy    time.Time
	progressMu sync.Mutex
	// admit holds the bytes of the reports in flight (MaxInflightBytes).
	admit *semaphore.Weighted
}

// New checks the options and prepares a run.
func New(opts Options) (*Evaluator, error) {
	if opts.Store == nil || opts.Fetcher == nil {
		return nil, fmt.Errorf("eval: %w: store and fetcher are required", claimtrace.ErrInvalid)
	}
	if opts.ReportsDir != "" {
		if fi, err := os.Stat(opts.ReportsDir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("eval: reports directory %s: %w", opts.ReportsDir, errNotDir(err))
		}
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = 4
	}
	if opts.FetchConcurrency < 1 {
		opts.FetchConcurrency = 16
	}
	if opts.MaxInflightBytes <= 0 {
		opts.MaxInflightBytes = DefaultMaxInflightBytes
	}
	if opts.JudgeConcurrency < 1 {
		opts.JudgeConcurrency = opts.Concurrency
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Now().UTC() }
	}
	if opts.PartialWeight == 0 {
		opts.PartialWeight = 0.5
	}
	if opts.PartialWeight < 0 || opts.PartialWeight > 1 {
		return nil, fmt.Errorf("eval: %w: partial weight %v outside [0, 1]", claimtrace.ErrInvalid, opts.PartialWeight)
	}
	if opts.Tau == 0 {
		opts.Tau = prov.DefaultTau
	}
	if opts.Tau < 0 || opts.Tau >= 1 {
		return nil, fmt.Errorf("eval: %w: tau %v outside [0, 1)", claimtrace.ErrInvalid, opts.Tau)
	}
	if opts.Judge != nil && opts.JudgeName == "" {
		opts.JudgeName = "judge"
	}
	if opts.Leaser != nil {
		if opts.LeaseTTL <= 0 {
			opts.LeaseTTL = DefaultLeaseTTL
		}
		if opts.Owner == "" {
			opts.Owner = store.NewOwner()
		}
	}
	if opts.FetchTimeout < 0 {
		return nil, fmt.Errorf("eval: %w: fetch timeout %v is negative", claimtrace.ErrInvalid, opts.FetchTimeout)
	}
	e := &Evaluator{opts: opts, fetchs: make(chan struct{}, opts.FetchConcurrency), judges: make(chan struct{}, opts.JudgeConcurrency),
		admit:   semaphore.NewWeighted(opts.MaxInflightBytes),
		sources: map[string]sourceResult{}, started: opts.Store.Now()} // the clock units are stamped with
	if opts.FetchTimeout > 0 {
		e.fetchBy = time.Now().Add(opts.FetchTimeout)
	}
	e.run = e.runID("")
	return e, nil
}

func errNotDir(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: not a directory", claimtrace.ErrInvalid)
}

// RunID is the run's identity: a hash of its inputs and options, so the same
// command resumes the same run.
func (e *Evaluator) RunID() string { return e.run }

// runID names a run by what decides its figures: the pipeline version, the
// audited report or the dataset and reports directory, the mode and
// snapshot, and which APIs, judges and stages are on. A command run again
// with the same inputs gets the same id, and so resumes its stored units.
func (e *Evaluator) runID(audited string) string {
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	dataset := ""
	if e.opts.Dataset != nil {
		dataset = abs(e.opts.Dataset.TaskPath)
	}
	h := sha256.New()
	for _, s := range []string{Version, abs(audited), dataset, abs(e.opts.ReportsDir), e.opts.Mode, abs(e.opts.Snapshot),
		fmt.Sprint(e.opts.Scholar != nil), e.opts.JudgeName, fmt.Sprint(e.opts.PartialWeight, e.opts.Tau),
		fmt.Sprint(e.opts.CheckWorthy != nil, e.opts.ClassifyCheckWorthy != nil, e.opts.Detector != nil), e.opts.FactCheckName} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	if e.opts.ExtractNonCited != nil {
		h.Write([]byte("extract-noncited\x00"))
	}
	if e.opts.Metadata != nil {
		// Written only when set, so runs without the rung keep their ids.
		h.Write([]byte("metadata:" + e.opts.MetadataName))
		h.Write([]byte{0})
	}
	if audited != "" {
		return "audit-" + hex.EncodeToString(h.Sum(nil))[:16]
	}
	return "eval-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// reportFile is one report found in the reports directory.
type reportFile struct {
	Task string
	Path string
}

// listReports finds <task_id>.json|.md|.txt|.pdf|.docx files, and the
// files of document formats that are refused (a <task_id>.doc fails with
// what to do). A task with several files is an error for that task; other
// files are ignored, and their names returned.
func (e *Evaluator) listReports() ([]reportFile, []Failure, []string, error) {
	entries, err := os.ReadDir(e.opts.ReportsDir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("eval: %w", err)
	}
	var ignored []string
	want := map[string]bool{}
	for _, t := range e.opts.Tasks {
		want[t] = true
	}
	byTask := map[string][]string{}
	for _, de := range entries {
		if de.IsDir() {
			continue
		}
		name := de.Name()
		if strings.HasPrefix(name, ".") || notReport(name) {
			continue
		}
		if !report.Candidate(name) {
			ignored = append(ignored, name)
			continue
		}
		id := strings.TrimSuffix(name, filepath.Ext(name))
		if len(want) > 0 && !want[id] {
			continue
		}
		byTask[id] = append(byTask[id], filepath.Join(e.opts.ReportsDir, name))
	}
	var files []reportFile
	var fails []Failure
	for id, paths := range byTask {
		sort.Strings(paths)
		if len(paths) > 1 {
			fails = append(fails, Failure{Task: id, File: paths[0], Err: fmt.Sprintf("several report files for one task: %s; keep one", strings.Join(paths, ", "))})
			continue
		}
		if _, ok := e.opts.Dataset.Task(id); !ok {
			fails = append(fails, Failure{Task: id, File: paths[0], Err: "no task " + id + " in the dataset; name report files <arxiv_id>" + report.Extensions()})
			continue
		}
		// A named pipe, a device or a socket is never opened: opening
		// a pipe waits for a writer that may never come.
		if err := report.Regular(paths[0]); err != nil {
			fails = append(fails, Failure{Task: id, File: paths[0], Err: err.Error() + "; skipped"})
			continue
		}
		files = append(files, reportFile{Task: id, Path: paths[0]})
	}
	for id := range want {
		if _, ok := byTask[id]; !ok {
			fails = append(fails, Failure{Task: id, Err: "no report file for this task in " + e.opts.ReportsDir})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Task < files[j].Task })
	sort.Slice(fails, func(i, j int) bool { return fails[i].Task < fails[j].Task })
	sort.Strings(ignored)
	return files, fails, ignored, nil
}

// notReport recognises the files claimtrace itself writes beside reports:
// run and pull manifests.
func notReport(name string) bool {
	return name == "run-manifest.json" || name == "manifest.json" || name == "pull-manifest.json" ||
		strings.HasSuffix(name, ".manifest.json")
}

// Failure is a report that could not be scored, with the reason.
type Failure struct {
	Task string `json:"task"`
	File string `json:"file,omitempty"`
	Err  string `json:"error"`
}

// Run evaluates every report and writes OUT/reports/<id>.json and
// OUT/summary.json. A report that fails is recorded and counted; the others
// go on. Run returns an error only for infrastructure failures or
// cancellation.
func (e *Evaluator) Run(ctx context.Context) (*Summary, error) {
	if e.opts.Dataset == nil || e.opts.ReportsDir == "" || e.opts.OutDir == "" {
		return nil, fmt.Errorf("eval: %w: a dataset, a reports directory and an output directory are required", claimtrace.ErrInvalid)
	}
	params, _ := json.Marshal(map[string]any{
		"version": Version, "dataset": e.opts.Dataset.TaskPath, "reports": e.opts.ReportsDir,
		"mode": e.opts.Mode, "snapshot": e.opts.Snapshot, "partial_weight": e.opts.PartialWeight, "tau": e.opts.Tau,
	})
	if err := e.opts.Store.EnsureRun(ctx, e.run, "eval", string(params)); err != nil {
		return nil, err
	}
	files, fails, ignored, err := e.listReports()
	if err != nil {
		return nil, err
	}
	begun := time.Now()
	for _, d := range []string{"reports", "graphs"} {
		if err := os.MkdirAll(filepath.Join(e.opts.OutDir, d), 0o755); err != nil {
			return nil, fmt.Errorf("eval: output: %w", err)
		}
	}
	// Which reports have a result in OUT/reports: the summary reads them
	// back one at a time, so a run's memory does not grow with its
	// reports.
	written := make([]bool, len(files))
	var done int
	var mu sync.Mutex
	// Reports leased by another evaluator are left for a second pass,
	// which waits for their results (or for the lease to lapse).
	var busy []int
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.opts.Concurrency)
	do := func(i int, f reportFile, wait bool) error {
		ctx, adm, err := e.admitFile(gctx, f)
		if err != nil {
			return err
		}
		defer adm.release()
		r, err := e.report(ctx, f)
		for wait && errors.Is(err, errLeased) {
			select {
			case <-gctx.Done():
				return gctx.Err()
			case <-time.After(e.pollEvery()):
			}
			r, err = e.report(gctx, f)
		}
		if errors.Is(err, errLeased) {
			mu.Lock()
			busy = append(busy, i)
			mu.Unlock()
			return nil
		}
		if err != nil {
			return fmt.Errorf("report %s: %w", f.Task, err)
		}
		written[i] = true
		// Progress is reported under the lock: callers need not be
		// safe for concurrent use.
		mu.Lock()
		defer mu.Unlock()
		done++
		if e.opts.Progress != nil {
			var perr error
			if r.Status == store.StatusFailed {
				perr = errors.New(r.Error)
			}
			e.opts.Progress(Progress{Done: done, Total: len(files), Task: f.Task, Err: perr})
		}
		return nil
	}
	for i, f := range files {
		g.Go(func() error { return do(i, f, false) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if len(busy) > 0 {
		g, gctx = errgroup.WithContext(ctx)
		g.SetLimit(e.opts.Concurrency)
		for _, i := range busy {
			g.Go(func() error { return do(i, files[i], true) })
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	var readErr error
	results := func(yield func(*Result) bool) {
		for i, f := range files {
			if !written[i] {
				continue
			}
			r, err := ReadResult(filepath.Join(e.opts.OutDir, "reports", f.Task+".json"))
			if err != nil {
				readErr = fmt.Errorf("eval: summary: %w", err)
				return
			}
			if !yield(r) {
				return
			}
		}
	}
	sum := e.summarize(ctx, results, fails)
	if readErr != nil {
		return nil, readErr
	}
	sum.Ignored = ignored
	if err := writeJSON(filepath.Join(e.opts.OutDir, "summary.json"), sum); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(e.opts.OutDir, "manifest.json"), e.manifest()); err != nil {
		return nil, err
	}
	// Temporary files a killed run left behind (.ID.json.tmp-NNN) go once
	// every output is written again.
	for _, d := range []string{"", "reports", "graphs"} {
		if _, err := atomicfile.RemoveStale(filepath.Join(e.opts.OutDir, d), begun); err != nil {
			return nil, fmt.Errorf("eval: output: remove temporary files: %w", err)
		}
	}
	return sum, nil
}

// admission is the share of MaxInflightBytes one report holds.
type admission struct {
	sem  *semaphore.Weighted
	max  int64
	held int64
}

// admissionKey carries a report's admission in its context, for the parse
// step to resize.
type admissionKey struct{}

// admitFile waits until the reports in flight leave room for f's
// estimated cost from its size on disk, or ctx ends. The returned context
// carries the admission, which resize changes once the report is parsed.
func (e *Evaluator) admitFile(ctx context.Context, f reportFile) (context.Context, *admission, error) {
	size := int64(1)
	if fi, err := os.Stat(f.Path); err == nil {
		size = fi.Size()
	}
	a := &admission{sem: e.admit, max: e.opts.MaxInflightBytes}
	if err := a.resize(ctx, reportCost(size, 0, 0)); err != nil {
		return nil, nil, err
	}
	return context.WithValue(ctx, admissionKey{}, a), a, nil
}

// resize makes the admission hold cost (at most the whole bound). It
// gives back what it holds before waiting for more, so that two reports
// each waiting to grow never hold each other up.
func (a *admission) resize(ctx context.Context, cost int64) error {
	n := min(max(cost, 1), a.max)
	if n <= a.held {
		return nil
	}
	a.release()
	if err := a.sem.Acquire(ctx, n); err != nil {
		return err
	}
	a.held = n
	return nil
}

func (a *admission) release() {
	if a.held > 0 {
		a.sem.Release(a.held)
		a.held = 0
	}
}

// manifest records how the run was made, so its figures can be reproduced.
func (e *Evaluator) manifest() map[string]any {
	m := map[string]any{}
	for k, v := range e.opts.Manifest {
		m[k] = v
	}
	m["run"] = e.run
	m["pipeline"] = Version
	m["dataset"] = e.opts.Dataset.TaskPath
	m["reports"] = e.opts.ReportsDir
	m["mode"] = e.opts.Mode
	m["snapshot"] = e.opts.Snapshot
	m["scholarly_apis"] = e.opts.Scholar != nil
	m["judge"] = e.opts.JudgeName
	m["fact_check"] = e.opts.FactCheckName
	m["check_worthy"] = map[bool]string{true: "model", false: "offline rules"}[e.opts.ClassifyCheckWorthy != nil]
	m["contradictions"] = e.opts.Detector != nil
	m["tau"] = e.opts.Tau
	m["partial_weight"] = e.opts.PartialWeight
	m["finished_at"] = e.opts.Now()
	return m
}

// writeJSON writes v indented, atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
