package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/demo"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
)

// testToken is the write token of test servers.
const testToken = "test-token-0123456789abcdef"

// fixture is a store filled by the real pipeline and a server over it.
type fixture struct {
	st   *store.Store
	run  string // the run holding the report
	task string
	dir  string // where the report file lives
	srv  *Server
	ts   *httptest.Server
}

// pipeline returns evaluation options that run what `claimtrace demo`
// runs: the offline judge, the check-worthy rules and the offline
// contradiction detector, reading sources from snapDir only.
func pipeline(t testing.TB, st *store.Store, snapDir string) eval.Options {
	t.Helper()
	snap, err := fetch.OpenSnapshot(snapDir)
	if err != nil {
		t.Fatal(err)
	}
	j, err := judge.NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	canon := func(u string) string {
		c, err := biblio.CanonicalURL(u)
		if err != nil {
			return u
		}
		return c
	}
	return eval.Options{
		Mode: "offline", Snapshot: snap.Dir(), Store: st, Concurrency: 2,
		Fetcher: fetch.New(fetch.Options{Offline: true, Snapshot: snap, Canon: canon}),
		Judge:   j, JudgeName: "offline", CheckWorthy: factcheck.CheckWorthy, Detector: prov.Offline{},
	}
}

// openStore opens a fresh SQLite store in dir.
func openStore(t testing.TB, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "claimtrace.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// demoFixture evaluates the bundled example into a fresh store and serves
// it; token "" makes a read-only server.
func demoFixture(t testing.TB, token string) *fixture {
	t.Helper()
	dir := t.TempDir()
	if err := demo.Materialize(dir); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.LoadDataset(filepath.Join(dir, demo.DatasetDir))
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, dir)
	opts := pipeline(t, st, filepath.Join(dir, demo.SnapshotDir))
	opts.Dataset, opts.ReportsDir, opts.OutDir = ds, filepath.Join(dir, demo.ReportsDir), filepath.Join(dir, "out")
	ev, err := eval.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reports != 1 {
		t.Fatalf("demo: %d reports scored (%+v)", sum.Reports, sum.Failures)
	}
	return serve(t, &fixture{st: st, run: sum.Run, task: demo.TaskID, dir: filepath.Join(dir, demo.ReportsDir)}, token)
}

// hostileFixture audits testdata/hostile/hostile.md, a report whose claims
// and cited page carry script and markup payloads.
func hostileFixture(t *testing.T, token string) *fixture {
	t.Helper()
	dir := t.TempDir()
	st := openStore(t, dir)
	ev, err := eval.New(pipeline(t, st, filepath.Join("testdata", "hostile", "snapshot")))
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := ev.Audit(context.Background(), filepath.Join("testdata", "hostile", "hostile.md"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs = %v, %v; want the audit's one run", runs, err)
	}
	return serve(t, &fixture{st: st, run: runs[0].ID, task: res.Task}, token)
}

// serve starts a loopback server over f's store.
func serve(t testing.TB, f *fixture, token string) *fixture {
	t.Helper()
	srv, err := New(Options{Store: f.st, Token: token, Now: func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	f.ts = httptest.NewServer(srv)
	t.Cleanup(f.ts.Close)
	return f
}

// reportPath is the audit view of the fixture's report.
func (f *fixture) reportPath() string { return reportURL(f.run, f.task) }

// get fetches path and returns the status, the body and the headers.
func (f *fixture) get(t *testing.T, path string) (int, string, http.Header) {
	t.Helper()
	resp, err := f.ts.Client().Get(f.ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// post sends a JSON body with an optional bearer token.
func (f *fixture) post(t *testing.T, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, readAll(t, resp)
}

// readAll reads and closes a response body.
func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
