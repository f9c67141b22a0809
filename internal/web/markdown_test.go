package web

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/claimtrace/claimtrace"

	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// linkTarget matches the target of a Markdown inline link or image, which
// a reader of the rendered page does not see as text.
var linkTarget = regexp.MustCompile(`\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+"[^"]*")?\)`)

// wordRE is what the tests count as a word: a run of letters and digits.
var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

// visibleWords returns the letters and digits a reader sees of Markdown
// text, less those of link targets, run together: markup between two
// words (as in "**word**word") does not split them on the page.
func visibleWords(md string) string {
	md = listNumber.ReplaceAllString(md, "$1")
	return wordsOf(linkTarget.ReplaceAllString(md, "]"))
}

// listNumber matches the number of an ordered list item, which the page
// draws as a list marker, not text.
var listNumber = regexp.MustCompile(`(?m)^([ \t>]*)\d{1,9}[.)](?:[ \t]|$)`)

// wordsOf returns the letters and digits of s, run together.
func wordsOf(s string) string { return strings.Join(wordRE.FindAllString(s, -1), "") }

// fragment parses rendered HTML as the body of a page.
func fragment(t testing.TB, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader("<!doctype html><html><body>" + s + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// textOfNodes returns the text of the tree under n, and the text of each
// claim's highlight pieces (elements with data-claim) by claim id.
func textOfNodes(n *html.Node) (all string, claims map[string]string) {
	var b strings.Builder
	claims = map[string]string{}
	var walk func(n *html.Node, claim string)
	walk = func(n *html.Node, claim string) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "data-claim" {
					claim = a.Val
				}
			}
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			if claim != "" {
				claims[claim] += n.Data
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, claim)
		}
	}
	walk(n, "")
	return b.String(), claims
}

// checkCovered renders a whole report with its claims and checks that the
// page shows every word of the report a reader should see, and that each
// claim's highlight holds exactly the words of its span.
func checkCovered(t *testing.T, name, text string, doc claimtrace.Document) {
	t.Helper()
	var spans []span
	var refs []claimRef
	for i, c := range doc.Claims {
		spans = append(spans, span{Start: c.Start, End: c.End, Ref: i})
		refs = append(refs, claimRef{ID: c.ID, Href: "?claim=" + c.ID, Index: i, Status: statusUncited})
	}
	clean := cleanSpans(text, spans)
	p := renderReport(text, 0, len(text), clean, refs)
	all, byClaim := textOfNodes(fragment(t, string(p.HTML)))
	if got, want := wordsOf(all), visibleWords(text); got != want {
		t.Errorf("%s: the rendered page shows %d letters and digits, the report %d visible ones", name, len(got), len(want))
	}
	for _, sp := range clean {
		c := doc.Claims[sp.Ref]
		want := visibleWords(text[sp.Start:sp.End])
		if got := wordsOf(byClaim[c.ID]); got != want {
			t.Errorf("%s: claim %s highlights %q\nwant the words of its text %q", name, c.ID, got, want)
		}
	}
	if len(clean) == 0 && len(doc.Claims) > 0 {
		t.Errorf("%s: no claim has a span in the text", name)
	}
}

func TestRenderedReportHighlightsEveryClaim(t *testing.T) {
	for _, name := range []string{
		filepath.Join("..", "demo", "data", "reports", "2312.10997.md"),
		filepath.Join("testdata", "hostile", "hostile.md"),
	} {
		text, err := report.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		checkCovered(t, filepath.Base(name), text, report.Parse(text))
	}
	// Markdown written for the test: claims crossing emphasis, links,
	// code, a list and a table; a reference list in [n]: form.
	text := "# Findings\n\nThe *adaptive* retriever cut latency by **40%** in [the first trial](https://trials.example.org/a) [1].\n" +
		"A second study, using `bm25` as baseline, saw no gain [2].\n\n" +
		"- Recall rose to 0.91 on the _held-out_ set [1].\n- Costs fell ~~twice~~ once [2].\n\n" +
		"| metric | value |\n|---|---|\n| recall | 0.91 |\n\n" +
		"[1]: https://trials.example.org/a \"Trial A\"\n[2]: https://trials.example.org/b\n"
	checkCovered(t, "written", text, report.Parse(text))
}

// TestRenderedRealReportsHighlightEveryClaim renders real deep-research
// reports ([[n]](url) links at every claim, and [n] with a URL list).
func TestRenderedRealReportsHighlightEveryClaim(t *testing.T) {
	for _, sub := range []string{"reports/onyx-drb/report_logs", "reports/claude37-drb"} {
		dir := sharedtest.Dir(t, sub)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() || n == 6 {
				continue
			}
			text, err := report.Load(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			n++
			checkCovered(t, e.Name(), text, report.Parse(text))
		}
		if n == 0 {
			t.Errorf("no report read in %s", dir)
		}
	}
}

// hostileMarkdown is Markdown and HTML written to turn a renderer into a
// script runner, each line a different way in.
const hostileMarkdown = `# Notes <script>alert(1)</script>

Plain <img src=x onerror=alert(2)> and <svg onload=alert(3)> and <iframe src="javascript:alert(4)"></iframe>.

Links: [a](javascript:alert(5)) [b](JaVaScRiPt:alert(6)) [c](  javascript:alert(7)) [d](jav&#x09;ascript:alert(8))
[e](data:text/html;base64,PHNjcmlwdD5hbGVydCg5KTwvc2NyaXB0Pg==) [f](vbscript:msgbox(10)) [g](/api/runs "x\" onmouseover=\"alert(11)")
[h](https://ok.example.org/x "t\" onclick=\"alert(12)") <javascript:alert(13)> ![i](javascript:alert(14)) ![j](https://track.example.org/p.png)

<a href="javascript:alert(15)" onclick="alert(16)">raw link</a> <style>body{display:none}</style>
<div style="background:url(javascript:alert(17))">styled</div>

[k]: javascript:alert(18)
Reference [k] and [k][] used.

` + "```html\n<script>alert(19)</script>\n```\n" + `
| <b onmouseover=alert(20)>x</b> | y |
|---|---|
| <img src=x onerror=alert(21)> | z |
`

// checkInert fails on any element, attribute or URL in rendered HTML that
// could run script, load a resource or leave the page's origin unasked.
func checkInert(t testing.TB, rendered string) {
	t.Helper()
	allowed := map[string]bool{"p": true, "br": true, "hr": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"ul": true, "ol": true, "li": true, "blockquote": true, "pre": true, "code": true, "em": true, "strong": true, "del": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "span": true, "a": true,
		"html": true, "head": true, "body": true}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if !allowed[n.Data] {
				t.Errorf("element <%s> in the rendered report", n.Data)
			}
			for _, a := range n.Attr {
				k := strings.ToLower(a.Key)
				switch {
				case strings.HasPrefix(k, "on"), k == "style", k == "src", k == "srcset", k == "action", k == "formaction":
					t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
				case k == "href":
					v := strings.ToLower(strings.TrimSpace(a.Val))
					if !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "mailto:") && !strings.HasPrefix(v, "?claim=") {
						t.Errorf("link to %q", a.Val)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(fragment(t, rendered))
}

func TestRenderedReportIsInert(t *testing.T) {
	doc := report.Parse(hostileMarkdown)
	var spans []span
	var refs []claimRef
	for i, c := range doc.Claims {
		spans = append(spans, span{Start: c.Start, End: c.End, Ref: i})
		refs = append(refs, claimRef{ID: c.ID, Href: "?claim=" + c.ID, Index: i, Status: statusUnsupported})
	}
	p := renderReport(hostileMarkdown, 0, len(hostileMarkdown), cleanSpans(hostileMarkdown, spans), refs)
	out := string(p.HTML)
	checkInert(t, out)
	// The payloads are text a reviewer can read, not dropped.
	all, _ := textOfNodes(fragment(t, out))
	for _, s := range []string{"<script>alert(1)</script>", "<img src=x onerror=alert(2)>", `<a href="javascript:alert(15)" onclick="alert(16)">`, "<style>body{display:none}</style>", "[k]: javascript:alert(18)", "<script>alert(19)</script>"} {
		if !strings.Contains(all, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
	if !strings.Contains(out, `href="https://ok.example.org/x"`) || !strings.Contains(out, `noopener`) || !strings.Contains(out, `noreferrer`) {
		t.Errorf("the one safe link lost its target or its rel:\n%s", out)
	}
	if len(p.Shown) == 0 {
		t.Errorf("no claim highlighted in the hostile text")
	}
}

// TestAuditPageOfHostileMarkdown serves a report of hostileMarkdown
// through the pipeline: the audit page's report text is inert.
func TestAuditPageOfHostileMarkdown(t *testing.T) {
	f := hostileFixture(t, "")
	l, err := f.srv.loadReport(context.Background(), f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := f.get(t, f.reportPath()+"?claim="+l.Res.Claims[0].ID)
	if code != 200 {
		t.Fatalf("GET: %d", code)
	}
	m := regexp.MustCompile(`(?s)<article id="report"[^>]*>(.*?)</article>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no report article")
	}
	checkInert(t, strings.ReplaceAll(m[1], `href="`+f.reportPath()+`?claim=`, `href="?claim=`))
}

func FuzzRenderReport(f *testing.F) {
	f.Add(hostileMarkdown, 10, 60, 70, 120)
	f.Add("# T\n\nA *b* [c](https://x.example) `d` e.\n\n```\nf\n```\n", 4, 20, 21, 40)
	f.Add("x", 0, 1, 1, 1)
	f.Fuzz(func(t *testing.T, text string, a, b, c, d int) {
		if len(text) > 4096 {
			return
		}
		spans := []span{{Start: a, End: b, Ref: 0}, {Start: c, End: d, Ref: 1}}
		refs := []claimRef{{ID: "c1", Href: "?claim=c1", Status: statusSupported}, {ID: "c2", Href: "?claim=c2", Status: statusUncited}}
		clean := cleanSpans(text, spans)
		p := renderReport(text, 0, len(text), clean, refs)
		checkInert(t, string(p.HTML))
		for ref := range p.Shown {
			if ref < 0 || ref >= len(refs) {
				t.Fatalf("claim %d shown: out of range", ref)
			}
		}
		// Pages cover the text in order, each within the bounds.
		pages := paginate(text, clean, 1, 64)
		at := 0
		for _, pg := range pages {
			if pg.From != at || pg.To <= pg.From && len(text) > 0 || pg.To > len(text) || pg.To-pg.From > 64 {
				t.Fatalf("page %+v after %d in a text of %d bytes", pg, at, len(text))
			}
			at = pg.To
		}
		if at != len(text) {
			t.Fatalf("pages end at %d of %d", at, len(text))
		}
	})
}
