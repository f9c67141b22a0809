package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/cputime"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
	"github.com/claimtrace/claimtrace/internal/store"
)

// BenchmarkEvalPages is `claimtrace eval --offline --snapshot` on
// realistic pages: real Onyx deep-research reports (copies of the 100
// under other task ids past 100), and a snapshot holding for every URL
// they cite a web page of 10–30 KB built from real scraped page text
// (realisticPage). It runs the default offline pipeline (offline judge,
// offline check-worthiness filter, contradiction detection) into a fresh
// SQLite store and reports the CPU time of the process a report, the
// judged pairs and pages a report, the store's size a report and the peak
// of the heap in use during the run:
//
//	go test ./internal/eval -run '^$' -bench 'EvalPages/reports=10$' -benchtime 1x
//	go test ./internal/eval -run '^$' -bench 'EvalPages/reports=(100|1000)$' -benchtime 1x
//
// Its snapshot is cold, as an older claimtrace wrote it: every page is
// extracted on every run. BenchmarkEvalPagesKept is the same run from a
// snapshot that keeps each page's extracted text (what `claimtrace
// snapshot` writes now); the pattern 'EvalPages' runs both.
func BenchmarkEvalPages(b *testing.B) { benchEvalPages(b, false) }

// BenchmarkEvalPagesKept is BenchmarkEvalPages from a snapshot keeping
// each page's extracted text beside it (fetch.ExtractorVersion).
func BenchmarkEvalPagesKept(b *testing.B) { benchEvalPages(b, true) }

// benchEvalPages runs the offline pipeline over the pages fixture, its
// snapshot keeping the pages' extracted text or not.
func benchEvalPages(b *testing.B, keepText bool) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("reports=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			fx := buildPagesFixture(b, dir, n, keepText)
			offline, err := judge.NewDefaultOffline()
			if err != nil {
				b.Fatal(err)
			}
			var cpu time.Duration
			var peak uint64
			var pairs, storeBytes int64
			for lap := 0; b.Loop(); lap++ {
				st, err := store.Open(context.Background(), filepath.Join(dir, fmt.Sprintf("lap%d.db", lap)))
				if err != nil {
					b.Fatal(err)
				}
				ev, err := New(Options{
					Dataset: fx.ds, ReportsDir: fx.reports, OutDir: filepath.Join(dir, fmt.Sprintf("out%d", lap)),
					Mode: "snapshot", Snapshot: fx.snap, Store: st, Concurrency: 4,
					Fetcher: fetch.New(fetch.Options{Offline: true, Snapshot: fx.snapshot, Canon: canonical}),
					Judge:   offline, JudgeName: "offline", CheckWorthy: factcheck.CheckWorthy, Detector: prov.Offline{},
				})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				stop := watchHeap(&peak)
				start := cputime.Process()
				sum, err := ev.Run(context.Background())
				cpu += cputime.Process() - start
				stop()
				if err != nil {
					b.Fatal(err)
				}
				if sum.Reports != n {
					b.Fatalf("scored %d reports of %d: %+v", sum.Reports, n, sum.Failures)
				}
				pairs += int64(sum.Cited.Pairs)
				st.Close()
				storeBytes += filesSize(b, filepath.Join(dir, fmt.Sprintf("lap%d.db", lap)))
			}
			laps := float64(b.N)
			b.ReportMetric(cpu.Seconds()/laps/float64(n), "cpu-s/report")
			b.ReportMetric(float64(pairs)/laps/float64(n), "pairs/report")
			b.ReportMetric(float64(fx.pages)/float64(min(n, fx.distinct)), "pages/report")
			b.ReportMetric(float64(fx.pageBytes)/float64(fx.pages)/1024, "page-KB")
			b.ReportMetric(float64(storeBytes)/laps/float64(n)/(1<<20), "store-MB/report")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// canonical is the URL canonicalisation `claimtrace eval` gives the
// fetcher.
func canonical(u string) string {
	c, err := biblio.CanonicalURL(u)
	if err != nil {
		return u
	}
	return c
}

// watchHeap samples the heap in use until the returned stop is called,
// keeping the largest figure in peak.
func watchHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// filesSize is the size of a SQLite database with its write-ahead log.
func filesSize(tb testing.TB, db string) int64 {
	var n int64
	for _, f := range []string{db, db + "-wal"} {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// pagesFixture is a dataset, a reports folder and a snapshot of realistic
// pages for them.
type pagesFixture struct {
	ds            *dataset.Dataset
	reports, snap string
	snapshot      *fetch.Snapshot
	pages         int // pages in the snapshot
	pageBytes     int64
	distinct      int // distinct reports (the copies cite the same pages)
}

// buildPagesFixture writes n reports (the shared Onyx reports, copied
// under other task ids past the 100 of them), a dataset with a task for
// each whose ground truth is a third of the report's cited titles, and a
// snapshot with a realistic page for every cited URL, keeping each page's
// extracted text beside it if keepText.
func buildPagesFixture(b testing.TB, dir string, n int, keepText bool) pagesFixture {
	b.Helper()
	src := sharedtest.Dir(b, "reports/onyx-drb/report_logs")
	texts := scrapedPages(b)
	entries, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	fx := pagesFixture{reports: filepath.Join(dir, "reports"), snap: filepath.Join(dir, "snap"), distinct: len(entries)}
	gtDir := filepath.Join(dir, "dataset", dataset.GTDir)
	for _, d := range []string{fx.reports, gtDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	w, err := fetch.CreateSnapshot(fx.snap)
	if err != nil {
		b.Fatal(err)
	}
	if !keepText {
		w.SkipText()
	}
	var tasks []byte
	citing := map[string][]string{} // URL → the claims citing it, across reports
	var urls []string
	for i := range n {
		e := entries[i%len(entries)]
		text, err := report.Load(filepath.Join(src, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("2501.%05d", i+1)
		tasks = append(tasks, fmt.Sprintf(`{"arxiv_id":%q,"title":"Survey %d","prompt":"Research this; ensure only papers published before January 2026 are referenced.","application_domain":"D%d"}`+"\n", id, i, i%10)...)
		if err := os.WriteFile(filepath.Join(fx.reports, id+".md"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		doc := report.Parse(text)
		var gt []byte
		for k, c := range doc.Citations {
			if c.URL != "" && k%3 == 0 {
				gt = append(gt, fmt.Sprintf(`{"bib_id":"r%d","title":%q,"author":"A","meta_info":{}}`+"\n", k, pageTitle(c.URL))...)
			}
		}
		if err := os.WriteFile(filepath.Join(gtDir, id+".jsonl"), gt, 0o644); err != nil {
			b.Fatal(err)
		}
		if i >= len(entries) {
			continue // a copy: its pages are written
		}
		for _, c := range doc.Claims {
			for _, ci := range c.Citations {
				if ci < 0 || ci >= len(doc.Citations) || doc.Citations[ci].URL == "" {
					continue
				}
				u := doc.Citations[ci].URL
				if _, ok := citing[u]; !ok {
					urls = append(urls, u)
				}
				citing[u] = append(citing[u], c.Text)
			}
		}
	}
	for _, u := range urls {
		page := realisticPage(u, citing[u], texts)
		fx.pages++
		fx.pageBytes += int64(len(page))
		if err := w.Add(&fetch.Page{URL: u, Status: 200, ContentType: "text/html; charset=utf-8", Body: []byte(page)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dataset", dataset.TasksFile), tasks, 0o644); err != nil {
		b.Fatal(err)
	}
	if fx.ds, err = dataset.LoadDataset(filepath.Join(dir, "dataset")); err != nil {
		b.Fatal(err)
	}
	if fx.snapshot, err = fetch.OpenSnapshot(fx.snap); err != nil {
		b.Fatal(err)
	}
	return fx
}

// scrapedPages returns the text of the real web pages FACT scraped for the
// `dls` system's citations (90 pages, median 10 KB).
func scrapedPages(tb testing.TB) []string {
	tb.Helper()
	dir := sharedtest.Dir(tb, "reports/openai-dr-science-drb/results/fact/dls")
	f, err := os.Open(filepath.Join(dir, "validated.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var out []string
	for sc.Scan() {
		var rec struct {
			Citations map[string]struct {
				Content string `json:"url_content"`
			} `json:"citations_deduped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatal(err)
		}
		var keys []string
		for u := range rec.Citations {
			keys = append(keys, u)
		}
		sort.Strings(keys)
		for _, u := range keys {
			if c := rec.Citations[u].Content; len(c) > 2000 {
				out = append(out, c)
			}
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("no scraped page text in the FACT outputs")
	}
	return out
}

// pageTitle is the title of the page made for a URL.
func pageTitle(u string) string { return "Findings reported at " + u }

// realisticPage makes the page a cited URL serves: 10–30 KB of HTML (the
// size picked by the URL's hash) whose article is real scraped page text
// (one of texts, picked by the hash, repeated when short) with the
// report's sentences citing the URL set among its paragraphs, as the page
// would state what the report took from it; around it the chrome of a
// real site: head with a stylesheet and scripts, navigation, a sidebar of
// links, a footer; a third of the pages carry scholarly meta tags.
func realisticPage(u string, claims []string, texts []string) string {
	h := fnv.New64a()
	h.Write([]byte(u))
	sum := h.Sum64()
	size := 10<<10 + int(sum%(20<<10))
	body := texts[int(sum>>20)%len(texts)]
	for len(body) < size {
		body += "\n\n" + body
	}
	paras := strings.Split(body, "\n")
	var article strings.Builder
	seen := map[string]bool{}
	k := 0
	for _, p := range paras {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if article.Len() > size-2048 {
			break
		}
		fmt.Fprintf(&article, "<p>%s</p>\n", html.EscapeString(p))
		if k < len(claims) && article.Len() > (k+1)*size/(len(claims)+2) {
			for k < len(claims) && seen[claims[k]] {
				k++
			}
			if k < len(claims) {
				seen[claims[k]] = true
				fmt.Fprintf(&article, "<p>%s</p>\n", html.EscapeString(claims[k]))
				k++
			}
		}
	}
	title := pageTitle(u)
	meta := ""
	if sum%3 == 0 {
		meta = fmt.Sprintf(`<meta name="citation_title" content=%q><meta name="citation_author" content="Rivera, Ana"><meta name="citation_publication_date" content="2024/03/11">`, title)
	}
	var nav strings.Builder
	for i := range 24 {
		fmt.Fprintf(&nav, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	return fmt.Sprintf(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title>%s
<link rel="stylesheet" href="/static/site.css"><script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>
<style>body{font-family:sans-serif}.nav{display:flex}.sidebar{width:240px}</style></head>
<body><header><div class="logo">Site</div><nav class="nav"><ul>%s</ul></nav></header>
<main><article><h1>%s</h1>
%s</article>
<aside class="sidebar"><h2>Related</h2><ul>%s</ul></aside></main>
<footer><p>© 2025 Publisher. All rights reserved. <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p></footer>
<script src="/static/app.js" defer></script></body></html>`,
		html.EscapeString(title), meta, nav.String(), html.EscapeString(title), article.String(), nav.String())
}
