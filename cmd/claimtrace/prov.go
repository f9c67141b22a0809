package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

func (a *app) provCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prov",
		Short: "Query, check and export provenance graphs",
		Long: `Work with AAR provenance graphs: claimtrace's graph JSON (written by
'claimtrace audit --out', 'claimtrace import', or recorded by an agent; see
'claimtrace prov schema') or PROV-JSON.`,
	}
	cmd.AddCommand(a.provWhyCmd(), a.provContradictionsCmd(), a.provOrphansCmd(), a.provExportCmd(),
		a.provValidateCmd(), a.provSchemaCmd(), a.provCitedCmd(), a.provDependsCmd())
	return cmd
}

func (a *app) provWhyCmd() *cobra.Command {
	var tau float64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "why CLAIM_ID GRAPH",
		Short: "Show a claim's provenance path: sources, excerpts, reasoning, edges, strengths",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := a.readProvGraph(args[1])
			if err != nil {
				return err
			}
			ix, err := prov.NewIndex(g)
			if err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			p, err := ix.Path(args[0], tau)
			if err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			if asJSON {
				return writeAuditJSON(a.stdout, p)
			}
			printPath(a.stdout, p)
			return nil
		},
	}
	cmd.Flags().Float64Var(&tau, "tau", prov.DefaultTau, "entailment threshold τ for the claim's PSnd")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the path as JSON")
	return cmd
}

func printPath(w io.Writer, p *prov.Path) {
	c := p.Claim
	fmt.Fprintf(w, "claim %s: %q\n", c.ID, c.Statement)
	if c.Location.End > 0 || c.Location.Section != "" {
		fmt.Fprintf(w, "  at bytes %d-%d", c.Location.Start, c.Location.End)
		if c.Location.Section != "" {
			fmt.Fprintf(w, " (%s)", c.Location.Section)
		}
		fmt.Fprintln(w)
	}
	m := p.Metrics
	complete := "yes"
	if !m.Complete {
		complete = "no: " + m.GapText()
	}
	fmt.Fprintf(w, "  complete: %s\n", complete)
	fmt.Fprintf(w, "  to audit: %d nodes (%d sources, %d reasoning steps), %d words of excerpts; PSnd %s (%d/%d)\n",
		m.Nodes, m.Sources, m.Reasoning, m.Words, m.PSnd, m.PSnd.Num, m.PSnd.Den)
	if len(p.Sources) > 0 {
		fmt.Fprintln(w, "sources:")
	}
	for _, s := range p.Sources {
		state := "unresolved"
		if s.Resolved {
			state = "resolved"
		}
		where := s.URL
		if where == "" && s.DOI != "" {
			where = "doi:" + s.DOI
		}
		fmt.Fprintf(w, "  %s [%s] %s", s.ID, state, s.Title)
		if where != "" {
			fmt.Fprintf(w, " <%s>", where)
		}
		if !s.RetrievedAt.IsZero() {
			fmt.Fprintf(w, " retrieved %s", s.RetrievedAt.UTC().Format(time.RFC3339))
		}
		fmt.Fprintln(w)
		if s.Excerpt != "" {
			fmt.Fprintf(w, "      %q\n", s.Excerpt)
		}
	}
	if len(p.Reasoning) > 0 {
		fmt.Fprintln(w, "reasoning:")
	}
	for _, r := range p.Reasoning {
		var tags []string
		for _, t := range []string{string(r.Type), r.Model} {
			if t != "" {
				tags = append(tags, t)
			}
		}
		fmt.Fprintf(w, "  %s", r.ID)
		if len(tags) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(tags, ", "))
		}
		if r.Inference != "" {
			fmt.Fprintf(w, ": %s", r.Inference)
		}
		fmt.Fprintln(w)
	}
	if len(p.Edges) > 0 {
		fmt.Fprintln(w, "edges:")
	}
	for _, e := range p.Edges {
		rel := e.Rel.String()
		if e.Strength != nil {
			rel += fmt.Sprintf(" ν=%.2f", *e.Strength)
		} else if e.Rel == prov.Supports {
			rel += " ν=?"
		}
		fmt.Fprintf(w, "  %s -%s-> %s", e.From, rel, e.To)
		if e.Label != "" {
			fmt.Fprintf(w, " [%s]", e.Label)
		}
		if e.Evidence != "" {
			fmt.Fprintf(w, " evidence: %q", e.Evidence)
		}
		fmt.Fprintln(w)
	}
	if len(p.Conflicts) > 0 {
		fmt.Fprintln(w, "conflicts touching this path:")
	}
	for _, st := range p.Conflicts {
		fmt.Fprintf(w, "  %s\n", conflictLine(st))
	}
}

func conflictLine(st prov.ConflictStatus) string {
	state := "hidden"
	if st.Surfaced {
		state = "surfaced by " + st.Via
	}
	return fmt.Sprintf("%s ↔ %s about %q: %s", st.A, st.B, st.Entity, state)
}

func (a *app) provContradictionsCmd() *cobra.Command {
	var detect, asJSON bool
	cmd := &cobra.Command{
		Use:   "contradictions GRAPH",
		Short: "List pairs of sources in conflict, surfaced or hidden",
		Long: `List the conflicts between sources of a graph: those recorded in it and,
with --detect (default), those the offline detector finds in the source
excerpts (conflicting numbers, negated or opposite statements about the same
thing). Each is surfaced (a contradicts edge, or a claim citing both sources
and stating the disagreement) or hidden.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := a.readProvGraph(args[0])
			if err != nil {
				return err
			}
			if detect {
				if err := prov.DetectConflicts(cmd.Context(), g); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
			}
			ix, err := prov.NewIndex(g)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			sts := ix.Surfacing()
			if asJSON {
				return writeAuditJSON(a.stdout, sts)
			}
			if len(sts) == 0 {
				fmt.Fprintln(a.stdout, "no conflict between sources found")
				return nil
			}
			surfaced := 0
			for _, st := range sts {
				if st.Surfaced {
					surfaced++
				}
			}
			fmt.Fprintf(a.stdout, "%d conflicts between sources, %d surfaced, %d hidden\n", len(sts), surfaced, len(sts)-surfaced)
			for _, st := range sts {
				fmt.Fprintf(a.stdout, "%s", conflictLine(st))
				if st.Kind != "" || st.Detector != "" {
					fmt.Fprintf(a.stdout, " [%s", st.Kind)
					if st.Detector != "" {
						fmt.Fprintf(a.stdout, ", found by %s", st.Detector)
					}
					fmt.Fprint(a.stdout, "]")
				}
				fmt.Fprintln(a.stdout)
				if st.SnippetA != "" {
					fmt.Fprintf(a.stdout, "    %s: %q\n", st.A, st.SnippetA)
				}
				if st.SnippetB != "" {
					fmt.Fprintf(a.stdout, "    %s: %q\n", st.B, st.SnippetB)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&detect, "detect", true, "also run the offline detector over source excerpts")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *app) provOrphansCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "orphans GRAPH",
		Short: "List claims without complete provenance, and why",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := a.readProvGraph(args[0])
			if err != nil {
				return err
			}
			m, err := prov.Compute(g, prov.DefaultTau)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			orphans := m.Orphans()
			if asJSON {
				if orphans == nil {
					orphans = []prov.ClaimMetrics{}
				}
				return writeAuditJSON(a.stdout, orphans)
			}
			fmt.Fprintf(a.stdout, "%d of %d claims without complete provenance\n", len(orphans), m.Claims)
			statement := make(map[string]string, len(g.Claims))
			for _, c := range g.Claims {
				statement[c.ID] = c.Statement
			}
			for _, c := range orphans {
				fmt.Fprintf(a.stdout, "  %s: %s: %q\n", c.ID, c.GapText(), statement[c.ID])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// exportFormats maps --format to a writer.
var exportFormats = map[string]func(io.Writer, *prov.Graph) error{
	"prov-json":   func(w io.Writer, g *prov.Graph) error { return writeBytes(w, provjson.Marshal, g) },
	"prov-jsonld": func(w io.Writer, g *prov.Graph) error { return writeBytes(w, provjson.MarshalLD, g) },
	"graphml":     prov.WriteGraphML,
	"dot":         prov.WriteDOT,
	"json":        prov.Encode,
}

func writeBytes(w io.Writer, f func(*prov.Graph) ([]byte, error), g *prov.Graph) error {
	data, err := f(g)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func (a *app) provExportCmd() *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "export --format prov-json|prov-jsonld|graphml|dot|json GRAPH",
		Short: "Write a graph as W3C PROV-JSON, PROV-JSONLD, GraphML, Graphviz DOT or native JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			write, ok := exportFormats[format]
			if !ok {
				return fmt.Errorf("--format %q: want prov-json, prov-jsonld, graphml, dot or json: %w", format, claimtrace.ErrInvalid)
			}
			g, err := a.readProvGraph(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				return write(a.stdout, g)
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			if err := write(f, g); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		},
	}
	cmd.Flags().StringVar(&format, "format", "prov-json", "prov-json, prov-jsonld, graphml, dot or json (native)")
	cmd.Flags().StringVar(&out, "out", "", "write to this file instead of standard output")
	return cmd
}

func (a *app) provValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate GRAPH",
		Short: "Check a graph against the format's schema and the AAR rules",
		Long: `Check a graph: the JSON Schema of the native format (or PROV-JSON
structure), then the AAR rules, each violation naming its rule (sources have
no incoming edges, claims no outgoing ones, strengths only on supports edges
and within [0, 1], known reasoning types, no cycles, …).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := a.readProvGraph(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: valid: %d sources, %d reasoning steps, %d claims, %d edges, %d conflicts\n",
				args[0], len(g.Sources), len(g.Reasoning), len(g.Claims), len(g.Edges), len(g.Conflicts))
			return nil
		},
	}
}

func (a *app) provSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of claimtrace's graph format (for agents that record provenance)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := a.stdout.Write(prov.Schema())
			return err
		},
	}
}
