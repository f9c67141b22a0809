package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/demo"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/web"
)

func (a *app) demoCmd() *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Evaluate the bundled example offline: no key, no network, no server",
		Long: `Evaluate the bundled example: a ReportBench-format task (a survey of
retrieval-augmented generation with its ground-truth references), one report
that cites its sources in several styles (markdown links, [n] markers with a
reference list, bare URLs, DOIs, title-only references, a fabricated link,
blog and Wikipedia pages, a post-cutoff paper, the survey itself) and a
frozen snapshot of every page it cites.

The run is offline: nothing is fetched, the store is a temporary file.
--out DIR keeps the example and the results (summary.json, reports/) in DIR,
with the audit view as static pages in DIR/results/html/.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			dir := out
			if dir == "" {
				tmp, err := os.MkdirTemp("", "claimtrace-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			if err := demo.Materialize(dir); err != nil {
				return err
			}
			ds, err := dataset.LoadDataset(filepath.Join(dir, demo.DatasetDir))
			if err != nil {
				return err
			}
			st, err := a.openStore(ctx, filepath.Join(dir, "claimtrace.db"))
			if err != nil {
				return err
			}
			ff := fetchFlags{snapshot: filepath.Join(dir, demo.SnapshotDir), offline: true}
			fetcher, err := a.newFetcher(ff, st)
			if err != nil {
				return err
			}
			eo := eval.Options{
				Dataset: ds, ReportsDir: filepath.Join(dir, demo.ReportsDir), OutDir: filepath.Join(dir, "results"),
				Mode: ff.mode(), Snapshot: ff.snapshot, Fetcher: fetcher, Store: st, Concurrency: 2,
			}
			if _, err := defaultVerify().apply(ctx, a, st, &eo, RunConfig{}); err != nil {
				return err
			}
			ev, err := eval.New(eo)
			if err != nil {
				return err
			}
			sum, err := ev.Run(ctx)
			if err != nil {
				return err
			}
			if out != "" {
				srv, err := web.New(web.Options{Store: st})
				if err != nil {
					return err
				}
				if _, err := srv.Export(ctx, sum.Run, filepath.Join(dir, "results", "html"), nil); err != nil {
					return err
				}
			}
			if asJSON {
				return writeIndentedJSON(a.stdout, sum)
			}
			printSummary(a.stdout, sum, "")
			res, err := eval.ReadResult(filepath.Join(dir, "results", "reports", demo.TaskID+".json"))
			if err != nil {
				return err
			}
			printCitations(a.stdout, res)
			if out != "" {
				fmt.Fprintf(a.stdout, "\nexample and results kept in %s (results/summary.json, results/reports/%s.json);\nthe audit view, one page to open in a browser: %s\n", out, demo.TaskID,
					filepath.Join(out, "results", "html", demo.TaskID+".html"))
			} else {
				fmt.Fprintln(a.stdout, "\nrun with --out DIR to keep the example and its results")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "keep the example and its results in this directory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}
