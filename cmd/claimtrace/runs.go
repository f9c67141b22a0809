package main

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func (a *app) runsCmd() *cobra.Command {
	var dsn string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List the runs kept in the store, with their units by status",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.openExistingStore(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			runs, err := st.Runs(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeIndentedJSON(a.stdout, runs)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tKIND\tUPDATED\tUNITS")
			for _, r := range runs {
				keys := make([]string, 0, len(r.Units))
				for k := range r.Units {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				parts := make([]string, len(keys))
				for i, k := range keys {
					parts[i] = fmt.Sprintf("%s %d", k, r.Units[k])
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Kind, r.Updated.Format("2006-01-02 15:04"), strings.Join(parts, ", "))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&dsn, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
