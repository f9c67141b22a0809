package fetch

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pages", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestExtractHTML(t *testing.T) {
	tests := []struct {
		file, url string
		status    int
		wantMeta  Meta
		wantTitle string
		wantWall  string
		contains  []string // in Text
		excludes  []string // boilerplate that must not be in Text
	}{
		{
			file: "arxiv_abs.html", url: "https://arxiv.org/abs/1706.03762", status: 200,
			wantMeta: Meta{
				Title: "Attention Is All You Need",
				Authors: []string{"Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit",
					"Llion Jones", "Aidan N. Gomez", "Lukasz Kaiser", "Illia Polosukhin"},
				ArXivID: "1706.03762", Date: date(2017, 6, 12), SiteName: "arXiv.org", Type: "website", Scholarly: true,
			},
			wantTitle: "Attention Is All You Need",
			contains:  []string{"We propose a new simple network architecture, the Transformer", "28.4 BLEU on the WMT 2014"},
			excludes:  []string{"Privacy Policy", "Skip to main content", "Search..."},
		},
		{
			file: "acm_dl.html", url: "https://dl.acm.org/doi/10.1145/3442188.3445922", status: 200,
			wantMeta: Meta{
				Title:   "On the Dangers of Stochastic Parrots: Can Language Models Be Too Big? 🦜",
				Authors: []string{"Emily M. Bender", "Timnit Gebru", "Angelina McMillan-Major", "Shmargaret Shmitchell"},
				DOI:     "10.1145/3442188.3445922", Date: date(2021, 3, 3),
				Journal:  "FAccT '21: Proceedings of the 2021 ACM Conference on Fairness, Accountability, and Transparency",
				SiteName: "ACM Conferences", Type: "research-article", Scholarly: true,
			},
			wantTitle: "On the Dangers of Stochastic Parrots: Can Language Models Be Too Big? 🦜",
			contains:  []string{"How big is too big?", "One of the biggest trends in natural language processing"},
			excludes:  []string{"Magazines", "All rights reserved"},
		},
		{
			file: "ieee_xplore.html", url: "https://ieeexplore.ieee.org/document/7780459", status: 200,
			wantMeta: Meta{
				Title:   "Deep Residual Learning for Image Recognition",
				Authors: []string{"Kaiming He", "Xiangyu Zhang", "Shaoqing Ren", "Jian Sun"},
				DOI:     "10.1109/CVPR.2016.90", Date: date(2016, 6, 27),
				Journal:  "2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)",
				SiteName: "IEEE Xplore", Scholarly: true,
			},
			wantTitle: "Deep Residual Learning for Image Recognition",
			contains:  []string{"An ensemble of these residual nets achieves 3.57% error on the ImageNet test set."},
			excludes:  []string{"Institutional Sign In", "All rights reserved"},
		},
		{
			file: "jsonld_scholarly.html", url: "https://www.nature.com/articles/s41586-021-03819-2", status: 200,
			wantMeta: Meta{
				Title:   "Highly accurate protein structure prediction with AlphaFold",
				Authors: []string{"John Jumper", "Richard Evans", "Alexander Pritzel", "Demis Hassabis"},
				DOI:     "10.1038/s41586-021-03819-2", Date: time.Date(2021, 7, 15, 0, 0, 0, 0, time.UTC),
				Journal: "Nature", SiteName: "Nature", Type: "ScholarlyArticle", Scholarly: true,
			},
			wantTitle: "Highly accurate protein structure prediction with AlphaFold",
			contains:  []string{"competitive with experimental structures in a majority of cases"},
			excludes:  []string{"Explore content"},
		},
		{
			file: "wikipedia.html", url: "https://en.wikipedia.org/wiki/Transformer_(deep_learning_architecture)", status: 200,
			wantMeta: Meta{
				Title:    "Transformer (deep learning architecture)",
				Authors:  []string{"Contributors to Wikimedia projects"},
				Date:     time.Date(2019, 8, 30, 6, 16, 49, 0, time.UTC),
				SiteName: "Wikipedia", Type: "Article",
			},
			wantTitle: "Transformer (deep learning architecture)",
			contains:  []string{"The transformer is a deep learning architecture", "A key breakthrough was LSTM (1995)"},
			excludes:  []string{"Create account", "Random article", "Contact us", "Jump to content"},
		},
		{
			file: "blog.html", url: "https://labnotes.example.org/posts/rag-still-hallucinates", status: 200,
			wantMeta: Meta{
				Title:   "Why retrieval-augmented generation still hallucinates",
				Authors: []string{"Priya Raman"}, Date: time.Date(2024, 11, 4, 11, 0, 0, 0, time.UTC),
				SiteName: "Lab Notes", Type: "BlogPosting",
			},
			wantTitle: "Why retrieval-augmented generation still hallucinates",
			contains:  []string{"the model's answer contradicted it in 9.4% of cases"},
			excludes:  []string{"Skip to main content", "Content licensed CC BY 4.0"},
		},
		{
			file: "cloudflare.html", url: "https://www.sciencedirect.com/science/article/pii/S0893608014002135", status: 403,
			wantMeta:  Meta{Title: "Just a moment..."},
			wantTitle: "Just a moment...", wantWall: WallBot,
		},
		{
			file: "paywall.html", url: "https://ledger.example.com/tech/ai-energy", status: 200,
			wantMeta: Meta{
				Title: "The hidden cost of training giant AI models", Authors: []string{"Maria Okafor"},
				Date: time.Date(2024, 3, 18, 9, 30, 0, 0, time.UTC), SiteName: "The Daily Ledger", Type: "NewsArticle",
			},
			wantTitle: "The hidden cost of training giant AI models", wantWall: WallPaywall,
			contains: []string{"Data centres that train the largest language models"},
		},
		{
			file: "soft404.html", url: "https://northwind.example.org/2023/05/old-post", status: 200,
			wantMeta:  Meta{Title: "Page not found", SiteName: "Northwind Research Blog"},
			wantTitle: "Page not found", wantWall: WallError,
		},
		{
			file: "login.html", url: "https://kb.acme.example/articles/4711", status: 200,
			wantMeta:  Meta{Title: "Sign in", SiteName: "Acme Knowledge Base"},
			wantTitle: "Sign in", wantWall: WallLogin,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := &Page{URL: tt.url, Status: tt.status, ContentType: "text/html; charset=utf-8", Body: fixture(t, tt.file)}
			c, err := Extract(p)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if diff := cmp.Diff(tt.wantMeta, c.Meta, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Meta (-want +got):\n%s", diff)
			}
			if c.Title != tt.wantTitle || c.Wall != tt.wantWall || c.Kind != KindHTML {
				t.Errorf("Title=%q Wall=%q Kind=%q, want %q %q html", c.Title, c.Wall, c.Kind, tt.wantTitle, tt.wantWall)
			}
			for _, s := range tt.contains {
				if !strings.Contains(c.Text, s) {
					t.Errorf("Text lacks %q:\n%s", s, c.Text)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(c.Text, s) {
					t.Errorf("Text has boilerplate %q:\n%s", s, c.Text)
				}
			}
			checkGolden(t, strings.TrimSuffix(tt.file, ".html")+".txt", c.Text)
		})
	}
}

// checkGolden compares got with testdata/golden/name, rewriting it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestExtractCharsetAndText(t *testing.T) {
	zh := `<html><head><meta charset="gbk"><meta property="og:site_name" content="知乎"><title>注意力机制综述 - 知乎</title></head><body><main>` +
		`<p>注意力机制是一种让模型在处理序列时关注相关部分的方法。Transformer 模型完全基于注意力机制，` +
		`在机器翻译任务上取得了当时最好的结果，并且训练速度更快。</p></main></body></html>`
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(zh))
	if err != nil {
		t.Fatal(err)
	}
	latin1 := []byte("<html><head><title>Caf\xe9 culture - Wikipedia</title></head><body><main><p>Caf\xe9s in Vienna served coffee since 1685.</p></main></body></html>")
	tests := []struct {
		name        string
		page        *Page
		title, text string
		kind, wall  string
	}{
		{"gbk declared in meta", &Page{URL: "https://zhuanlan.zhihu.com/p/1", Status: 200, ContentType: "text/html", Body: gbk},
			"注意力机制综述", "Transformer 模型完全基于注意力机制", KindHTML, ""},
		{"latin-1 in header", &Page{URL: "https://en.wikipedia.org/wiki/Caf%C3%A9", Status: 200, ContentType: "text/html; charset=iso-8859-1", Body: latin1},
			"Café culture", "Cafés in Vienna served coffee since 1685.", KindHTML, WallEmpty},
		{"markdown as text", &Page{URL: "https://raw.example.org/README.md", Status: 200, ContentType: "text/markdown; charset=utf-8",
			Body: []byte("# claimtrace\n\nEvaluates   research reports.\r\n\r\n\r\nSee docs.")},
			"claimtrace", "# claimtrace\n\nEvaluates research reports.\n\nSee docs.", KindText, WallEmpty},
		{"html served as text/plain", &Page{URL: "https://x.example/", Status: 200, ContentType: "text/plain",
			Body: []byte("<!DOCTYPE html><html><head><title>Real page</title></head><body><p>Body text.</p></body></html>")},
			"Real page", "Body text.", KindHTML, WallEmpty},
		{"sniffed without type", &Page{URL: "https://x.example/", Status: 200,
			Body: []byte("<html><head><title>Sniffed</title></head><body><p>Hello there.</p></body></html>")},
			"Sniffed", "Hello there.", KindHTML, WallEmpty},
		{"dead link page", &Page{URL: "https://x.example/gone", Status: 404, ContentType: "text/html", Body: []byte("<title>Not Found</title><h1>Not Found</h1>")},
			"Not Found", "Not Found", KindHTML, WallError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Extract(tt.page)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if c.Title != tt.title || c.Kind != tt.kind || c.Wall != tt.wall {
				t.Errorf("Title=%q Kind=%q Wall=%q, want %q %q %q", c.Title, c.Kind, c.Wall, tt.title, tt.kind, tt.wall)
			}
			if !strings.Contains(c.Text, tt.text) {
				t.Errorf("Text = %q, want it to contain %q", c.Text, tt.text)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	tests := []struct {
		name string
		page *Page
		want error
	}{
		{"nil", nil, claimtrace.ErrInvalid},
		{"image", &Page{URL: "https://x.example/fig.png", Status: 200, ContentType: "image/png", Body: []byte("\x89PNG\r\n\x1a\n")}, claimtrace.ErrInvalid},
		{"zip", &Page{URL: "https://x.example/a.zip", Status: 200, Body: []byte("PK\x03\x04 zip")}, claimtrace.ErrInvalid},
		{"unreachable", &Page{URL: "https://x.example/", Err: "dial tcp: refused"}, claimtrace.ErrUnreachable},
	}
	for _, tt := range tests {
		if _, err := Extract(tt.page); !errors.Is(err, tt.want) {
			t.Errorf("%s: error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestCleanTitle(t *testing.T) {
	tests := []struct {
		raw, host, site, want string
	}{
		{"Transformer (deep learning architecture) - Wikipedia", "en.wikipedia.org", "", "Transformer (deep learning architecture)"},
		{"Deep Residual Learning for Image Recognition | IEEE Conference Publication | IEEE Xplore", "ieeexplore.ieee.org", "", "Deep Residual Learning for Image Recognition | IEEE Conference Publication"},
		{"Attention is all you need | SpringerLink", "link.springer.com", "", "Attention is all you need"},
		{"[1706.03762] Attention Is All You Need", "arxiv.org", "", "Attention Is All You Need"},
		{"Attention Is All You Need - arXiv", "export.arxiv.org", "", "Attention Is All You Need"},
		{"BERT: Pre-training of Deep Bidirectional Transformers - ACL Anthology", "aclanthology.org", "", "BERT: Pre-training of Deep Bidirectional Transformers"},
		{"Highly accurate protein structure prediction with AlphaFold | Nature", "www.nature.com", "Nature", "Highly accurate protein structure prediction with AlphaFold"},
		{"Language models are few-shot learners | Proceedings of the 34th NeurIPS — ACM Digital Library", "dl.acm.org", "", "Language models are few-shot learners | Proceedings of the 34th NeurIPS"},
		{"Scaling laws | Oxford Academic", "academic.oup.com", "", "Scaling laws"},
		{"(PDF) Deep learning for time series | Request PDF", "www.researchgate.net", "", "Deep learning for time series"},
		{"GitHub - openai/gpt-2: Code for the paper", "github.com", "", "openai/gpt-2: Code for the paper"},
		{"The Verge - Why AI hallucinates", "www.theverge.com", "", "Why AI hallucinates"},
		{"Why AI hallucinates | The New York Times", "www.nytimes.com", "The New York Times", "Why AI hallucinates"},
		// Segments that are part of the title stay.
		{"GPT-4 Technical Report", "arxiv.org", "", "GPT-4 Technical Report"},
		{"Vision - Language Models: A Survey", "example.org", "", "Vision - Language Models: A Survey"},
		{"Data - Science", "example.com", "", "Data - Science"},
		{"Wikipedia", "en.wikipedia.org", "", "Wikipedia"},
		{"  spaced \n title  ", "", "", "spaced title"},
	}
	for _, tt := range tests {
		if got := cleanTitle(tt.raw, tt.host, tt.site); got != tt.want {
			t.Errorf("cleanTitle(%q, %q) = %q, want %q", tt.raw, tt.host, got, tt.want)
		}
	}
}

func TestMetaHelpers(t *testing.T) {
	dois := map[string]string{
		"10.1145/3442188.3445922":                    "10.1145/3442188.3445922",
		"doi:10.1109/CVPR.2016.90":                   "10.1109/CVPR.2016.90",
		"https://doi.org/10.1038/s41586-021-03819-2": "10.1038/s41586-021-03819-2",
		"info:doi/10.1000/xyz123.":                   "10.1000/xyz123",
		"https://doi.org/10.1002%2Fppp3.10347":       "10.1002/ppp3.10347",
		"ISBN 978-1-4673-8851-1":                     "",
		"see 10.1000/abc in text":                    "",
		"":                                           "",
	}
	for in, want := range dois {
		if got := cleanDOI(in); got != want {
			t.Errorf("cleanDOI(%q) = %q, want %q", in, got, want)
		}
	}
	ids := map[string]string{
		"https://arxiv.org/abs/1706.03762v7":       "1706.03762",
		"http://arxiv.org/pdf/2401.01234.pdf":      "2401.01234",
		"https://www.arxiv.org/abs/hep-th/9901001": "hep-th/9901001",
		"https://arxiv.org/html/2312.00001v2/":     "2312.00001",
		"https://example.org/abs/1706.03762":       "",
		"https://arxiv.org/list/cs.CL/recent":      "",
	}
	for in, want := range ids {
		if got := arXivFromURL(in); got != want {
			t.Errorf("arXivFromURL(%q) = %q, want %q", in, got, want)
		}
	}
	if got := arXivFromDOI("10.48550/arXiv.2303.08774"); got != "2303.08774" {
		t.Errorf("arXivFromDOI = %q", got)
	}
	dates := map[string]time.Time{
		"2017/06/12": date(2017, 6, 12), "2017-06": date(2017, 6, 1), "2017": date(2017, 1, 1),
		"June 12, 2017": date(2017, 6, 12), "12 June 2017": date(2017, 6, 12),
		"2024-11-04T12:00:00+01:00": time.Date(2024, 11, 4, 11, 0, 0, 0, time.UTC),
	}
	for in, want := range dates {
		if got, ok := parseDate(in); !ok || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "0001-01-01", "99999"} {
		if _, ok := parseDate(bad); ok {
			t.Errorf("parseDate(%q) succeeded", bad)
		}
	}
	if got := wordCount("Transformer 模型完全基于注意力机制, 2017"); got != 13 {
		t.Errorf("wordCount = %d, want 13 (1 word + 11 CJK characters + 1 number)", got)
	}
}

// TestWallsOnRealScrapes runs wall detection on the page texts another
// tool scraped for real deep-research citations (DRB FACT, ../shared/data).
// Pages the scraper itself recorded as challenge pages must be walls; long
// articles must not be.
func TestWallsOnRealScrapes(t *testing.T) {
	pages := realScrapes(t)
	var long, falsePos int
	walls := make(map[string]int)
	for _, p := range pages {
		c, err := Extract(&Page{URL: p.url, Status: 200, ContentType: "text/plain; charset=utf-8", Body: []byte(p.text)})
		if err != nil {
			t.Fatalf("Extract(%s): %v", p.url, err)
		}
		low := strings.ToLower(p.text)
		challenge := strings.HasPrefix(low, "checking your browser") || strings.HasPrefix(low, "just a moment")
		switch {
		case challenge && c.Wall != WallBot:
			t.Errorf("%s: challenge page got wall %q: %.120q", p.url, c.Wall, p.text)
		case strings.TrimSpace(p.text) == "" && c.Wall != WallEmpty:
			t.Errorf("%s: empty scrape got wall %q", p.url, c.Wall)
		case wordCount(p.text) > 1000:
			long++
			if c.Wall != "" {
				falsePos++
				t.Errorf("%s: %d-word article flagged %q", p.url, wordCount(p.text), c.Wall)
			}
		}
		walls[c.Wall]++
	}
	t.Logf("%d real scraped pages: walls %v; %d articles over 1000 words, %d of them flagged", len(pages), walls, long, falsePos)
}

type scrape struct{ url, text string }

// realScrapes reads the url_content of DRB FACT's validated.jsonl.
func realScrapes(tb testing.TB) []scrape {
	tb.Helper()
	dir := sharedtest.Dir(tb, "reports/openai-dr-science-drb/results/fact/dls")
	f, err := os.Open(filepath.Join(dir, "validated.jsonl"))
	if err != nil {
		tb.Skipf("validated.jsonl: %v", err)
	}
	defer f.Close()
	var out []scrape
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec struct {
			Deduped map[string]struct {
				Content string `json:"url_content"`
			} `json:"citations_deduped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatalf("validated.jsonl: %v", err)
		}
		for u, v := range rec.Deduped {
			out = append(out, scrape{u, v.Content})
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "pages", "*.html"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<meta name="citation_title" content="x"><script type="application/ld+json">{"@graph":[{"@type":"ScholarlyArticle","author":[{"givenName":"A"}],"identifier":{"value":"10.1/x"}}]}</script>`))
	f.Add([]byte(`<title>[2401.00001v2] x | y - z</title><meta name="dc.identifier" content="doi:10.1/%zz">`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := extractWithin(t, &Page{URL: "https://example.org/p", Status: 200, ContentType: "text/html", Body: body}, 10*time.Second)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		for _, s := range append([]string{c.Text, c.Title, c.Meta.Title, c.Meta.DOI, c.Meta.Journal}, c.Meta.Authors...) {
			if !validUTF8(s) {
				t.Fatalf("invalid UTF-8: %q", s)
			}
		}
		if c.Meta.DOI != "" && !strings.HasPrefix(c.Meta.DOI, "10.") {
			t.Fatalf("DOI %q", c.Meta.DOI)
		}
	})
}
