package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDemoCommand(t *testing.T) {
	out, errOut, code := cli(t, "demo")
	if code != 0 {
		t.Fatalf("demo exited %d: %s", code, errOut)
	}
	for _, want := range []string{"Precision", "Recall", "PCov", "source_survey", "post_cutoff", "unresolvable", "not_a_paper", "not_in_ground_truth"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalRequiresFlagsAndNamesBadInput(t *testing.T) {
	_, errOut, code := cli(t, "eval")
	if code == 0 || !strings.Contains(errOut, "required flag") {
		t.Errorf("eval without flags: code %d, stderr %q", code, errOut)
	}
	dir := t.TempDir()
	_, errOut, code = cli(t, "eval", "--dataset", filepath.Join(dir, "nope"), "--reports", dir, "--out", dir)
	if code == 0 || !strings.Contains(errOut, "nope") || !strings.Contains(errOut, "dataset pull") {
		t.Errorf("missing dataset: code %d, stderr %q", code, errOut)
	}
}

// crashFixture writes a dataset of several tasks whose reports cite pages
// on a slow local server, and a config without per-host politeness.
type crashFixture struct {
	dir, dataset, reports, config string
	srv                           *httptest.Server
	mu                            sync.Mutex
	hits                          map[string]int
}

func newCrashFixture(t *testing.T, tasks, urlsPerReport int, delay time.Duration) *crashFixture {
	f := &crashFixture{dir: t.TempDir(), hits: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits[r.URL.Path]++
		f.mu.Unlock()
		time.Sleep(delay)
		if strings.HasSuffix(r.URL.Path, "/dead") {
			http.NotFound(w, r)
			return
		}
		n := strings.TrimPrefix(r.URL.Path, "/p/")
		fmt.Fprintf(w, `<html><head><title>Paper %s</title><meta name="citation_title" content="A Study of Topic %s">
<meta name="citation_date" content="2021/03/01"></head><body><p>This paper studies topic %s in depth and reports results.</p></body></html>`, n, n, n)
	}))
	t.Cleanup(f.srv.Close)
	f.dataset = filepath.Join(f.dir, "dataset")
	f.reports = filepath.Join(f.dir, "reports")
	os.MkdirAll(filepath.Join(f.dataset, "ReportBench_v1.1_GT"), 0o755)
	os.MkdirAll(f.reports, 0o755)
	var tasksJSONL strings.Builder
	for i := 1; i <= tasks; i++ {
		id := fmt.Sprintf("2101.%05d", i)
		fmt.Fprintf(&tasksJSONL, `{"arxiv_id":%q,"title":"Survey %d","prompt":"Survey topic %d; cite papers before January 2022.","application_domain":"D%d"}`+"\n", id, i, i, i%2)
		var gt, rep strings.Builder
		for k := 0; k < urlsPerReport; k++ {
			n := i*100 + k
			if k%2 == 0 {
				fmt.Fprintf(&gt, `{"bib_id":"b%d","title":"A Study of Topic %d","author":"X","meta_info":{"year":"2021"}}`+"\n", n, n)
			}
			fmt.Fprintf(&rep, "Topic %d was studied carefully [%d](%s/p/%d).\n", n, k+1, f.srv.URL, n)
		}
		fmt.Fprintf(&rep, "A made-up result appears here [x](%s/p/%d/dead).\n", f.srv.URL, i)
		os.WriteFile(filepath.Join(f.dataset, "ReportBench_v1.1_GT", id+".jsonl"), []byte(gt.String()), 0o644)
		os.WriteFile(filepath.Join(f.reports, id+".md"), []byte("# Report\n\n"+rep.String()), 0o644)
	}
	os.WriteFile(filepath.Join(f.dataset, "ReportBench_v1.1.jsonl"), []byte(tasksJSONL.String()), 0o644)
	f.config = filepath.Join(f.dir, "config.toml")
	os.WriteFile(f.config, []byte("[fetch]\nper_host_rps = -1\n"), 0o644)
	return f
}

func (f *crashFixture) args(store, out string) []string {
	return []string{"eval", "--config", f.config, "--dataset", f.dataset, "--reports", f.reports, "--out", out,
		"--store", store, "--concurrency", "1", "--no-scholar", "--allow-host", "127.0.0.1"}
}

func (f *crashFixture) totalHits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, v := range f.hits {
		n += v
	}
	return n
}

// TestKillAndResume kills an evaluation with SIGKILL mid-run, reruns it and
// checks that the results equal an uninterrupted run and that finished
// fetches were not repeated.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const tasks, urls = 4, 8
	f := newCrashFixture(t, tasks, urls, 40*time.Millisecond)
	store := filepath.Join(f.dir, "crash.db")
	out := filepath.Join(f.dir, "out-crash")
	cmd := child(t, f.args(store, out)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once some pages have been fetched, well before the end.
	deadline := time.Now().Add(20 * time.Second)
	for f.totalHits() < 10 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := f.totalHits()
	if before >= tasks*(urls+1) {
		t.Fatalf("the run finished (%d fetches) before it was killed; slow the server down", before)
	}
	res := child(t, f.args(store, out)...)
	if b, err := res.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, b)
	}
	distinct := tasks * (urls + 1)
	// Fetches in flight when the process died may be repeated (one here, as
	// fetch concurrency is 4); nothing finished is.
	if got := f.totalHits(); got > distinct+4 {
		t.Errorf("%d fetches for %d distinct URLs across kill and resume: finished work was redone", got, distinct)
	}

	// An uninterrupted run in a fresh store gives the same results.
	cleanOut := filepath.Join(f.dir, "out-clean")
	clean := child(t, f.args(filepath.Join(f.dir, "clean.db"), cleanOut)...)
	if b, err := clean.CombinedOutput(); err != nil {
		t.Fatalf("clean run: %v\n%s", err, b)
	}
	for i := 1; i <= tasks; i++ {
		name := fmt.Sprintf("reports/2101.%05d.json", i)
		compareJSON(t, filepath.Join(out, name), filepath.Join(cleanOut, name), "file")
	}
	compareJSON(t, filepath.Join(out, "summary.json"), filepath.Join(cleanOut, "summary.json"), "generated_at", "run")
}

func compareJSON(t *testing.T, a, b string, ignore ...string) {
	t.Helper()
	load := func(p string) map[string]any {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, k := range ignore {
			delete(m, k)
		}
		return m
	}
	if diff := cmp.Diff(load(b), load(a)); diff != "" {
		t.Errorf("%s differs from an uninterrupted run (-clean +resumed):\n%s", filepath.Base(a), diff)
	}
}

// TestSnapshotThenOffline freezes a live run's sources with `snapshot` and
// checks that an offline evaluation from the snapshot scores the same.
func TestSnapshotThenOffline(t *testing.T) {
	f := newCrashFixture(t, 2, 4, 0)
	snap := filepath.Join(f.dir, "snap")
	out, errOut, code := cli(t, "snapshot", "--config", f.config, "--reports", f.reports, "--out", snap,
		"--store", filepath.Join(f.dir, "s.db"), "--allow-host", "127.0.0.1", "--json")
	if code != 0 {
		t.Fatalf("snapshot: %d %s", code, errOut)
	}
	var res snapshotResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, out)
	}
	if res.URLs != 10 || res.Fetched != 8 || res.Dead != 2 || len(res.Failed) != 0 {
		t.Errorf("snapshot result = %+v", res)
	}
	hits := f.totalHits()
	// A second snapshot run fetches nothing.
	if _, errOut, code := cli(t, "snapshot", "--config", f.config, "--reports", f.reports, "--out", snap,
		"--store", filepath.Join(f.dir, "s.db"), "--allow-host", "127.0.0.1"); code != 0 {
		t.Fatalf("second snapshot: %s", errOut)
	}
	if f.totalHits() != hits {
		t.Errorf("the second snapshot run fetched %d URLs again", f.totalHits()-hits)
	}
	// The snapshot keeps its pages' text already.
	if out, errOut, code := cli(t, "snapshot", "index-text", snap, "--json"); code != 0 || !strings.Contains(out, `"written": 0`) || strings.Contains(out, `"current": 0`) {
		t.Errorf("index-text of a new snapshot: exit %d: %s %s", code, out, errOut)
	}
	live := filepath.Join(f.dir, "live")
	if _, errOut, code := cli(t, f.args(filepath.Join(f.dir, "l.db"), live)...); code != 0 {
		t.Fatalf("live eval: %s", errOut)
	}
	f.srv.Close() // the offline run must not need the server
	offline := filepath.Join(f.dir, "offline")
	args := []string{"eval", "--dataset", f.dataset, "--reports", f.reports, "--out", offline,
		"--store", filepath.Join(f.dir, "o.db"), "--snapshot", snap, "--offline"}
	if _, errOut, code := cli(t, args...); code != 0 {
		t.Fatalf("offline eval: %s", errOut)
	}
	for _, name := range []string{"reports/2101.00001.json", "reports/2101.00002.json"} {
		compareJSON(t, filepath.Join(offline, name), filepath.Join(live, name), "file")
	}
}

// TestAuditAndGateReport audits the bundled report offline from its
// snapshot, then gates it: the report passes a lax gate and fails a strict
// one, with exit codes 0 and 1.
func TestAuditAndGateReport(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "reports", "2312.10997.md")
	snap := filepath.Join(dir, "snapshot")
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(dir, "data"))
	out, errOut, code := cli(t, "audit", report, "--snapshot", snap, "--offline", "--json", "--out", filepath.Join(dir, "audit"))
	if code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errOut)
	}
	var m struct {
		PCov *float64 `json:"pcov"`
		PSnd *float64 `json:"psnd"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		// audit --json may wrap the metrics; look for them anywhere.
		var wrapped map[string]json.RawMessage
		if err2 := json.Unmarshal([]byte(out), &wrapped); err2 != nil {
			t.Fatalf("audit --json: %v\n%s", err, out)
		}
		if err := json.Unmarshal(wrapped["metrics"], &m); err != nil {
			t.Fatalf("decode: %v", err)
		}
	}
	if m.PCov == nil || *m.PCov <= 0.5 || *m.PCov >= 1 || m.PSnd == nil || *m.PSnd <= 0 {
		t.Errorf("audit metrics = pcov %v psnd %v\n%s", m.PCov, m.PSnd, out)
	}
	for _, f := range []string{"graph.json", "prov.json", "metrics.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, "audit", f)); err != nil {
			t.Errorf("audit --out: %v", err)
		}
	}
	if page, _ := os.ReadFile(filepath.Join(dir, "audit", "report.html")); !strings.Contains(string(page), `id="panel-c5"`) || strings.Contains(string(page), "<script") {
		t.Errorf("audit --out: report.html is not the static audit page")
	}
	if _, errOut, code := cli(t, "gate", "--min-pcov", "0.5", "--min-psnd", "0.3", "--snapshot", snap, "--offline", report); code != 0 {
		t.Errorf("lax gate: exit %d: %s", code, errOut)
	}
	out, _, code = cli(t, "gate", "--min-pcov", "0.99", "--min-psnd", "0.99", "--snapshot", snap, "--offline", report)
	if code != 1 || !strings.Contains(strings.ToLower(out), "pcov") {
		t.Errorf("strict gate: exit %d, output %q; want 1 and a reason naming PCov", code, out)
	}
}

// TestStoredGraphQueries evaluates the demo into a store, then asks the
// store which sources are cited most and which claims depend on one.
func TestStoredGraphQueries(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAIMTRACE_DATA_DIR", dir)
	if _, errOut, code := cli(t, "demo", "--out", filepath.Join(dir, "demo")); code != 0 {
		t.Fatalf("demo: %s", errOut)
	}
	store := filepath.Join(dir, "demo", "claimtrace.db")
	out, errOut, code := cli(t, "prov", "cited", "--store", store, "--json")
	if code != 0 {
		t.Fatalf("prov cited: %s", errOut)
	}
	var uses []struct {
		Identity string `json:"identity"`
		Claims   int    `json:"claims"`
	}
	if err := json.Unmarshal([]byte(out), &uses); err != nil || len(uses) == 0 {
		t.Fatalf("prov cited --json: %v\n%s", err, out)
	}
	// The RAG paper is cited by two claims of the report.
	if uses[0].Claims < 2 {
		t.Errorf("most cited source = %+v", uses[0])
	}
	out, errOut, code = cli(t, "prov", "depends", "--store", store, "arxiv:2005.11401")
	if code != 0 || strings.Count(out, "cites it") != 2 {
		t.Errorf("prov depends: exit %d, %s%s", code, out, errOut)
	}
	out, _, code = cli(t, "runs", "--store", store)
	if code != 0 || !strings.Contains(out, "graph/done 1") {
		t.Errorf("runs: %s", out)
	}
}

// TestLeaderboard compares two evaluations of the demo: one judged
// offline, one without a judge; rows are sorted and the missing match rate
// shows as a dash, never as zero.
func TestLeaderboard(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	base := []string{"eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline"}
	for _, sys := range []struct{ name, judge string }{{"judged", "offline"}, {"unjudged", "none"}} {
		args := append(append([]string{}, base...), "--out", filepath.Join(dir, sys.name), "--judge", sys.judge)
		if _, errOut, code := cli(t, args...); code != 0 {
			t.Fatalf("eval %s: %s", sys.name, errOut)
		}
	}
	out, errOut, code := cli(t, "leaderboard", "--by", "match", filepath.Join(dir, "unjudged"), filepath.Join(dir, "judged"))
	if code != 0 {
		t.Fatalf("leaderboard: %s", errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "judged") || !strings.Contains(lines[2], "unjudged") || !strings.Contains(lines[2], "—") {
		t.Errorf("leaderboard:\n%s", out)
	}
	if _, errOut, code := cli(t, "leaderboard", dir); code == 0 || !strings.Contains(errOut, "--out directory") {
		t.Errorf("a directory without summary.json: exit %d, %s", code, errOut)
	}
}

// TestEvalRefusesPrivateAddresses evaluates reports whose citations point
// at a server on loopback, without --allow-host: no request reaches it, and
// the citations count as unresolvable, not as papers.
func TestEvalRefusesPrivateAddresses(t *testing.T) {
	f := newCrashFixture(t, 1, 3, 0)
	out, errOut, code := cli(t, "eval", "--config", f.config, "--dataset", f.dataset, "--reports", f.reports,
		"--out", filepath.Join(f.dir, "out"), "--store", filepath.Join(f.dir, "s.db"), "--no-scholar", "--json")
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	if n := f.totalHits(); n != 0 {
		t.Errorf("%d requests reached the loopback server", n)
	}
	var sum struct {
		Citation struct {
			Unresolvable int `json:"unresolvable"`
			Papers       int `json:"papers"`
		} `json:"citation"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if sum.Citation.Unresolvable != 4 || sum.Citation.Papers != 0 {
		t.Errorf("citation = %+v, want 4 unresolvable, 0 papers", sum.Citation)
	}
	res, _ := os.ReadFile(filepath.Join(f.dir, "out", "reports", "2101.00001.json"))
	if !strings.Contains(string(res), `"status": "blocked"`) {
		t.Errorf("sources are not marked blocked")
	}
}

// TestInterruptStopsCleanly sends SIGINT to a running evaluation: it exits
// 130 saying that finished work is kept, and the rerun completes.
func TestInterruptStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	f := newCrashFixture(t, 3, 6, 40*time.Millisecond)
	args := f.args(filepath.Join(f.dir, "s.db"), filepath.Join(f.dir, "out"))
	cmd := child(t, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for f.totalHits() < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != 130 || !strings.Contains(stderr.String(), "finished work is stored") {
		t.Fatalf("after SIGINT: exit %d (%v), stderr %q", code, err, stderr.String())
	}
	if b, err := child(t, args...).CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "out", "summary.json")); err != nil {
		t.Errorf("the rerun wrote no summary: %v", err)
	}
}

// TestDatabasePasswordNeverShown checks the two places a store DSN is
// echoed: config --show and a run's manifest.
func TestDatabasePasswordNeverShown(t *testing.T) {
	t.Setenv("CLAIMTRACE_STORE", "postgres://u:hunter2secret@db.example:5432/claimtrace")
	out, errOut, code := cli(t, "config", "--show")
	if code != 0 {
		t.Fatalf("config --show: %s", errOut)
	}
	if strings.Contains(out+errOut, "hunter2secret") || !strings.Contains(out, "db.example") {
		t.Errorf("config --show:\n%s", out)
	}
	if got := redactDSNArg("--store=postgresql://u:hunter2secret@h/db"); strings.Contains(got, "hunter2secret") || !strings.HasPrefix(got, "--store=postgresql://u:") {
		t.Errorf("redactDSNArg = %q", got)
	}
}

// TestEvalHTML evaluates the bundled example with --html: OUT/html holds an
// index linking one static audit page per report.
func TestEvalHTML(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, errOut, code := cli(t, "eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"), "--out", out,
		"--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline", "--html")
	if code != 0 {
		t.Fatalf("eval --html: exit %d: %s", code, errOut)
	}
	index, err := os.ReadFile(filepath.Join(out, "html", "index.html"))
	if err != nil || !strings.Contains(string(index), `href="2312.10997.html"`) {
		t.Fatalf("index.html: %v\n%s", err, index)
	}
	page, err := os.ReadFile(filepath.Join(out, "html", "2312.10997.html"))
	if err != nil || !strings.Contains(string(page), `id="panel-c1"`) || strings.Contains(string(page), "<script") {
		t.Errorf("report page: %v", err)
	}
}
