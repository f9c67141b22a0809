package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// noNetworkConfig writes a config whose fetcher cannot reach anything: the
// probe URL and every cited URL are on a closed port of 127.0.0.1 (allowed,
// so the address policy is not what refuses them), as on a machine whose
// network is down. It returns the config's path.
func noNetworkConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("data_dir = %q\n\n[fetch]\nallow_hosts = [\"127.0.0.1\"]\nprobe_urls = [\"http://127.0.0.1:1/\"]\n", filepath.Join(dir, "data"))
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// unreachableReport writes a report citing n sources on closed ports.
func unreachableReport(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Widgets\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "Widgets got %d%% faster in trial %d [%d].\n", 10*i, i, i)
	}
	b.WriteString("\n## References\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "[%d] http://127.0.0.1:%d/papers/%d\n", i, i, i)
	}
	p := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGateWithoutNetwork is issue 19's scenario 3: the gate docs/audit.md
// shows, on a machine without network, stops at once and exits 2 saying
// why and what to do, instead of failing PSnd on sources it never read.
func TestGateWithoutNetwork(t *testing.T) {
	t.Setenv("CLAIMTRACE_CONFIG", noNetworkConfig(t))
	report := unreachableReport(t, 6)
	start := time.Now()
	stdout, stderr, code := cli(t, "gate", "--min-pcov", "0.8", "--min-psnd", "0.6", report)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("gate took %v without a network", d)
	}
	if code != 2 {
		t.Errorf("exit %d, want 2 (cannot audit); stdout %q stderr %q", code, stdout, stderr)
	}
	want := "cannot audit: 6 of 6 sources could not be fetched: no network; use --offline --snapshot DIR"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if strings.Contains(stdout, "FAIL") || strings.Contains(stdout, "PSnd") {
		t.Errorf("stdout %q: a threshold verdict without sources", stdout)
	}
	// audit says the same as a warning, and prints the figures it has.
	stdout, stderr, code = cli(t, "audit", report)
	if code != 0 || !strings.Contains(stderr, "6 of 6 sources could not be fetched: no network") || !strings.Contains(stderr, "never unsupported") {
		t.Errorf("audit: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "PCov") {
		t.Errorf("audit printed no figures: %q", stdout)
	}
}

// TestSourceProgress: --progress prints a line per source on stderr when
// stderr is not a terminal; without it the run is quiet.
func TestSourceProgress(t *testing.T) {
	t.Setenv("CLAIMTRACE_CONFIG", noNetworkConfig(t))
	report := unreachableReport(t, 3)
	_, quiet, _ := cli(t, "audit", report)
	if strings.Contains(quiet, "[1/3]") {
		t.Errorf("progress printed without --progress on a non-terminal: %q", quiet)
	}
	_, loud, _ := cli(t, "audit", "--progress", report)
	for i := 1; i <= 3; i++ {
		if !strings.Contains(loud, fmt.Sprintf("[%d/3]", i)) {
			t.Errorf("--progress: no line %d/3 in %q", i, loud)
		}
	}
	if !strings.Contains(loud, "not fetched") {
		t.Errorf("--progress lines do not say the sources were not fetched: %q", loud)
	}
	if _, stderr, code := cli(t, "audit", "--fetch-timeout", "-1s", report); code != 2 || !strings.Contains(stderr, "--fetch-timeout") {
		t.Errorf("negative --fetch-timeout: exit %d, %q", code, stderr)
	}
}

// evalFixture writes a dataset of one ground truth, reports and a snapshot
// where the ground-truth papers are readable and every other cited page a
// wall (403), and returns the directories.
func evalFixture(t *testing.T, reports map[string]string) (ds, reps, snap string) {
	t.Helper()
	dir := t.TempDir()
	ds, reps, snap = filepath.Join(dir, "ds"), filepath.Join(dir, "reports"), filepath.Join(dir, "snap")
	for _, d := range []string{filepath.Join(ds, "ReportBench_v1.1_GT"), reps, filepath.Join(snap, "pages")} {
		os.MkdirAll(d, 0o755)
	}
	gt := `{"bib_id":"a","title":"Retrieval for Widgets","author":"A","meta_info":{"eprint":"2001.00001"}}` + "\n" +
		`{"bib_id":"b","title":"Widgets at Scale","author":"B","meta_info":{"eprint":"2002.00002"}}` + "\n"
	var tasks, index strings.Builder
	for id, text := range reports {
		fmt.Fprintf(&tasks, `{"arxiv_id":%q,"title":"A Survey of Widgets","prompt":"Survey widgets before June 2024."}`+"\n", id)
		os.WriteFile(filepath.Join(ds, "ReportBench_v1.1_GT", id+".jsonl"), []byte(gt), 0o644)
		os.WriteFile(filepath.Join(reps, id+".md"), []byte(text), 0o644)
	}
	os.WriteFile(filepath.Join(ds, "ReportBench_v1.1.jsonl"), []byte(tasks.String()), 0o644)
	page := func(name, url, body string, status int) {
		os.WriteFile(filepath.Join(snap, "pages", name), []byte(body), 0o644)
		b, _ := json.Marshal(map[string]any{"url": url, "status": status, "content_type": "text/html", "file": "pages/" + name})
		index.Write(append(b, '\n'))
	}
	for i, p := range []struct{ id, title string }{{"2001.00001", "Retrieval for Widgets"}, {"2002.00002", "Widgets at Scale"}} {
		page(fmt.Sprintf("gt%d.html", i), "https://arxiv.org/abs/"+p.id, fmt.Sprintf(`<html><head><meta name="citation_title" content=%q><meta name="citation_arxiv_id" content=%q></head><body><p>Abstract: we study widgets at length, in factories and in the wild, with many measurements and a careful analysis of where widgets fail.</p></body></html>`, p.title, p.id), 200)
	}
	for i := range 4 {
		page(fmt.Sprintf("wall%d.html", i), fmt.Sprintf("https://walled%d.example/paper/%d", i, i), `<html><head><title>Just a moment...</title></head><body><p>Checking your browser before accessing the site.</p><script>window._cf_chl_opt={}</script></body></html>`, 403)
	}
	os.WriteFile(filepath.Join(snap, "index.jsonl"), []byte(index.String()), 0o644)
	return ds, reps, snap
}

// TestEvalPrintsThePrecisionRange: eval prints strict precision and the
// verifiable-only bound, names the flagged reports, keeps a report citing
// only walls in the mean at 0 and never says it cites no reference; the
// leaderboard shows both figures and the flagged count.
func TestEvalPrintsThePrecisionRange(t *testing.T) {
	walls := "\n\n## References\n\n[3] https://walled0.example/paper/0\n[4] https://walled1.example/paper/1\n[5] https://walled2.example/paper/2\n[6] https://walled3.example/paper/3\n"
	ds, reps, snap := evalFixture(t, map[string]string{
		"2401.00001": "# W\n\nRetrieval helps [1]. Scale matters [2]. Walls one [3]. Two [4]. Three [5]. Four [6].\n\n## References\n\n[1] https://arxiv.org/abs/2001.00001\n[2] https://arxiv.org/abs/2002.00002\n" + walls[len("\n\n## References\n\n"):],
		"2401.00002": "# W\n\nWalls one [3]. Two [4]. Three [5]. Four [6]." + walls,
	})
	out := filepath.Join(t.TempDir(), "sys-a")
	stdout, stderr, code := runCLI(t, "eval", "--dataset", ds, "--reports", reps, "--out", out, "--snapshot", snap, "--offline", "--store", filepath.Join(t.TempDir(), "s.db"))
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	for _, s := range []string{"Verifiable P", "16.7%", "100.0%", "FLAGGED: 2 report(s)", "2401.00001", "2401.00002", "8 unverifiable"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("eval output lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Contains(stdout, "cite no") {
		t.Errorf("eval output says a report cites nothing:\n%s", stdout)
	}
	var sum struct {
		Citation struct {
			Precision           *float64 `json:"precision"`
			PrecisionVerifiable *float64 `json:"precision_verifiable"`
			ReportsFlagged      int      `json:"reports_flagged"`
			ReportsWithoutRefs  int      `json:"reports_without_refs"`
		} `json:"citation"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	// Strict: (2/6 + 0/4) / 2; the bound is 1 for the first report and
	// undefined for the second.
	if c := sum.Citation; c.Precision == nil || *c.Precision != 1.0/6 || c.PrecisionVerifiable == nil || *c.PrecisionVerifiable != 1 || c.ReportsFlagged != 2 || c.ReportsWithoutRefs != 0 {
		t.Errorf("summary citation = %+v", c)
	}
	stdout, stderr, code = runCLI(t, "leaderboard", out)
	if code != 0 || !strings.Contains(stdout, "verifiable P") || !strings.Contains(stdout, "flagged") || !strings.Contains(stdout, "0.167") || !strings.Contains(stdout, "1.000") {
		t.Errorf("leaderboard: exit %d, %s%s", code, stdout, stderr)
	}
}
