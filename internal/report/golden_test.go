package report

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden parses realistic hand-written reports and compares each full
// document with its golden file: testdata/report.md mixes the citation
// styles (numbered, links, footnotes, identifiers); testdata/authoryear.md
// cites in author–year style through an APA reference list. Run with
// -update after an intended change, and review the diff.
func TestGolden(t *testing.T) {
	for _, name := range []string{"report", "authoryear"} {
		t.Run(name, func(t *testing.T) {
			text, err := Load(filepath.Join("testdata", name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			doc := Parse(text)
			if err := checkDocument(text, doc); err != nil {
				t.Fatalf("invariant: %v", err)
			}
			got, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("parse of testdata/%s.md changed (-want +got):\n%s", name, diff)
			}
		})
	}
}
