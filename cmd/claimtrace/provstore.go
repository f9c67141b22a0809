package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// storedGraphs reads the provenance graphs kept in the store by eval and
// audit runs (one run, or all of them).
func (a *app) storedGraphs(ctx context.Context, dsn, run string) ([]*prov.Graph, error) {
	st, err := a.openExistingStore(ctx, dsn)
	if err != nil {
		return nil, err
	}
	units, err := st.UnitsOfKind(ctx, "graph", run)
	if err != nil {
		return nil, err
	}
	graphs := make([]*prov.Graph, 0, len(units))
	for _, u := range units {
		g, err := prov.Unmarshal(u.Data)
		if err != nil {
			return nil, fmt.Errorf("stored graph %s of run %s: %w", u.Key, u.Run, err)
		}
		g.ID = u.Run + "/" + u.Key
		graphs = append(graphs, g)
	}
	if len(graphs) == 0 {
		where := "the store"
		if run != "" {
			where = "run " + run
		}
		return nil, fmt.Errorf("no provenance graph in %s; `claimtrace eval` and `claimtrace audit` store one per report", where)
	}
	return graphs, nil
}

func (a *app) provCitedCmd() *cobra.Command {
	var dsn, run string
	var n int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "cited [--run RUN] [-n N]",
		Short: "The sources cited most across the stored reports",
		Long: `List the sources cited by the most reports, across every provenance graph
the store holds (or those of one run: see 'claimtrace runs').`,
		Example: "  claimtrace prov cited -n 20\n  claimtrace prov cited --run eval-05f42b5fed0f9926 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			graphs, err := a.storedGraphs(cmd.Context(), dsn, run)
			if err != nil {
				return err
			}
			uses := prov.MostCited(graphs, n)
			if asJSON {
				return writeIndentedJSON(a.stdout, uses)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "REPORTS\tCLAIMS\tSOURCE\n")
			for _, u := range uses {
				what := u.Identity
				if u.Title != "" {
					what += "  " + shorten(u.Title, 60)
				}
				fmt.Fprintf(tw, "%d\t%d\t%s\n", u.Reports, u.Claims, what)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&dsn, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	cmd.Flags().StringVar(&run, "run", "", "only this run's graphs")
	cmd.Flags().IntVarP(&n, "n", "n", 20, "how many sources to list")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) provDependsCmd() *cobra.Command {
	var dsn, run string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "depends SOURCE... [--run RUN]",
		Short: "Claims, across the stored reports, that depend on a source (a retracted DOI, a dead URL)",
		Long: `List every claim, in every stored provenance graph, whose provenance goes
through one of the given sources: a DOI (10.…, doi:…, https://doi.org/…), an
arXiv id (arxiv:…) or a URL, as identities print in 'prov cited'.`,
		Example: "  claimtrace prov depends 10.1038/s41586-020-2649-2\n  claimtrace prov depends url:https://example.org/retracted --json",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			graphs, err := a.storedGraphs(cmd.Context(), dsn, run)
			if err != nil {
				return err
			}
			deps, err := prov.DependentClaims(graphs, prov.MatchIdentity(args...))
			if err != nil {
				return err
			}
			if asJSON {
				return writeIndentedJSON(a.stdout, deps)
			}
			if len(deps) == 0 {
				fmt.Fprintln(a.stdout, "no stored claim depends on", args)
				return nil
			}
			for _, d := range deps {
				how := "cites it"
				if !d.Direct {
					how = "through reasoning"
				}
				fmt.Fprintf(a.stdout, "%s %s (%s): %s\n", d.Graph, d.Claim.ID, how, shorten(d.Claim.Statement, 100))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dsn, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	cmd.Flags().StringVar(&run, "run", "", "only this run's graphs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
