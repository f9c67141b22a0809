package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the store's PostgreSQL database/sql driver
	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	_ "modernc.org/sqlite" // the store's SQLite database/sql driver

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/store"
)

// openStore opens the store named by dsn, or the configured default, and
// closes it when the command ends.
func (a *app) openStore(ctx context.Context, dsn string) (*store.Store, error) {
	s, err := store.Open(ctx, a.storeDSN(dsn))
	if err != nil {
		return nil, err
	}
	a.onClose(s.Close)
	return s, nil
}

// openExistingStore opens a store that must exist already (a reader's:
// serve, runs, prov cited): a missing SQLite file is an error, and nothing
// is made on disk.
func (a *app) openExistingStore(ctx context.Context, dsn string) (*store.Store, error) {
	s, err := store.OpenExisting(ctx, a.storeDSN(dsn))
	if err != nil {
		return nil, err
	}
	a.onClose(s.Close)
	return s, nil
}

// storeDSN is the store a command opens: the flag's, the configuration's,
// or <data dir>/claimtrace.db.
func (a *app) storeDSN(dsn string) string {
	if dsn == "" {
		dsn = a.cfg.Store
	}
	if dsn == "" {
		dsn = filepath.Join(a.cfg.DataDir, "claimtrace.db")
	}
	return dsn
}

// fetchFlags are the flags shared by commands that read cited sources.
type fetchFlags struct {
	snapshot   string
	offline    bool
	allowHosts []string
}

func (f *fetchFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.snapshot, "snapshot", "", "read cited pages from this snapshot directory first (made by claimtrace snapshot)")
	fs.BoolVar(&f.offline, "offline", false, "never open a socket: only the snapshot (and identifiers in URLs) are used")
	fs.StringSliceVar(&f.allowHosts, "allow-host", nil, "host or CIDR that may resolve to a private address (intranet mirrors, tests); repeatable")
}

// canon adapts biblio.CanonicalURL to the fetcher's canonicalizer.
func canon(u string) string {
	c, err := biblio.CanonicalURL(u)
	if err != nil {
		return u
	}
	return c
}

// newFetcher builds the SSRF-safe fetcher: snapshot first, then the store's
// page cache, then the web (never in offline mode).
func (a *app) newFetcher(f fetchFlags, st *store.Store) (*fetch.Client, error) {
	opts := fetch.Options{
		UserAgent:  a.cfg.Fetch.UserAgent,
		Timeout:    time.Duration(a.cfg.Fetch.TimeoutSecs) * time.Second,
		MaxBytes:   a.cfg.Fetch.MaxBytes,
		PerHostRPS: a.cfg.Fetch.PerHostRPS,
		AllowHosts: append(append([]string(nil), a.cfg.Fetch.AllowHosts...), f.allowHosts...),
		Offline:    f.offline,
		Canon:      canon,
		Probe:      a.cfg.Fetch.ProbeURLs,
	}
	if f.snapshot != "" {
		snap, err := fetch.OpenSnapshot(f.snapshot)
		if err != nil {
			return nil, err
		}
		opts.Snapshot = snap
	}
	if st != nil {
		opts.Cache = pageCache{st}
	}
	return fetch.New(opts), nil
}

// mode names how sources are reached, for run identity and outputs.
func (f fetchFlags) mode() string {
	switch {
	case f.offline:
		return "offline"
	case f.snapshot != "":
		return "snapshot"
	}
	return "live"
}

// newScholar returns the scholarly API client, or nil in offline mode.
func (a *app) newScholar(f fetchFlags) *scholar.Client {
	if f.offline {
		return nil
	}
	return scholar.New(scholar.Options{Mailto: os.Getenv("CLAIMTRACE_MAILTO")})
}

// pageCache adapts the store to the fetcher's Cache.
type pageCache struct{ s *store.Store }

func (c pageCache) GetPage(ctx context.Context, url string) (*fetch.Page, bool, error) {
	p, ok, err := c.s.GetPage(ctx, url)
	if err != nil || !ok {
		return nil, ok, err
	}
	return &fetch.Page{URL: p.URL, FinalURL: p.FinalURL, Status: p.Status, ContentType: p.ContentType, Body: p.Body,
		Truncated: p.Truncated, FetchedAt: p.FetchedAt, Err: p.Err, SHA256: p.SHA256}, true, nil
}

func (c pageCache) PutPage(ctx context.Context, p *fetch.Page) error {
	return c.s.PutPage(ctx, store.Page{URL: p.URL, FinalURL: p.FinalURL, Status: p.Status, ContentType: p.ContentType,
		Body: p.Body, SHA256: p.SHA256, Truncated: p.Truncated, Err: p.Err, FetchedAt: p.FetchedAt})
}

// progress returns a progress bar on stderr when it is a terminal or
// --progress asks, or nil.
func (a *app) progress(total int, what string) *progressbar.ProgressBar {
	if !a.progressFlag && !a.stderrIsTerminal() || total < 2 {
		return nil
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
}

// splitList splits comma-separated flag values, dropping empties.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// eprintDownloader fetches arXiv e-prints through the fetcher: politeness
// interval, retries with backoff, a size cap; no page cache (the build
// stages keep their own outputs). The e-print base is an endpoint the user
// configured, so its host may be a local mirror.
func (a *app) eprintDownloader(base string, timeout, interval time.Duration, maxBytes int64) construct.Downloader {
	rps := -1.0
	if interval > 0 {
		rps = 1 / interval.Seconds()
	}
	allow := append([]string(nil), a.cfg.Fetch.AllowHosts...)
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		allow = append(allow, u.Hostname())
	}
	return fetchDownloader{fetch.New(fetch.Options{
		UserAgent: a.cfg.Fetch.UserAgent, Timeout: timeout, MaxBytes: maxBytes, PerHostRPS: rps, AllowHosts: allow,
	})}
}

// fetchDownloader adapts the fetcher to construct.Downloader.
type fetchDownloader struct{ c *fetch.Client }

func (d fetchDownloader) Download(ctx context.Context, url string, w io.Writer) (string, error) {
	p, err := d.c.Fetch(ctx, url)
	if err != nil {
		return "", err
	}
	switch {
	case p.Status < 200 || p.Status >= 300:
		return "", fmt.Errorf("download %s: HTTP %d: %w", url, p.Status, claimtrace.ErrUnreachable)
	case p.Truncated:
		return "", fmt.Errorf("download %s: larger than the --max-download-bytes cap: %w", url, claimtrace.ErrTooLarge)
	}
	if _, err := w.Write(p.Body); err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	return p.ContentType, nil
}

// runManifest is what the CLI adds to a run's manifest: the binary's
// version and build, and the hash of every prompt template.
func runManifest(args []string) map[string]any {
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = redactDSNArg(a)
	}
	m := map[string]any{"prompts": prompts.Manifest(), "go": runtime.Version(), "command": shown}
	if bi, ok := debug.ReadBuildInfo(); ok {
		m["module"] = bi.Main.Path + " " + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				m[s.Key] = s.Value
			}
		}
	}
	return m
}

// redactDSNArg hides a database password in a command-line argument
// ("postgres://u:pw@h/db" or "--store=postgres://…").
func redactDSNArg(arg string) string {
	for _, scheme := range []string{"postgres://", "postgresql://"} {
		if i := strings.Index(arg, scheme); i >= 0 {
			return arg[:i] + store.RedactDSN(arg[i:])
		}
	}
	return arg
}

// stderrIsTerminal reports whether the command's stderr is a terminal,
// where progress is shown without being asked.
func (a *app) stderrIsTerminal() bool {
	f, ok := a.stderr.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
