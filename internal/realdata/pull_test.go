package realdata

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// fakeRaw serves files as a raw-file host does, at /OWNER/REPO/COMMIT/PATH,
// counting requests and failing the first request for each path in flaky
// with a 503.
type fakeRaw struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string]string // unescaped URL path → body
	hits  map[string]int
	flaky map[string]bool
}

func newFakeRaw(t *testing.T) *fakeRaw {
	f := &fakeRaw{files: map[string]string{}, hits: map[string]int{}, flaky: map[string]bool{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits[r.URL.Path]++
		n := f.hits[r.URL.Path]
		body, ok := f.files[r.URL.Path]
		flaky := f.flaky[r.URL.Path]
		f.mu.Unlock()
		switch {
		case flaky && n == 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case !ok:
			http.NotFound(w, r)
		default:
			w.Write([]byte(body))
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeRaw) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, k := range f.hits {
		n += k
	}
	return n
}

// testSet makes a set of the given files (path → content), served by f
// under its repository and commit.
func testSet(f *fakeRaw, name, dir string, files map[string]string) Set {
	s := Set{Name: name, Dir: dir, Repo: "owner/" + name, Commit: "0123456789abcdef0123456789abcdef01234567", License: "MIT"}
	for p, content := range files {
		h := sha256.Sum256([]byte(content))
		s.Files = append(s.Files, File{Path: p, Source: "data/" + p, Size: int64(len(content)), SHA256: hex.EncodeToString(h[:])})
		f.files["/"+s.Repo+"/"+s.Commit+"/data/"+p] = content
	}
	return s
}

// TestPullResumes pulls two sets from a fake raw-file host: a file whose
// first request fails is retried, a path with spaces and a newline is
// escaped, a second pull downloads nothing, and a deleted file is fetched
// again alone.
func TestPullResumes(t *testing.T) {
	srv := newFakeRaw(t)
	labels := testSet(srv, "labels", "labels/x", map[string]string{"dev.jsonl": `{"claim":"a","label":"attributable"}` + "\n"})
	reports := testSet(srv, "reports", "reports/y", map[string]string{
		"report_logs/1.md":                    "# One\n\nA claim [1].\n",
		"odd/A name: with spaces\n  and.md":   "# Two\n",
		"report_logs/deep/nested/page 2.html": "<p>x</p>",
	})
	srv.flaky["/"+labels.Repo+"/"+labels.Commit+"/data/dev.jsonl"] = true
	dir := t.TempDir()
	ctx := context.Background()
	var seen int
	res, err := Pull(ctx, dir, []Set{labels, reports}, PullOptions{Base: srv.URL, Client: srv.Client(), Progress: func(done, total int, set, path string) { seen = done }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 4 || res.Fetched != 4 || res.Kept != 0 || seen != 4 {
		t.Errorf("first pull = %+v, progress %d", res, seen)
	}
	for _, s := range []Set{labels, reports} {
		for _, f := range s.Files {
			b, err := os.ReadFile(filepath.Join(dir, s.Dir, f.Path))
			if err != nil || string(b) != srv.files["/"+s.Repo+"/"+s.Commit+"/"+f.Source] {
				t.Errorf("%s/%s: %q, %v", s.Dir, f.Path, b, err)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "SOURCES.md")); err != nil || !strings.Contains(string(b), "owner/labels @ 0123456789abcdef") {
		t.Errorf("SOURCES.md: %s, %v", b, err)
	}
	before := srv.requests()
	if res, err := Pull(ctx, dir, []Set{labels, reports}, PullOptions{Base: srv.URL, Client: srv.Client()}); err != nil || res.Kept != 4 || srv.requests() != before {
		t.Errorf("second pull = %+v, %v; %d requests, want none", res, err, srv.requests()-before)
	}
	os.Remove(filepath.Join(dir, reports.Dir, "report_logs/1.md"))
	if res, err := Pull(ctx, dir, []Set{labels, reports}, PullOptions{Base: srv.URL, Client: srv.Client()}); err != nil || res.Fetched != 1 || res.Kept != 3 {
		t.Errorf("after a deletion = %+v, %v", res, err)
	}
}

// TestPullRefusesWrongFiles: a file whose bytes are not the manifest's is
// never written, a missing one is named, and the other files are pulled.
func TestPullRefusesWrongFiles(t *testing.T) {
	srv := newFakeRaw(t)
	s := testSet(srv, "labels", "labels/x", map[string]string{"good.jsonl": "{}\n", "changed.jsonl": "{\"a\":1}\n", "longer.jsonl": "{}\n", "gone.jsonl": "{}\n"})
	srv.files["/"+s.Repo+"/"+s.Commit+"/data/changed.jsonl"] = "{\"a\":2}\n" // same size, other bytes
	srv.files["/"+s.Repo+"/"+s.Commit+"/data/longer.jsonl"] = "{}\n{}\n"
	delete(srv.files, "/"+s.Repo+"/"+s.Commit+"/data/gone.jsonl")
	dir := t.TempDir()
	res, err := Pull(context.Background(), dir, []Set{s}, PullOptions{Base: srv.URL, Client: srv.Client(), Attempts: 2})
	if err == nil {
		t.Fatal("no error for three bad files")
	}
	for _, want := range []string{"changed.jsonl", "sha256", "longer.jsonl", "want 3", "gone.jsonl", "HTTP 404", "3 of 4 files failed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if res.Fetched != 1 || len(res.Failed) != 3 {
		t.Errorf("result = %+v", res)
	}
	for _, name := range []string{"changed.jsonl", "longer.jsonl", "gone.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, s.Dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written: %v", name, err)
		}
	}
	if srv.hits["/"+s.Repo+"/"+s.Commit+"/data/gone.jsonl"] != 1 {
		t.Errorf("a 404 was retried")
	}
}

// TestPullRefusesPathsOutside: a manifest path that leaves its set's
// folder is refused before anything is fetched.
func TestPullRefusesPathsOutside(t *testing.T) {
	srv := newFakeRaw(t)
	s := testSet(srv, "x", "labels/x", map[string]string{"ok.jsonl": "{}\n"})
	s.Files[0].Path = "../../escape.jsonl"
	dir := t.TempDir()
	_, err := Pull(context.Background(), dir, []Set{s}, PullOptions{Base: srv.URL, Client: srv.Client()})
	if !errors.Is(err, claimtrace.ErrInvalid) && (err == nil || !strings.Contains(err.Error(), "outside its set")) {
		t.Fatalf("err = %v", err)
	}
	if srv.requests() != 0 {
		t.Errorf("%d requests for a refused path", srv.requests())
	}
}

// TestPullStopsOnCancel: a cancelled pull returns the cancellation.
func TestPullStopsOnCancel(t *testing.T) {
	srv := newFakeRaw(t)
	s := testSet(srv, "x", "labels/x", map[string]string{"a.jsonl": "{}\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Pull(ctx, t.TempDir(), []Set{s}, PullOptions{Base: srv.URL, Client: srv.Client()}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestCatalog: every set is pinned (repository, full or stated commit,
// license), lists its files, and gives each a URL that parses back to the
// file's repository path.
func TestCatalog(t *testing.T) {
	sets, err := Sets()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range sets {
		if names[s.Name] {
			t.Errorf("two sets named %s", s.Name)
		}
		names[s.Name] = true
		if s.Repo == "" || len(s.Commit) < 7 || s.License == "" || s.About == "" || len(s.Files) == 0 {
			t.Errorf("set %s is not pinned or lists no file: %+v", s.Name, s)
		}
		for _, f := range s.Files {
			u, err := url.Parse(s.URL(DefaultBase, f))
			if err != nil {
				t.Errorf("%s/%s: %v", s.Name, f.Path, err)
				continue
			}
			if want := "/" + s.Repo + "/" + s.Commit + "/" + f.Source; u.Path != want {
				t.Errorf("%s: URL path %q, want %q", f.Path, u.Path, want)
			}
			if len(f.SHA256) != 64 || f.Size <= 0 {
				t.Errorf("%s/%s: size %d, sha256 %q", s.Name, f.Path, f.Size, f.SHA256)
			}
		}
	}
	if _, err := Select(sets, []string{"wice", "nosuch"}); err == nil || !strings.Contains(err.Error(), "attributionbench") {
		t.Errorf("an unknown set: %v, want the names there are", err)
	}
	if got, err := Select(sets, []string{"wice", "wice", "onyx-drb"}); err != nil || len(got) != 2 {
		t.Errorf("Select = %d sets, %v", len(got), err)
	}
}

// TestPullFromSharedMirror serves the shared data folder as the raw-file
// host would serve the repositories (each file at its repository path and
// commit) and pulls every set from it: the folder comes back file for
// file, names with spaces and newlines included.
func TestPullFromSharedMirror(t *testing.T) {
	root := sharedtest.Root()
	if root == "" {
		t.Skip("shared data not found (../shared/data or $CLAIMTRACE_SHARED_DATA): nothing to mirror")
	}
	sets, err := Sets()
	if err != nil {
		t.Fatal(err)
	}
	byURL := map[string]string{} // URL path → local file
	for _, s := range sets {
		for _, f := range s.Files {
			byURL["/"+s.Repo+"/"+s.Commit+"/"+f.Source] = filepath.Join(root, s.Dir, f.Path)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := byURL[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, p)
	}))
	defer srv.Close()
	dir := t.TempDir()
	res, err := Pull(context.Background(), dir, sets, PullOptions{Base: srv.URL, Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Fetched != res.Files || res.Files < 400 {
		t.Errorf("pull = %+v", res)
	}
	for _, s := range sets {
		for _, f := range s.Files {
			want, _ := os.ReadFile(filepath.Join(root, s.Dir, f.Path))
			got, err := os.ReadFile(filepath.Join(dir, s.Dir, f.Path))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s/%s differs from the shared copy: %v", s.Dir, f.Path, err)
			}
		}
	}
}
