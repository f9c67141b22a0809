package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
)

// pageNames are the full pages; "fragment-panel" is the claim panel alone,
// which the script loads when a claim is selected.
var pageNames = []string{"runs.html", "run.html", "audit.html", "source.html", "graph.html", "error.html"}

// staticPages are the pages of a static export (Server.Export).
var staticPages = []string{"static-run.html", "static-audit.html"}

// parsePages parses each page with the layout and the shared panel.
func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"pct": pct, "dec": dec, "duration": duration, "plural": plural, "trim": trimText, "gap": gapText,
		"pctOf":         func(v float64) string { return pct(&v) },
		"maxGraphNodes": func() int { return MaxGraphNodes },
	}
	css, err := assets.ReadFile("static/style.css")
	if err != nil {
		return nil, err
	}
	// The static export inlines the style sheet, our own embedded file.
	funcs["css"] = func() template.CSS { return template.CSS(css) }
	pages := make(map[string]*template.Template, len(pageNames)+len(staticPages)+1)
	for _, name := range append(append(slices.Clone(pageNames), staticPages...), "fragment-panel") {
		layout := "templates/layout.html"
		file := "templates/" + name
		if page, ok := strings.CutPrefix(name, "static-"); ok {
			layout = "templates/static-layout.html"
			if page == "run.html" {
				file = "templates/run.html"
			}
		}
		files := []string{layout, "templates/panel.html", "templates/figures.html"}
		if !strings.HasPrefix(name, "fragment-") {
			files = append(files, file)
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(assets, files...)
		if err != nil {
			return nil, fmt.Errorf("parse template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// base is what every page's layout reads. Static marks a page of a
// static export (no script, no server); Generated is when it was made.
type base struct {
	Title     string
	Writable  bool
	Static    bool
	Generated *time.Time
}

func (s *Server) base(title string) base { return base{Title: title, Writable: s.Writable()} }

type errorPage struct {
	base
	Status  int
	Message string
}

// runRow is one run on the home page.
type runRow struct {
	store.Run
	Href             string
	Reports          int
	Failed           int
	Audited, Reviews int
}

type runsPage struct {
	base
	Runs []runRow
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) error {
	runs, err := s.st.Runs(r.Context())
	if err != nil {
		return err
	}
	data := runsPage{base: s.base("Runs")}
	for _, run := range runs {
		reviews, err := s.st.CountReviews(r.Context(), run.ID)
		if err != nil {
			return err
		}
		data.Runs = append(data.Runs, runRow{Run: run, Href: "/runs/" + url.PathEscape(run.ID),
			Reports: run.Units[unitReport+"/"+store.StatusDone], Failed: run.Units[unitReport+"/"+store.StatusFailed],
			Audited: run.Units[UnitAuditTime+"/"+store.StatusDone], Reviews: run.Units[UnitReview+"/"+store.StatusDone] + reviews})
	}
	return s.render(w, http.StatusOK, "runs.html", data)
}

type runPage struct {
	base
	Run     store.Run
	APIHref string
	Reports []ReportLine
	// Effort pools the run's audit timings.
	Effort AuditEffort
	// Agreement pools the run's reviews.
	Agreement Agreement
	// Sample is the run's review sample and its figures with the judge's
	// error inside them.
	Sample *sampleView
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) error {
	id, err := runName(r)
	if err != nil {
		return err
	}
	run, err := s.findRun(r.Context(), id)
	if err != nil {
		return err
	}
	fig, err := s.reportLines(r.Context(), id)
	if err != nil {
		return err
	}
	data := runPage{base: s.base("Run " + id), Run: run, APIHref: "/api/runs/" + url.PathEscape(id) + "/reports",
		Reports: fig.Lines, Effort: effort(fig.Timings), Agreement: fig.Agreement}
	if data.Sample, err = s.reviewSample(r.Context(), id, run.Params, true, false, fig.units); err != nil {
		return err
	}
	return s.render(w, http.StatusOK, "run.html", data)
}

// runFigures is what a run's page and API show: the headline figures of
// every report, the audit timings measured on their current texts and how
// the reviews of those texts agree with the pipeline.
type runFigures struct {
	Lines     []ReportLine
	Timings   []Timing
	Agreement Agreement
	// units are the run's report units, as read.
	units []store.Unit
}

// reportLines returns the figures of every report of a run.
func (s *Server) reportLines(ctx context.Context, run string) (runFigures, error) {
	// All statuses: a failed report is listed with its error.
	units, err := s.st.Units(ctx, run, unitReport)
	if err != nil {
		return runFigures{}, err
	}
	timings, err := s.runEffort(ctx, run)
	if err != nil {
		return runFigures{}, err
	}
	reviewed, err := s.runReviews(ctx, run)
	if err != nil {
		return runFigures{}, err
	}
	fig := runFigures{Lines: make([]ReportLine, 0, len(units)), units: units}
	var byTask map[string]Agreement
	fig.Agreement, byTask = runAgreement(reviewed)
	for _, u := range units {
		h, bad := s.headline(run, u)
		if bad != "" {
			fig.Lines = append(fig.Lines, ReportLine{Task: u.Key, Status: u.Status, Error: bad})
			continue
		}
		l := newReportLine(h, timings[h.Task])
		l.Href = reportURL(run, h.Task)
		if a, ok := byTask[u.Key]; ok {
			l.ClaimsReviewed, l.ReviewAgreement = a.ClaimsReviewed, a.Rate
		}
		for _, t := range timings[h.Task] {
			if t.ReportSHA256 == h.SHA256 {
				fig.Timings = append(fig.Timings, t)
			}
		}
		fig.Lines = append(fig.Lines, l)
	}
	return fig, nil
}

// headline decodes the headline figures of a report unit, or says why it
// cannot; decoded units are cached by version.
func (s *Server) headline(run string, u store.Unit) (headline, string) {
	key := [2]string{run, u.Key}
	s.headMu.Lock()
	c, ok := s.heads[key]
	s.headMu.Unlock()
	if ok && c.attempts == u.Attempts && c.updated.Equal(u.Updated) {
		return c.h, c.err
	}
	var sr struct {
		SHA256 string   `json:"sha256"`
		Result headline `json:"result"`
	}
	c = cachedHeadline{attempts: u.Attempts, updated: u.Updated}
	if err := json.Unmarshal(u.Data, &sr); err != nil {
		c.err = "stored result unreadable: " + err.Error()
	} else {
		c.h = sr.Result
		if c.h.Task == "" {
			c.h.Task = u.Key
		}
		if c.h.SHA256 == "" {
			c.h.SHA256 = sr.SHA256
		}
		if c.h.Status == "" {
			c.h.Status = u.Status
		}
	}
	s.headMu.Lock()
	if len(s.heads) >= maxCachedHeadlines {
		clear(s.heads)
	}
	s.heads[key] = c
	s.headMu.Unlock()
	return c.h, c.err
}

// statusCount is one line of the audit view's legend.
type statusCount struct {
	Status string
	N      int
}

type auditPage struct {
	base
	Run, Task string
	RunHref   string
	APIHref   string
	GraphHref string
	Res       *eval.Result
	// Text is the page's part of the report, rendered (renderReport).
	Text     template.HTML
	TextNote string
	// Claims are the claims the page shows: those whose text is on the
	// page (and, on the first page, those not found in the text).
	Claims []claimRef
	Legend []statusCount
	// Reviewed and Disputed count the report's claims, on every page.
	Reviewed  int
	Disputed  int
	Effort    AuditEffort
	Agreement Agreement
	Panel     *claimPanel
	// Page is the page shown (1-based) of Pages; PrevHref and NextHref
	// link the pages either side ("" at the ends).
	Page, Pages        int
	PrevHref, NextHref string
	// Sample is the run's review sample, when one was drawn: the page
	// shows how far its review is and the next unit.
	Sample *sampleView
}

// Paged reports whether the report spans more than one page.
func (p auditPage) Paged() bool { return p.Pages > 1 }

func (s *Server) auditPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	l, ts, reviews, err := s.loadAudit(ctx, run, task)
	if err != nil {
		return err
	}
	href := reportURL(run, task)
	data := auditPage{base: s.base(task + " — audit"), Run: run, Task: task, RunHref: "/runs/" + url.PathEscape(run),
		APIHref: "/api" + href, GraphHref: href + "/graph", Res: l.Res, Effort: effort(ts)}
	rt := textOf(l.Res)
	spans := cleanSpans(rt.Text, rt.Spans)
	pages := paginate(rt.Text, spans, s.pageClaims, pageBytes)
	at := spanStarts(len(l.Res.Claims), spans)
	id := r.URL.Query().Get("claim")
	page, err := pageOf(r.URL.Query().Get("page"), id, l.Res, at, pages)
	if err != nil {
		return err
	}
	data.Page, data.Pages = page+1, len(pages)
	if page > 0 {
		data.PrevHref = href + "?page=" + strconv.Itoa(page)
	}
	if page+1 < len(pages) {
		data.NextHref = href + "?page=" + strconv.Itoa(page+2)
	}
	pg := pages[page]
	data.claims(href, reviews, func(i int) bool {
		if at[i] < 0 {
			return page == 0
		}
		sp := spans[at[i]]
		return sp.Start < pg.To && sp.End > pg.From
	})
	if data.Sample, err = s.reviewSample(ctx, run, "", true, true, nil); err != nil {
		return err
	}
	if id != "" {
		if data.Panel, err = s.panel(ctx, l, id, ts, reviews); err != nil {
			return err
		}
		data.selectClaim(id)
	}
	data.TextNote = rt.Note
	data.render(rt.Text, spans, pg)
	return s.render(w, http.StatusOK, "audit.html", data)
}

// spanStarts maps each claim's index to its span's index in spans, -1
// for a claim not found in the text.
func spanStarts(claims int, spans []span) []int {
	at := make([]int, claims)
	for i := range at {
		at[i] = -1
	}
	for k, sp := range spans {
		if sp.Ref >= 0 && sp.Ref < claims {
			at[sp.Ref] = k
		}
	}
	return at
}

// pageOf returns the page (0-based) an audit view request shows: the page
// holding the selected claim, else ?page=N (1-based), else the first.
func pageOf(raw, claim string, res *eval.Result, at []int, pages []textPage) (int, error) {
	if claim != "" {
		if err := checkClaimID(claim); err != nil {
			return 0, err
		}
		i := slices.IndexFunc(res.Claims, func(c eval.ClaimResult) bool { return c.ID == claim })
		if i < 0 {
			return 0, fmt.Errorf("claim %q of report %q: %w", claim, res.Task, claimtrace.ErrNotFound)
		}
		if at[i] < 0 {
			return 0, nil
		}
		return slices.IndexFunc(pages, func(p textPage) bool { return p.To > res.Claims[i].Start }), nil
	}
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || strconv.Itoa(n) != raw || n < 1 {
		return 0, fmt.Errorf("page %q: want a page number from 1: %w", clip(raw, 40), claimtrace.ErrInvalid)
	}
	if n > len(pages) {
		return 0, fmt.Errorf("page %d: the report has %s: %w", n, plural(len(pages), "page"), claimtrace.ErrNotFound)
	}
	return n - 1, nil
}

// selectClaim marks claim id selected among the page's claims.
func (p *auditPage) selectClaim(id string) {
	for i := range p.Claims {
		p.Claims[i].Selected = p.Claims[i].ID == id
	}
}

// render renders text[pg.From:pg.To] with the page's claims highlighted.
func (p *auditPage) render(text string, spans []span, pg textPage) {
	local := make(map[int]int, len(p.Claims)) // claim index → index in p.Claims
	for i, c := range p.Claims {
		local[c.Index] = i
	}
	var on []span
	for _, sp := range spans {
		if sp.End <= pg.From || sp.Start >= pg.To {
			continue
		}
		if i, ok := local[sp.Ref]; ok {
			on = append(on, span{Start: max(sp.Start, pg.From), End: min(sp.End, pg.To), Ref: i})
		}
	}
	p.Text = renderReport(text, pg.From, pg.To, on, p.Claims).HTML
}

// claims counts the report's claims by status and review into the legend
// and keeps those keep accepts (all when keep is nil) as the page's
// claims; base is the audit view's path.
func (p *auditPage) claims(base string, reviews map[string][]Review, keep func(i int) bool) {
	counts := map[string]int{}
	p.Claims = nil
	for i, c := range p.Res.Claims {
		ref := newClaimRef(base, i, c, reviews[c.ID])
		counts[ref.Status]++
		if ref.Reviewed {
			p.Reviewed++
		}
		if ref.Disputed {
			p.Disputed++
		}
		if keep == nil || keep(i) {
			p.Claims = append(p.Claims, ref)
		}
	}
	for _, st := range []string{statusSupported, statusPartial, statusUnsupported, statusContradicted, statusUnknown, statusUncited} {
		p.Legend = append(p.Legend, statusCount{st, counts[st]})
	}
	p.Agreement = agreement(reviewedClaims(p.Res, reviews))
}

// claimFragment serves one claim's panel, for the script to swap in.
func (s *Server) claimFragment(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	l, ts, reviews, err := s.loadAudit(ctx, run, task)
	if err != nil {
		return err
	}
	p, err := s.panel(ctx, l, r.PathValue("claim"), ts, reviews)
	if err != nil {
		return err
	}
	return s.render(w, http.StatusOK, "fragment-panel", p)
}

// contextBytes is how much source text the panel shows either side of an
// evidence passage.
const contextBytes = 600

// panel gathers what the audit view shows about claim id.
func (s *Server) panel(ctx context.Context, l *loaded, id string, ts []Timing, reviews map[string][]Review) (*claimPanel, error) {
	if err := checkClaimID(id); err != nil {
		return nil, err
	}
	res := l.Res
	i := slices.IndexFunc(res.Claims, func(c eval.ClaimResult) bool { return c.ID == id })
	if i < 0 {
		return nil, fmt.Errorf("claim %q of report %q: %w", id, res.Task, claimtrace.ErrNotFound)
	}
	c := res.Claims[i]
	p := &claimPanel{claimRef: newClaimRef(reportURL(l.Run, l.Task), i, c, reviews[id]), Run: l.Run, Task: l.Task,
		Cited: c.Cited, Citations: c.Citations, Fact: c.Fact, CheckWorthy: c.CheckWorthy, Why: c.Why,
		Complete: c.Complete, Gap: gapText(c.Gap), Nodes: c.Nodes, PSnd: c.PSnd, Reviews: newReviewViews(c, reviews[id]),
		Writable: s.Writable(), Labels: factLabels}
	if c.Cited {
		p.Labels = verdictLabels
	}
	for _, t := range ts {
		if t.Claim == id {
			p.Seconds += t.Seconds
		}
	}
	if l.texts == nil {
		l.texts = map[string]string{} // text sha → text, read once per report
	}
	for _, v := range c.Verdicts {
		ev, err := s.evidence(ctx, l, v, l.texts)
		if err != nil {
			return nil, err
		}
		p.Evidence = append(p.Evidence, ev)
	}
	path, err := s.path(ctx, l, id)
	if err != nil {
		return nil, err
	}
	p.Path = path
	return p, nil
}

// sourceOf returns the index of the source a verdict's URL label names.
func sourceOf(res *eval.Result, label string) int {
	return slices.IndexFunc(res.Sources, func(s eval.SourceResult) bool { return s.Target == label })
}

// evidence places a verdict's evidence passage in its source's stored text.
func (s *Server) evidence(ctx context.Context, l *loaded, v claimtrace.Verdict, texts map[string]string) (evidenceView, error) {
	ev := evidenceView{Verdict: v, SourceURL: httpURL(v.URL)}
	si := sourceOf(l.Res, v.URL)
	if si >= 0 {
		src := l.Res.Sources[si]
		ev.Source = &src
		if ev.SourceURL == "" {
			ev.SourceURL = httpURL(src.Work.URL)
		}
	}
	switch {
	case v.Evidence == "":
		ev.Note = "the judge quoted no evidence"
		return ev, nil
	case ev.Source == nil:
		ev.Note = "this source is not among the report's resolved sources: the evidence is shown as the judge quoted it"
		return ev, nil
	case ev.Source.TextSHA == "":
		ev.Note = "the result records no stored text for this source (not fetched, or evaluated before texts were recorded): the evidence is shown as the judge quoted it"
		return ev, nil
	}
	text, ok := texts[ev.Source.TextSHA]
	if !ok {
		_, t, found, err := s.st.GetText(ctx, ev.Source.TextSHA)
		if err != nil {
			return ev, err
		}
		if !found {
			ev.Note = "the source text is no longer in the store: the evidence is shown as the judge quoted it"
			return ev, nil
		}
		text, texts[ev.Source.TextSHA] = t, t
	}
	ev.TextHref = reportURL(l.Run, l.Task) + "/sources/" + strconv.Itoa(si)
	start, end, found := locate(text, v.Evidence)
	if !found {
		ev.Note = "the evidence was not found verbatim in the stored source text: it is shown as the judge quoted it"
		return ev, nil
	}
	from, to := window(text, start, end, contextBytes)
	ev.Located = true
	ev.Before, ev.Match, ev.After = text[from:start], text[start:end], text[end:to]
	ev.CutBefore, ev.CutAfter = from > 0, to < len(text)
	return ev, nil
}

// path reads claim id's provenance path from the report's graph.
func (s *Server) path(ctx context.Context, l *loaded, id string) (*pathView, error) {
	if !l.graphRead {
		_, g, err := s.loadGraph(ctx, l.Run, l.Task)
		switch {
		case errors.Is(err, claimtrace.ErrNotFound) || errors.Is(err, claimtrace.ErrInvalid):
			l.graphMiss = err.Error()
		case err != nil:
			return nil, err
		default:
			if l.graph, err = prov.NewIndex(g); err != nil {
				l.graphMiss = "the stored graph is invalid: " + err.Error()
			}
		}
		l.graphRead = true
	}
	if l.graphMiss != "" {
		return &pathView{Missing: l.graphMiss}, nil
	}
	ix := l.graph
	tau := prov.DefaultTau
	if l.Res.AAR != nil && l.Res.AAR.Tau > 0 {
		tau = l.Res.AAR.Tau
	}
	p, err := ix.Path(id, tau)
	if err != nil {
		return &pathView{Missing: err.Error()}, nil
	}
	return newPath(p), nil
}

// sourcePage shows a source's whole stored text with evidence passages
// marked: those of one claim (?claim=ID) or of every verdict on it.
type sourcePage struct {
	base
	ReportHref string
	Task       string
	Index      int
	Source     eval.SourceResult
	SourceURL  string
	TextTitle  string
	Pieces     []textPiece
	Claim      string
	Marked     int
	Missing    []string
}

func (s *Server) sourcePage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	l, err := s.loadReport(ctx, run, task)
	if err != nil {
		return err
	}
	raw := r.PathValue("source")
	si, err := strconv.Atoi(raw)
	if err != nil || si < 0 || strconv.Itoa(si) != raw {
		return fmt.Errorf("source %q: want a source number: %w", clip(raw, 40), claimtrace.ErrInvalid)
	}
	if si >= len(l.Res.Sources) {
		return fmt.Errorf("source %d of report %q: %w", si, task, claimtrace.ErrNotFound)
	}
	only := r.URL.Query().Get("claim")
	if only != "" {
		if err := checkClaimID(only); err != nil {
			return err
		}
	}
	src := l.Res.Sources[si]
	if src.TextSHA == "" {
		return fmt.Errorf("text of source %d of report %q: none recorded: %w", si, task, claimtrace.ErrNotFound)
	}
	title, text, ok, err := s.st.GetText(ctx, src.TextSHA)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("text of source %d of report %q: not in the store: %w", si, task, claimtrace.ErrNotFound)
	}
	href := reportURL(run, task)
	data := sourcePage{base: s.base(task + " — source " + strconv.Itoa(si)), ReportHref: href, Task: task, Index: si,
		Source: src, SourceURL: httpURL(src.Work.URL), TextTitle: title, Claim: only}
	var spans []span
	var refs []claimRef
	for _, c := range l.Res.Claims {
		if only != "" && c.ID != only {
			continue
		}
		for _, v := range c.Verdicts {
			if v.URL != src.Target || v.Evidence == "" {
				continue
			}
			if start, end, ok := locate(text, v.Evidence); ok {
				spans = append(spans, span{Start: start, End: end, Ref: len(refs)})
				refs = append(refs, claimRef{ID: c.ID, Href: href + "?claim=" + url.QueryEscape(c.ID), Status: string(v.Label), Machine: string(v.Label)})
			} else {
				data.Missing = append(data.Missing, c.ID)
			}
		}
	}
	for _, p := range split(text, spans) {
		tp := textPiece{Text: p.Text}
		if p.Marked {
			tp.Claim = &refs[p.Ref]
			data.Marked++
		}
		data.Pieces = append(data.Pieces, tp)
	}
	sort.Strings(data.Missing)
	return s.render(w, http.StatusOK, "source.html", data)
}
