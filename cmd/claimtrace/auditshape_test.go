package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeConflictFixture writes a dataset of one task, its report and a
// snapshot of the two pages it cites. The pages disagree about accuracy,
// in sentences the report's claims do not quote: the conflict is in the
// full texts, not in the excerpts.
func writeConflictFixture(t *testing.T, dir string) (dataset, reports, snap string) {
	t.Helper()
	dataset, reports, snap = filepath.Join(dir, "dataset"), filepath.Join(dir, "reports"), filepath.Join(dir, "snapshot")
	common := "Retrieval augmentation uses a dense index of Wikipedia passages and a reader model that answers from them. " +
		"The index holds twenty one million passages of one hundred words each, encoded once before training. "
	pages := map[string]string{
		"a.html": "<html><head><title>Notes on retrieval, part one</title></head><body><article><p>" + common +
			"In the 2023 evaluation, retrieval augmentation improved answer accuracy on the open-domain benchmark.</p></article></body></html>",
		"b.html": "<html><head><title>Notes on retrieval, part two</title></head><body><article><p>" + common +
			"In the 2023 evaluation, retrieval augmentation did not improve answer accuracy on the open-domain benchmark.</p></article></body></html>",
	}
	files := map[string]string{
		"dataset/ReportBench_v1.1.jsonl":               `{"arxiv_id":"2301.00001","title":"A Survey","prompt":"p"}` + "\n",
		"dataset/ReportBench_v1.1_GT/2301.00001.jsonl": `{"bib_id":"x","title":"Some Paper","author":"A","meta_info":{}}` + "\n",
		"reports/2301.00001.md": "# Retrieval\n\nRetrieval augmentation uses a dense index of Wikipedia passages [1](https://notes.example/a) [2](https://notes.example/b).\n\n" +
			"The index holds twenty one million passages of one hundred words each [1](https://notes.example/a).\n",
		"snapshot/index.jsonl": `{"url":"https://notes.example/a","status":200,"content_type":"text/html","file":"pages/a.html"}` + "\n" +
			`{"url":"https://notes.example/b","status":200,"content_type":"text/html","file":"pages/b.html"}` + "\n",
		"snapshot/pages/a.html": pages["a.html"],
		"snapshot/pages/b.html": pages["b.html"],
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dataset, reports, snap
}

// TestAuditAgreesWithEval evaluates a report, then audits the
// same report: audit --json writes the AAR figures in the shape of the
// per-report file's "aar" (one shape: the same keys, counts nested,
// conflicts a list) and with the same values, contradictions included
// (one audit path: both look for them in the sources' full texts).
func TestAuditAgreesWithEval(t *testing.T) {
	dir := t.TempDir()
	dataset, reports, snap := writeConflictFixture(t, dir)
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(dir, "data"))
	out := filepath.Join(dir, "out")
	if _, errOut, code := cli(t, "eval", "--dataset", dataset, "--reports", reports,
		"--out", out, "--snapshot", snap, "--offline", "--store", filepath.Join(dir, "e.db")); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(out, "reports", "2301.00001.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		AAR map[string]any `json:"aar"`
	}
	if err := json.Unmarshal(b, &res); err != nil || res.AAR == nil {
		t.Fatalf("per-report file: %v", err)
	}
	got, errOut, code := cli(t, "audit", filepath.Join(reports, "2301.00001.md"), "--snapshot", snap, "--offline", "--json")
	if code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errOut)
	}
	var audit map[string]any
	if err := json.Unmarshal([]byte(got), &audit); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, got)
	}
	delete(res.AAR, "graph")
	delete(audit, "per_claim")
	if diff := cmp.Diff(res.AAR, audit); diff != "" {
		t.Errorf("eval's aar (-) and audit --json (+) differ:\n%s", diff)
	}
	if n, _ := audit["counts"].(map[string]any)["conflicts"].(float64); n == 0 {
		t.Errorf("no conflict between the sources found: the test compares nothing about CTran\n%s", got)
	}
}
