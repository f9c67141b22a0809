package eval

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/store"
)

// target is what one citation points at, with the key that identifies it.
type target struct {
	URL     string
	DOI     string
	ArXivID string
	Title   string
	// Key identifies the target in the store and in the report: citations
	// with one key are one cited source (see canonicalKey).
	Key string
}

// targetOf reads a citation's target. It is the one place a target's key
// is computed: everything downstream carries it.
func targetOf(c claimtrace.Citation) target {
	t := target{URL: strings.TrimSpace(c.URL), DOI: c.DOI, ArXivID: c.ArXivID, Title: strings.TrimSpace(c.Title)}
	if t.URL != "" {
		// The URL is what gets fetched; identifiers are re-derived from it so
		// the target (and its stored unit) does not depend on the marker.
		t.DOI, t.ArXivID, t.Title = "", "", ""
	}
	t.Key = t.canonicalKey()
	return t
}

// canonicalKey identifies the target in the store: the canonical URL, else
// the identifier, else the normalized title.
func (t target) canonicalKey() string {
	switch {
	case t.URL != "":
		if c, err := biblio.CanonicalURL(t.URL); err == nil {
			return "url:" + c
		}
		return "rawurl:" + t.URL
	case t.ArXivID != "":
		return "arxiv:" + biblio.ArXivID(t.ArXivID)
	case t.DOI != "":
		return "doi:" + strings.ToLower(t.DOI)
	case t.Title != "":
		return "title:" + biblio.TitleKey(t.Title)
	}
	return ""
}

// label is how the target is shown in outputs: a URL where there is one.
func (t target) label() string {
	switch {
	case t.URL != "":
		return t.URL
	case t.ArXivID != "":
		return "https://arxiv.org/abs/" + t.ArXivID
	case t.DOI != "":
		return "https://doi.org/" + t.DOI
	}
	return "title:" + t.Title
}

// sourceResult is a resolved target as stored in a "source" unit. Failed is
// true for transient failures (network errors after retries) that
// --retry-failed should try again; a dead link is not a failure, it is data.
type sourceResult struct {
	Work    claimtrace.Work `json:"work"`
	Fetched bool            `json:"fetched"`
	Wall    string          `json:"wall,omitempty"`
	Failed  bool            `json:"failed,omitempty"`
	Err     string          `json:"error,omitempty"`
	// TextSHA is the hash of the fetched body whose readable text is in
	// the store (the cited-statement judge reads it).
	TextSHA string `json:"text_sha,omitempty"`
	// Ladder notes what the model rung made of the page when it did not
	// identify a work ("not scholarly: …", "the model's title … is not in
	// the page").
	Ladder string `json:"ladder,omitempty"`
	// interrupted marks a result cut short by cancellation: it is not
	// stored, so a resumed run does the work again.
	interrupted bool
	// notFetched marks a source the run could not fetch (the network is
	// down, the fetch time limit ran out): not stored either, so the next
	// run fetches it, and no verdict on the source. lookupSkipped marks
	// one whose scholarly lookup was skipped for the same reason: kept as
	// far as it goes, not stored.
	notFetched    bool
	lookupSkipped bool
	// text is the start of the page's readable text, for the model rung.
	text string
}

// MetadataPage is what the model rung of the metadata ladder reads.
type MetadataPage struct {
	URL, PageTitle, Text string
}

// MetadataGuess is the work the model rung identified, holding only what
// the page confirms; Note says why nothing was taken.
type MetadataGuess struct {
	Scholarly    bool
	Title        string
	Authors      []string
	DOI, ArXivID string
	Note         string
}

// metadataChars is how much page text is kept for the model rung.
const metadataChars = 8000

// source resolves a target once per run: from this process's memory, the
// store, or by doing the work (shared by concurrent callers).
func (e *Evaluator) source(ctx context.Context, t target) (sourceResult, error) {
	key := t.Key
	e.mu.Lock()
	r, ok := e.sources[key]
	e.mu.Unlock()
	if ok {
		return r, nil
	}
	v, err, _ := e.flight.Do(key, func() (any, error) {
		if r, ok, err := e.storedSource(ctx, key); err != nil || ok {
			return r, err
		}
		if e.opts.Leaser != nil && e.sourcesCost() {
			// Workers sharing the run fetch each source once in all: the
			// one holding the lease does it, the others wait for its unit.
			for {
				release, ok, err := e.lease(ctx, unitSource, key)
				if err != nil {
					return nil, err
				}
				if ok {
					defer release()
					break
				}
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(e.pollEvery()):
				}
				if r, ok, err := e.storedSource(ctx, key); err != nil || ok {
					return r, err
				}
			}
			// The holder before us may have finished between the look
			// and the lease.
			if r, ok, err := e.storedSource(ctx, key); err != nil || ok {
				return r, err
			}
		}
		select {
		case e.fetchs <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		r := e.resolve(ctx, t)
		<-e.fetchs
		if r.interrupted {
			// Cut short: store nothing, the unit is redone on resume.
			return nil, ctx.Err()
		}
		if r.notFetched || r.lookupSkipped {
			// The run's failure, not the source's: nothing to keep.
			return r, nil
		}
		// Work finished before an interrupt is kept: the write must not be
		// cancelled with the run.
		ctx := context.WithoutCancel(ctx)
		data, _ := json.Marshal(r)
		status := store.StatusDone
		if r.Failed {
			status = store.StatusFailed
		}
		if err := e.opts.Store.PutUnit(ctx, store.Unit{Run: e.run, Kind: unitSource, Key: key, Status: status, Data: data, Err: r.Err}); err != nil {
			return nil, err
		}
		return r, nil
	})
	if err != nil {
		return sourceResult{}, err
	}
	r = v.(sourceResult)
	// The page's text was for the model rung, which is done: kept for the
	// run, it would hold every page read (the whole text, of which it is a
	// slice).
	r.text = ""
	e.mu.Lock()
	e.sources[key] = r
	e.mu.Unlock()
	return r, nil
}

// sourcesCost reports whether resolving a source costs enough for workers
// sharing a run to take a lease on it: network fetches, scholarly APIs or
// a model. Reading a snapshot costs less than the lease's round trips
// (BenchmarkEvalSnapshotPostgres, report leases only: 70.1 ms a report;
// with source leases too, mode=live: 92.8).
func (e *Evaluator) sourcesCost() bool {
	return e.opts.Mode == "live" || e.opts.Scholar != nil || e.opts.Metadata != nil
}

// storedSource returns the stored result of a source when it stands: done,
// or failed when failures are not retried or when it was retried since this
// evaluator was made (by another worker of the run).
func (e *Evaluator) storedSource(ctx context.Context, key string) (sourceResult, bool, error) {
	u, found, err := e.opts.Store.GetUnit(ctx, e.run, unitSource, key)
	if err != nil {
		return sourceResult{}, false, err
	}
	var r sourceResult
	if !found || json.Unmarshal(u.Data, &r) != nil {
		return sourceResult{}, false, nil
	}
	return r, u.Status == store.StatusDone || !e.opts.RetryFailed || e.retriedSince(u), nil
}

// resolve climbs the metadata ladder for one target, cheapest rung first:
// identifiers in the URL; the fetched page's meta tags; scholarly APIs (when
// configured). It never fails: what could not be learned is recorded.
func (e *Evaluator) resolve(ctx context.Context, t target) sourceResult {
	var r sourceResult
	w := &r.Work
	// fctx bounds the run's waiting on the network (Options.FetchTimeout).
	fctx := ctx
	if !e.fetchBy.IsZero() {
		var cancel context.CancelFunc
		fctx, cancel = context.WithDeadline(ctx, e.fetchBy)
		defer cancel()
	}
	switch {
	case t.URL != "":
		e.resolveURL(ctx, fctx, t.URL, &r)
	case t.ArXivID != "":
		// Identifiers are fetched in their URL form: the page gives the
		// title and date, and snapshots record them the same way.
		e.resolveURL(ctx, fctx, "https://arxiv.org/abs/"+biblio.ArXivID(t.ArXivID), &r)
	case t.DOI != "":
		e.resolveURL(ctx, fctx, "https://doi.org/"+t.DOI, &r)
	case t.Title != "":
		w.Title = t.Title
		w.Kind, w.Via = claimtrace.WorkPaper, "title"
	}
	if r.notFetched || r.interrupted {
		w.Key = cmp.Or(biblio.Key(*w), t.Key)
		if w.URL != "" {
			w.URLs = []string{w.URL}
		}
		return r
	}
	if e.opts.Scholar != nil && fctx.Err() == nil && e.networkDown() {
		// The APIs are as unreachable as the pages: what they would
		// verify stays unverified, and is not kept, so that the next run,
		// with a network, asks them (lookupSkipped).
		r.lookupSkipped = true
	} else if e.opts.Scholar != nil && fctx.Err() == nil {
		e.lookup(fctx, &r)
		if r.interrupted && ctx.Err() == nil {
			// The run's fetch time limit, not a cancellation: the lookup
			// is left to the next run.
			r.interrupted, r.lookupSkipped = false, true
		}
	}
	if e.opts.Metadata != nil && !r.interrupted {
		e.identify(ctx, &r)
	}
	if w.Published.IsZero() && w.ArXivID != "" {
		if d, ok := biblio.ArXivDate(w.ArXivID); ok {
			w.Published = d
		}
	}
	if w.URL != "" {
		w.URLs = []string{w.URL}
	}
	w.Key = biblio.Key(*w)
	if w.Key == "" {
		// A URL that is not one (https://, http://:80/) has no identity
		// of its own; the target's key keeps it a source of its own, so
		// it is one unresolvable citation of its report, never a hole in
		// the graph.
		w.Key = t.Key
	}
	return r
}

// resolveURL fetches one URL and learns what it can of the work behind it.
// It separates two kinds of failure (docs/scoring.md):
//
//   - dead or fabricated: the host does not exist or never answered, the
//     URL is refused or malformed, the server says the page does not exist
//     (404, 410, another 4xx but the walls below, a "not found" page served
//     as 200), or the URL's own resolver (doi.org, arxiv.org) does not know
//     its identifier. The work is WorkUnknown: unresolvable.
//   - alive but unreadable: the server answered, with a bot or login wall, a
//     paywall, a script shell or too little text (or a walled status: 401,
//     402, 403, 407, 429, 451, 5xx). Every identity signal the page gives is
//     used whatever the wall (identifiers in the URL, citation_*/DC/og meta,
//     the title); a scholarly identity found that way is a paper, matched as
//     usual; without one, the page is a web page when its host or metadata
//     says so, else WorkUnverifiable.
//
// A fetch that fails because the network does (claimtrace.ErrNoNetwork), or
// that the run's fetch time limit (fctx) cuts short, is neither: the
// source is not fetched (WorkNotFetched), which says nothing of it.
func (e *Evaluator) resolveURL(ctx, fctx context.Context, raw string, r *sourceResult) {
	w := &r.Work
	w.URL = raw
	w.ArXivID = biblio.ArXivID(raw)
	w.DOI = biblio.DOI(raw)
	if _, err := biblio.CanonicalURL(raw); err != nil {
		w.ArXivID, w.DOI = "", ""
		w.Kind, w.Status = claimtrace.WorkUnknown, "invalid url"
		return
	}
	page, err := e.opts.Fetcher.Fetch(fctx, raw)
	alive := false // the server answered, whatever it said
	var content *fetch.Content
	switch {
	case err != nil && ctx.Err() != nil:
		r.interrupted = true
		return
	case err != nil && (errors.Is(err, claimtrace.ErrNoNetwork) || fctx.Err() != nil):
		r.notFetched = true
		w.ArXivID, w.DOI = "", ""
		w.Kind, w.Status = claimtrace.WorkNotFetched, "not fetched: no network"
		if !errors.Is(err, claimtrace.ErrNoNetwork) {
			w.Status = "not fetched: the run's fetch time limit ran out"
		}
		r.Err = err.Error()
		return
	case err != nil:
		w.Status = fetchStatus(err)
		// Network trouble in live mode is worth a retry; a refused URL, a
		// host that does not exist or an offline-missing URL is an answer.
		r.Failed = e.opts.Mode == "live" && !errors.Is(err, claimtrace.ErrBlocked) && !noSuchHost(err)
		if r.Failed {
			r.Err = err.Error()
		}
		if page != nil && walledStatus(page.Status) {
			// Retries ran out on 429 or 5xx: the server is there.
			alive = true
			w.Status = fmt.Sprintf("http %d", page.Status)
			content, _ = fetch.Extract(page)
		}
	case page.Status < 200 || page.Status >= 300:
		w.Status = fmt.Sprintf("http %d", page.Status)
		if walledStatus(page.Status) {
			alive = true
			content, _ = fetch.Extract(page)
		}
	default:
		w.Status = "ok"
		c, err := fetch.Extract(page)
		if err != nil {
			// A body the extractor cannot read (an unsupported type, a
			// broken PDF): the server answered.
			w.Status = "unreadable: " + err.Error()
			alive = true
			break
		}
		content = c
		r.Wall = c.Wall
		switch c.Wall {
		case "":
			r.Fetched = true
			sha := page.SHA256
			if sha == "" {
				sha = hashHex(page.Body)
			}
			if err := e.opts.Store.PutText(context.WithoutCancel(ctx), sha, c.Title, c.Text); err != nil {
				// Without its text the source cannot be judged: a failed
				// unit that --retry-failed redoes, never a silent gap.
				r.Failed, r.Err = true, err.Error()
			} else {
				r.TextSHA = sha
			}
			r.text = headBytes(c.Text, metadataChars)
		case fetch.WallError:
			// A "page not found" served as 200: the page is not there.
			w.Status = c.Wall
		default:
			w.Status = c.Wall
			alive = true
		}
	}
	stated := false // the page itself states an identifier
	if content != nil && (r.Fetched || alive) {
		stated = e.pageIdentity(w, content, r.Fetched)
	}
	if !r.Fetched && !alive && (w.ArXivID != "" || w.DOI != "") && identifierUnknown(raw, page) {
		// The identifier's own resolver answered that it does not exist.
		w.ArXivID, w.DOI = "", ""
		w.Status += ": identifier not found"
	}
	_, extID := biblio.ExternalID(raw)
	identified := w.ArXivID != "" || w.DOI != "" || extID && (r.Fetched || alive)
	switch {
	case identified:
		w.Kind = claimtrace.WorkPaper
		if w.Via == "" {
			w.Via = "url_id"
		}
	case w.Kind == claimtrace.WorkPaper:
	case (r.Fetched || alive && w.Title != "") && biblio.IsScholarlyURL(raw):
		w.Kind, w.Via = claimtrace.WorkPaper, "host"
	case r.Fetched:
		w.Kind, w.Via = claimtrace.WorkWeb, "page"
	case alive && (biblio.IsWebHost(raw) || content != nil && webMeta(content.Meta)):
		w.Kind, w.Via = claimtrace.WorkWeb, "host"
		if !biblio.IsWebHost(raw) {
			w.Via = "meta_tags"
		}
	case alive:
		w.Kind = claimtrace.WorkUnverifiable
	default:
		w.Kind = claimtrace.WorkUnknown
	}
	// An identifier is verified when the page was read, when the page
	// states it (its meta tags: the publisher's word), or when its own
	// resolver (doi.org, arxiv.org) answered for it; one read off the URL
	// of a page nobody could read is a claim, not a verified identity, and
	// gives no complete provenance (PCov) until an API confirms it (lookup).
	w.Resolved = r.Fetched || stated || w.Kind == claimtrace.WorkPaper && w.Via == "meta_tags" ||
		identified && alive && ownResolver(raw)
}

// networkDown reports whether the fetcher knows the network to be down
// (fetch.Client.NetworkDown); fetchers that cannot tell never are.
func (e *Evaluator) networkDown() bool {
	n, ok := e.opts.Fetcher.(interface{ NetworkDown() bool })
	return ok && n.NetworkDown()
}

// ownResolver reports whether a URL is on the resolver of the identifier
// it carries: doi.org for a DOI, arxiv.org for an arXiv id. Such a host
// answering at all (even behind a wall it redirected to) vouches for the
// identifier; a 404 from it is identifierUnknown.
func ownResolver(raw string) bool {
	host := biblio.CanonicalHost(raw)
	return host == "doi.org" || host == "arxiv.org" || strings.HasSuffix(host, ".arxiv.org")
}

// pageIdentity takes the identity a page gives: identifiers and the
// citation_*/DC/og title from its meta tags whatever its wall, and its
// <title> unless a bot or login wall wrote it (or the page was read). It
// reports whether the page's meta tags state an identifier.
func (e *Evaluator) pageIdentity(w *claimtrace.Work, c *fetch.Content, read bool) bool {
	m := c.Meta
	stated := false
	if m.ArXivID != "" {
		if id := biblio.ArXivID(m.ArXivID); w.ArXivID == "" || w.ArXivID == id {
			w.ArXivID, stated = id, id != ""
		}
	}
	if m.DOI != "" {
		if d := strings.ToLower(m.DOI); w.DOI == "" || w.DOI == d {
			w.DOI, stated = d, true
		}
	}
	title := m.Title
	switch {
	case read:
		title = firstNonEmpty(m.Title, c.Title)
	case m.Scholarly:
	case c.Wall == fetch.WallBot || c.Wall == fetch.WallLogin || c.Wall == fetch.WallError || c.Wall == "":
		// The wall's own title ("Just a moment..."), not the work's.
		title = ""
	}
	if !read && !m.Scholarly && len(strings.Fields(title)) < 3 {
		// "Loading…", "Home", a site name: not a work's title.
		title = ""
	}
	w.Title = strings.TrimSpace(title)
	w.Authors = m.Authors
	if !m.Date.IsZero() {
		w.Published = m.Date.UTC()
	}
	if m.Scholarly && w.Title != "" {
		w.Kind, w.Via = claimtrace.WorkPaper, "meta_tags"
	}
	return stated
}

// walledStatus reports HTTP statuses by which a server that exists says
// it will not serve the page now or to us: authentication, payment,
// forbidden (bot walls), rate limits, legal blocks, server errors.
func walledStatus(code int) bool {
	switch code {
	case 401, 402, 403, 407, 429, 451:
		return true
	}
	return code >= 500 && code < 600
}

// identifierUnknown reports whether a dead URL was the identifier's own
// resolver (doi.org for a DOI, arxiv.org for an arXiv id) answering that
// the page does not exist: the identifier is made up.
func identifierUnknown(raw string, page *fetch.Page) bool {
	if page == nil || (page.Status != 404 && page.Status != 410) {
		return false
	}
	host := biblio.CanonicalHost(raw)
	return host == "doi.org" || host == "arxiv.org" || strings.HasSuffix(host, ".arxiv.org")
}

// webMeta reports metadata that declares a page not scholarly: an Open
// Graph, Dublin Core or schema.org type such as website, article or
// BlogPosting on a page without scholarly tags.
func webMeta(m fetch.Meta) bool {
	return !m.Scholarly && m.Type != "" && m.Type != "pdf"
}

// lookup asks the scholarly APIs for what the cheaper rungs did not give:
// verification of identifiers, titles and dates, works behind titles.
func (e *Evaluator) lookup(ctx context.Context, r *sourceResult) {
	w := &r.Work
	switch {
	case w.ArXivID != "":
		recs, err := e.opts.Scholar.ArXiv(ctx, w.ArXivID)
		if err != nil {
			e.lookupFailed(ctx, r)
			return
		}
		rec, ok := recs[w.ArXivID]
		if !ok {
			if !r.Fetched {
				w.Kind, w.Resolved, w.Status = claimtrace.WorkUnknown, false, "arxiv id not found"
				w.ArXivID = ""
			}
			return
		}
		w.Resolved = true
		w.Title = firstNonEmpty(w.Title, rec.Title)
		if len(w.Authors) == 0 {
			w.Authors = rec.Authors
		}
		if !rec.Published.IsZero() {
			w.Published = rec.Published
		}
		if w.DOI == "" && rec.DOI != "" {
			w.DOI = strings.ToLower(rec.DOI)
		}
		w.Via = "arxiv_api"
	case w.DOI != "":
		rec, err := e.opts.Scholar.CrossrefDOI(ctx, w.DOI)
		if errors.Is(err, claimtrace.ErrNotFound) && !r.Fetched {
			w.Kind, w.Resolved, w.Status = claimtrace.WorkUnknown, false, "doi not registered"
			w.DOI = ""
			return
		}
		if err != nil {
			e.lookupFailed(ctx, r)
			return
		}
		w.Resolved = true
		w.Title = firstNonEmpty(w.Title, rec.Title)
		if len(w.Authors) == 0 {
			w.Authors = rec.Authors
		}
		if w.Published.IsZero() {
			w.Published = rec.Published
		}
		w.Via = "crossref"
	case w.Kind == claimtrace.WorkPaper && !r.Fetched && hasExternalID(w.URL):
		// A PubMed, PMC, PII or ACL Anthology id in the URL of a page that
		// could not be read: the APIs confirm it and give the work. An id
		// no index knows stays an unconfirmed claim (no index holds every
		// paper), never a verdict that it is made up.
		x, _ := biblio.ExternalID(w.URL)
		rec, err := e.opts.Scholar.WorkByID(ctx, x.Kind, x.Value)
		if err != nil {
			e.lookupFailed(ctx, r)
			return
		}
		takeRecord(w, rec)
	case w.Title != "" && w.Kind == claimtrace.WorkPaper && !r.Fetched:
		recs, err := e.opts.Scholar.SearchTitle(ctx, w.Title)
		if err != nil {
			e.lookupFailed(ctx, r)
			return
		}
		want := biblio.TitleKey(w.Title)
		for _, rec := range recs {
			if biblio.TitleKey(rec.Title) != want {
				continue
			}
			w.Resolved = true
			w.ArXivID = biblio.ArXivID(rec.ArXivID)
			w.DOI = strings.ToLower(rec.DOI)
			w.Published = rec.Published
			w.Authors = rec.Authors
			w.Via = rec.Source
			break
		}
	}
}

// lookupFailed records a scholarly lookup that failed: cut short by
// cancellation, or made while the network is down (lookupSkipped: the
// next run asks again); any other failure leaves the work as the cheaper
// rungs left it.
func (e *Evaluator) lookupFailed(ctx context.Context, r *sourceResult) {
	r.interrupted = ctx.Err() != nil
	if !r.interrupted && e.networkDown() {
		r.lookupSkipped = true
	}
}

// hasExternalID reports whether a URL carries a paper id other than an
// arXiv id or a DOI (biblio.ExternalID).
func hasExternalID(u string) bool {
	_, ok := biblio.ExternalID(u)
	return ok
}

// takeRecord takes the identity a scholarly API gives a work: verified,
// with the record's title, identifiers, authors and date where the work
// has none.
func takeRecord(w *claimtrace.Work, rec scholar.Record) {
	w.Resolved = true
	w.Title = firstNonEmpty(w.Title, rec.Title)
	if w.ArXivID == "" {
		w.ArXivID = biblio.ArXivID(rec.ArXivID)
	}
	if w.DOI == "" && rec.DOI != "" {
		w.DOI = strings.ToLower(rec.DOI)
	}
	if len(w.Authors) == 0 {
		w.Authors = rec.Authors
	}
	if w.Published.IsZero() {
		w.Published = rec.Published
	}
	w.Via = rec.Source
}

// identify is the last rung of the ladder: a model reads the start of a
// fetched page that looks scholarly but that nothing cheaper identified,
// and the work is taken only as far as the page confirms it. A model
// failure marks the source failed (--retry-failed asks again); what the
// cheaper rungs learned is kept either way.
func (e *Evaluator) identify(ctx context.Context, r *sourceResult) {
	w := &r.Work
	if !r.Fetched || r.text == "" || w.ArXivID != "" || w.DOI != "" || w.Kind == claimtrace.WorkPaper && w.Title != "" && w.Via != "host" ||
		!looksScholarly(r.text) {
		return
	}
	g, err := e.opts.Metadata(ctx, MetadataPage{URL: w.URL, PageTitle: w.Title, Text: r.text})
	if err != nil {
		if ctx.Err() != nil {
			r.interrupted = true
			return
		}
		r.Failed, r.Err = true, "metadata model: "+err.Error()
		return
	}
	if !g.Scholarly {
		r.Ladder = g.Note
		return
	}
	w.Kind, w.Via, w.Resolved = claimtrace.WorkPaper, "llm", true
	if g.Title != "" {
		w.Title = g.Title
	}
	if len(g.Authors) > 0 {
		w.Authors = g.Authors
	}
	w.DOI, w.ArXivID = g.DOI, g.ArXivID
	r.Ladder = g.Note
	if e.opts.Scholar != nil && (w.DOI != "" || w.ArXivID != "") {
		e.lookup(ctx, r) // an identifier the page shows: the APIs confirm it
	}
}

// looksScholarly is the cheap test before the model rung: the start of the
// page reads like a paper (an abstract, a references section, a DOI or an
// arXiv id, an author affiliation line).
func looksScholarly(text string) bool {
	low := strings.ToLower(text)
	for _, cue := range []string{"abstract", "references", "bibliography", "doi", "arxiv", "proceedings", "journal of", "university", "institute", "et al."} {
		if strings.Contains(low, cue) {
			return true
		}
	}
	return false
}

// headBytes returns at most n bytes of s, cut at a rune boundary.
func headBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// noSuchHost reports a DNS answer that the host does not exist: a dead
// link, not a transient failure.
func noSuchHost(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}

// fetchStatus is the status a source shows for a fetch error.
func fetchStatus(err error) string {
	switch {
	case noSuchHost(err):
		return "no such host"
	case errors.Is(err, claimtrace.ErrBlocked):
		return "blocked"
	case errors.Is(err, claimtrace.ErrUnreachable):
		return "unreachable"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "error"
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
