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

// TestGolden parses a realistic hand-written report that mixes the citation
// styles and compares the full document with testdata/report.golden.json.
// Run with -update after an intended change, and review the diff.
func TestGolden(t *testing.T) {
	text, err := Load(filepath.Join("testdata", "report.md"))
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
	golden := filepath.Join("testdata", "report.golden.json")
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
		t.Errorf("parse of testdata/report.md changed (-want +got):\n%s", diff)
	}
}
