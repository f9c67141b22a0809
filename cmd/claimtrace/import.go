package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/importer"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

func (a *app) importCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "import openai|gemini|anthropic|perplexity RESPONSE.json",
		Short: "Turn a provider's cited answer into a report and a provenance graph",
		Long: `Read the citation output a provider already returns and keep its exact spans:

  openai      Responses API (deep research included) url_citation annotations,
              or Chat Completions annotations; the claim is the sentence before
              each inline link marker
  gemini      groundingMetadata: groundingSupports segments (UTF-8 byte
              offsets), groundingChunks, confidenceScores as strengths
  anthropic   Messages API text blocks with citations; cited_text is the excerpt
  perplexity  [n] markers resolved through search_results (or citations)

Without --out the graph (claimtrace's JSON) is printed. With --out DIR:
DIR/report.md (the answer text), DIR/document.json (claims and citations with
byte spans, as 'claimtrace parse --json' prints them), DIR/graph.json and
DIR/prov.json (PROV-JSON). Sources are left unresolved: audit the report to
fetch and judge them.`,
		Example: `  claimtrace import openai response.json --out imported/
  claimtrace import gemini answer.json > graph.json && claimtrace audit graph.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			provider, path := args[0], args[1]
			if !slices.Contains(importer.Providers, provider) {
				return fmt.Errorf("provider %q: want %s: %w", provider, strings.Join(importer.Providers, ", "), claimtrace.ErrInvalid)
			}
			data, err := a.readInput(path)
			if err != nil {
				return err
			}
			r, err := importer.Import(provider, data)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			r.Graph.ID = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
			if out == "" {
				return prov.Encode(a.stdout, r.Graph)
			}
			if err := writeImport(out, r); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: %d claims, %d citations, %d sources → %s\n", path, len(r.Doc.Claims), len(r.Doc.Citations), len(r.Graph.Sources), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write report.md, document.json, graph.json and prov.json into this directory")
	return cmd
}

// importedDoc is the shape 'claimtrace parse --json' prints.
type importedDoc struct {
	Claims    []importedClaim    `json:"claims"`
	Citations []importedCitation `json:"citations"`
}

type importedClaim struct {
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Citations []int  `json:"citations"`
}

type importedCitation struct {
	Marker  string `json:"marker"`
	URL     string `json:"url"`
	DOI     string `json:"doi"`
	ArXivID string `json:"arxiv_id"`
	Title   string `json:"title"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
}

func writeImport(dir string, r *importer.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	doc := importedDoc{Claims: []importedClaim{}, Citations: []importedCitation{}}
	for _, c := range r.Doc.Claims {
		doc.Claims = append(doc.Claims, importedClaim{Text: c.Text, Start: c.Start, End: c.End, Citations: c.Citations})
	}
	for _, c := range r.Doc.Citations {
		doc.Citations = append(doc.Citations, importedCitation{Marker: c.Marker, URL: c.URL, DOI: c.DOI, ArXivID: c.ArXivID,
			Title: c.Title, Start: c.Start, End: c.End})
	}
	dj, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode document: %w", err)
	}
	native, err := prov.Marshal(r.Graph)
	if err != nil {
		return err
	}
	pj, err := provjson.Marshal(r.Graph)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"report.md": []byte(r.Text), "document.json": append(dj, '\n'), "graph.json": native, "prov.json": pj,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
