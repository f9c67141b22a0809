package prov

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/lexical"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// measureDir, when set, makes TestMeasureConflicts write the conflicts the
// offline detector finds among the sources of every shared report with
// page texts, so two versions of the text toolkit can be compared:
//
//	go test ./internal/prov -run TestMeasureConflicts -measure /tmp/before
//
// DIR/conflicts.txt holds the conflicts, DIR/sentences.txt every sentence
// the detector reads with its content stems, negated words and quantities;
// the totals are logged.
var measureDir = flag.String("measure", "", "write the offline conflicts of the shared sources to this directory")

func TestMeasureConflicts(t *testing.T) {
	if *measureDir == "" {
		t.Skip("no -measure directory")
	}
	dir := sharedtest.Dir(t, "reports/openai-dr-science-drb/results/fact/dls")
	f, err := os.Open(filepath.Join(dir, "validated.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var out, sents strings.Builder
	nsent, nneg, nqty := 0, 0, 0
	kinds := map[string]int{}
	total := 0
	for sc.Scan() {
		var rec struct {
			ID    int `json:"id"`
			Pages map[string]struct {
				Text string `json:"url_content"`
			} `json:"citations_deduped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		var texts []SourceText
		for url, p := range rec.Pages {
			texts = append(texts, SourceText{ID: url, Text: p.Text})
		}
		slices.SortFunc(texts, func(a, b SourceText) int { return cmpString(a.ID, b.ID) })
		an := lexical.NewAnalyzer()
		sentences := (Offline{}).withDefaults().analyse(texts)
		for k := range sentences {
			// Detect analyses only the sentences it compares; the
			// listing completes every one, for its negations and
			// quantities.
			a := sentences[k].analysis(an)
			nsent++
			fmt.Fprintf(&sents, "%d %q\n  stems %v\n", rec.ID, a.text, a.stems)
			for i, h := range a.head {
				if h {
					nneg++
					fmt.Fprintf(&sents, "  negated %q\n", a.toks[i].word)
				}
			}
			for _, q := range a.qty {
				nqty++
				fmt.Fprintf(&sents, "  quantity %g-%g %q delta=%v\n", q.Lo, q.Hi, q.Unit, q.Delta)
			}
		}
		cs, err := (Offline{}).Detect(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			kinds[string(c.Kind)]++
			fmt.Fprintf(&out, "%d %s %q %s | %s\n  A: %q\n  B: %q\n", rec.ID, c.Kind, c.Entity, c.A, c.B, c.SnippetA, c.SnippetB)
		}
		total += len(cs)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(*measureDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*measureDir, "conflicts.txt"), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*measureDir, "sentences.txt"), []byte(sents.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("sentences %d, negated scopes %d, quantities %d", nsent, nneg, nqty)
	t.Logf("conflicts %d, by kind %v", total, kinds)
}
