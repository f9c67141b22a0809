package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// snapPage is one page of a snapshot fixture: status 0 is unreachable,
// an empty body no file.
type snapPage struct {
	url    string
	status int
	body   string
	err    string
}

// gtPaper is the ground-truth paper every case report also cites, so each
// report's precision says what its second citation did to it.
const gtPaperURL = "https://arxiv.org/abs/2001.00001"

var gtPaperPage = snapPage{gtPaperURL, 200, `<html><head><title>[2001.00001] Retrieval for Widgets</title>
<meta name="citation_title" content="Retrieval for Widgets"><meta name="citation_arxiv_id" content="2001.00001"></head>
<body><h1>Retrieval for Widgets</h1><blockquote>Abstract: We retrieve widgets from a large corpus of widget descriptions and show that retrieval helps widget builders in every setting we tried.</blockquote></body></html>`, ""}

// aliveCases are the pages of issue 12 §1, each in a report of its own.
//
// precision is strict precision (issue 19: an unreadable page without
// identity counts against the report, as a dead link does); verifiable is
// the bound over verifiable citations, which leaves it out.
var aliveCases = []struct {
	name       string
	page       snapPage
	reason     string
	precision  float64
	verifiable float64
	// recallHits is the ground-truth references the report finds.
	recallHits int
}{
	{"wikipedia stub", snapPage{"https://en.wikipedia.org/wiki/Widget_stub", 200,
		`<html><head><title>Widget stub - Wikipedia</title></head><body><p>A widget stub is a small widget used in tests.</p></body></html>`, ""},
		score.ReasonNotAPaper, 1, 1, 1},
	{"short blog post", snapPage{"https://someones-blog.example/posts/widgets", 200,
		`<html><head><title>Widgets!</title><meta property="og:type" content="article"></head><body><article><p>I like widgets a lot. More soon.</p></article></body></html>`, ""},
		score.ReasonNotAPaper, 1, 1, 1},
	{"js shell", snapPage{"https://viewer.example/app#/doc/17", 200,
		`<html><head><title>Loading…</title><script src="/static/app.js"></script></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`, ""},
		score.ReasonUnverifiable, 0.5, 1, 1},
	// The PII in the URL is an identity: a paper, outside the ground truth.
	{"cloudflare wall, scholarly host, pii", snapPage{"https://www.sciencedirect.com/science/article/pii/S0000000000000001", 403,
		`<html><head><title>Just a moment...</title><script>window._cf_chl_opt={cvId:'3'};</script></head><body><h1>Checking your browser before accessing sciencedirect.com</h1><p>This process is automatic.</p></body></html>`, ""},
		score.ReasonNotInGT, 0.5, 0.5, 1},
	{"cloudflare wall, scholarly host, no id", snapPage{"https://www.tandfonline.com/toc/widgets/current", 403,
		`<html><head><title>Just a moment...</title><script>window._cf_chl_opt={cvId:'3'};</script></head><body><h1>Checking your browser before accessing tandfonline.com</h1><p>This process is automatic.</p></body></html>`, ""},
		score.ReasonUnverifiable, 0.5, 1, 1},
	{"bot wall, news site", snapPage{"https://news.example.com/2024/05/widgets-everywhere", 200,
		`<html><head><title>Access Denied</title></head><body><p>Access denied. Please verify you are human to continue.</p><div class="g-recaptcha"></div></body></html>`, ""},
		score.ReasonUnverifiable, 0.5, 1, 1},
	{"paywall with citation_title, no doi", snapPage{"https://journals.example.org/article/123", 200,
		`<html><head><title>Dense Widget Retrieval | Journal of Widgets</title><meta name="citation_title" content="Dense Widget Retrieval">
<meta name="citation_journal_title" content="Journal of Widgets"></head><body><h1>Dense Widget Retrieval</h1><p>Subscribe to read the full article. Purchase access for $39.95.</p></body></html>`, ""},
		"", 1, 1, 2},
	{"js shell, scholarly host", snapPage{"https://dl.acm.org/doi/book/shell", 200,
		`<html><head><title>Loading…</title><script src="/app.js"></script></head><body><div id="app"></div></body></html>`, ""},
		score.ReasonUnverifiable, 0.5, 1, 1},
	{"404", snapPage{"https://made-up.example/papers/widget-theory", 404, "", ""},
		score.ReasonUnresolvable, 0.5, 0.5, 1},
	{"dns failure", snapPage{"https://no-such-host.example/paper.pdf", 0, "", "lookup no-such-host.example: no such host"},
		score.ReasonUnresolvable, 0.5, 0.5, 1},
	{"soft 404", snapPage{"https://widgets.example/paper/7", 200,
		`<html><head><title>Page not found</title></head><body><p>Sorry, the page you are looking for does not exist.</p></body></html>`, ""},
		score.ReasonUnresolvable, 0.5, 0.5, 1},
	{"nonexistent doi", snapPage{"https://doi.org/10.9999/made.up.1", 404,
		`<html><head><title>Error: DOI Not Found</title></head><body><p>DOI Not Found</p></body></html>`, ""},
		score.ReasonUnresolvable, 0.5, 0.5, 1},
	{"nonexistent arxiv id", snapPage{"https://arxiv.org/abs/2312.99999", 404,
		`<html><head><title>Article identifier not recognized</title></head><body><p>Article identifier '2312.99999' not recognized</p></body></html>`, ""},
		score.ReasonUnresolvable, 0.5, 0.5, 1},
}

// writeSnapshot writes a snapshot directory holding pages.
func writeSnapshot(t *testing.T, dir string, pages []snapPage) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, "pages"), 0o755)
	var index strings.Builder
	for i, p := range pages {
		e := map[string]any{"url": p.url, "status": p.status}
		if p.body != "" {
			name := "pages/p" + string(rune('a'+i/26)) + string(rune('a'+i%26)) + ".html"
			os.WriteFile(filepath.Join(dir, name), []byte(p.body), 0o644)
			e["file"], e["content_type"] = name, "text/html"
		}
		if p.err != "" {
			e["error"] = p.err
		}
		b, _ := json.Marshal(e)
		index.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "index.jsonl"), []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runFixture evaluates reports (task id → text) offline against one
// ground truth and a snapshot of pages, and returns each report's result.
func runFixture(t *testing.T, gt string, reports map[string]string, pages []snapPage) (map[string]*Result, *Summary) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ds", dataset.GTDir), 0o755)
	os.MkdirAll(filepath.Join(dir, "reports"), 0o755)
	var tasks strings.Builder
	for id, text := range reports {
		tasks.WriteString(`{"arxiv_id":"` + id + `","title":"A Survey of Widgets","prompt":"p"}` + "\n")
		os.WriteFile(filepath.Join(dir, "ds", dataset.GTDir, id+".jsonl"), []byte(gt), 0o644)
		os.WriteFile(filepath.Join(dir, "reports", id+".md"), []byte(text), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "ds", dataset.TasksFile), []byte(tasks.String()), 0o644)
	writeSnapshot(t, filepath.Join(dir, "snap"), pages)
	ds, err := dataset.LoadDataset(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fetch.OpenSnapshot(filepath.Join(dir, "snap"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	canon := func(u string) string {
		if c, err := biblio.CanonicalURL(u); err == nil {
			return c
		}
		return u
	}
	ev, err := New(Options{Dataset: ds, ReportsDir: filepath.Join(dir, "reports"), OutDir: filepath.Join(dir, "out"), Mode: "offline",
		Snapshot: snap.Dir(), Store: st, Fetcher: fetch.New(fetch.Options{Offline: true, Snapshot: snap, Canon: canon})})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.ReportsFailed != 0 {
		t.Fatalf("failures: %+v", sum.Failures)
	}
	out := map[string]*Result{}
	for id := range reports {
		r, err := ReadResult(filepath.Join(dir, "out", "reports", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		out[id] = r
	}
	return out, sum
}

const widgetGT = `{"bib_id":"retrieval","title":"Retrieval for Widgets","author":"A","meta_info":{"eprint":"2001.00001"}}
{"bib_id":"dense","title":"Dense Widget Retrieval","author":"B","meta_info":{"journal":"Journal of Widgets"}}
{"bib_id":"other","title":"Widgets at Scale","author":"C","meta_info":{}}
`

// TestAliveButUnreadable scores one report a case of issue 12 §1: live
// pages that cannot be read are not fabricated links, but no hit either:
// strict precision counts them as it counts dead and made-up ones, the
// verifiable-only bound leaves them out; the identity a walled page gives
// (meta tags, an id in its URL) is matched as usual.
func TestAliveButUnreadable(t *testing.T) {
	reports := map[string]string{}
	pages := []snapPage{gtPaperPage}
	ids := map[string]int{}
	for i, c := range aliveCases {
		id := "2301.000" + string(rune('0'+i/10)) + string(rune('0'+i%10))
		ids[id] = i
		reports[id] = "# Widgets\n\nRetrieval helps widget builders [1](" + gtPaperURL + ").\n\nWidgets are everywhere now [2](" + c.page.url + ").\n"
		pages = append(pages, c.page)
	}
	results, sum := runFixture(t, widgetGT, reports, pages)
	unverifiable := 0
	for id, res := range results {
		c := aliveCases[ids[id]]
		s := res.Citation
		if s.Precision == nil || *s.Precision != c.precision || s.PrecisionVerifiable == nil || *s.PrecisionVerifiable != c.verifiable {
			t.Errorf("%s: precision %v, verifiable %v; want %v, %v (unmatched %+v)", c.name, deref(s.Precision), deref(s.PrecisionVerifiable), c.precision, c.verifiable, s.Unmatched)
		}
		if s.GTHits != c.recallHits {
			t.Errorf("%s: %d ground-truth hits, want %d (matched %+v)", c.name, s.GTHits, c.recallHits, s.Matched)
		}
		reason := ""
		for _, u := range s.Unmatched {
			if u.URL == c.page.url {
				reason = u.Reason
			}
		}
		if reason != c.reason {
			t.Errorf("%s: reason %q, want %q", c.name, reason, c.reason)
		}
		if want := btoi(c.reason == score.ReasonUnverifiable); s.Unverifiable != want {
			t.Errorf("%s: unverifiable %d, want %d", c.name, s.Unverifiable, want)
		}
		unverifiable += s.Unverifiable
	}
	if unverifiable != 4 || sum.Citation.Unverifiable != 4 {
		t.Errorf("%d unverifiable citations in all, summary says %d, want 4", unverifiable, sum.Citation.Unverifiable)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestWorkIdentityByTitle: a paper outside the ground truth cited through
// its arXiv abstract, its PDF, doi.org and its venue page is one work, and
// so is a title-only reference plus the arXiv URL of the same paper; a
// paper with a similar title, or the same title under another arXiv id, is
// another work.
func TestWorkIdentityByTitle(t *testing.T) {
	pages := []snapPage{gtPaperPage,
		{"https://arxiv.org/abs/2005.00001", 200, `<html><head><title>[2005.00001] Learning Widgets from Small Data</title>
<meta name="citation_title" content="Learning Widgets from Small Data"><meta name="citation_arxiv_id" content="2005.00001"></head><body><p>Abstract: small data, many widgets, and a method that learns them from a handful of examples in every domain we tried.</p></body></html>`, ""},
		{"https://doi.org/10.5555/lwsd.2020", 200, `<html><head><meta name="citation_title" content="Learning Widgets from Small Data">
<meta name="citation_doi" content="10.5555/lwsd.2020"></head><body><p>Learning Widgets from Small Data. Proceedings of the Widget Conference, 2020, pages 1 to 9, with an appendix.</p></body></html>`, ""},
		{"https://proceedings.example.org/2020/lwsd.html", 200, `<html><head><meta name="citation_title" content="Learning widgets from small data">
<meta name="citation_conference_title" content="Widget Conference"></head><body><p>Subscribe to read this article.</p></body></html>`, ""},
		{"https://arxiv.org/abs/2005.00002", 200, `<html><head><meta name="citation_title" content="Learning Widgets from Small Data II"></head><body><p>Abstract: the sequel, with more widgets, larger data sets and a new method that learns them faster than before.</p></body></html>`, ""},
		{"https://arxiv.org/abs/2005.00003", 200, `<html><head><meta name="citation_title" content="Learning Widgets from Small Data"></head><body><p>Abstract: another paper with the very same title, by other authors, about another kind of widget entirely.</p></body></html>`, ""},
	}
	reports := map[string]string{
		"2301.00101": "# W\n\nRetrieval helps [1](" + gtPaperURL + "). Small data suffices [2](https://arxiv.org/abs/2005.00001), " +
			"as the PDF shows [3](https://arxiv.org/pdf/2005.00001v2), the DOI [4](https://doi.org/10.5555/lwsd.2020) " +
			"and the venue [5](https://proceedings.example.org/2020/lwsd.html).\n",
		"2301.00102": "# W\n\nRetrieval helps [1]. Small data suffices [2]. It was shown again [3].\n\n## References\n\n" +
			"[1] " + gtPaperURL + "\n[2] J. Smith and K. Lee. Learning Widgets from Small Data. In Proceedings of the Widget Conference, 2020.\n" +
			"[3] https://arxiv.org/abs/2005.00001\n",
		"2301.00103": "# W\n\nRetrieval helps [1](" + gtPaperURL + "). Small data suffices [2](https://arxiv.org/abs/2005.00001). " +
			"A sequel agrees [3](https://arxiv.org/abs/2005.00002). A namesake differs [4](https://arxiv.org/abs/2005.00003).\n",
	}
	results, _ := runFixture(t, widgetGT, reports, pages)
	for id, want := range map[string]struct {
		papers    int
		precision float64
	}{"2301.00101": {2, 0.5}, "2301.00102": {2, 0.5}, "2301.00103": {4, 0.25}} {
		s := results[id].Citation
		if s.Papers != want.papers || s.Precision == nil || *s.Precision != want.precision {
			t.Errorf("%s: %d papers, precision %v; want %d and %v (unmatched %+v)", id, s.Papers, deref(s.Precision), want.papers, want.precision, s.Unmatched)
		}
	}
	for _, u := range results["2301.00101"].Citation.Unmatched {
		if len(u.URLs) != 4 {
			t.Errorf("the joined work lists URLs %v, want its four", u.URLs)
		}
	}
}
