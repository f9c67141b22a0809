package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const miniDataset = "../../internal/dataset/testdata/mini"

func TestDatasetShow(t *testing.T) {
	out, errOut, code := cli(t, "dataset", "show", "--dataset", miniDataset)
	if code != 0 {
		t.Fatalf("dataset show: %s", errOut)
	}
	for _, want := range []string{"2 tasks", "2401.00001", "missing ground truth: [2302.00002]", "Information and Retrieval Systems"} {
		if !strings.Contains(out, want) {
			t.Errorf("dataset show lacks %q:\n%s", want, out)
		}
	}
	out, _, code = cli(t, "dataset", "show", "2401.00001", "--dataset", miniDataset)
	if code != 0 || !strings.Contains(out, "cutoff: 2024-04-01 (prompt)") || !strings.Contains(out, "ground truth: 3 references") {
		t.Errorf("dataset show ID:\n%s", out)
	}
	out, _, code = cli(t, "dataset", "show", "--dataset", miniDataset, "--json")
	var st struct {
		Tasks  int `json:"tasks"`
		GTRefs int `json:"gt_refs"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Tasks != 2 || st.GTRefs != 3 {
		t.Errorf("dataset show --json: %s", out)
	}
	if _, errOut, code := cli(t, "dataset", "show", "9999.99999", "--dataset", miniDataset); code == 0 || !strings.Contains(errOut, "no task 9999.99999") {
		t.Errorf("unknown task: exit %d %s", code, errOut)
	}
}

func TestDatasetPullFromMirror(t *testing.T) {
	srv := httptest.NewServer(http.StripPrefix("/mirror/", http.FileServer(http.Dir(miniDataset))))
	defer srv.Close()
	dir := t.TempDir()
	// The mirror lacks one ground-truth file: the pull fails naming it.
	_, errOut, code := cli(t, "dataset", "pull", "--dir", dir, "--from", srv.URL+"/mirror")
	if code == 0 || !strings.Contains(errOut, "2302.00002.jsonl") {
		t.Fatalf("pull from an incomplete mirror: exit %d, %s", code, errOut)
	}
	// The tasks file already downloaded is kept for the rerun.
	if _, err := os.Stat(filepath.Join(dir, "ReportBench_v1.1.jsonl")); err != nil {
		t.Errorf("the downloaded tasks file was not kept: %v", err)
	}
}
