package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/web"
)

// auditOptions are the settings of an audit: where cited pages come from,
// which judge decides support, the soundness threshold τ, and whether the
// network may be used. Graph inputs use only Tau; report inputs go through
// the eval pipeline (graphFromReport) and use all of them.
type auditOptions struct {
	Snapshot string
	Judge    string
	Tau      float64
	Offline  bool
	// Detect runs the offline contradiction detector and adds what it
	// finds to the graph's conflicts: over a report's source texts in the
	// pipeline, over a graph's excerpts otherwise.
	Detect bool
	// sources shows and bounds the fetching of a report's sources.
	sources sourceFlags
	// audited, when set, receives where a report input's results were
	// stored (for the HTML page of --out) and the result itself.
	audited *auditedReport
}

// auditedReport names the stored run of an audited report and holds its
// result.
type auditedReport struct {
	st        *store.Store
	run, task string
	res       *eval.Result
}

func (o *auditOptions) add(fs *pflag.FlagSet) {
	fs.StringVar(&o.Snapshot, "snapshot", "", "snapshot directory of cited pages (report inputs)")
	fs.StringVar(&o.Judge, "judge", "offline", "support judge for report inputs: offline, or an LLM judge spec")
	fs.Float64Var(&o.Tau, "tau", prov.DefaultTau, "entailment threshold τ: a citation is sound when its strength ν > τ")
	fs.BoolVar(&o.Offline, "offline", false, "never use the network (report inputs)")
	fs.BoolVar(&o.Detect, "detect", true, "look for contradictions between sources (offline detector: a report's in the full texts of its sources, as eval does; a graph's in its excerpts) and add them to the graph's")
	o.sources.add(fs)
}

func (a *app) auditCmd() *cobra.Command {
	var opts auditOptions
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "audit REPORT|GRAPH",
		Short: "Audit a report as an AAR provenance graph: PCov, PSnd, CTran, AEff",
		Long: `Audit a report or a provenance graph with the AAR metrics:

  PCov   share of claims whose provenance is complete: at least one source,
         every source resolved, every reasoning step with an input
  PSnd   share of citation pairs (a supports edge from a source straight into
         a claim) with entailment strength ν > τ (--tau, default 0.5)
  CTran  share of the conflicts between sources that the graph surfaces (a
         contradicts edge, or a claim citing both and stating the conflict);
         null when no conflict exists
  AEff   audit-effort proxy: nodes to inspect (sources + reasoning steps in a
         claim's provenance) and words to read in the excerpts, per claim

GRAPH is a native graph (claimtrace's aar-graph/1 JSON, see 'claimtrace prov
schema') or a PROV-JSON document. REPORT is a report file (.md, .txt, or
.json with the text in "response"): it goes through the eval pipeline
(parse, resolve, judge) first, using --snapshot, --judge and --offline.

--out DIR writes DIR/graph.json (native), DIR/prov.json (PROV-JSON) and
DIR/metrics.json, and for a report DIR/report.html: the audit view as one
self-contained page (each claim beside its sources' evidence passages,
verdicts and provenance path; no script, loads nothing).`,
		Example: `  claimtrace audit graph.json
  claimtrace audit --json --tau 0.7 graph.json
  claimtrace audit --out audit/ prov.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.audited = &auditedReport{}
			started := time.Now()
			g, m, err := a.audit(cmd.Context(), args[0], opts)
			if err != nil {
				return err
			}
			printNotFetched(a.stderr, opts.audited.res)
			if out != "" {
				// prov.json says who evaluated the graph, with what
				// settings and when: the judge only for a report input.
				ev := &provjson.Evaluation{Tool: "claimtrace", Version: buildVersion(), Mode: "graph", Tau: opts.Tau, Started: started, Ended: time.Now()}
				if r := opts.audited; r.run != "" {
					ev.Run, ev.Mode, ev.Judge = r.run, "report", opts.Judge
				}
				if err := writeAudit(out, g, m, ev); err != nil {
					return err
				}
				if r := opts.audited; r.run != "" {
					if err := exportReportHTML(cmd.Context(), r, filepath.Join(out, "report.html")); err != nil {
						return err
					}
				}
			}
			if asJSON {
				return writeAuditJSON(a.stdout, m)
			}
			printAudit(a.stdout, g, m)
			return nil
		},
	}
	opts.add(cmd.Flags())
	cmd.Flags().StringVar(&out, "out", "", "write graph.json, prov.json, metrics.json (and report.html for a report) into this directory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the metrics as JSON")
	return cmd
}

// audit loads the input, adds the contradictions the detector finds and
// computes the metrics.
func (a *app) audit(ctx context.Context, path string, opts auditOptions) (*prov.Graph, *prov.Metrics, error) {
	g, ix, fromReport, err := a.auditInput(ctx, path, opts)
	if err != nil {
		return nil, nil, err
	}
	// A report's contradictions were looked for by the pipeline, in the
	// full texts of its sources (one audit path, the answer eval gives);
	// a graph has only its excerpts.
	if opts.Detect && !fromReport {
		extra, err := prov.DetectedConflicts(ctx, g)
		if err == nil && ix != nil {
			err = ix.AddConflicts(extra...)
		} else if err == nil {
			g.Conflicts = prov.MergeConflicts(g.Conflicts, extra...)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if ix == nil {
		if ix, err = prov.NewIndex(g); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	m, err := ix.Metrics(opts.Tau)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, m, nil
}

// auditInput reads a graph, or builds one from a report through the eval
// pipeline (fromReport). A large native graph comes with the index its
// reading built (ix; nil otherwise).
func (a *app) auditInput(ctx context.Context, path string, opts auditOptions) (g *prov.Graph, ix *prov.Index, fromReport bool, err error) {
	if g, ix, large, err := a.readLargeGraph(path); large {
		return g, ix, false, err
	}
	data, err := a.readInput(path)
	if err != nil {
		return nil, nil, false, err
	}
	switch f := prov.Sniff(path, data); f {
	case prov.FormatNative, prov.FormatPROVJSON:
		g, err = provjson.ReadGraph(path, data, f)
		return g, nil, false, err
	case prov.FormatPROVJSONLD:
		return nil, nil, false, fmt.Errorf("%s: PROV-JSONLD is written, not read; give the native graph or PROV-JSON: %w", path, claimtrace.ErrInvalid)
	}
	g, err = a.graphFromReport(ctx, path, opts)
	return g, nil, true, err
}

// readProvGraph reads a graph file (native or PROV-JSON); reports are refused.
func (a *app) readProvGraph(path string) (*prov.Graph, error) {
	if g, _, large, err := a.readLargeGraph(path); large {
		return g, err
	}
	data, err := a.readInput(path)
	if err != nil {
		return nil, err
	}
	if f := prov.Sniff(path, data); f == prov.FormatNative || f == prov.FormatPROVJSON {
		return provjson.ReadGraph(path, data, f)
	}
	return nil, fmt.Errorf("%s: not a provenance graph (want claimtrace's graph JSON or PROV-JSON; run 'claimtrace audit --out DIR' on a report first): %w", path, claimtrace.ErrInvalid)
}

// writeAudit writes DIR/graph.json, DIR/prov.json (with the evaluation ev)
// and DIR/metrics.json.
func writeAudit(dir string, g *prov.Graph, m *prov.Metrics, ev *provjson.Evaluation) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	native, err := prov.Marshal(g)
	if err != nil {
		return err
	}
	pj, err := provjson.MarshalWith(g, ev)
	if err != nil {
		return err
	}
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode metrics: %w", err)
	}
	for name, data := range map[string][]byte{"graph.json": native, "prov.json": pj, "metrics.json": append(mj, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeAuditJSON writes v as indented JSON, without HTML escaping.
func writeAuditJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printAudit writes the metrics for a reader: the four figures with their
// counts, then the claims without complete provenance and the conflicts the
// report hides.
func printAudit(w io.Writer, g *prov.Graph, m *prov.Metrics) {
	name := g.ID
	if name == "" {
		name = "graph"
	}
	fmt.Fprintf(w, "%s: %d claims, %d sources, %d reasoning steps, %d edges\n", name, len(g.Claims), len(g.Sources), len(g.Reasoning), len(g.Edges))
	fmt.Fprintf(w, "  PCov   %-6s (%d/%d claims with complete provenance)\n", m.PCov, m.PCov.Num, m.PCov.Den)
	fmt.Fprintf(w, "  PSnd   %-6s (%d/%d citation pairs with ν > %.2f; %d unverifiable: no strength, the source unread or unjudged)\n", m.PSnd, m.PSnd.Num, m.PSnd.Den, m.Tau, m.UnverifiablePairs)
	if m.CTran.Defined() {
		fmt.Fprintf(w, "  CTran  %-6s (%d/%d conflicts between sources disclosed)\n", m.CTran, m.CTran.Num, m.CTran.Den)
	} else {
		fmt.Fprintf(w, "  CTran  n/a    (no conflict between sources found)\n")
	}
	if nodes, ok := m.AEffProxy.Value(); ok {
		words, _ := m.AEffWords.Value()
		fmt.Fprintf(w, "  AEff   %.2f nodes to inspect, %.1f words to read per claim\n", nodes, words)
	}
	if orphans := m.Orphans(); len(orphans) > 0 {
		fmt.Fprintf(w, "claims without complete provenance (%d):\n", len(orphans))
		for i, c := range orphans {
			if i == 10 {
				fmt.Fprintf(w, "  … and %d more ('claimtrace prov orphans' lists them all)\n", len(orphans)-i)
				break
			}
			fmt.Fprintf(w, "  %s: %s\n", c.ID, c.GapText())
		}
	}
	var hidden []prov.ConflictStatus
	for _, st := range m.Conflicts {
		if !st.Surfaced {
			hidden = append(hidden, st)
		}
	}
	if len(hidden) > 0 {
		fmt.Fprintf(w, "conflicts the report does not surface (%d):\n", len(hidden))
		for _, st := range hidden {
			fmt.Fprintf(w, "  %s ↔ %s about %q\n", st.A, st.B, st.Entity)
		}
	}
}

// exportReportHTML writes the static audit page of an audited report.
func exportReportHTML(ctx context.Context, r *auditedReport, path string) error {
	srv, err := web.New(web.Options{Store: r.st})
	if err != nil {
		return err
	}
	return srv.ExportReport(ctx, r.run, r.task, path)
}
