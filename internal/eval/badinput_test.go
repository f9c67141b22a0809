package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/store"
)

// TestBadInputIsNamedAndTheBatchGoesOn feeds a reports directory full of
// broken files: each is reported as failed with a message naming it, and
// the good report is still scored.
func TestBadInputIsNamedAndTheBatchGoesOn(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ds", dataset.GTDir), 0o755)
	reports := filepath.Join(dir, "reports")
	os.MkdirAll(reports, 0o755)
	var tasks strings.Builder
	for _, id := range []string{"2101.00001", "2101.00002", "2101.00003", "2101.00004", "2101.00005", "2101.00006", "2101.00007"} {
		tasks.WriteString(`{"arxiv_id":"` + id + `","title":"T","prompt":"p"}` + "\n")
		if id != "2101.00006" {
			os.WriteFile(filepath.Join(dir, "ds", dataset.GTDir, id+".jsonl"), []byte(`{"bib_id":"a","title":"A Paper","author":"X","meta_info":{}}`+"\n"), 0o644)
		}
	}
	os.WriteFile(filepath.Join(dir, "ds", dataset.TasksFile), []byte(tasks.String()), 0o644)
	good := "# Good\n\nA claim cites a paper (arXiv:2001.00001).\n"
	files := map[string][]byte{
		"2101.00001.md":   []byte(good),
		"2101.00002.json": []byte(`{"response": "truncated`),
		"2101.00003.md":   []byte("valid start \xff\xfe then garbage"),
		"2101.00004.json": []byte(`{"title": "no text field here", "n": 3}`),
		"2101.00006.md":   []byte(good),
		"9999.99999.md":   []byte(good),
		"2101.00007.md":   []byte(good),
		"2101.00007.txt":  []byte(good),
	}
	for name, b := range files {
		os.WriteFile(filepath.Join(reports, name), b, 0o644)
	}
	// A report larger than the cap, written sparsely.
	big, _ := os.Create(filepath.Join(reports, "2101.00005.md"))
	big.Truncate(1 << 30)
	big.Close()

	ds, err := dataset.LoadDataset(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev, err := New(Options{Dataset: ds, ReportsDir: reports, OutDir: filepath.Join(dir, "out"), Mode: "offline", Store: st,
		Fetcher: fetch.New(fetch.Options{Offline: true})})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reports != 1 {
		t.Errorf("scored %d reports, want 1", sum.Reports)
	}
	failed := map[string]string{}
	for _, f := range sum.Failures {
		failed[f.Task] = f.Err
	}
	want := map[string]string{
		"2101.00002": "2101.00002.json",
		"2101.00003": "UTF-8",
		"2101.00004": "2101.00004.json",
		"2101.00005": "2101.00005.md",
		"2101.00006": "2101.00006.jsonl",
		"2101.00007": "several report files",
		"9999.99999": "no task",
	}
	for task, needle := range want {
		msg, ok := failed[task]
		if !ok {
			t.Errorf("%s: not reported as failed", task)
			continue
		}
		if !strings.Contains(msg, needle) {
			t.Errorf("%s: error %q does not mention %q", task, msg, needle)
		}
	}
	if len(failed) != len(want) {
		t.Errorf("failures = %v", failed)
	}
	// Failed reports still get a file saying why.
	if _, err := os.Stat(filepath.Join(dir, "out", "reports", "2101.00003.json")); err != nil {
		t.Errorf("no result file for a failed report: %v", err)
	}
}
