package main

import (
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/realdata"
)

func (a *app) dataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Download the public label sets and reports the tests and documented figures use",
		Long: `The tests and every figure in docs/ are measured on public data: the
ReportBench release, human-labelled claim–evidence pairs (AttributionBench,
WiCE, Citation-Integrity), real deep-research reports (Claude 3.7, Onyx,
OpenAI deep research, DeepScholar), LaTeX surveys and PROV schemas. 'data
pull' downloads them, each pinned to its repository and commit and checked
by sha256, into the layout the tests read: point the tests at it with
CLAIMTRACE_SHARED_DATA=DIR (or pull into ../shared/data beside the clone).`,
	}
	cmd.AddCommand(a.dataPullCmd(), a.dataListCmd())
	return cmd
}

func (a *app) dataPullCmd() *cobra.Command {
	var dir, from string
	var only []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pull --dir DIR [--only NAME]...",
		Short: "Download the data sets, pinned to their commits and checked by sha256; resumable",
		Long: `Download every data set (or those --only names; 'claimtrace data list'
shows them) into DIR, each file from its public repository at the pinned
commit, checked against its size and sha256 before it is written. Files
already there with the right sha256 are kept, so an interrupted pull
resumes; a file that does not match is never written, and the run names it
and exits 1 after trying the others. DIR/SOURCES.md records each set's
repository, commit and license. --from points at a mirror laid out as
GitHub's raw-file host (URL/OWNER/REPO/COMMIT/PATH).`,
		Example: `  claimtrace data pull --dir ../shared/data
  claimtrace data pull --dir data/real --only attributionbench --only wice
  claimtrace data pull --dir data/real && CLAIMTRACE_SHARED_DATA=$PWD/data/real go test ./...`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			all, err := realdata.Sets()
			if err != nil {
				return err
			}
			sets, err := realdata.Select(all, splitList(only))
			if err != nil {
				return fmt.Errorf("data pull: %w", err)
			}
			total := 0
			for _, s := range sets {
				total += len(s.Files)
			}
			bar := a.progress(total, "data pull")
			res, err := realdata.Pull(cmd.Context(), dir, sets, realdata.PullOptions{
				Base: from, Client: &http.Client{Timeout: 5 * time.Minute},
				Progress: func(done, total int, set, path string) {
					if bar != nil {
						bar.Set(done)
					}
				},
			})
			if bar != nil {
				bar.Finish()
			}
			if asJSON && res != nil {
				if err := writeIndentedJSON(a.stdout, res); err != nil {
					return err
				}
			} else if res != nil {
				fmt.Fprintf(a.stdout, "%s: %d sets, %d files (%.1f MB): %d downloaded, %d already there, %d failed\n",
					dir, len(res.Sets), res.Files, float64(res.Bytes)/1e6, res.Fetched, res.Kept, len(res.Failed))
			}
			if err != nil {
				return err
			}
			if !asJSON {
				fmt.Fprintf(a.stdout, "run the tests on it: CLAIMTRACE_SHARED_DATA=%s go test ./...\n", dir)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "folder to download into (the tests read ../shared/data, or $CLAIMTRACE_SHARED_DATA)")
	cmd.Flags().StringSliceVar(&only, "only", nil, "only these sets (repeatable or comma-separated; see 'claimtrace data list')")
	cmd.Flags().StringVar(&from, "from", "", "base URL of a mirror laid out as URL/OWNER/REPO/COMMIT/PATH (default: "+realdata.DefaultBase+")")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.MarkFlagRequired("dir")
	return cmd
}

func (a *app) dataListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the data sets: folder, repository and commit, license, files and size",
		Example: "  claimtrace data list\n  claimtrace data list --json | jq '.[].name'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sets, err := realdata.Sets()
			if err != nil {
				return err
			}
			type row struct {
				Name    string `json:"name"`
				Dir     string `json:"dir"`
				Repo    string `json:"repo"`
				Commit  string `json:"commit"`
				License string `json:"license"`
				About   string `json:"about"`
				Files   int    `json:"files"`
				Bytes   int64  `json:"bytes"`
			}
			rows := make([]row, len(sets))
			for i, s := range sets {
				rows[i] = row{Name: s.Name, Dir: s.Dir, Repo: s.Repo, Commit: s.Commit, License: s.License, About: s.About, Files: len(s.Files)}
				for _, f := range s.Files {
					rows[i].Bytes += f.Size
				}
			}
			if asJSON {
				return writeIndentedJSON(a.stdout, rows)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SET\tFOLDER\tREPOSITORY @ COMMIT\tFILES\tMB\tWHAT")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s @ %.7s\t%d\t%.1f\t%s\n", r.Name, r.Dir, r.Repo, r.Commit, r.Files, float64(r.Bytes)/1e6, r.About)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
