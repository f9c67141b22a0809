package analysis

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/inputfile"
	"github.com/claimtrace/claimtrace/internal/scholar"
)

// Count lookup outcomes. Found and not-found answers are cached; a failed
// lookup (an API unreachable) is not, so a rerun asks again.
const (
	CountFound    = "found"
	CountNotFound = "not_found"
	CountFailed   = "failed"
)

// Citation-count sources, in the default order of preference.
const (
	SourceOpenAlex        = scholar.SourceOpenAlex
	SourceCrossref        = scholar.SourceCrossref
	SourceSemanticScholar = scholar.SourceSemanticScholar
)

// CountEntry is the citation count of one reference, as cached: one JSON
// line of the cache file.
type CountEntry struct {
	// Key identifies the work: "doi:<doi>", "arxiv:<id>" or
	// "title:<title key>" (RefQuery.Key).
	Key    string `json:"key"`
	Status string `json:"status"`
	// CitedBy is the count when Status is found.
	CitedBy int `json:"cited_by"`
	// Source is the index that gave the count; Via how the work was
	// found there (doi, arxiv, title); Title the index's title of it.
	Source string    `json:"source,omitempty"`
	Via    string    `json:"via,omitempty"`
	Title  string    `json:"title,omitempty"`
	At     time.Time `json:"at,omitzero"`
	// Err says why a failed lookup failed (never cached).
	Err string `json:"error,omitempty"`
}

// CountCache is a JSONL file of citation counts, so that reruns never ask
// the APIs again for a reference they answered. Entries are appended as
// they are found; a later line for a key replaces an earlier one; a line
// cut short by a crash is skipped. It is safe for concurrent use.
type CountCache struct {
	path string

	mu      sync.Mutex
	entries map[string]CountEntry
	f       *os.File
	// skipped counts unreadable lines.
	skipped int
}

// LoadCountCache reads the cache file at path; a missing file is an empty
// cache. The file is created only when an entry is first added.
func LoadCountCache(path string) (*CountCache, error) {
	c := &CountCache{path: path, entries: map[string]CountEntry{}}
	f, _, err := inputfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("count cache %s: %w", path, err)
	}
	defer f.Close()
	if err := c.read(f); err != nil {
		return nil, fmt.Errorf("count cache %s: %w", path, err)
	}
	return c, nil
}

// maxCacheLine bounds one cache line.
const maxCacheLine = 1 << 20

func (c *CountCache) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			c.add(line)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// add parses one line into the entries, counting lines it cannot use.
func (c *CountCache) add(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var e CountEntry
	if len(line) > maxCacheLine || json.Unmarshal(line, &e) != nil || !e.valid() {
		c.skipped++
		return
	}
	c.entries[e.Key] = e
}

func (e CountEntry) valid() bool {
	switch {
	case e.Key == "" || e.CitedBy < 0:
		return false
	case e.Status == CountFound:
		return e.Source != ""
	case e.Status == CountNotFound:
		return e.CitedBy == 0
	}
	return false
}

// Path returns the cache file's path.
func (c *CountCache) Path() string { return c.path }

// Len returns the number of cached keys.
func (c *CountCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Skipped returns the number of unreadable lines the file held.
func (c *CountCache) Skipped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}

// Get returns the cached entry of key.
func (c *CountCache) Get(key string) (CountEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok
}

// Put records e and appends it to the file. Failed entries are not cached.
func (c *CountCache) Put(e CountEntry) error {
	if !e.valid() {
		return fmt.Errorf("count cache %s: entry %+v: %w", c.path, e, claimtrace.ErrInvalid)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		if err := c.open(); err != nil {
			return err
		}
	}
	if _, err := c.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("count cache %s: %w", c.path, err)
	}
	c.entries[e.Key] = e
	return nil
}

// open opens the file for appending, ending a line a crash cut short so
// the next entry starts on its own line.
func (c *CountCache) open() error {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return fmt.Errorf("count cache %s: %w", c.path, err)
	}
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("count cache %s: %w", c.path, err)
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			f.Write([]byte{'\n'})
		}
	}
	c.f = f
	return nil
}

// Close closes the file.
func (c *CountCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// RefQuery is a ground-truth reference to look up.
type RefQuery struct {
	DOI     string `json:"doi,omitempty"`
	ArXivID string `json:"arxiv_id,omitempty"`
	Title   string `json:"title,omitempty"`
}

// Key is the query's cache key: its DOI, else its arXiv id, else its
// title key; "" when it has none (nothing to look up).
func (q RefQuery) Key() string {
	switch {
	case q.DOI != "":
		return "doi:" + strings.ToLower(q.DOI)
	case q.ArXivID != "":
		return "arxiv:" + q.ArXivID
	}
	if k := biblio.TitleKey(q.Title); k != "" {
		return "title:" + k
	}
	return ""
}

// Counter looks up the citation counts of references in scholarly
// indexes, through a cache.
type Counter struct {
	// Scholar is the API client; nil means offline.
	Scholar *scholar.Client
	Cache   *CountCache
	// Sources are tried in order until one finds the work (default
	// openalex, crossref).
	Sources []string
	// Concurrency bounds lookups in flight (default 4); the client's rate
	// limits pace them.
	Concurrency int
	// Offline answers from the cache alone.
	Offline bool
	// RetryNotFound asks again for references cached as not found.
	RetryNotFound bool
	// Now stamps entries (default time.Now).
	Now func() time.Time
	// Progress is called after each lookup, with the number done and the
	// total to do.
	Progress func(done, total int)
}

// LookupStats summarizes a Counts call.
type LookupStats struct {
	// Queries is the number of distinct references asked about.
	Queries int `json:"queries"`
	Cached  int `json:"cached"`
	// Looked up now: found, not found, failed (failures are not cached).
	Found    int `json:"found"`
	NotFound int `json:"not_found"`
	Failed   int `json:"failed"`
	// Missing counts references not in the cache in offline mode.
	Missing int `json:"missing"`
}

// Counts returns the entry of each query's key: cached, looked up now,
// failed (with the error) or, offline, absent. Only infrastructure errors
// (the cache file cannot be written, the context ends) are returned as
// errors; one reference's failed lookup is data.
func (c *Counter) Counts(ctx context.Context, queries []RefQuery) (map[string]CountEntry, LookupStats, error) {
	sources := c.Sources
	if len(sources) == 0 {
		sources = []string{SourceOpenAlex, SourceCrossref}
	}
	for _, s := range sources {
		if s != SourceOpenAlex && s != SourceCrossref && s != SourceSemanticScholar {
			return nil, LookupStats{}, fmt.Errorf("citation counts: source %q: want openalex, crossref or semanticscholar: %w", s, claimtrace.ErrInvalid)
		}
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	out := map[string]CountEntry{}
	var st LookupStats
	type keyed struct {
		key string
		q   RefQuery
	}
	var todo []keyed
	seen := map[string]bool{}
	for _, q := range queries {
		k := q.Key()
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		st.Queries++
		if e, ok := c.Cache.Get(k); ok && !(c.RetryNotFound && e.Status == CountNotFound && !c.Offline) {
			out[k] = e
			st.Cached++
			continue
		}
		if c.Offline || c.Scholar == nil {
			st.Missing++
			continue
		}
		todo = append(todo, keyed{k, q})
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].key < todo[j].key })
	if len(todo) == 0 {
		return out, st, nil
	}

	// OpenAlex answers 50 DOIs a request: look up every DOI and arXiv
	// DataCite DOI first, in batches.
	ids := idCounts{counts: map[string]scholar.Count{}, failed: map[string]error{}}
	if slices.Contains(sources, SourceOpenAlex) {
		var dois []string
		for _, t := range todo {
			dois = append(dois, t.q.dois()...)
		}
		if err := c.openAlexIDs(ctx, dois, ids); err != nil {
			return out, st, err
		}
	}

	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	limit := c.Concurrency
	if limit <= 0 {
		limit = 4
	}
	g.SetLimit(limit)
	for _, t := range todo {
		g.Go(func() error {
			e := c.lookup(gctx, t.q, sources, ids)
			if gctx.Err() != nil {
				return gctx.Err()
			}
			e.Key, e.At = t.key, now().UTC()
			if e.Status != CountFailed {
				if err := c.Cache.Put(e); err != nil {
					return err
				}
			}
			mu.Lock()
			defer mu.Unlock()
			out[e.Key] = e
			switch e.Status {
			case CountFound:
				st.Found++
			case CountNotFound:
				st.NotFound++
			default:
				st.Failed++
			}
			done++
			if c.Progress != nil {
				c.Progress(done, len(todo))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return out, st, err
	}
	return out, st, nil
}

// dois are the DOIs OpenAlex knows the reference by: its own and its
// arXiv DataCite DOI.
func (q RefQuery) dois() []string {
	var out []string
	if q.DOI != "" {
		out = append(out, strings.ToLower(q.DOI))
	}
	if q.ArXivID != "" {
		out = append(out, "10.48550/arxiv."+strings.ToLower(q.ArXivID))
	}
	return out
}

// idCounts are the OpenAlex batch answers: the counts found and the DOIs
// whose request failed.
type idCounts struct {
	counts map[string]scholar.Count
	failed map[string]error
}

// openAlexIDs looks dois up in batches. A batch OpenAlex refuses as
// malformed is retried one DOI at a time, so one bad DOI of the ground
// truth only fails itself. Only the context's end is returned.
func (c *Counter) openAlexIDs(ctx context.Context, dois []string, ids idCounts) error {
	sort.Strings(dois)
	dois = slices.Compact(dois)
	batch := func(part []string) error {
		got, err := c.Scholar.OpenAlexCounts(ctx, part)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		maps.Copy(ids.counts, got)
		if err == nil {
			return nil
		}
		if errors.Is(err, claimtrace.ErrInvalid) && len(part) > 1 {
			for _, d := range part {
				if _, ok := got[d]; !ok {
					got1, err1 := c.Scholar.OpenAlexCounts(ctx, []string{d})
					if ctx.Err() != nil {
						return ctx.Err()
					}
					maps.Copy(ids.counts, got1)
					if err1 != nil {
						ids.failed[d] = err1
					}
				}
			}
			return nil
		}
		for _, d := range part {
			if _, ok := got[d]; !ok {
				ids.failed[d] = err
			}
		}
		return nil
	}
	for start := 0; start < len(dois); start += scholar.OpenAlexBatch {
		if err := batch(dois[start:min(start+scholar.OpenAlexBatch, len(dois))]); err != nil {
			return err
		}
	}
	return nil
}

// lookup tries each source in order; the first that finds the work gives
// the count. A reference no source finds is not found, unless a source
// failed (then the lookup failed and a rerun retries it).
func (c *Counter) lookup(ctx context.Context, q RefQuery, sources []string, ids idCounts) CountEntry {
	same := titleMatcher(q.Title)
	var errs []error
	for _, src := range sources {
		var best *scholar.Count
		var via string
		var err error
		switch src {
		case SourceOpenAlex:
			best, via, err = c.openAlex(ctx, q, same, ids)
		case SourceCrossref:
			best, via, err = c.crossref(ctx, q, same)
		case SourceSemanticScholar:
			best, via, err = c.semanticScholar(ctx, q, same)
		}
		if best != nil {
			return CountEntry{Status: CountFound, CitedBy: best.CitedBy, Source: best.Source, Via: via, Title: best.Title}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return CountEntry{Status: CountFailed, Err: errors.Join(errs...).Error()}
	}
	return CountEntry{Status: CountNotFound}
}

// openAlex finds a reference by its DOIs (from the batch answers) and, when
// that fails or the reference is an arXiv preprint, by title: OpenAlex may
// hold the preprint and the published version as two works, and the
// published one carries most citations, so the better-cited of the works
// found counts.
func (c *Counter) openAlex(ctx context.Context, q RefQuery, same func(string) bool, ids idCounts) (*scholar.Count, string, error) {
	var best *scholar.Count
	via := ""
	consider := func(n scholar.Count, how string) {
		if best == nil || n.CitedBy > best.CitedBy {
			best, via = &n, how
		}
	}
	var errs []error
	for i, d := range q.dois() {
		n, ok := ids.counts[d]
		switch {
		case ok && i == 0 && q.DOI != "":
			consider(n, "doi")
		case ok:
			consider(n, "arxiv")
		case ids.failed[d] != nil:
			errs = append(errs, ids.failed[d])
		}
	}
	if (best == nil || q.DOI == "" && q.ArXivID != "") && q.Title != "" && same != nil {
		hits, err := c.Scholar.OpenAlexCountSearch(ctx, q.Title)
		if err != nil {
			errs = append(errs, err)
		}
		for _, h := range hits {
			if same(h.Title) {
				consider(h, "title")
			}
		}
	}
	if best != nil {
		return best, via, nil
	}
	return nil, "", errors.Join(errs...)
}

func (c *Counter) crossref(ctx context.Context, q RefQuery, same func(string) bool) (*scholar.Count, string, error) {
	if q.DOI != "" {
		n, err := c.Scholar.CrossrefCount(ctx, q.DOI)
		switch {
		case err == nil:
			return &n, "doi", nil
		case !errors.Is(err, claimtrace.ErrNotFound):
			return nil, "", err
		}
	}
	if q.Title == "" || same == nil {
		return nil, "", nil
	}
	hits, err := c.Scholar.CrossrefCountSearch(ctx, q.Title)
	if err != nil {
		return nil, "", err
	}
	var best *scholar.Count
	for _, h := range hits {
		if same(h.Title) && (best == nil || h.CitedBy > best.CitedBy) {
			best = &h
		}
	}
	if best == nil {
		return nil, "", nil
	}
	return best, "title", nil
}

func (c *Counter) semanticScholar(ctx context.Context, q RefQuery, same func(string) bool) (*scholar.Count, string, error) {
	try := func(id, via string) (*scholar.Count, string, error) {
		n, err := c.Scholar.SemanticScholarCount(ctx, id)
		if err != nil {
			return nil, "", err
		}
		return &n, via, nil
	}
	var errs []error
	for _, p := range []struct{ id, via string }{{"DOI:" + q.DOI, "doi"}, {"ARXIV:" + q.ArXivID, "arxiv"}} {
		if strings.HasSuffix(p.id, ":") {
			continue
		}
		n, via, err := try(p.id, p.via)
		if n != nil {
			return n, via, nil
		}
		if !errors.Is(err, claimtrace.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	if q.Title != "" && same != nil {
		n, err := c.Scholar.SemanticScholarMatch(ctx, q.Title)
		switch {
		case err == nil && same(n.Title):
			return &n, "title", nil
		case err != nil && !errors.Is(err, claimtrace.ErrNotFound):
			errs = append(errs, err)
		}
	}
	return nil, "", errors.Join(errs...)
}

// titleMatcher reports whether an index's title is the reference's, by
// the matcher that scores citations (exact title key, then a small edit
// distance with its guards against near-miss titles). nil when the title
// is empty.
func titleMatcher(title string) func(string) bool {
	if biblio.TitleKey(title) == "" {
		return nil
	}
	ix := biblio.NewIndex([]claimtrace.Reference{{BibID: "q", Title: title}})
	return func(candidate string) bool {
		_, ok := ix.Match(claimtrace.Work{Kind: claimtrace.WorkPaper, Title: candidate})
		return ok
	}
}
