package report

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// measureDir, when set, makes TestMeasureShared write what Parse finds in
// every shared report, so two versions of the parser can be compared:
//
//	go test ./internal/report -run TestMeasureShared -measure /tmp/before
//
// DIR/summary.jsonl holds one line of counts a report and a last line of
// totals (also logged); DIR/docs/ one file of citations a report, for
// diffing; DIR/claims/ one file of claim spans and texts a report.
var measureDir = flag.String("measure", "", "write per-report parse counts of the shared reports to this directory")

// reportCounts are the citation figures of one parsed report.
type reportCounts struct {
	Name      string `json:"name"`
	Claims    int    `json:"claims"`
	Markers   int    `json:"markers"`  // in-text citations
	Resolved  int    `json:"resolved"` // in-text citations with a target
	Entries   int    `json:"entries"`  // reference-list entries
	TitleOnly int    `json:"title_only"`
	Cut       int    `json:"cut_urls"` // URLs holding a backslash, or cut before a non-ASCII letter
}

func countDocument(name string, doc claimtrace.Document) reportCounts {
	c := reportCounts{Name: name, Claims: len(doc.Claims)}
	for _, ct := range doc.Citations {
		if ct.Kind == claimtrace.KindListEntry {
			c.Entries++
			if ct.URL == "" && ct.DOI == "" && ct.ArXivID == "" {
				c.TitleOnly++
			}
		} else {
			c.Markers++
			if ct.HasTarget() {
				c.Resolved++
			}
		}
		if strings.Contains(ct.URL, `\`) {
			c.Cut++
		}
	}
	return c
}

func TestMeasureShared(t *testing.T) {
	if *measureDir == "" {
		t.Skip("no -measure directory")
	}
	docs := filepath.Join(*measureDir, "docs")
	claims := filepath.Join(*measureDir, "claims")
	for _, d := range []string{docs, claims} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var sum strings.Builder
	total := reportCounts{Name: "total"}
	for _, r := range loadSharedReports(t) {
		doc := Parse(r.text)
		c := countDocument(r.name, doc)
		total.Claims += c.Claims
		total.Markers += c.Markers
		total.Resolved += c.Resolved
		total.Entries += c.Entries
		total.TitleOnly += c.TitleOnly
		total.Cut += c.Cut
		b, _ := json.Marshal(c)
		sum.Write(b)
		sum.WriteByte('\n')
		var out strings.Builder
		for _, c := range doc.Citations {
			b, _ := json.Marshal(c)
			out.Write(b)
			out.WriteByte('\n')
		}
		name := strings.NewReplacer("/", "_", ":", "_").Replace(r.name)
		if err := os.WriteFile(filepath.Join(docs, name), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		for _, c := range doc.Claims {
			fmt.Fprintf(&out, "%d-%d %q\n", c.Start, c.End, c.Text)
		}
		if err := os.WriteFile(filepath.Join(claims, name), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(total)
	sum.Write(b)
	sum.WriteByte('\n')
	if err := os.WriteFile(filepath.Join(*measureDir, "summary.jsonl"), []byte(sum.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", b)
}
