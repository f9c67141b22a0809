package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/fetch"
)

// snapshotTextResult is what `claimtrace snapshot index-text --json` prints.
type snapshotTextResult struct {
	Dir              string `json:"dir"`
	ExtractorVersion int    `json:"extractor_version"`
	fetch.IndexTextResult
}

// snapshotIndexTextCmd gives an existing snapshot's pages their extracted
// text (fetch.IndexText).
func (a *app) snapshotIndexTextCmd() *cobra.Command {
	var (
		concurrency int
		asJSON      bool
	)
	cmd := &cobra.Command{
		Use:   "index-text SNAPDIR",
		Short: "Keep each page's extracted text beside it, so that runs do not extract it again",
		Long: `Extract every page of the snapshot in SNAPDIR once and keep the result beside
it (pages/<hash>.extract.json, pointed to by the page's index line), stamped
with the extractor's version. Evaluations reading the snapshot then use it
instead of extracting the page on every run; their outputs are the same.

Snapshots written by this version of claimtrace have it already; this is for
snapshots written by an older one, by hand, or before an extractor change
(a sidecar of another version is ignored, and the page extracted as before).
Rerunning skips pages whose text is current. Pages the extractor cannot
read are listed and keep no text. Kept text no page points to any more (of
an older extractor version) is deleted. Do not run it while "claimtrace
snapshot" adds to the same directory.`,
		Example: "  claimtrace snapshot index-text snap/o3\n  claimtrace snapshot index-text snap/o3 --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSnapshotIndexText(cmd.Context(), args[0], concurrency, asJSON)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&concurrency, "concurrency", 0, "pages extracted at once (default: the number of CPUs)")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// runSnapshotIndexText runs fetch.IndexText on dir with a progress bar
// and prints what it did.
func (a *app) runSnapshotIndexText(ctx context.Context, dir string, concurrency int, asJSON bool) error {
	opt := fetch.IndexTextOptions{Concurrency: concurrency}
	if snap, err := fetch.OpenSnapshot(dir); err == nil {
		pages := 0
		for _, e := range snap.Entries() {
			if e.File != "" && e.Status != 0 {
				pages++
			}
		}
		if bar := a.progress(pages, "index-text"); bar != nil {
			opt.Progress = func() { bar.Add(1) }
			defer bar.Finish()
		}
	}
	res, err := fetch.IndexText(ctx, dir, opt)
	if err != nil {
		return err
	}
	for u, why := range res.Unreadable {
		res.Unreadable[u] = a.redact(why)
	}
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(snapshotTextResult{Dir: dir, ExtractorVersion: fetch.ExtractorVersion, IndexTextResult: res})
	}
	fmt.Fprintf(a.stdout, "%s: %d pages: %d given their text now, %d current already, %d unreadable, %d unused text files deleted (extractor version %d)\n",
		dir, res.Pages, res.Written, res.Current, len(res.Unreadable), res.Removed, fetch.ExtractorVersion)
	urls := make([]string, 0, len(res.Unreadable))
	for u := range res.Unreadable {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		fmt.Fprintf(a.stdout, "unreadable %s: %s\n", u, res.Unreadable[u])
	}
	return nil
}
