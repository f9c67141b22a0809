package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/report"
)

// snapshotResult is what `claimtrace snapshot --json` prints.
type snapshotResult struct {
	Dir        string            `json:"dir"`
	Reports    int               `json:"reports"`
	BadReports map[string]string `json:"bad_reports"`
	URLs       int               `json:"urls"`
	Already    int               `json:"already"`
	Fetched    int               `json:"fetched"`
	Dead       int               `json:"dead"`
	Blocked    int               `json:"blocked"`
	Failed     map[string]string `json:"failed"`
}

func (a *app) snapshotCmd() *cobra.Command {
	var reportsDir, out, storeDSN string
	var concurrency int
	var asJSON bool
	var allow []string
	cmd := &cobra.Command{
		Use:   "snapshot --reports DIR --out SNAPDIR",
		Short: "Fetch every URL the reports cite, once, and freeze it into a snapshot",
		Long: `Fetch every URL cited by the reports in DIR (in-text links and reference
lists) with the SSRF-safe fetcher and write SNAPDIR/index.jsonl plus
SNAPDIR/pages/. An evaluation run with --snapshot SNAPDIR --offline then
reads only the snapshot: reproducible, bit for bit, without the network.

Rerunning adds what is missing: URLs already in the snapshot are skipped,
URLs that failed with a network error are tried again. Dead links (404, 410)
and URLs refused by the fetch policy are recorded as such.`,
		Example: "  claimtrace snapshot --reports runs/o3 --out snap/o3",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			res := snapshotResult{Dir: out, BadReports: map[string]string{}, Failed: map[string]string{}}
			urls, err := a.citedURLs(reportsDir, &res)
			if err != nil {
				return err
			}
			w, err := fetch.CreateSnapshot(out)
			if err != nil {
				return err
			}
			defer w.Close()
			st, err := a.openStore(ctx, storeDSN)
			if err != nil {
				return err
			}
			fetcher, err := a.newFetcher(fetchFlags{allowHosts: allow}, st)
			if err != nil {
				return err
			}
			if concurrency <= 0 {
				concurrency = 4 * a.cfg.Concurrency
			}
			bar := a.progress(len(urls), "snapshot")
			var mu sync.Mutex
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(concurrency)
			for _, u := range urls {
				if w.Has(u) {
					res.Already++
					if bar != nil {
						bar.Add(1)
					}
					continue
				}
				g.Go(func() error {
					p, err := fetcher.Fetch(gctx, u)
					if bar != nil {
						defer bar.Add(1)
					}
					switch {
					case gctx.Err() != nil:
						return gctx.Err()
					case errors.Is(err, claimtrace.ErrBlocked):
						p = &fetch.Page{URL: u, Status: 0, Err: "blocked by fetch policy"}
						mu.Lock()
						res.Blocked++
						mu.Unlock()
					case err != nil:
						mu.Lock()
						res.Failed[u] = a.redact(err.Error())
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
			err = g.Wait()
			if bar != nil {
				bar.Finish()
			}
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			fmt.Fprintf(a.stdout, "%s: %d reports, %d distinct URLs: %d fetched now, %d already there, %d dead, %d blocked, %d failed\n",
				out, res.Reports, res.URLs, res.Fetched, res.Already, res.Dead, res.Blocked, len(res.Failed))
			for name, e := range res.BadReports {
				fmt.Fprintf(a.stdout, "skipped report %s: %s\n", name, e)
			}
			if len(res.Failed) > 0 {
				fmt.Fprintf(a.stdout, "%d URLs failed with network errors; rerun the same command to retry them\n", len(res.Failed))
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&reportsDir, "reports", "", "directory of reports (<id>.json|.md|.txt) or one report file")
	fs.StringVar(&out, "out", "", "snapshot directory to create or extend")
	fs.StringVar(&storeDSN, "store", "", "store DSN for the page cache (default: <data dir>/claimtrace.db)")
	fs.IntVar(&concurrency, "concurrency", 0, "URLs fetched at once (default: 4 × config concurrency)")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	fs.StringSliceVar(&allow, "allow-host", nil, "host or CIDR that may resolve to a private address; repeatable")
	cmd.MarkFlagRequired("reports")
	cmd.MarkFlagRequired("out")
	return cmd
}

// citedURLs parses every report under path and returns the distinct URLs
// they cite, sorted. Unreadable reports are recorded, not fatal.
func (a *app) citedURLs(path string, res *snapshotResult) ([]string, error) {
	var files []string
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reports %s: %w", path, err)
	}
	if fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, fmt.Errorf("reports %s: %w", path, err)
		}
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if !e.IsDir() && (ext == ".json" || ext == ".md" || ext == ".txt") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	} else {
		files = []string{path}
	}
	seen := map[string]bool{}
	for _, f := range files {
		text, err := a.loadReport(f)
		if err != nil {
			res.BadReports[f] = err.Error()
			continue
		}
		res.Reports++
		doc := report.Parse(text)
		for _, c := range doc.Citations {
			u := c.URL
			switch {
			case u != "":
			case c.ArXivID != "":
				u = "https://arxiv.org/abs/" + c.ArXivID
			case c.DOI != "":
				u = "https://doi.org/" + c.DOI
			}
			if u != "" {
				seen[u] = true
			}
		}
	}
	urls := make([]string, 0, len(seen))
	for u := range seen {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	res.URLs = len(urls)
	return urls, nil
}
