package arxivsnap_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// reference decodes the same fields with encoding/json.
func reference(line []byte) (arxivsnap.Fields, error) {
	var r struct {
		ID         *string `json:"id"`
		ArXivID    *string `json:"arxiv_id"`
		Title      *string `json:"title"`
		Comments   *string `json:"comments"`
		License    *string `json:"license"`
		Categories *string `json:"categories"`
		Abstract   *string `json:"abstract"`
		Versions   []struct {
			Created *string `json:"created"`
		} `json:"versions"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return arxivsnap.Fields{}, err
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	f := arxivsnap.Fields{Title: s(r.Title), Comments: s(r.Comments), License: s(r.License),
		Categories: s(r.Categories), Abstract: s(r.Abstract)}
	// The scanner takes the last of "id" and "arxiv_id" in key order; the
	// records in tests carry only one of them.
	f.ID = s(r.ID)
	if r.ArXivID != nil {
		f.ID = *r.ArXivID
	}
	if n := len(r.Versions); n > 0 {
		f.FirstCreated, f.LastCreated = s(r.Versions[0].Created), s(r.Versions[n-1].Created)
	}
	return f, nil
}

func TestScan(t *testing.T) {
	tests := []struct {
		name string
		line string
		want arxivsnap.Fields
	}{
		{"snapshot record", `{"id":"2001.00001","title":"A Survey\n  of X","comments":null,"license":"http:\/\/creativecommons.org\/licenses\/by\/4.0\/","categories":"cs.CL","versions":[{"version":"v1","created":"Mon, 6 Jan 2020 10:00:00 GMT"},{"version":"v2","created":"Tue, 7 Jan 2020 10:00:00 GMT"}],"authors_parsed":[["A","B",""]],"n":-1.5e3}`,
			arxivsnap.Fields{ID: "2001.00001", Title: "A Survey\n  of X", License: "http://creativecommons.org/licenses/by/4.0/",
				Categories: "cs.CL", FirstCreated: "Mon, 6 Jan 2020 10:00:00 GMT", LastCreated: "Tue, 7 Jan 2020 10:00:00 GMT"}},
		{"released task record", `{"arxiv_id":"2312.04861","title":"R\u00e9sum\u00e9 \ud83d\ude00","versions":[]}`,
			arxivsnap.Fields{ID: "2312.04861", Title: "Résumé 😀"}},
		{"blanks everywhere", " { \"id\" : \"x\" , \"versions\" : null , \"t\" : [ true , false , null , { } , [ ] ] } \r",
			arxivsnap.Fields{ID: "x"}},
		{"duplicate key: last wins", `{"title":"one","title":"two"}`, arxivsnap.Fields{Title: "two"}},
		{"escaped quote and backslash", `{"title":"a \"b\" \\ c\\"}`, arxivsnap.Fields{Title: `a "b" \ c\`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := arxivsnap.Scan([]byte(tt.line), false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Scan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScanRejects(t *testing.T) {
	for _, line := range []string{
		``, `[]`, `{"id":"x"`, `{"id":"x",}`, `{"id":x}`, `{"id":"x"} trailing`, `{"a":01}`, `{"a":1.}`,
		`{"a":tru}`, `{"title":"unterminated}`, `{"title":"bad \q escape"}`, "{\"title\":\"tab\tinside\"}",
		`{"versions":[{"created":1]}`, `{"a":[1,]}`, `{"a" 1}`, `{"a":{"b":}}`,
	} {
		if f, err := arxivsnap.Scan([]byte(line), false); err == nil {
			t.Errorf("Scan(%q) = %+v, want an error", line, f)
		}
	}
}

// TestScanMatchesEncodingJSON compares the scanner with encoding/json on
// generated records.
func TestScanMatchesEncodingJSON(t *testing.T) {
	generated, _ := genSnapshot(500, 7)
	scanMatches(t, generated)
}

// TestScanMatchesEncodingJSONOnRealData compares them on the real snapshot
// sample and the released task file.
func TestScanMatchesEncodingJSONOnRealData(t *testing.T) {
	var lines [][]byte
	for _, p := range []string{"arxiv/snapshot-sample/arxiv-metadata-oai-snapshot.json", "reportbench-v1.1/ReportBench_v1.1.jsonl"} {
		data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, filepath.Dir(p)), filepath.Base(p)))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
	}
	if len(lines) < 300 {
		t.Fatalf("%d lines of real records, want the sample's 200 and the release's 100", len(lines))
	}
	scanMatches(t, lines)
}

// scanMatches checks Scan against encoding/json on every line.
func scanMatches(t *testing.T, lines [][]byte) {
	t.Helper()
	for i, line := range lines {
		want, err := reference(line)
		if err != nil {
			t.Fatalf("line %d: encoding/json: %v", i, err)
		}
		got, err := arxivsnap.Scan(line, true)
		if err != nil {
			t.Fatalf("line %d: Scan: %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("line %d (-encoding/json +Scan):\n%s", i, diff)
		}
	}
}
