package eval

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"golang.org/x/sync/errgroup"
	_ "modernc.org/sqlite"

	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
	"github.com/claimtrace/claimtrace/internal/store"
)

// BenchmarkEvalSnapshot evaluates the 100 real Onyx deep-research reports
// offline against a generated snapshot holding a page for every URL they
// cite, with a generated dataset whose ground truth is a third of each
// report's cited titles. It measures the whole default pipeline: parse,
// resolve (snapshot read, HTML extraction), match, score, judge every
// (claim, source) pair offline, build the provenance graph, look for
// contradictions, compute AAR metrics, store, write.
func BenchmarkEvalSnapshot(b *testing.B) {
	dir := b.TempDir()
	benchEvalSnapshot(b, dir, func(i int) string { return filepath.Join(dir, fmt.Sprintf("b%d.db", i)) }, benchSetup{workers: 1})
}

// benchEvalSnapshot runs the BenchmarkEvalSnapshot laps, each on a fresh
// store opened from dsn(lap) (opening it is not timed).
// benchSetup is how a pipeline benchmark runs: leases as `claimtrace eval`
// takes them on PostgreSQL, the number of evaluators sharing the run (each
// with a store of its own on the one database), and the mode ("live"
// leases sources too; the fetcher reads the snapshot either way).
type benchSetup struct {
	leases  bool
	workers int
	mode    string
}

func (s benchSetup) String() string {
	return fmt.Sprintf("leases=%v/workers=%d/mode=%s", s.leases, s.workers, cmp.Or(s.mode, "offline"))
}

// benchEvalSnapshot runs the pipeline over the 100 Onyx reports as setup
// says, on the database dsn gives a lap.
func benchEvalSnapshot(b *testing.B, dir string, dsn func(lap int) string, setup benchSetup) {
	leases, workers, mode := setup.leases, setup.workers, cmp.Or(setup.mode, "offline")
	src := sharedtest.Dir(b, "reports/onyx-drb/report_logs")
	ds, reportsDir, snapDir, urls := buildEvalFixture(b, src, dir)
	snap, err := fetch.OpenSnapshot(snapDir)
	if err != nil {
		b.Fatal(err)
	}
	canon := func(u string) string {
		c, err := biblio.CanonicalURL(u)
		if err != nil {
			return u
		}
		return c
	}
	b.ReportMetric(float64(urls), "urls")
	offline, err := judge.NewDefaultOffline()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// Each worker has a store of its own on the one database, as
		// separate processes would.
		stores := make([]*store.Store, max(workers, 1))
		lapDSN := dsn(i)
		for w := range stores {
			if stores[w], err = store.Open(context.Background(), lapDSN); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		g, ctx := errgroup.WithContext(context.Background())
		for w, st := range stores {
			opts := Options{
				Dataset: ds, ReportsDir: reportsDir, OutDir: filepath.Join(dir, fmt.Sprintf("out%d-%d", i, w)),
				Mode: mode, Snapshot: snapDir, Store: st, Concurrency: 4,
				Fetcher: fetch.New(fetch.Options{Offline: true, Snapshot: snap, Canon: canon}),
				Judge:   offline, JudgeName: "offline", CheckWorthy: factcheck.CheckWorthy, Detector: prov.Offline{},
			}
			if leases {
				opts.Leaser = st // as `claimtrace eval` does on PostgreSQL
			}
			ev, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			g.Go(func() error {
				sum, err := ev.Run(ctx)
				if err == nil && sum.Reports != 100 {
					err = fmt.Errorf("worker %d scored %d reports, want 100 (%+v)", w, sum.Reports, sum.Failures)
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		for _, st := range stores {
			st.Close()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N)/100*1000, "ms/report")
}

// buildEvalFixture writes a dataset (one task per report), the reports and a
// snapshot with a synthetic scholarly page for every cited URL.
func buildEvalFixture(b *testing.B, src, dir string) (*dataset.Dataset, string, string, int) {
	b.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	reportsDir := filepath.Join(dir, "reports")
	gtDir := filepath.Join(dir, "dataset", dataset.GTDir)
	snapDir := filepath.Join(dir, "snap")
	for _, d := range []string{reportsDir, gtDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	w, err := fetch.CreateSnapshot(snapDir)
	if err != nil {
		b.Fatal(err)
	}
	var tasks []byte
	seen := map[string]bool{}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for i, e := range entries {
		text, err := report.Load(filepath.Join(src, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("2501.%05d", i+1)
		tasks = append(tasks, fmt.Sprintf(`{"arxiv_id":%q,"title":"Survey %d","prompt":"Research this; ensure only papers published before January 2026 are referenced.","application_domain":"D%d"}`+"\n", id, i, i%10)...)
		if err := os.WriteFile(filepath.Join(reportsDir, id+".md"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		var gt []byte
		doc := report.Parse(text)
		for k, c := range doc.Citations {
			if c.URL == "" {
				continue
			}
			title := fmt.Sprintf("Cited work %d of %s", k, c.URL)
			if k%3 == 0 {
				gt = append(gt, fmt.Sprintf(`{"bib_id":"r%d","title":%q,"author":"A","meta_info":{}}`+"\n", k, title)...)
			}
			if seen[c.URL] {
				continue
			}
			seen[c.URL] = true
			page := fmt.Sprintf(`<html><head><title>%s</title><meta name="citation_title" content=%q><meta name="citation_date" content="2024/05/01"></head><body><article><h1>%s</h1><p>%s</p></article></body></html>`,
				title, title, title, "This page reports findings about the topic with numbers such as 42% and 2024. ")
			if err := w.Add(&fetch.Page{URL: c.URL, Status: 200, ContentType: "text/html", Body: []byte(page)}); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(gtDir, id+".jsonl"), gt, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dataset", dataset.TasksFile), tasks, 0o644); err != nil {
		b.Fatal(err)
	}
	ds, err := dataset.LoadDataset(filepath.Join(dir, "dataset"))
	if err != nil {
		b.Fatal(err)
	}
	return ds, reportsDir, snapDir, len(seen)
}
