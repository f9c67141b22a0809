package dataset

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// TestGTNames checks that a task id never names a file outside the
// ground-truth folder, and that old-form ids find the file `claimtrace
// build` writes for them.
func TestGTNames(t *testing.T) {
	dir := t.TempDir()
	tasks := `{"arxiv_id":"2101.00001","title":"T","prompt":"P"}` + "\n" +
		`{"arxiv_id":"hep-th/9901001","title":"T","prompt":"P"}` + "\n" +
		`{"arxiv_id":"../../secret","title":"T","prompt":"P"}` + "\n" +
		`{"arxiv_id":"..","title":"T","prompt":"P"}` + "\n"
	os.WriteFile(filepath.Join(dir, TasksFile), []byte(tasks), 0o644)
	os.Mkdir(filepath.Join(dir, GTDir), 0o755)
	ref := `{"bib_id":"x","title":"T","author":"A","meta_info":{}}` + "\n"
	os.WriteFile(filepath.Join(dir, GTDir, "2101.00001.jsonl"), []byte(ref), 0o644)
	os.WriteFile(filepath.Join(dir, GTDir, "hep-th_9901001.jsonl"), []byte(ref), 0o644)
	os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.jsonl"), []byte(ref), 0o644)
	d, err := LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"2101.00001", "hep-th/9901001"} {
		if refs, err := d.GT(id); err != nil || len(refs) != 1 {
			t.Errorf("GT(%q) = %d refs, %v", id, len(refs), err)
		}
	}
	for _, id := range []string{"../../secret", "..", ".", "", "a/b/c", `..\x`, "/../x"} {
		if refs, err := d.GT(id); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("GT(%q) = %d refs, %v; want ErrInvalid", id, len(refs), err)
		}
	}
}

// TestPullRefusesHostileIDs serves a tasks file whose id climbs out of
// the dataset folder: the pull fails before writing any ground truth.
func TestPullRefusesHostileIDs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, TasksFile) {
			w.Write([]byte(`{"arxiv_id":"../../escape","title":"T","prompt":"P"}` + "\n"))
			return
		}
		w.Write([]byte(`{"bib_id":"x","title":"T","author":"A","meta_info":{}}` + "\n"))
	}))
	defer srv.Close()
	parent := t.TempDir()
	dir := filepath.Join(parent, "a", "data")
	_, err := Pull(context.Background(), dir, PullOptions{Base: srv.URL + "/base", Client: srv.Client()})
	if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "../../escape") {
		t.Errorf("Pull = %v, want ErrInvalid naming the id", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "a", "escape.jsonl")); err == nil {
		t.Error("the pull wrote outside the dataset folder")
	}
}
