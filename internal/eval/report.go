package eval

import (
	"cmp"
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

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
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
	Stats       Stats    `json:"stats"`
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
}

// storedReport is the report unit's data.
type storedReport struct {
	SHA256 string  `json:"sha256"`
	Result *Result `json:"result"`
	// retried: written since this evaluator was made (retriedSince).
	retried bool
}

func (e *Evaluator) report(ctx context.Context, f reportFile) (*Result, error) {
	var task claimtrace.Task
	if e.opts.Dataset != nil {
		task, _ = e.opts.Dataset.Task(f.Task)
	}
	res := &Result{Task: f.Task, File: f.Path, Domain: task.Domain, Claims: []ClaimResult{}, Sources: []SourceResult{}}
	text, loadErr := report.LoadMax(f.Path, cmp.Or(e.opts.MaxReportBytes, report.MaxReportBytes))
	if loadErr == nil {
		sum := sha256.Sum256([]byte(text))
		res.SHA256 = hex.EncodeToString(sum[:])
	}
	fresh := func() (*Result, bool, error) {
		prev, ok, err := e.stored(ctx, f.Task)
		if err != nil || !ok || prev.SHA256 != res.SHA256 {
			return nil, false, err
		}
		if e.opts.RetryFailed && !prev.retried && (prev.Result.Status == store.StatusFailed || len(prev.Result.FailedSources) > 0 || len(prev.Result.FailedUnits) > 0) {
			return nil, false, nil
		}
		return prev.Result, true, nil
	}
	if prev, ok, err := fresh(); err != nil {
		return nil, err
	} else if ok {
		return prev, e.writeReport(prev)
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
		if prev, ok, err := fresh(); err != nil {
			return nil, err
		} else if ok {
			return prev, e.writeReport(prev)
		}
	}
	if loadErr != nil {
		return e.fail(ctx, res, loadErr.Error())
	}
	var gt []claimtrace.Reference
	if e.opts.Dataset != nil {
		var err error
		if gt, err = e.opts.Dataset.GT(f.Task); err != nil {
			return e.fail(ctx, res, err.Error())
		}
	}
	doc := report.Parse(text)
	res.Stats.Bytes = len(text)

	// Resolve every distinct target of the report, concurrently.
	targets := map[string]target{}
	for _, c := range doc.Citations {
		if !c.HasTarget() {
			if c.Kind != claimtrace.KindListEntry {
				res.Stats.DanglingMarker++
			}
			continue
		}
		if t := targetOf(c); t.key() != "" {
			targets[t.key()] = t
		}
	}
	resolved := make(map[string]sourceResult, len(targets))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for k, t := range targets {
		g.Go(func() error {
			r, err := e.source(gctx, t)
			if err != nil {
				return err
			}
			mu.Lock()
			resolved[k] = r
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	// Apply the reference list's titles to dead scholarly links, then merge
	// targets into works by identity.
	hints := map[string]string{}
	for _, c := range doc.Citations {
		if c.URL != "" && c.Title != "" {
			if k := targetOf(c).key(); hints[k] == "" {
				hints[k] = c.Title
			}
		}
	}
	keys := make([]string, 0, len(resolved))
	for k := range resolved {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	works := map[string]*claimtrace.Work{}
	adjusted := make(map[string]claimtrace.Work, len(keys)) // target key → its work
	var order []string
	for _, k := range keys {
		r := resolved[k]
		if r.Failed {
			res.FailedSources = append(res.FailedSources, k)
		}
		w := r.Work
		if (w.Kind == claimtrace.WorkUnknown || w.Kind == claimtrace.WorkUnverifiable) && hints[k] != "" && biblio.IsScholarlyURL(w.URL) {
			w.Title, w.Kind, w.Via = hints[k], claimtrace.WorkPaper, "reference_list"
			w.Key = biblio.Key(w)
		}
		adjusted[k] = w
		res.Sources = append(res.Sources, SourceResult{Target: targets[k].label(), Work: w, Fetched: r.Fetched, Wall: r.Wall, TextSHA: r.TextSHA, Ladder: r.Ladder})
		if have, ok := works[w.Key]; ok {
			mergeWork(have, w)
			continue
		}
		cp := w
		works[w.Key] = &cp
		order = append(order, w.Key)
	}
	// One paper cited under several keys (its arXiv id, its DOI, a venue
	// page, a title) is one work, whether or not it is in the ground truth.
	list, into := joinByTitle(order, works)
	for k, w := range adjusted {
		if to, ok := into[w.Key]; ok {
			w.Key = to
			adjusted[k] = w
		}
	}
	for i := range res.Sources {
		if to, ok := into[res.Sources[i].Work.Key]; ok {
			res.Sources[i].Work.Key = to
		}
	}

	if e.opts.Dataset != nil {
		cutoff, src := dataset.Cutoff(task)
		if !cutoff.IsZero() {
			res.Cutoff = cutoff.Format("2006-01-02")
		}
		res.CutoffSource = src
		score := score.ScoreCitations(score.CitationInput{
			Works:    list,
			Matcher:  indexMatcher{biblio.NewIndex(gt)},
			Cutoff:   cutoff,
			IsSurvey: surveyTest(task),
			Dangling: res.Stats.DanglingMarker,
		})
		res.Citation = &score
	}

	// Claims, their sources and verdicts.
	keysOf := make([][]string, len(doc.Claims))
	labels := map[string]string{}
	for ci, c := range doc.Claims {
		cr := ClaimResult{ID: c.ID, Text: c.Text, Start: c.Start, End: c.End, Cited: c.Cited(), Citations: []string{}, Verdicts: []claimtrace.Verdict{}}
		seen := map[string]bool{}
		for _, i := range c.Citations {
			if i < 0 || i >= len(doc.Citations) || !doc.Citations[i].HasTarget() {
				continue
			}
			t := targetOf(doc.Citations[i])
			k := t.key()
			if seen[k] {
				continue
			}
			seen[k] = true
			labels[k] = t.label()
			keysOf[ci] = append(keysOf[ci], k)
			cr.Citations = append(cr.Citations, t.label())
		}
		if cr.Cited {
			res.Stats.CitedClaims++
		}
		res.Claims = append(res.Claims, cr)
	}
	if e.opts.Judge != nil {
		if err := e.verify(ctx, f.Task, res.Claims, keysOf, resolved, labels, &res.FailedUnits); err != nil {
			return nil, err
		}
		cs := citedStats(res.Claims, e.opts.PartialWeight, e.opts.Tau)
		res.Cited = &cs
	}
	cutoff, _ := dataset.Cutoff(task)
	nc, err := e.nonCited(ctx, f.Task, text, cutoff, res.Claims, &res.FailedUnits)
	if err != nil {
		return nil, err
	}
	res.NonCited = nc
	if err := e.provenance(ctx, res, doc, adjusted, resolved); err != nil {
		if errors.Is(err, claimtrace.ErrInvalid) {
			// The report's own records do not make a graph: its failure,
			// not the run's.
			return e.fail(ctx, res, "provenance graph: "+err.Error())
		}
		return nil, err
	}
	res.Stats.Claims = len(doc.Claims)
	for _, c := range doc.Citations {
		if c.Kind == claimtrace.KindListEntry {
			res.Stats.ListEntries++
		} else {
			res.Stats.Citations++
		}
	}
	res.Stats.Targets = len(targets)
	for k := range targets {
		if strings.HasPrefix(k, "url:") || strings.HasPrefix(k, "rawurl:") {
			res.Stats.DistinctURLs++
		}
	}
	res.Status = store.StatusDone
	return res, e.save(ctx, res)
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

func (e *Evaluator) writeReport(res *Result) error {
	if e.opts.OutDir == "" {
		return nil
	}
	return writeJSON(filepath.Join(e.opts.OutDir, "reports", res.Task+".json"), res)
}

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

func (m indexMatcher) Match(w claimtrace.Work) (score.GTMatch, bool) {
	r, ok := m.ix.Match(w)
	if !ok {
		return score.GTMatch{}, false
	}
	return score.GTMatch{Ref: r.Ref, BibID: r.BibID, Method: r.Method, Score: r.Score}, true
}

func (m indexMatcher) Distinct() int { return m.ix.Distinct() }

// ReadResult reads a per-report result file written by Run.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}
