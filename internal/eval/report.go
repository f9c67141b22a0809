package eval

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/inputfile"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Result is everything known about one report; it is written as
// OUT/reports/<task_id>.json and stored as the report's unit.
type Result struct {
	Task         string               `json:"task_id"`
	File         string               `json:"file"`
	SHA256       string               `json:"sha256,omitempty"`
	Status       string               `json:"status"`
	Error        string               `json:"error,omitempty"`
	Domain       string               `json:"domain,omitempty"`
	Cutoff       string               `json:"cutoff,omitempty"`
	CutoffSource string               `json:"cutoff_source,omitempty"`
	Citation     *score.CitationScore `json:"citation,omitempty"`
	Claims       []ClaimResult        `json:"claims"`
	Sources      []SourceResult       `json:"sources"`
	Cited        *CitedStats          `json:"cited,omitempty"`
	NonCited     *NonCitedStats       `json:"non_cited,omitempty"`
	AAR          *AAR                 `json:"aar,omitempty"`
	// FailedSources lists sources whose resolution failed transiently;
	// --retry-failed recomputes the report.
	FailedSources []string `json:"failed_sources,omitempty"`
	// FailedUnits lists other units (verdicts, fact-checks) that failed;
	// --retry-failed recomputes them too.
	FailedUnits []string `json:"failed_units,omitempty"`
	// NotFetched lists the sources the run could not fetch (the network
	// was down, or the fetch time limit ran out): no verdict on them, and
	// the next run, plain, computes the report again.
	NotFetched []string `json:"not_fetched_sources,omitempty"`
	Stats      Stats    `json:"stats"`
}

// ClaimResult is one claim of the report with its citations (as URLs or
// identifiers), verdicts on cited sources and, for non-cited claims, the
// fact-check.
type ClaimResult struct {
	ID        string               `json:"id"`
	Text      string               `json:"text"`
	Start     int                  `json:"start"`
	End       int                  `json:"end"`
	Cited     bool                 `json:"cited"`
	Citations []string             `json:"citations"`
	Verdicts  []claimtrace.Verdict `json:"verdicts"`
	Fact      *claimtrace.Fact     `json:"fact"`
	// CheckWorthy is set for non-cited claims: whether the claim is a
	// specific, verifiable factual statement, and why.
	CheckWorthy *bool  `json:"check_worthy,omitempty"`
	Why         string `json:"check_worthy_reason,omitempty"`
	// AAR measures of the claim: complete provenance (PCov), why not, the
	// nodes a reviewer inspects (AEff proxy) and the share of sound
	// citation pairs (PSnd).
	Complete bool     `json:"complete"`
	Gap      string   `json:"gap,omitempty"`
	Nodes    int      `json:"nodes"`
	PSnd     *float64 `json:"psnd"`
}

// SourceResult is a resolved source as shown in a report file.
type SourceResult struct {
	Target  string          `json:"target"`
	Work    claimtrace.Work `json:"work"`
	Fetched bool            `json:"fetched"`
	Wall    string          `json:"wall,omitempty"`
	// TextSHA names the source's readable text in the store (store.GetText).
	TextSHA string `json:"text_sha,omitempty"`
	// Ladder says what the model rung of the metadata ladder made of the
	// page when it did not take the model's answer (--metadata-model).
	Ladder string `json:"ladder,omitempty"`
}

// Stats counts what the parser found.
type Stats struct {
	Bytes          int `json:"bytes"`
	Claims         int `json:"claims"`
	CitedClaims    int `json:"cited_claims"`
	Citations      int `json:"citations"`
	ListEntries    int `json:"list_entries"`
	Targets        int `json:"targets"`
	DistinctURLs   int `json:"distinct_urls"`
	DanglingMarker int `json:"dangling_markers"`
	// ReferenceBlocks is B of the released code's cost for this report:
	// the blocks its splitter cuts the text into (ReferenceBlocks);
	// ReferenceSplitFails says its own check rejects the split.
	ReferenceBlocks     int  `json:"reference_blocks,omitempty"`
	ReferenceSplitFails bool `json:"reference_split_fails,omitempty"`
}

// storedReport is the report unit's data.
type storedReport struct {
	SHA256 string  `json:"sha256"`
	Result *Result `json:"result"`
	// retried: written since this evaluator was made (retriedSince).
	retried bool
}

// reportState is one report on its way through the pipeline (docs/design.md):
// each step of report reads what the steps before it wrote here and adds its
// own part. Every cited source is one citedSource record, made by parse and
// carried through resolve, match, verify and provenance.
type reportState struct {
	file reportFile
	task claimtrace.Task
	// cutoff is the task's knowledge cutoff (dataset.Cutoff), computed
	// once: match scores against it, facts checks claims as of it.
	cutoff       time.Time
	cutoffSource string
	// text is the report's text; loadErr says why it could not be read.
	text    string
	loadErr error
	gt      []claimtrace.Reference
	doc     claimtrace.Document
	// sources holds the report's cited sources in key order, one record a
	// distinct target key.
	sources []*citedSource
	// ofCitation is the source of each of doc.Citations (nil for a
	// citation without a target).
	ofCitation []*citedSource
	// cites holds, for each of doc.Claims, its citations that have a
	// target, in order: the source and the label each shows it by.
	cites [][]claimCite
	// judged holds, for each claim, the source each of its verdicts
	// judged (parallel to the claim's Verdicts).
	judged [][]*citedSource
	// works are the report's cited works after joining by identity, in
	// order (what match scores).
	works []claimtrace.Work
	res   *Result
	// gtIndex indexes gt, built once (index).
	gtIndex *biblio.Index
}

// citedSource is one source the report cites, whatever the number of
// citations pointing at it: all the pipeline learns about it.
type citedSource struct {
	// key identifies the source (target.Key); "" for a citation whose
	// target has nothing to resolve (a blank URL), which is judged as
	// unreadable and left out of the sources.
	key string
	// target is the last citation's target in document order: what
	// resolve fetches and the sources list shows (label).
	target target
	// claimLabel is the label of the last claim citing the source, in the
	// order of claims: what its verdicts show as their URL.
	claimLabel string
	// hint is the first title the reference list gives the source's URL
	// or identifier: the title the report states for it (establish,
	// misattribution); entry is the first reference-list entry citing it,
	// as written (its year and first author).
	hint  string
	entry string
	// resolution is what resolve learned; work is its work after the
	// reference list's title and the joining by identity.
	resolution sourceResult
	work       claimtrace.Work
	// claims are the indices of the claims citing the source, in order;
	// verify fills verdicts, one per claim.
	claims   []int
	verdicts []claimtrace.Verdict
	// text is the source's readable text once read from the store
	// (readText reads it at most once a report).
	text     string
	textRead bool
	textOK   bool
}

// claimCite is one source as a claim cites it, with the label the claim
// shows it by.
type claimCite struct {
	src   *citedSource
	label string
}

// resolvable reports whether the source has a target to resolve.
func (s *citedSource) resolvable() bool { return s.key != "" }

// readText returns the source's readable text from the store, when it was
// fetched and its text stored, and whether there is one. The store is read
// once a report: verify and provenance share the answer.
func (s *citedSource) readText(ctx context.Context, st *store.Store) (string, bool, error) {
	r := s.resolution
	if !r.Fetched || r.TextSHA == "" {
		return "", false, nil
	}
	if !s.textRead {
		_, text, ok, err := st.GetText(ctx, r.TextSHA)
		if err != nil {
			return "", false, err
		}
		s.text, s.textOK, s.textRead = text, ok, true
	}
	return s.text, s.textOK, nil
}

// report evaluates one report file, or returns its stored result when the
// file has not changed since (and, with --retry-failed, nothing of it
// failed). It runs the pipeline's steps in order on one reportState:
// parse, resolve, match, verify and facts at once (judgeAndCheck),
// provenance, tally. A report that cannot be evaluated (unreadable, no
// ground truth, a graph its records do not make) is a failed result, not
// an error; errors are the run's
// (storage, cancellation, an exhausted budget).
func (e *Evaluator) report(ctx context.Context, f reportFile) (*Result, error) {
	st := e.load(f)
	if prev, ok, err := e.reuse(ctx, st.res); err != nil || ok {
		return prev, err
	}
	if e.opts.Leaser != nil {
		release, ok, err := e.lease(ctx, unitReport, f.Task)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errLeased
		}
		defer release()
		// The holder before us may have finished between the look above
		// and the lease.
		if prev, ok, err := e.reuse(ctx, st.res); err != nil || ok {
			return prev, err
		}
	}
	if st.loadErr != nil {
		return e.fail(ctx, st.res, st.loadErr.Error())
	}
	if e.opts.Dataset != nil {
		var err error
		if st.gt, err = e.opts.Dataset.GT(f.Task); err != nil {
			return e.fail(ctx, st.res, err.Error())
		}
	}
	if err := e.parse(ctx, st); err != nil {
		var le *report.LimitError
		if errors.As(err, &le) {
			return e.fail(ctx, st.res, "parse: "+err.Error())
		}
		return nil, err
	}
	if err := e.resolveSources(ctx, st); err != nil {
		return nil, err
	}
	if err := e.establish(ctx, st); err != nil {
		return nil, err
	}
	e.match(st)
	if err := e.judgeAndCheck(ctx, st); err != nil {
		return nil, err
	}
	if err := e.provenance(ctx, st); err != nil {
		if errors.Is(err, claimtrace.ErrInvalid) {
			// The report's own records do not make a graph: its failure,
			// not the run's.
			return e.fail(ctx, st.res, "provenance graph: "+err.Error())
		}
		return nil, err
	}
	st.tally()
	st.res.Status = store.StatusDone
	return st.res, e.save(ctx, st.res)
}

// load starts a report's state: its task (when there is a dataset), the
// task's cutoff, the report's text and its hash, and an empty result.
func (e *Evaluator) load(f reportFile) *reportState {
	st := &reportState{file: f}
	if e.opts.Dataset != nil {
		st.task, _ = e.opts.Dataset.Task(f.Task)
	}
	st.cutoff, st.cutoffSource = dataset.Cutoff(st.task)
	st.res = &Result{Task: f.Task, File: f.Path, Domain: st.task.Domain, Claims: []ClaimResult{}, Sources: []SourceResult{}}
	st.text, st.loadErr = report.LoadMax(f.Path, cmp.Or(e.opts.MaxReportBytes, report.MaxReportBytes))
	if st.loadErr == nil {
		sum := sha256.Sum256([]byte(st.text))
		st.res.SHA256 = hex.EncodeToString(sum[:])
	}
	return st
}

// fresh returns the report's stored result when it stands for the file as
// it is now: same hash and, with --retry-failed, nothing failed (unless
// another worker of the run retried it since this evaluator was made).
func (e *Evaluator) fresh(ctx context.Context, res *Result) (*Result, bool, error) {
	prev, ok, err := e.stored(ctx, res.Task)
	if err != nil || !ok || prev.SHA256 != res.SHA256 {
		return nil, false, err
	}
	if len(prev.Result.NotFetched) > 0 {
		// Sources the network kept from us are fetched again by any run.
		return nil, false, nil
	}
	if e.opts.RetryFailed && !prev.retried && (prev.Result.Status == store.StatusFailed || len(prev.Result.FailedSources) > 0 || len(prev.Result.FailedUnits) > 0) {
		return nil, false, nil
	}
	return prev.Result, true, nil
}

// reuse returns the report's stored result when it is fresh, having
// written every output file a run names for it: the report file and its
// graph, whoever computed them (this process, an earlier run into another
// --out, or another worker of the run). A stored result whose graph unit
// is missing is not reused: the report is computed again.
func (e *Evaluator) reuse(ctx context.Context, res *Result) (*Result, bool, error) {
	prev, ok, err := e.fresh(ctx, res)
	if err != nil || !ok {
		return nil, false, err
	}
	if prev.AAR != nil && e.opts.OutDir != "" {
		u, found, err := e.opts.Store.GetUnit(ctx, e.run, unitGraph, prev.Task)
		if err != nil {
			return nil, false, err
		}
		if !found || u.Status != store.StatusDone {
			return nil, false, nil
		}
		if err := writeFile(filepath.Join(e.opts.OutDir, "graphs", prev.Task+".json"), u.Data); err != nil {
			return nil, false, err
		}
	}
	return prev, true, e.writeReport(prev)
}

// parse reads the report into claims (with their char spans) and
// citations, and makes one citedSource record for each distinct target
// the citations point at: the only place a target's key is computed. It
// writes st.doc, st.sources, st.ofCitation, st.cites, the result's claims
// with the labels of their citations, and the parser's counts of bytes,
// dangling markers and cited claims.
func (e *Evaluator) parse(ctx context.Context, st *reportState) error {
	doc, err := report.ParseContext(ctx, st.text, e.opts.ReportLimits)
	if err != nil {
		return err
	}
	st.doc = doc
	res, doc := st.res, st.doc
	res.Stats.Bytes = len(st.text)
	res.Stats.ReferenceBlocks, res.Stats.ReferenceSplitFails = ReferenceBlocks(st.text)
	byKey := map[string]*citedSource{}
	st.ofCitation = make([]*citedSource, len(doc.Citations))
	labels := make([]string, len(doc.Citations)) // how each citation shows its target
	for i, c := range doc.Citations {
		if !c.HasTarget() {
			if c.Kind != claimtrace.KindListEntry {
				res.Stats.DanglingMarker++
			}
			continue
		}
		t := targetOf(c)
		s, ok := byKey[t.Key]
		if !ok {
			s = &citedSource{key: t.Key}
			byKey[t.Key] = s
			st.sources = append(st.sources, s)
		}
		s.target = t
		if c.Title != "" && (c.URL != "" || c.DOI != "" || c.ArXivID != "") && s.hint == "" {
			// The reference list's title of a URL or an identifier: what
			// the report says the source is (establish, match).
			s.hint = c.Title
		}
		if c.Kind == claimtrace.KindListEntry && s.entry == "" && c.Start >= 0 && c.Start <= c.End && c.End <= len(st.text) {
			s.entry = st.text[c.Start:c.End]
		}
		st.ofCitation[i], labels[i] = s, t.label()
	}
	slices.SortFunc(st.sources, func(a, b *citedSource) int { return strings.Compare(a.key, b.key) })

	st.cites = make([][]claimCite, len(doc.Claims))
	for ci, c := range doc.Claims {
		cr := ClaimResult{ID: c.ID, Text: c.Text, Start: c.Start, End: c.End, Cited: c.Cited(), Citations: []string{}, Verdicts: []claimtrace.Verdict{}}
		for _, i := range c.Citations {
			if i < 0 || i >= len(doc.Citations) || st.ofCitation[i] == nil {
				continue
			}
			s := st.ofCitation[i]
			seen := slices.ContainsFunc(st.cites[ci], func(cc claimCite) bool { return cc.src == s })
			st.cites[ci] = append(st.cites[ci], claimCite{src: s, label: labels[i]})
			if seen {
				continue
			}
			s.claimLabel = labels[i]
			s.claims = append(s.claims, ci)
			cr.Citations = append(cr.Citations, labels[i])
		}
		if cr.Cited {
			res.Stats.CitedClaims++
		}
		res.Claims = append(res.Claims, cr)
	}
	// Now that its size is known, the report waits for room to go on.
	if a, ok := ctx.Value(admissionKey{}).(*admission); ok {
		return a.resize(ctx, reportCost(int64(len(st.text)), len(doc.Claims), len(st.sources)))
	}
	return nil
}

// resolveSources resolves every resolvable cited source of the report,
// concurrently (Evaluator.source: once a run, from memory, the store or
// the metadata ladder). It writes each record's resolution.
func (e *Evaluator) resolveSources(ctx context.Context, st *reportState) error {
	g, gctx := errgroup.WithContext(ctx)
	total, done := 0, 0
	for _, s := range st.sources {
		if s.resolvable() {
			total++
		}
	}
	// As many at once as may fetch: a report citing thousands of sources
	// does not start thousands of goroutines, and stops starting them when
	// the run is cancelled.
	g.SetLimit(e.opts.FetchConcurrency)
	for _, s := range st.sources {
		if gctx.Err() != nil {
			break
		}
		if !s.resolvable() {
			continue
		}
		g.Go(func() error {
			start := time.Now()
			r, err := e.source(gctx, s.target)
			if err != nil {
				return err
			}
			s.resolution = r
			if e.opts.SourceProgress != nil {
				e.progressMu.Lock()
				done++
				e.opts.SourceProgress(SourceEvent{Task: st.file.Task, Done: done, Total: total, Target: s.target.label(),
					Kind: r.Work.Kind, Status: r.Work.Status, Elapsed: time.Since(start)})
				e.progressMu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err() // cancelled before every source was resolved
}

// match turns resolved sources into the report's cited works and matches
// them with the ground truth. A dead scholarly link takes its reference
// list title (hint); sources of one identity merge into one work, and one
// paper cited under several keys (its arXiv id, its DOI, a venue page, a
// title) is one work, whether or not it is in the ground truth. It writes
// each record's work, st.works, the result's sources and failed sources
// and, with a dataset, the cutoff and the citation scores.
func (e *Evaluator) match(st *reportState) {
	res := st.res
	works := map[string]*claimtrace.Work{}
	var order []string
	for _, s := range st.sources {
		if !s.resolvable() {
			continue
		}
		r := s.resolution
		if r.Failed {
			res.FailedSources = append(res.FailedSources, s.key)
		}
		if r.Work.Kind == claimtrace.WorkNotFetched || r.lookupSkipped {
			res.NotFetched = append(res.NotFetched, s.target.label())
		}
		w := r.Work
		if (w.Kind == claimtrace.WorkUnknown || w.Kind == claimtrace.WorkUnverifiable) && s.hint != "" && biblio.IsScholarlyURL(w.URL) {
			w.Title, w.Kind, w.Via = s.hint, claimtrace.WorkPaper, "reference_list"
			w.Key = biblio.Key(w)
		}
		s.work = w
		res.Sources = append(res.Sources, SourceResult{Target: s.target.label(), Work: w, Fetched: r.Fetched, Wall: r.Wall, TextSHA: r.TextSHA, Ladder: r.Ladder})
		if have, ok := works[w.Key]; ok {
			mergeWork(have, w)
			continue
		}
		cp := w
		works[w.Key] = &cp
		order = append(order, w.Key)
	}
	list, into := joinByTitle(order, works)
	st.works = list
	for _, s := range st.sources {
		if to, ok := into[s.work.Key]; ok && s.resolvable() {
			s.work.Key = to
		}
	}
	for i := range res.Sources {
		if to, ok := into[res.Sources[i].Work.Key]; ok {
			res.Sources[i].Work.Key = to
		}
	}
	if e.opts.Dataset == nil {
		return
	}
	if !st.cutoff.IsZero() {
		res.Cutoff = st.cutoff.Format("2006-01-02")
	}
	res.CutoffSource = st.cutoffSource
	stated := st.misattributed()
	score := score.ScoreCitations(score.CitationInput{
		Works:    st.works,
		Matcher:  indexMatcher{st.index()},
		Cutoff:   st.cutoff,
		IsSurvey: surveyTest(st.task),
		Dangling: res.Stats.DanglingMarker,
		Misattributed: func(w claimtrace.Work) (string, bool) {
			t, ok := stated[w.Key]
			return t, ok
		},
	})
	res.Citation = &score
}

// titleSources are the rungs of the metadata ladder whose title is the
// work's own: scholarly meta tags and the scholarly APIs. A page's <title>
// ("Paper | Journal"), a PDF's metadata or a model's reading are not held
// against the title a report states.
var titleSources = map[string]bool{"meta_tags": true, "arxiv_api": true, "crossref": true, "openalex": true}

// misattributed returns, by work key, the title the report states for each
// cited work whose own title (from its meta tags or a scholarly API)
// disagrees with it under the strict title test (biblio.TitlesDisagree):
// the report names one paper, its URL or identifier is another.
func (st *reportState) misattributed() map[string]string {
	out := map[string]string{}
	for _, s := range st.sources {
		found := s.resolution.Work
		if !s.resolvable() || s.hint == "" || found.Kind != claimtrace.WorkPaper || !titleSources[found.Via] {
			continue
		}
		if biblio.TitlesDisagree(s.hint, found.Title) {
			if _, seen := out[s.work.Key]; !seen {
				out[s.work.Key] = s.hint
			}
		}
	}
	return out
}

// judgeAndCheck runs the report's two model-bound stages at once: cited
// judging (judgeCited) and the non-cited stage (facts: check-worthiness,
// then fact-checking). They do not depend on each other: judging reads the
// cited claims' text and writes the sources' verdicts, the non-cited stage
// reads and writes only the non-cited claims, so neither waits for the
// other's model calls and a run does not alternate between a judge-only
// and a fact-check-only phase. Each unit is stored as it is done, as
// before. When one stage fails (a cancelled run, an exhausted budget) the
// other is cancelled and the first error returned. Once both are done,
// the verdicts go on the claims (placeVerdicts) and the failed units are
// listed as the stages did one after the other: judging's, sorted, then
// the non-cited stage's, the whole list sorted unless that stage itself
// failed (its failure then comes last), so the result is byte for byte
// the one of the sequential order.
func (e *Evaluator) judgeAndCheck(ctx context.Context, st *reportState) error {
	var judgeFailed, factFailed []string
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		judgeFailed, err = e.judgeCited(gctx, st)
		return err
	})
	g.Go(func() error { return e.facts(gctx, st, &factFailed) })
	if err := g.Wait(); err != nil {
		return err
	}
	e.placeVerdicts(st)
	res := st.res
	res.FailedUnits = append(judgeFailed, factFailed...)
	if res.NonCited == nil || res.NonCited.Error == "" {
		slices.Sort(res.FailedUnits)
	}
	return nil
}

// facts decides which non-cited claims are check-worthy and fact-checks
// them as of the task's cutoff (nonCited). It writes the claims' facts and
// the result's non-cited figures, and adds the units that failed to
// failed.
func (e *Evaluator) facts(ctx context.Context, st *reportState, failed *[]string) error {
	nc, err := e.nonCited(ctx, st.file.Task, st.text, st.cutoff, st.res.Claims, failed)
	if err != nil {
		return err
	}
	st.res.NonCited = nc
	return nil
}

// tally writes what the parser found into the result's Stats: claims,
// in-text citations, reference list entries, distinct targets and, among
// them, URLs.
func (st *reportState) tally() {
	s := &st.res.Stats
	s.Claims = len(st.doc.Claims)
	for _, c := range st.doc.Citations {
		if c.Kind == claimtrace.KindListEntry {
			s.ListEntries++
		} else {
			s.Citations++
		}
	}
	for _, src := range st.sources {
		if !src.resolvable() {
			continue
		}
		s.Targets++
		if strings.HasPrefix(src.key, "url:") || strings.HasPrefix(src.key, "rawurl:") {
			s.DistinctURLs++
		}
	}
}

// stored returns the report's stored result, if any.
func (e *Evaluator) stored(ctx context.Context, task string) (storedReport, bool, error) {
	u, ok, err := e.opts.Store.GetUnit(ctx, e.run, unitReport, task)
	if err != nil {
		return storedReport{}, false, err
	}
	var s storedReport
	if !ok || json.Unmarshal(u.Data, &s) != nil || s.Result == nil {
		return storedReport{}, false, nil
	}
	s.retried = e.retriedSince(u)
	return s, true, nil
}

// retriedSince reports whether a unit was written since this evaluator was
// made: with --retry-failed, a failed unit that another worker of the run
// retried meanwhile is that worker's answer for this run, not one to retry
// once more. (Workers on several machines compare their clocks here: NTP's
// milliseconds are far below the seconds a retry takes.)
func (e *Evaluator) retriedSince(u store.Unit) bool {
	return !u.Updated.Before(e.started)
}

// fail records the report as failed, saying why.
func (e *Evaluator) fail(ctx context.Context, res *Result, msg string) (*Result, error) {
	res.Status = store.StatusFailed
	res.Error = msg
	return res, e.save(ctx, res)
}

// save writes the report file, then records the unit: a crash between the
// two redoes the report, never loses it.
func (e *Evaluator) save(ctx context.Context, res *Result) error {
	if err := e.writeReport(res); err != nil {
		return err
	}
	data, err := json.Marshal(storedReport{SHA256: res.SHA256, Result: res})
	if err != nil {
		return err
	}
	return e.opts.Store.PutUnit(ctx, store.Unit{Run: e.run, Kind: unitReport, Key: res.Task, Status: res.Status, Data: data, Err: res.Error})
}

// writeReport writes OUT/reports/<task_id>.json, when there is an output
// directory.
func (e *Evaluator) writeReport(res *Result) error {
	if e.opts.OutDir == "" {
		return nil
	}
	return writeJSON(filepath.Join(e.opts.OutDir, "reports", res.Task+".json"), res)
}

// mergeWork adds what w knows to dst, a work of the same identity: its
// URLs, and the title, identifiers, date and paper kind dst lacks.
func mergeWork(dst *claimtrace.Work, w claimtrace.Work) {
	dst.URLs = append(dst.URLs, w.URLs...)
	dst.Resolved = dst.Resolved || w.Resolved
	if dst.Title == "" {
		dst.Title = w.Title
	}
	if dst.ArXivID == "" {
		dst.ArXivID = w.ArXivID
	}
	if dst.DOI == "" {
		dst.DOI = w.DOI
	}
	if dst.Published.IsZero() {
		dst.Published = w.Published
	}
	if dst.Kind != claimtrace.WorkPaper && w.Kind == claimtrace.WorkPaper {
		dst.Kind = w.Kind
	}
}

// surveyTest recognises the task's own survey among cited works.
func surveyTest(t claimtrace.Task) func(claimtrace.Work) bool {
	id := biblio.ArXivID(t.ArXivID)
	doi := strings.ToLower(t.DOI)
	title := biblio.TitleKey(t.Title)
	return func(w claimtrace.Work) bool {
		switch {
		case id != "" && w.ArXivID == id:
			return true
		case doi != "" && w.DOI == doi:
			return true
		case title != "" && w.Title != "" && biblio.TitleKey(w.Title) == title:
			return true
		}
		return false
	}
}

// indexMatcher adapts biblio.Index to score.Matcher.
type indexMatcher struct{ ix *biblio.Index }

// Match finds w's ground-truth reference.
func (m indexMatcher) Match(w claimtrace.Work) (score.GTMatch, bool) {
	r, ok := m.ix.Match(w)
	if !ok {
		return score.GTMatch{}, false
	}
	return score.GTMatch{Ref: r.Ref, BibID: r.BibID, Method: r.Method, Score: r.Score}, true
}

// Distinct is the number of distinct ground-truth references.
func (m indexMatcher) Distinct() int { return m.ix.Distinct() }

// MaxResultBytes bounds a per-report result file ReadResult reads: a
// report within report.MaxReportBytes and the limits on its claims and
// citations makes a result well under it.
const MaxResultBytes = 1 << 30

// ReadResult reads a per-report result file written by Run. Only a regular
// file is read (inputfile.ReadFile).
func ReadResult(path string) (*Result, error) {
	b, err := inputfile.ReadFile(path, MaxResultBytes)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}
