package fetch

import (
	"context"
	"fmt"
	"html"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkExtractFixtures extracts each hand-written page in testdata.
func BenchmarkExtractFixtures(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("testdata", "pages", "*.html"))
	for _, name := range files {
		body := fixture(b, filepath.Base(name))
		b.Run(filepath.Base(name), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			p := &Page{URL: "https://example.org/x", Status: 200, ContentType: "text/html; charset=utf-8", Body: body}
			for b.Loop() {
				if _, err := Extract(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExtractRealPages extracts the real page texts scraped for
// deep-research citations (../shared/data), each laid out as a publisher
// page: head metadata, navigation, the article in paragraphs, a footer.
func BenchmarkExtractRealPages(b *testing.B) {
	scrapes := realScrapes(b)
	var pages []*Page
	var total int64
	for _, s := range scrapes {
		if strings.TrimSpace(s.text) == "" {
			continue
		}
		body := []byte(asPublisherPage(s))
		total += int64(len(body))
		pages = append(pages, &Page{URL: s.url, Status: 200, ContentType: "text/html; charset=utf-8", Body: body})
	}
	b.SetBytes(total)
	b.ReportMetric(float64(len(pages)), "pages/op")
	for b.Loop() {
		for _, p := range pages {
			if _, err := Extract(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkExtractPDF extracts the generated two-page paper.
func BenchmarkExtractPDF(b *testing.B) {
	body := paperPDF("Attention Is All You Need")
	p := &Page{URL: "https://arxiv.org/pdf/1706.03762", Status: 200, ContentType: "application/pdf", Body: body}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Extract(p); err != nil {
			b.Fatal(err)
		}
	}
}

func asPublisherPage(s scrape) string {
	var b strings.Builder
	lines := strings.Split(s.text, "\n")
	title := strings.TrimSpace(strings.TrimLeft(lines[0], "# "))
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s | Journal Site</title>`, html.EscapeString(title))
	fmt.Fprintf(&b, `<meta name="citation_title" content="%s"><meta name="citation_author" content="Doe, Jane"><meta name="citation_doi" content="10.1000/bench.1">`, html.EscapeString(title))
	b.WriteString(`<meta property="og:site_name" content="Journal Site"><script>window.dataLayer=[];</script></head><body><header><nav>`)
	for i := range 30 {
		fmt.Fprintf(&b, `<a href="/section/%d">Section %d</a> `, i, i)
	}
	b.WriteString(`</nav></header><main><article><h1>` + html.EscapeString(title) + `</h1>`)
	for _, para := range strings.Split(s.text, "\n\n") {
		para = strings.TrimSpace(para)
		switch {
		case para == "":
		case strings.HasPrefix(para, "#"):
			fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(strings.TrimLeft(para, "# ")))
		default:
			fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(para))
		}
	}
	b.WriteString(`</article><aside><h3>Related</h3><ul><li><a href="/a">Another article</a></li></ul></aside></main>`)
	b.WriteString(`<footer><p>&copy; 2025 Journal Site. All rights reserved. <a href="/privacy">Privacy</a></p></footer></body></html>`)
	return b.String()
}

// BenchmarkSnapshotFetch reads every real scraped page back from a
// snapshot, as an offline evaluation does (canonical lookup, file read,
// hash check).
func BenchmarkSnapshotFetch(b *testing.B) {
	scrapes := realScrapes(b)
	dir := b.TempDir()
	w, err := CreateSnapshot(dir)
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	var total int64
	for _, s := range scrapes {
		if s.url == "" {
			continue
		}
		body := []byte(asPublisherPage(s))
		total += int64(len(body))
		if err := w.Add(&Page{URL: s.url, Status: 200, ContentType: "text/html", Body: body}); err != nil {
			b.Fatal(err)
		}
		// Look pages up in another spelling, as reports cite them.
		urls = append(urls, strings.Replace(s.url, "https://", "http://", 1)+"#cite")
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	snap, err := OpenSnapshot(dir)
	if err != nil {
		b.Fatal(err)
	}
	c := New(Options{Snapshot: snap, Offline: true})
	b.SetBytes(total)
	b.ReportMetric(float64(len(urls)), "pages/op")
	for b.Loop() {
		for _, u := range urls {
			if _, err := c.Fetch(context.Background(), u); err != nil {
				b.Fatal(err)
			}
		}
	}
}
