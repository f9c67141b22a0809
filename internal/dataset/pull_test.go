package dataset

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// releaseServer serves testdata/mini as the release repository, failing the
// first request for each GT file with a 500.
func releaseServer(t *testing.T, corrupt string) (*httptest.Server, map[string]int) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		n := hits[r.URL.Path]
		mu.Unlock()
		if strings.Contains(r.URL.Path, "_GT/") && n == 1 {
			http.Error(w, "flaky", http.StatusInternalServerError)
			return
		}
		if r.URL.Path == corrupt {
			w.Write([]byte("<html>not json</html>"))
			return
		}
		if strings.HasSuffix(r.URL.Path, "2302.00002.jsonl") {
			w.Write([]byte(`{"bib_id":"x","title":"T","author":"A","meta_info":{}}` + "\n"))
			return
		}
		http.ServeFile(w, r, filepath.Join("testdata/mini", strings.TrimPrefix(r.URL.Path, "/base/")))
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func TestPullResumes(t *testing.T) {
	srv, hits := releaseServer(t, "")
	dir := t.TempDir()
	ctx := context.Background()
	res, err := Pull(ctx, dir, PullOptions{Base: srv.URL + "/base", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tasks != 2 || res.References != 4 || res.Fetched != 3 || res.Skipped != 0 {
		t.Errorf("first pull = %+v", res)
	}
	if hits["/base/ReportBench_v1.1_GT/2401.00001.jsonl"] != 2 {
		t.Errorf("GT requests = %d, want a retry after the 500", hits["/base/ReportBench_v1.1_GT/2401.00001.jsonl"])
	}
	if _, err := LoadDataset(dir); err != nil {
		t.Fatalf("pulled dataset does not load: %v", err)
	}
	os.Remove(filepath.Join(dir, GTDir, "2302.00002.jsonl"))
	res, err = Pull(ctx, dir, PullOptions{Base: srv.URL + "/base", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Fetched != 1 || res.Skipped != 2 {
		t.Errorf("second pull fetched %d skipped %d, want 1 and 2", res.Fetched, res.Skipped)
	}
	if _, err := os.Stat(filepath.Join(dir, "pull-manifest.json")); err != nil {
		t.Error(err)
	}
}

func TestPullRejectsCorruptFiles(t *testing.T) {
	srv, _ := releaseServer(t, "/base/ReportBench_v1.1.jsonl")
	dir := t.TempDir()
	_, err := Pull(context.Background(), dir, PullOptions{Base: srv.URL + "/base", Client: srv.Client()})
	if err == nil || !strings.Contains(err.Error(), "ReportBench_v1.1.jsonl") {
		t.Fatalf("err = %v, want an error naming the tasks file", err)
	}
	if _, err := os.Stat(filepath.Join(dir, TasksFile)); !os.IsNotExist(err) {
		t.Errorf("a corrupt tasks file was left behind: %v", err)
	}
}
