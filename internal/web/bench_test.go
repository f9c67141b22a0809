package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// benchReports is how many real reports the benchmarks evaluate.
const benchReports = 5

// realFixture evaluates the first benchReports Onyx deep-research reports
// (real text, ~170 cited URLs each) offline, against a generated snapshot
// where each cited URL serves a page quoting the sentences that cite it, so
// verdicts carry evidence found in stored source text as in a real run.
func realFixture(b *testing.B) (*fixture, *eval.Result) {
	b.Helper()
	src := sharedtest.Dir(b, "reports/onyx-drb/report_logs")
	entries, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	dir := b.TempDir()
	reportsDir, gtDir, snapDir := filepath.Join(dir, "reports"), filepath.Join(dir, "dataset", dataset.GTDir), filepath.Join(dir, "snap")
	for _, d := range []string{reportsDir, gtDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	w, err := fetch.CreateSnapshot(snapDir)
	if err != nil {
		b.Fatal(err)
	}
	links := regexp.MustCompile(`\[\[?\d+\]?\]\([^)]*\)`)
	var tasks []string
	for i, e := range entries[:benchReports] {
		text, err := report.Load(filepath.Join(src, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("2501.%05d", i+1)
		tasks = append(tasks, fmt.Sprintf(`{"arxiv_id":%q,"title":"Survey %d","prompt":"Research this."}`, id, i))
		if err := os.WriteFile(filepath.Join(reportsDir, id+".md"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gtDir, id+".jsonl"), []byte(`{"bib_id":"r1","title":"A reference","author":"A","meta_info":{}}`+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		doc := report.Parse(text)
		quotes := map[string][]string{}
		for _, c := range doc.Claims {
			for _, ci := range c.Citations {
				if u := doc.Citations[ci].URL; u != "" {
					quotes[u] = append(quotes[u], links.ReplaceAllString(c.Text, ""))
				}
			}
		}
		for u, qs := range quotes {
			if w.Has(u) {
				continue
			}
			body := fmt.Sprintf("<html><head><title>Source %s</title></head><body><article><h1>Source</h1><p>Background paragraph of the page, about the topic in general terms.</p><p>%s</p><p>Closing paragraph with unrelated remarks.</p></article></body></html>",
				u, strings.Join(qs, "</p><p>"))
			if err := w.Add(&fetch.Page{URL: u, Status: 200, ContentType: "text/html", Body: []byte(body)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dataset", dataset.TasksFile), []byte(strings.Join(tasks, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ds, err := dataset.LoadDataset(filepath.Join(dir, "dataset"))
	if err != nil {
		b.Fatal(err)
	}
	st := openStore(b, dir)
	opts := pipeline(b, st, snapDir)
	opts.Dataset, opts.ReportsDir, opts.OutDir = ds, reportsDir, filepath.Join(dir, "out")
	ev, err := eval.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	sum, err := ev.Run(context.Background())
	if err != nil || sum.Reports != benchReports {
		b.Fatalf("evaluated %d reports (%v, %+v)", sum.Reports, err, sum.Failures)
	}
	f := serve(b, &fixture{st: st, run: sum.Run, task: "2501.00001"}, "")
	l, err := f.srv.loadReport(context.Background(), f.run, f.task)
	if err != nil {
		b.Fatal(err)
	}
	return f, l.Res
}

// benchGet serves path b.N times through the handler, in process, and
// reports the page size and the given metrics.
func benchGet(b *testing.B, f *fixture, path string, metrics map[string]float64) {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	var size int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
	for unit, v := range metrics {
		b.ReportMetric(v, unit)
	}
}

// BenchmarkAuditView renders the audit view of a real report: the text
// with every claim highlighted, the claim list and the figures.
func BenchmarkAuditView(b *testing.B) {
	f, res := realFixture(b)
	l, err := f.srv.loadReport(context.Background(), f.run, f.task)
	if err != nil {
		b.Fatal(err)
	}
	texts := map[string]string{}
	var withEvidence, located int
	for _, c := range res.Claims {
		for _, v := range c.Verdicts {
			ev, err := f.srv.evidence(context.Background(), l, v, texts)
			if err != nil {
				b.Fatal(err)
			}
			if v.Evidence != "" {
				withEvidence++
			}
			if ev.Located {
				located++
			}
		}
	}
	benchGet(b, f, f.reportPath(), map[string]float64{"claims": float64(len(res.Claims)), "evidence": float64(withEvidence), "located": float64(located)})
}

// BenchmarkClaimPanel renders the panel of the cited claim with the most
// verdicts: evidence located in each stored source text, the provenance
// path from the stored graph.
func BenchmarkClaimPanel(b *testing.B) {
	f, res := realFixture(b)
	best := 0
	for i, c := range res.Claims {
		if len(c.Verdicts) > len(res.Claims[best].Verdicts) {
			best = i
		}
	}
	_, body, _ := f.getB(b, f.reportPath()+"/claims/"+res.Claims[best].ID)
	benchGet(b, f, f.reportPath()+"/claims/"+res.Claims[best].ID, map[string]float64{
		"verdicts": float64(len(res.Claims[best].Verdicts)),
		"located":  float64(strings.Count(body, `<pre class="source-text">`)),
	})
}

// BenchmarkRunPage renders a run's report list over real stored results.
func BenchmarkRunPage(b *testing.B) {
	f, _ := realFixture(b)
	benchGet(b, f, "/runs/"+f.run, map[string]float64{"reports": benchReports})
}

// BenchmarkReportAPI serves a real report's stored result as JSON.
func BenchmarkReportAPI(b *testing.B) {
	f, _ := realFixture(b)
	benchGet(b, f, "/api"+f.reportPath(), nil)
}

// getB is get for benchmarks.
func (f *fixture) getB(b *testing.B, path string) (int, string, http.Header) {
	b.Helper()
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String(), rec.Header()
}

// BenchmarkExport writes the static HTML of a run of real reports: the
// index and one page per report with every claim's panel.
func BenchmarkExport(b *testing.B) {
	f, _ := realFixture(b)
	ctx := context.Background()
	claims := 0
	for b.Loop() {
		out, err := f.srv.Export(ctx, f.run, b.TempDir(), nil)
		if err != nil || len(out.Reports) != benchReports {
			b.Fatalf("export = %+v, %v", out, err)
		}
		if claims == 0 {
			for _, p := range out.Reports {
				page, _ := os.ReadFile(p)
				claims += strings.Count(string(page), `class="static-panel"`)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/benchReports, "ms/report")
	b.ReportMetric(float64(claims)/benchReports, "claims/report")
}
