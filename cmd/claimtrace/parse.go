package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/report"
)

func (a *app) parseCmd() *cobra.Command {
	var asJSON, asText bool
	var show int
	cmd := &cobra.Command{
		Use:   "parse REPORT",
		Short: "Parse a report into claims and citations with byte spans",
		Long: `parse reads one report (<id>.json with the text in response, content, text,
message, output or result; <id>.md or .txt; <id>.pdf, its text layer; or
<id>.docx, as Markdown-like text with its links, list numbers and
footnotes) and prints its claims and citations, without a model and
without the network.

Spans (start, end) are byte offsets into the report text as UTF-8: for a
PDF or a Word document, into the text read from it, which --text prints
(eval's reports/<id>.json record its sha256). With --json the output is
  {"claims": [{"id", "text", "start", "end", "citations": [i]}],
   "citations": [{"marker", "kind", "url", "doi", "arxiv_id", "title", "start", "end"}]}
where citations[i] indexes the citations list; citations of kind list_entry
are the report's reference-list entries.`,
		Example: `  claimtrace parse report.md
  claimtrace parse --show 0 2312.04861.json          # every claim
  claimtrace parse --json report.pdf | jq '.citations[] | select(.kind == "numbered")'
  claimtrace parse --text report.docx > report.txt    # the text the spans index`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := a.loadReport(args[0])
			if err != nil {
				return err
			}
			if asText {
				_, err := io.WriteString(a.stdout, text)
				return err
			}
			doc, err := report.ParseContext(cmd.Context(), text, a.cfg.Eval.reportLimits())
			if err != nil {
				return fmt.Errorf("parse %s: %w", args[0], err)
			}
			if asJSON {
				return writeParseJSON(a.stdout, doc)
			}
			return writeParseText(a.stdout, args[0], doc, show)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print claims and citations as JSON")
	cmd.Flags().BoolVar(&asText, "text", false, "print the report's text as read (what the spans index: a PDF's or a Word document's text) and nothing else")
	cmd.Flags().IntVar(&show, "show", 10, "number of claims to print (0: all)")
	return cmd
}

// parseClaim and parseCitation are the JSON contract of "parse --json"
// (docs/design.md): every key is always present.
type parseClaim struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Citations []int  `json:"citations"`
}

type parseCitation struct {
	Marker  string `json:"marker"`
	Kind    string `json:"kind"`
	URL     string `json:"url"`
	DOI     string `json:"doi"`
	ArXivID string `json:"arxiv_id"`
	Title   string `json:"title"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
}

func writeParseJSON(w io.Writer, doc claimtrace.Document) error {
	out := struct {
		Claims    []parseClaim    `json:"claims"`
		Citations []parseCitation `json:"citations"`
	}{Claims: []parseClaim{}, Citations: []parseCitation{}}
	for _, c := range doc.Claims {
		idx := c.Citations
		if idx == nil {
			idx = []int{}
		}
		out.Claims = append(out.Claims, parseClaim{ID: c.ID, Text: c.Text, Start: c.Start, End: c.End, Citations: idx})
	}
	for _, c := range doc.Citations {
		out.Citations = append(out.Citations, parseCitation{
			Marker: c.Marker, Kind: string(c.Kind), URL: c.URL, DOI: c.DOI, ArXivID: c.ArXivID, Title: c.Title,
			Start: c.Start, End: c.End,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write parse output: %w", err)
	}
	return nil
}

func writeParseText(w io.Writer, name string, doc claimtrace.Document, show int) error {
	var b strings.Builder
	cited := 0
	for _, c := range doc.Claims {
		if c.Cited() {
			cited++
		}
	}
	kinds := map[claimtrace.CitationKind]int{}
	urls := map[string]bool{}
	inText, dangling := 0, 0
	for _, c := range doc.Citations {
		kinds[c.Kind]++
		if c.Kind == claimtrace.KindListEntry {
			continue
		}
		inText++
		if c.URL != "" {
			urls[c.URL] = true
		}
		if !c.HasTarget() {
			dangling++ // a [n] or author–year marker the reference list does not resolve
		}
	}
	fmt.Fprintf(&b, "%s: %d bytes\n", name, len(doc.Text))
	fmt.Fprintf(&b, "claims:     %d (%d cited, %d not cited)\n", len(doc.Claims), cited, len(doc.Claims)-cited)
	fmt.Fprintf(&b, "citations:  %d in the text, %d distinct URLs, %d dangling markers\n", inText, len(urls), dangling)
	fmt.Fprintf(&b, "references: %d list entries\n", kinds[claimtrace.KindListEntry])
	var ks []string
	for k, n := range kinds {
		if k != claimtrace.KindListEntry {
			ks = append(ks, fmt.Sprintf("%s %d", k, n))
		}
	}
	sort.Strings(ks)
	if len(ks) > 0 {
		fmt.Fprintf(&b, "by kind:    %s\n", strings.Join(ks, ", "))
	}
	n := len(doc.Claims)
	if show > 0 && show < n {
		n = show
	}
	if n > 0 {
		b.WriteString("\n")
	}
	for _, c := range doc.Claims[:n] {
		fmt.Fprintf(&b, "%-5s [%d,%d) %s\n", c.ID, c.Start, c.End, oneLine(c.Text, 200))
		for _, i := range c.Citations {
			ct := doc.Citations[i]
			target := ct.URL
			switch {
			case target == "" && ct.DOI != "":
				target = "doi:" + ct.DOI
			case target == "" && ct.ArXivID != "":
				target = "arXiv:" + ct.ArXivID
			case target == "" && ct.Title != "":
				target = "“" + ct.Title + "”"
			case target == "":
				target = "(no target)"
			}
			fmt.Fprintf(&b, "        %s %s → %s\n", ct.Kind, oneLine(ct.Marker, 40), oneLine(target, 160))
		}
	}
	if n < len(doc.Claims) {
		fmt.Fprintf(&b, "… %d more claims (--show 0 prints all, --json prints everything)\n", len(doc.Claims)-n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine collapses white space and shortens s to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
