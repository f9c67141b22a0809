package construct_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

// fixtureTar packs testdata/survey as an arXiv e-print (gzip'd tar), with
// extra entries appended.
func fixtureTar(t *testing.T, extra ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	err := filepath.WalkDir("testdata/survey", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/survey", p)
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range extra {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// snapshotLine makes one snapshot record.
func snapshotLine(id, title, abstract, cats, comments, created string) string {
	rec := struct {
		ID            string              `json:"id"`
		Submitter     string              `json:"submitter"`
		Authors       string              `json:"authors"`
		Title         string              `json:"title"`
		Comments      string              `json:"comments"`
		JournalRef    *string             `json:"journal-ref"`
		DOI           *string             `json:"doi"`
		ReportNo      *string             `json:"report-no"`
		Categories    string              `json:"categories"`
		License       string              `json:"license"`
		Abstract      string              `json:"abstract"`
		Versions      []map[string]string `json:"versions"`
		UpdateDate    string              `json:"update_date"`
		AuthorsParsed [][]string          `json:"authors_parsed"`
	}{id, "A. Person", "A. Person", title, comments, nil, nil, nil, cats,
		"http://creativecommons.org/licenses/by/4.0/", abstract,
		[]map[string]string{{"version": "v1", "created": created}, {"version": "v2", "created": "Mon, 21 Apr 2025 08:37:24 GMT"}},
		"2025-04-22", [][]string{{"Person", "A.", ""}}}
	b, _ := json.Marshal(rec)
	return string(b)
}

// testSnapshot writes a snapshot of ten surveys, one per domain, plus
// records every stage should drop.
func testSnapshot(t *testing.T, dir string) string {
	t.Helper()
	created := "Fri, 8 Dec 2023 06:31:19 GMT"
	lines := []string{
		snapshotLine("2401.00001", "Radar Perception for Autonomous Driving: A Survey", "In this survey we review radar for vehicles and traffic.", "cs.CV", "Accepted by IEEE TITS", created),
		snapshotLine("2401.00002", "Deep Learning for Medical Imaging: A Review", "We review clinical imaging for patients and disease diagnosis.", "eess.IV", "Published in MedIA", created),
		snapshotLine("2401.00003", "Stock Market Forecasting: A Survey", "We survey financial trading and banking models.", "q-fin.ST", "accepted", created),
		snapshotLine("2401.00004", "Smart Grid Energy Management: A Review", "We review renewable energy and power systems.", "eess.SY", "accepted", created),
		snapshotLine("2401.00005", "Graph Neural Networks: A Survey", "In this survey we review message passing and propose a taxonomy.", "cs.LG", "accepted", created),
		snapshotLine("2401.00006", "Dark Matter Halos: A Review", "We review cosmological simulations of halos.", "astro-ph.CO", "accepted", created),
		snapshotLine("2401.00007", "6G Wireless Networks: A Survey", "We survey network slicing and wireless communication.", "cs.NI", "accepted", created),
		snapshotLine("2401.00008", "Music Generation: A Survey", "We review symbolic music and audio generation.", "cs.SD", "accepted", created),
		snapshotLine("2401.00009", "Fake News Detection: A Survey", "We survey misinformation and fake news on social platforms.", "cs.CL", "accepted", created),
		snapshotLine("2401.00010", "Predictive Maintenance in Industry 4.0: A Review", "We review manufacturing and fault diagnosis.", "cs.LG", "accepted", created),
		// Sky survey: passes select, dropped by classify.
		snapshotLine("2401.00011", "The Redshift Survey of Galaxy Clusters", "We present redshift survey data from the SDSS footprint.", "astro-ph.GA", "accepted", created),
		// Old: dropped by select.
		snapshotLine("1901.00001", "An Old Survey", "We review old things.", "cs.LG", "accepted", "Tue, 1 Jan 2019 00:00:00 GMT"),
		// No source (PDF only), a failing download, a tree without .tex.
		snapshotLine("2401.00012", "Protein Folding: A Survey", "We review protein structure.", "q-bio.BM", "accepted", created),
		snapshotLine("2401.00013", "Federated Learning: A Review", "We review federated learning and privacy.", "cs.LG", "accepted", created),
		snapshotLine("2401.00014", "Quantum Error Correction: A Review", "We review surface codes and quantum memories.", "quant-ph", "accepted", created),
	}
	path := filepath.Join(dir, "snapshot.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// eprintServer serves the e-prints. 2401.00012 is a PDF, 2401.00014 has no
// .tex file, 2401.00013 fails with HTTP 503 until healed, 2401.00005 also
// carries hostile entries.
type eprintServer struct {
	t       *testing.T
	tarball []byte
	hostile []byte
	healed  atomic.Bool
	mu      sync.Mutex
	hits    map[string]int
}

func (s *eprintServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/e-print/")
	s.mu.Lock()
	s.hits[id]++
	s.mu.Unlock()
	switch id {
	case "2401.00012":
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, "%PDF-1.5\n...")
	case "2401.00013":
		if !s.healed.Load() {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write(s.tarball)
	case "2401.00014":
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		tw.WriteHeader(&tar.Header{Name: "figure.png", Mode: 0o644, Size: 3, Typeflag: tar.TypeReg})
		tw.Write([]byte("png"))
		tw.Close()
		zw.Close()
		w.Write(buf.Bytes())
	case "2401.00005":
		w.Write(s.hostile)
	default:
		w.Header().Set("Content-Type", "application/x-eprint-tar")
		w.Write(s.tarball)
	}
}

func newServer(t *testing.T) (*eprintServer, *httptest.Server) {
	es := &eprintServer{t: t, tarball: fixtureTar(t), hits: map[string]int{},
		hostile: fixtureTar(t,
			&tar.Header{Name: "../../escape.tex", Mode: 0o644, Size: 5, Typeflag: tar.TypeReg},
			&tar.Header{Name: "evil", Linkname: "/etc/passwd", Typeflag: tar.TypeSymlink})}
	srv := httptest.NewServer(es)
	t.Cleanup(srv.Close)
	return es, srv
}

func newBuilder(dir, base string) *construct.Builder {
	return &construct.Builder{
		Dir:         dir,
		Downloader:  construct.NewHTTPDownloader("claimtrace-test", 10*time.Second, 0, 1<<20),
		ArXivBase:   base + "/e-print/",
		Concurrency: 3,
		Tool:        "claimtrace test",
		Now:         func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
}

func allOptions(snapshot string) construct.AllOptions {
	return construct.AllOptions{
		Select: construct.SelectOptions{Snapshot: snapshot, Filter: arxivsnap.DefaultSpec()},
		Sample: construct.SampleOptions{PerDomain: 10, Seed: 42},
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func TestPipelineEndToEnd(t *testing.T) {
	es, srv := newServer(t)
	dir := t.TempDir()
	snapshot := testSnapshot(t, t.TempDir())
	b := newBuilder(dir, srv.URL)
	var reports []*construct.Report
	if err := b.All(context.Background(), allOptions(snapshot), func(r *construct.Report) { reports = append(reports, r) }); err != nil {
		t.Fatal(err)
	}
	counts := map[string]map[string]int64{}
	for _, r := range reports {
		counts[r.Stage] = r.Manifest.Counts
		if !r.Manifest.Complete {
			t.Errorf("%s manifest not complete", r.Stage)
		}
	}
	check := func(stage, key string, want int64) {
		t.Helper()
		if got := counts[stage][key]; got != want {
			t.Errorf("%s %s = %d, want %d (counts %v)", stage, key, got, want, counts[stage])
		}
	}
	check("select", "kept", 14)
	check("select", "dropped_date", 1)
	check("classify", "survey", 13)
	check("classify", "not_survey", 1)
	check("sources", "ok", 11)
	check("sources", "no_source", 1)
	check("sources", "failed", 1)
	check("refs", "ok", 10)
	check("refs", "failed", 1)
	check("refs", "references", 90)
	check("prompts", "ok", 10)
	check("sample", "tasks", 10)

	// The hostile entries of 2401.00005 were skipped, nothing escaped.
	if _, err := os.Stat(filepath.Join(dir, "escape.tex")); err == nil {
		t.Error("a hostile entry escaped the sources folder")
	}

	// The released layout: ten tasks, one per domain, and their ground truth.
	tasks := readLines(t, filepath.Join(dir, construct.TaskFile))
	domains := map[string]bool{}
	for _, line := range tasks {
		var task struct {
			ID     string   `json:"arxiv_id"`
			Domain string   `json:"application_domain"`
			Prompt string   `json:"prompt"`
			Keys   []string `json:"-"`
		}
		if err := json.Unmarshal([]byte(line), &task); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(line, `{"arxiv_id":"`+task.ID+`","submitter":`) || !strings.Contains(line, `http:\/\/creativecommons.org`) {
			t.Errorf("task line not in the released layout: %.120s", line)
		}
		domains[task.Domain] = true
		if !strings.Contains(task.Prompt, "April 2025") {
			t.Errorf("%s: prompt lacks the cutoff: %q", task.ID, task.Prompt)
		}
		gt := readLines(t, filepath.Join(dir, construct.GTDir, task.ID+".jsonl"))
		if len(gt) != 9 || !strings.HasPrefix(gt[0], `{"bib_id":"smith2020","title":`) {
			t.Errorf("%s: ground truth %d lines, first %.60s", task.ID, len(gt), gt[0])
		}
	}
	if len(tasks) != 10 || len(domains) != 10 {
		t.Errorf("%d tasks over %d domains, want 10 and 10", len(tasks), len(domains))
	}
	gtFiles, _ := filepath.Glob(filepath.Join(dir, construct.GTDir, "*.jsonl"))
	if len(gtFiles) != 10 {
		t.Errorf("%d ground-truth files, want 10", len(gtFiles))
	}
	firstRun, _ := os.ReadFile(filepath.Join(dir, construct.TaskFile))

	// A rerun redoes nothing but the failed download, which now succeeds.
	es.healed.Store(true)
	classifyBefore := readLines(t, filepath.Join(dir, "build", "classify.jsonl"))
	hitsBefore := es.hits["2401.00001"]
	reports = nil
	if err := b.All(context.Background(), allOptions(snapshot), func(r *construct.Report) { reports = append(reports, r) }); err != nil {
		t.Fatal(err)
	}
	if !reports[0].Skipped {
		t.Error("select should be skipped on an unchanged snapshot")
	}
	if got := readLines(t, filepath.Join(dir, "build", "classify.jsonl")); len(got) != len(classifyBefore) {
		t.Errorf("classify journal grew from %d to %d lines on a rerun", len(classifyBefore), len(got))
	}
	if es.hits["2401.00001"] != hitsBefore || es.hits["2401.00013"] != 2 {
		t.Errorf("downloads on rerun: 2401.00001 %d→%d, 2401.00013 %d (want unchanged and 2)", hitsBefore, es.hits["2401.00001"], es.hits["2401.00013"])
	}
	for _, r := range reports {
		if r.Stage == "sources" && (r.Manifest.Counts["ok"] != 12 || r.Manifest.Counts["failed"] != 0) {
			t.Errorf("sources after healing: %v", r.Manifest.Counts)
		}
		if r.Stage == "refs" && r.Manifest.Counts["ok"] != 11 {
			t.Errorf("refs after healing: %v", r.Manifest.Counts)
		}
	}
	if second, _ := os.ReadFile(filepath.Join(dir, construct.TaskFile)); bytes.Equal(second, firstRun) {
		t.Log("the healed survey did not change the sample (possible, not required)")
	}
}

// cancellingDownloader cancels the run after n downloads, like Ctrl-C.
type cancellingDownloader struct {
	construct.Downloader
	n      atomic.Int32
	after  int32
	cancel context.CancelFunc
}

func (d *cancellingDownloader) Download(ctx context.Context, url string, w io.Writer) (string, error) {
	if d.n.Add(1) > d.after {
		d.cancel()
		return "", ctx.Err()
	}
	return d.Downloader.Download(ctx, url, w)
}

// TestPipelineResume interrupts a run during the sources stage and checks
// that rerunning finishes with the same dataset as an uninterrupted run.
func TestPipelineResume(t *testing.T) {
	es, srv := newServer(t)
	es.healed.Store(true)
	snapshot := testSnapshot(t, t.TempDir())

	clean := t.TempDir()
	if err := newBuilder(clean, srv.URL).All(context.Background(), allOptions(snapshot), nil); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	b := newBuilder(dir, srv.URL)
	b.Concurrency = 1
	b.Downloader = &cancellingDownloader{Downloader: b.Downloader, after: 4, cancel: cancel}
	err := b.All(ctx, allOptions(snapshot), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	done := readLines(t, filepath.Join(dir, "build", "sources.jsonl"))
	if len(done) < 1 || len(done) > 4 {
		t.Errorf("%d sources recorded before the interruption, want 1–4", len(done))
	}
	for _, line := range done {
		if strings.Contains(line, `"failed"`) {
			t.Errorf("the interruption was recorded as a failure: %s", line)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "build", "sources.manifest.json")); err == nil {
		t.Error("an interrupted stage must not write a complete manifest")
	}

	b2 := newBuilder(dir, srv.URL)
	if err := b2.All(context.Background(), allOptions(snapshot), nil); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(clean, construct.TaskFile))
	got, _ := os.ReadFile(filepath.Join(dir, construct.TaskFile))
	if !bytes.Equal(want, got) {
		t.Errorf("resumed dataset differs from a clean run:\n%s\n---\n%s", got, want)
	}
	if n := len(readLines(t, filepath.Join(dir, "build", "sources.jsonl"))); n != 13 {
		t.Errorf("sources journal has %d rows after resuming, want 13 (no paper fetched twice)", n)
	}
}

func TestPipelineStageOrder(t *testing.T) {
	b := &construct.Builder{Dir: t.TempDir()}
	if _, err := b.Classify(context.Background()); err == nil || !strings.Contains(err.Error(), "select stage first") {
		t.Errorf("classify before select: %v", err)
	}
	if err := b.All(context.Background(), construct.AllOptions{From: "nonsense"}, nil); err == nil {
		t.Error("unknown --from stage should fail")
	}
	if _, err := b.Sources(context.Background()); err == nil {
		t.Error("sources without a downloader should fail")
	}
}

func TestManifestsNameInputs(t *testing.T) {
	_, srv := newServer(t)
	dir := t.TempDir()
	snapshot := testSnapshot(t, t.TempDir())
	if err := newBuilder(dir, srv.URL).All(context.Background(), allOptions(snapshot), nil); err != nil {
		t.Fatal(err)
	}
	for _, stage := range construct.Stages {
		data, err := os.ReadFile(filepath.Join(dir, "build", stage+".manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m construct.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if m.Stage != stage || !m.Complete || len(m.Inputs) == 0 || m.Tool != "claimtrace test" || m.Go == "" || m.Format != construct.FormatVersion {
			t.Errorf("%s manifest: %+v", stage, m)
		}
		for _, in := range m.Inputs {
			if in.Bytes == 0 || (stage != "select" && len(in.SHA256) != 64) {
				t.Errorf("%s input %+v: want size and hash", stage, in)
			}
		}
	}
	var sel construct.Manifest
	data, _ := os.ReadFile(filepath.Join(dir, "build", "select.manifest.json"))
	if err := json.Unmarshal(data, &sel); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if sel.Params["comments"] != arxivsnap.DefaultComments || sel.Inputs[0].Path != snapshot {
		t.Errorf("select manifest params %v inputs %v", sel.Params, sel.Inputs)
	}
}

// TestSourcesHostileIDs feeds the sources stage records whose ids are not
// arXiv ids (issue 14 item 5: a record with id ".." made the stage delete
// and replace the build folder itself). Each such record fails alone, with
// its reason and without a download; the build folder and its journals
// survive; valid ids of both forms are fetched into their own folders.
func TestSourcesHostileIDs(t *testing.T) {
	es, srv := newServer(t)
	dir := t.TempDir()
	created := "Fri, 8 Dec 2023 06:31:19 GMT"
	ids := []string{"..", ".", "../victim", "2401.00001/../..", "2401.00002?x=", "/tmp/x", "2401.00003", "2401.00004v2", "hep-th/9901001", "math.GT/0309136"}
	var lines []string
	for _, id := range ids {
		lines = append(lines, snapshotLine(id, "Graph Neural Networks: A Survey", "In this survey we review message passing and propose a taxonomy.", "cs.LG", "accepted", created))
	}
	snapshot := filepath.Join(t.TempDir(), "snapshot.json")
	if err := os.WriteFile(snapshot, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	b := newBuilder(dir, srv.URL)
	ctx := context.Background()
	if _, err := b.Select(ctx, construct.SelectOptions{Snapshot: snapshot, Filter: arxivsnap.DefaultSpec()}); err != nil {
		t.Fatal(err)
	}
	if rep, err := b.Classify(ctx); err != nil || rep.Manifest.Counts["survey"] != int64(len(ids)) {
		t.Fatalf("classify: %v, %v", rep, err)
	}
	rep, err := b.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Manifest.Counts; c["ok"] != 4 || c["failed"] != 6 {
		t.Errorf("sources counts %v, want 4 ok and 6 failed", c)
	}
	for _, keep := range []string{"select.jsonl", "classify.jsonl", "sources.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, "build", keep)); err != nil {
			t.Errorf("build/%s is gone: %v", keep, err)
		}
	}
	if entries, err := os.ReadDir(victim); err != nil || len(entries) != 0 {
		t.Errorf("a folder beside the build folder was touched: %v, %v", entries, err)
	}
	rows := map[string]map[string]any{}
	for _, line := range readLines(t, filepath.Join(dir, "build", "sources.jsonl")) {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		rows[row["id"].(string)] = row
	}
	for _, id := range ids[:6] {
		if row := rows[id]; row["status"] != "failed" || !strings.Contains(fmt.Sprint(row["error"]), "neither the new form") {
			t.Errorf("%q: row %v, want failed as no arXiv id", id, row)
		}
		if es.hits[strings.TrimPrefix(id, "/")] != 0 {
			t.Errorf("%q was downloaded", id)
		}
	}
	for id, folder := range map[string]string{"2401.00003": "2401.00003", "2401.00004v2": "2401.00004v2", "hep-th/9901001": "hep-th_9901001", "math.GT/0309136": "math.GT_0309136"} {
		if row := rows[id]; row["status"] != "ok" {
			t.Errorf("%s: row %v, want ok", id, row)
		}
		if _, err := os.Stat(filepath.Join(dir, "build", "sources", folder, "main.tex")); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "build", "sources")); len(entries) != 4 {
		t.Errorf("build/sources holds %d entries, want the 4 valid papers", len(entries))
	}
}
