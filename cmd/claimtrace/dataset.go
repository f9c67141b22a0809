package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/dataset"
)

func (a *app) datasetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dataset",
		Short: "Download and inspect ReportBench datasets",
	}
	cmd.AddCommand(a.datasetPullCmd(), a.datasetShowCmd())
	return cmd
}

func (a *app) datasetPullCmd() *cobra.Command {
	var dir, from string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pull --dir DIR",
		Short: "Download ReportBench v1.1 (100 tasks + ground truth) from its public GitHub repository",
		Long: `Download ReportBench v1.1 into DIR: ReportBench_v1.1.jsonl and
ReportBench_v1.1_GT/<arxiv_id>.jsonl, pinned to release commit ` + dataset.ReleaseCommit[:7] + `.
Files already present and valid are kept, so an interrupted pull resumes.
--from points at a mirror: a base URL under which the same two paths exist.`,
		Example: "  claimtrace dataset pull --dir data/reportbench\n  claimtrace dataset pull --dir data/reportbench --from https://mirror.example/ReportBench",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bar := a.progress(101, "pull")
			res, err := dataset.Pull(cmd.Context(), dir, dataset.PullOptions{
				Base:   from,
				Client: &http.Client{Timeout: 2 * time.Minute},
				Progress: func(done, total int, name string) {
					if bar != nil {
						bar.ChangeMax(total)
						bar.Set(done)
					}
				},
			})
			if bar != nil {
				bar.Finish()
			}
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(a.stdout).Encode(res)
			}
			fmt.Fprintf(a.stdout, "%s: %d tasks, %d ground-truth references (%d files downloaded, %d already present)\n",
				dir, res.Tasks, res.References, res.Fetched, res.Skipped)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to download into")
	cmd.Flags().StringVar(&from, "from", "", "base URL of a mirror (default: the pinned GitHub release)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.MarkFlagRequired("dir")
	return cmd
}

func (a *app) datasetShowCmd() *cobra.Command {
	var dir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show --dataset DIR [TASK_ID]",
		Short: "Show a dataset's tasks, domains, cutoffs and ground-truth sizes",
		Example: "  claimtrace dataset show --dataset data/reportbench\n" +
			"  claimtrace dataset show --dataset data/reportbench 2312.04861",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := dataset.LoadDataset(dir)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				return a.showTask(d, args[0], asJSON)
			}
			st := d.Stats()
			if asJSON {
				return json.NewEncoder(a.stdout).Encode(st)
			}
			fmt.Fprintf(a.stdout, "%s: %d tasks, %d ground-truth references (%d–%d a task, mean %.1f)\n\n",
				d.TaskPath, st.Tasks, st.GTRefs, st.GTMin, st.GTMax, st.GTMean)
			doms := make([]string, 0, len(st.Domains))
			for k := range st.Domains {
				doms = append(doms, k)
			}
			sort.Strings(doms)
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DOMAIN\tTASKS")
			for _, k := range doms {
				fmt.Fprintf(tw, "%s\t%d\n", orUnknown(k), st.Domains[k])
			}
			tw.Flush()
			if len(st.GTMissing) > 0 {
				fmt.Fprintf(a.stdout, "\nmissing ground truth: %v\n", st.GTMissing)
			}
			fmt.Fprintln(a.stdout)
			tw = tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tCUTOFF\tGT\tTITLE")
			for _, t := range d.Tasks {
				c, src := dataset.Cutoff(t)
				refs, _ := d.GT(t.ArXivID)
				fmt.Fprintf(tw, "%s\t%s (%s)\t%d\t%s\n", t.ArXivID, dateOr(c), src, len(refs), shorten(t.Title, 70))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&dir, "dataset", "", "dataset directory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("dataset")
	return cmd
}

func (a *app) showTask(d *dataset.Dataset, id string, asJSON bool) error {
	t, ok := d.Task(id)
	if !ok {
		return fmt.Errorf("no task %s in %s", id, d.TaskPath)
	}
	refs, gtErr := d.GT(id)
	c, src := dataset.Cutoff(t)
	if asJSON {
		return json.NewEncoder(a.stdout).Encode(map[string]any{"task": t, "cutoff": dateOr(c), "cutoff_source": src, "gt": refs})
	}
	fmt.Fprintf(a.stdout, "%s  %s\ndomain: %s\ncutoff: %s (%s)\n\nprompt:\n%s\n\n", t.ArXivID, t.Title, orUnknown(t.Domain), dateOr(c), src, t.Prompt)
	if gtErr != nil {
		fmt.Fprintf(a.stdout, "ground truth: %v\n", gtErr)
		return nil
	}
	fmt.Fprintf(a.stdout, "ground truth: %d references\n", len(refs))
	for i, r := range refs {
		if i == 10 {
			fmt.Fprintf(a.stdout, "  … %d more (use --json for all)\n", len(refs)-10)
			break
		}
		fmt.Fprintf(a.stdout, "  %-24s %s\n", shorten(r.BibID, 24), shorten(r.Title, 90))
	}
	return nil
}

func dateOr(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.Format("2006-01-02")
}

func orUnknown(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}
