package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docReportsFixture writes a dataset of three tasks and returns it with a
// fresh reports folder.
func docReportsFixture(t *testing.T) (dataset, reports string) {
	t.Helper()
	dir := t.TempDir()
	dataset, reports = filepath.Join(dir, "dataset"), filepath.Join(dir, "reports")
	os.MkdirAll(filepath.Join(dataset, "ReportBench_v1.1_GT"), 0o755)
	os.MkdirAll(reports, 0o755)
	var tasks strings.Builder
	for _, id := range []string{"2101.00001", "2101.00002", "2101.00003"} {
		tasks.WriteString(`{"arxiv_id":"` + id + `","title":"Survey","prompt":"Survey agents; cite papers before January 2026.","application_domain":"CS"}` + "\n")
		os.WriteFile(filepath.Join(dataset, "ReportBench_v1.1_GT", id+".jsonl"), []byte(`{"bib_id":"b1","title":"Dense passage retrieval for open-domain question answering","author":"X","meta_info":{"year":"2020"}}`+"\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dataset, "ReportBench_v1.1.jsonl"), []byte(tasks.String()), 0o644)
	return dataset, reports
}

// minimalDOCX is a Word document of a claim citing an arXiv paper through
// its reference list (offline, the paper is known by its id alone).
func minimalDOCX(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		`<w:p><w:r><w:t>Dense retrieval beats sparse retrieval on open questions [1].</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>References</w:t></w:r></w:p><w:p><w:r><w:t>[1] Karpukhin V. et al. Dense passage retrieval for open-domain question answering. arXiv:2004.04906, 2020.</w:t></w:r></w:p>` +
		`</w:body></w:document>`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEvalReadsDocuments: PDF and Word reports are scored; a report in a
// format that is not read fails with what to do; other files are named in
// summary.json; spans index the text parse --text prints.
func TestEvalReadsDocuments(t *testing.T) {
	dataset, reports := docReportsFixture(t)
	pdf, err := os.ReadFile("../../internal/document/testdata/ieee.libreoffice.pdf")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(reports, "2101.00001.pdf"), pdf, 0o644)
	os.WriteFile(filepath.Join(reports, "2101.00002.docx"), minimalDOCX(t), 0o644)
	os.WriteFile(filepath.Join(reports, "2101.00003.doc"), []byte("\xd0\xcf\x11\xe0 an old Word file"), 0o644)
	os.WriteFile(filepath.Join(reports, "cover.png"), []byte("\x89PNG"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := cli(t, "eval", "--dataset", dataset, "--reports", reports, "--out", out, "--offline", "--store", filepath.Join(t.TempDir(), "s.db"))
	if code != 0 {
		t.Fatalf("eval exited %d: %s\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "2 reports scored, 1 failed") || !strings.Contains(stdout, "FAILED 2101.00003") || !strings.Contains(stdout, "soffice --headless --convert-to docx") {
		t.Errorf("eval output:\n%s", stdout)
	}
	var sum struct {
		Reports int      `json:"reports"`
		Ignored []string `json:"ignored_files"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum.Reports != 2 || len(sum.Ignored) != 1 || sum.Ignored[0] != "cover.png" {
		t.Errorf("summary.json: %+v (%v)", sum, err)
	}
	var res struct {
		Claims []struct {
			Text       string `json:"text"`
			Start, End int
		} `json:"claims"`
		Citation struct {
			Unmatched []struct {
				Key string `json:"key"`
			} `json:"unmatched"`
		} `json:"citation"`
	}
	b, _ = os.ReadFile(filepath.Join(out, "reports", "2101.00002.json"))
	if err := json.Unmarshal(b, &res); err != nil || len(res.Claims) != 1 || len(res.Citation.Unmatched) != 1 || res.Citation.Unmatched[0].Key != "arxiv:2004.04906" {
		t.Fatalf("docx report result: %+v (%v)", res, err)
	}
	text, _, code := cli(t, "parse", "--text", filepath.Join(reports, "2101.00002.docx"))
	if code != 0 {
		t.Fatal("parse --text failed")
	}
	for _, c := range res.Claims {
		if c.End > len(text) || text[c.Start:c.End] != c.Text {
			t.Errorf("claim [%d,%d) %q does not index the text parse --text prints", c.Start, c.End, c.Text)
		}
	}
}

// TestEvalScoringNothingFails: a run that scores no report exits 1 and
// says why, with --json too.
func TestEvalScoringNothingFails(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		says  string
	}{
		{"an empty folder", nil, "holds no report file named <task_id>.json|.md|.txt|.pdf|.docx"},
		{"only other files", map[string]string{"cover.png": "\x89PNG", "notes": "x"}, "only cover.png, notes"},
		{"only refused reports", map[string]string{"2101.00001.odt": "PK", "2101.00002.rtf": "{\\rtf1}"}, "no report could be scored: 2 failed"},
		{"only broken reports", map[string]string{"2101.00001.pdf": "%PDF-1.4 broken", "2101.00002.md": " \n"}, "no report could be scored: 2 failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dataset, reports := docReportsFixture(t)
			for name, content := range tt.files {
				os.WriteFile(filepath.Join(reports, name), []byte(content), 0o644)
			}
			for _, asJSON := range []bool{false, true} {
				args := []string{"eval", "--dataset", dataset, "--reports", reports, "--out", filepath.Join(t.TempDir(), "out"), "--offline", "--store", filepath.Join(t.TempDir(), "s.db")}
				if asJSON {
					args = append(args, "--json")
				}
				stdout, stderr, code := cli(t, args...)
				if code == 0 || !strings.Contains(stderr, tt.says) {
					t.Errorf("json %v: exit %d, stderr %q, want non-zero and %q\n%s", asJSON, code, stderr, tt.says, stdout)
				}
			}
		})
	}
}
