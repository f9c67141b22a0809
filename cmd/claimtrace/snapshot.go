package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

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

// snapshotFlags are the flags of claimtrace snapshot.
type snapshotFlags struct {
	reports, out, store string
	concurrency         int
	json                bool
	allowHosts          []string
}

// snapshotCmd freezes the URLs that reports cite (runSnapshot).
func (a *app) snapshotCmd() *cobra.Command {
	var f snapshotFlags
	cmd := &cobra.Command{
		Use:   "snapshot --reports DIR --out SNAPDIR",
		Short: "Fetch every URL the reports cite, once, and freeze it into a snapshot",
		Long: `Fetch every URL cited by the reports in DIR (in-text links and reference
lists) with the SSRF-safe fetcher and write SNAPDIR/index.jsonl plus
SNAPDIR/pages/. An evaluation run with --snapshot SNAPDIR --offline then
reads only the snapshot: reproducible, bit for bit, without the network.

Rerunning adds what is missing: URLs already in the snapshot are skipped,
URLs that failed with a network error are tried again. Dead links (404, 410)
and URLs refused by the fetch policy are recorded as such. Each page's
extracted text is kept beside it, so that runs do not extract it again
(see "claimtrace snapshot index-text").`,
		Example: "  claimtrace snapshot --reports runs/o3 --out snap/o3",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSnapshot(cmd.Context(), f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.reports, "reports", "", "directory of reports (<id>.json|.md|.txt) or one report file")
	fs.StringVar(&f.out, "out", "", "snapshot directory to create or extend")
	fs.StringVar(&f.store, "store", "", "store DSN for the page cache (default: <data dir>/claimtrace.db)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "URLs fetched at once (default: 4 × config concurrency)")
	fs.BoolVar(&f.json, "json", false, "print the result as JSON")
	fs.StringSliceVar(&f.allowHosts, "allow-host", nil, "host or CIDR that may resolve to a private address; repeatable")
	cmd.MarkFlagRequired("reports")
	cmd.MarkFlagRequired("out")
	cmd.AddCommand(a.snapshotIndexTextCmd())
	return cmd
}

// runSnapshot freezes the URLs the reports cite into the snapshot
// directory: it reads the reports, opens the snapshot, the store's page
// cache and the fetcher, fetches what the snapshot lacks
// (fetch.SnapshotWriter.Freeze) and prints what it did.
func (a *app) runSnapshot(ctx context.Context, f snapshotFlags) error {
	res := snapshotResult{Dir: f.out, BadReports: map[string]string{}, Failed: map[string]string{}}
	urls, err := a.citedURLs(f.reports, &res)
	if err != nil {
		return err
	}
	w, err := fetch.CreateSnapshot(f.out)
	if err != nil {
		return err
	}
	defer w.Close()
	st, err := a.openStore(ctx, f.store)
	if err != nil {
		return err
	}
	fetcher, err := a.newFetcher(fetchFlags{allowHosts: f.allowHosts}, st)
	if err != nil {
		return err
	}
	concurrency := f.concurrency
	if concurrency <= 0 {
		concurrency = 4 * a.cfg.Concurrency
	}
	opt := fetch.FreezeOptions{Concurrency: concurrency}
	bar := a.progress(len(urls), "snapshot")
	if bar != nil {
		opt.Progress = func() { bar.Add(1) }
	}
	fr, err := w.Freeze(ctx, fetcher, urls, opt)
	if bar != nil {
		bar.Finish()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	res.Already, res.Fetched, res.Dead, res.Blocked = fr.Already, fr.Fetched, fr.Dead, fr.Blocked
	for u, e := range fr.Failed {
		res.Failed[u] = a.redact(e)
	}
	if f.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(a.stdout, "%s: %d reports, %d distinct URLs: %d fetched now, %d already there, %d dead, %d blocked, %d failed\n",
		f.out, res.Reports, res.URLs, res.Fetched, res.Already, res.Dead, res.Blocked, len(res.Failed))
	for name, e := range res.BadReports {
		fmt.Fprintf(a.stdout, "skipped report %s: %s\n", name, e)
	}
	if len(res.Failed) > 0 {
		fmt.Fprintf(a.stdout, "%d URLs failed with network errors; rerun the same command to retry them\n", len(res.Failed))
	}
	return nil
}

// citedURLs parses every report under path and returns the distinct URLs
// they cite, sorted (fetch.CitedURLs). Unreadable reports are recorded, not fatal.
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
			if !e.IsDir() && report.Candidate(e.Name()) {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	} else {
		files = []string{path}
	}
	var cites []claimtrace.Citation
	for _, f := range files {
		text, err := a.loadReport(f)
		if err != nil {
			res.BadReports[f] = err.Error()
			continue
		}
		res.Reports++
		cites = append(cites, report.Parse(text).Citations...)
	}
	urls := fetch.CitedURLs(cites)
	res.URLs = len(urls)
	return urls, nil
}
