package fetch

import (
	"context"
	"errors"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
)

// CitationURL is the URL a snapshot freezes for a citation: its link, else
// its arXiv abstract page, else its DOI's resolver; "" when it names none
// (a title-only reference).
func CitationURL(c claimtrace.Citation) string {
	switch {
	case c.URL != "":
		return c.URL
	case c.ArXivID != "":
		return "https://arxiv.org/abs/" + c.ArXivID
	case c.DOI != "":
		return "https://doi.org/" + c.DOI
	}
	return ""
}

// CitedURLs returns the distinct URLs of the citations (CitationURL),
// sorted, so that a snapshot fetches each once and in a stable order.
func CitedURLs(cites []claimtrace.Citation) []string {
	seen := map[string]bool{}
	for _, c := range cites {
		if u := CitationURL(c); u != "" {
			seen[u] = true
		}
	}
	urls := make([]string, 0, len(seen))
	for u := range seen {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	return urls
}

// Fetcher fetches a page; *Client is one.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) (*Page, error)
}

// FreezeOptions configure SnapshotWriter.Freeze.
type FreezeOptions struct {
	// Concurrency bounds fetches in flight (default 1).
	Concurrency int
	// Progress, if set, is called once per URL when it is accounted for,
	// possibly from several goroutines at once.
	Progress func()
}

// FreezeResult counts what Freeze did with each URL.
type FreezeResult struct {
	// Already were in the snapshot and not fetched again.
	Already int
	// Fetched answered 2xx; Dead answered another status (404, 410, …);
	// Blocked were refused by the fetch policy. All three are recorded.
	Fetched, Dead, Blocked int
	// Failed maps the URLs that met a network error to the error: they are
	// not recorded, so that a rerun tries them again.
	Failed map[string]string
}

// Freeze fetches every URL not yet in the snapshot with f, concurrently,
// and adds each page under the URL as cited (not the one redirected to).
// Dead links and URLs the fetch policy refuses are recorded as such; a
// network error is counted in the result, not returned. It returns the
// context's error when ctx ends and the first error writing the snapshot;
// pages added before stay in it.
func (w *SnapshotWriter) Freeze(ctx context.Context, f Fetcher, urls []string, opt FreezeOptions) (FreezeResult, error) {
	res := FreezeResult{Failed: map[string]string{}}
	progress := opt.Progress
	if progress == nil {
		progress = func() {}
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opt.Concurrency, 1))
	for _, u := range urls {
		if w.Has(u) {
			res.Already++
			progress()
			continue
		}
		g.Go(func() error {
			p, err := f.Fetch(gctx, u)
			defer progress()
			switch {
			case gctx.Err() != nil:
				return gctx.Err()
			case errors.Is(err, claimtrace.ErrBlocked):
				p = &Page{URL: u, Status: 0, Err: "blocked by fetch policy"}
				mu.Lock()
				res.Blocked++
				mu.Unlock()
			case err != nil:
				mu.Lock()
				res.Failed[u] = err.Error()
				mu.Unlock()
				return nil
			case p.Status < 200 || p.Status >= 300:
				mu.Lock()
				res.Dead++
				mu.Unlock()
			default:
				mu.Lock()
				res.Fetched++
				mu.Unlock()
			}
			p.URL = u
			return w.Add(p)
		})
	}
	err := g.Wait()
	return res, err
}
