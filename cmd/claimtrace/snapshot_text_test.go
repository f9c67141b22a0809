package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/fetch"
)

// TestSnapshotIndexText gives the demo's snapshot (written without
// sidecars) its pages' text, checks that a second run has nothing to do,
// and that an offline audit reads the same from it before and after.
func TestSnapshotIndexText(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(dir, "data"))
	report := filepath.Join(dir, "reports", "2312.10997.md")
	snap := filepath.Join(dir, "snapshot")
	audit := func(out string) []byte {
		t.Helper()
		if _, errOut, code := cli(t, "audit", report, "--snapshot", snap, "--offline", "--json", "--out", filepath.Join(dir, out)); code != 0 {
			t.Fatalf("audit: exit %d: %s", code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(dir, out, "graph.json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := audit("before")
	if idx, _ := os.ReadFile(filepath.Join(snap, fetch.IndexFile)); bytes.Contains(idx, []byte(`"extracted"`)) {
		t.Fatal("the demo snapshot has sidecars already: this test needs one without")
	}

	out, errOut, code := cli(t, "snapshot", "index-text", snap, "--json")
	if code != 0 {
		t.Fatalf("index-text: exit %d: %s", code, errOut)
	}
	var res snapshotTextResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("index-text --json: %v\n%s", err, out)
	}
	if res.Pages == 0 || res.Written+len(res.Unreadable) != res.Pages || res.Written == 0 || res.ExtractorVersion != fetch.ExtractorVersion {
		t.Fatalf("index-text = %+v", res)
	}
	if after := audit("after"); !bytes.Equal(before, after) {
		t.Errorf("the audit's graph differs with sidecars")
	}

	out, errOut, code = cli(t, "snapshot", "index-text", snap)
	if code != 0 || !strings.Contains(out, "0 given their text now") || !strings.Contains(out, "current already") {
		t.Errorf("second index-text: exit %d, %q %s", code, out, errOut)
	}
	if _, errOut, code := cli(t, "snapshot", "index-text", filepath.Join(dir, "nothing-here")); code == 0 || !strings.Contains(errOut, "nothing-here") {
		t.Errorf("missing snapshot: exit %d, %s", code, errOut)
	}
}
