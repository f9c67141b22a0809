package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/report"
)

// articleText returns the text of the page's <article id=ID> as a reader
// sees it: tags stripped, entities decoded.
func articleText(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<article id="` + id + `"[^>]*>(.*?)</article>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no <article id=%q> in the page", id)
	}
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], ""))
}

// claimClasses maps each claim anchor of the page to its class attribute.
func claimClasses(body string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<a href="[^"]*" id="claim-([^"]+)" class="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func TestAuditViewShowsTheReportWithEveryClaim(t *testing.T) {
	f := demoFixture(t, "")
	l, err := f.srv.loadReport(context.Background(), f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	code, body, hdr := f.get(t, f.reportPath())
	if code != http.StatusOK {
		t.Fatalf("GET audit view: %d\n%s", code, body)
	}
	text, err := report.Load(filepath.Join(f.dir, f.task+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wordsOf(articleText(t, body, "report")), visibleWords(text); got != want {
		t.Errorf("the report text shown differs from the file's visible text (%d letters and digits shown, %d in the file)", len(got), len(want))
	}
	if strings.Contains(body, "## 2. Retrievers") || !strings.Contains(body, "<h2>2. Retrievers</h2>") {
		t.Errorf("the report's Markdown is not rendered: no <h2> for its headings")
	}
	if strings.Contains(body, `id="text-note"`) {
		t.Errorf("the report file is intact, yet the page says the text was rebuilt")
	}
	want := map[string]string{}
	for _, c := range l.Res.Claims {
		want[c.ID] = "claim st-" + claimStatus(c)
	}
	if diff := cmp.Diff(want, claimClasses(body)); diff != "" {
		t.Errorf("claim anchors (-want +got):\n%s", diff)
	}
	// Known claims of the bundled report: c1 cites nothing, c3 is the RAG
	// paper's own summary.
	if want["c1"] != "claim st-uncited" || want["c3"] != "claim st-supported" {
		t.Errorf("c1 %q, c3 %q: want uncited and supported", want["c1"], want["c3"])
	}
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"} {
		if hdr.Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q: want script-src 'self', frame-ancestors 'none', no unsafe-inline", csp)
	}
	if got := strings.Count(body, "<script"); got != 1 || !strings.Contains(body, `<script src="/static/audit.js"></script>`) {
		t.Errorf("%d script elements; want exactly the audit.js file", got)
	}
	for _, s := range []string{"PCov", "71.0%", "Empirical AEff", "no claim audited yet"} {
		if !strings.Contains(body, s) {
			t.Errorf("audit view lacks %q", s)
		}
	}
}

func TestClaimPanelHighlightsEvidenceInTheSource(t *testing.T) {
	f := demoFixture(t, "")
	ctx := context.Background()
	l, err := f.srv.loadReport(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := f.get(t, f.reportPath()+"/claims/c3")
	if code != http.StatusOK {
		t.Fatalf("GET claim panel: %d\n%s", code, body)
	}
	if strings.Contains(body, "<html") {
		t.Errorf("the claim fragment carries the page layout")
	}
	c3 := l.Res.Claims[2]
	v := c3.Verdicts[0]
	src := l.Res.Sources[sourceOf(l.Res, v.URL)]
	_, stored, ok, err := f.st.GetText(ctx, src.TextSHA)
	if err != nil || !ok {
		t.Fatalf("source text %s: ok %v, %v", src.TextSHA, ok, err)
	}
	m := regexp.MustCompile(`(?s)<mark class="evidence">(.*?)</mark>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no evidence highlighted in the panel:\n%s", body)
	}
	mark := html.UnescapeString(m[1])
	if mark != v.Evidence || !strings.Contains(stored, mark) {
		t.Errorf("highlighted %q; want the verdict's evidence, a substring of the stored source text", mark)
	}
	pre := regexp.MustCompile(`(?s)<pre class="source-text">(.*?)</pre>`).FindStringSubmatch(body)
	if pre == nil {
		t.Fatal("no source context around the evidence")
	}
	shown := strings.TrimSuffix(strings.TrimPrefix(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(pre[1], "")), "… "), " …")
	if !strings.Contains(stored, shown) {
		t.Errorf("the context shown is not a piece of the source text: %q", shown)
	}
	// The strength is the judge's (0.80 before the judge read quantities
	// as quantities, 0.82 after): the panel must show the verdict's.
	nu := fmt.Sprintf("%.2f", v.Strength)
	for _, s := range []string{"supported", "strength ν = " + nu, "Provenance path π(c3)", "—supports ν " + nu + " (supported)→", "complete", v.Reason} {
		if !strings.Contains(body, html.EscapeString(s)) {
			t.Errorf("panel lacks %q", s)
		}
	}

	// The whole source text, with this claim's evidence marked.
	code, page, _ := f.get(t, f.reportPath()+"/sources/"+strconv.Itoa(sourceOf(l.Res, v.URL))+"?claim=c3")
	if code != http.StatusOK {
		t.Fatalf("GET source page: %d", code)
	}
	if got := articleText(t, page, "source-text"); got != stored {
		t.Errorf("source page shows %d bytes, the stored text has %d", len(got), len(stored))
	}
	if !strings.Contains(page, "1 evidence passage marked for claim c3") {
		t.Errorf("source page does not mark the claim's evidence")
	}
}

func TestAuditViewRebuildsAMissingReport(t *testing.T) {
	f := demoFixture(t, "")
	file := filepath.Join(f.dir, f.task+".md")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		change func() error
		note   string
	}{
		{"edited", func() error { return os.WriteFile(file, append(text, "\nOne more line."...), 0o644) }, "changed since it was evaluated"},
		{"removed", func() error { return os.Remove(file) }, "cannot be read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.change(); err != nil {
				t.Fatal(err)
			}
			code, body, _ := f.get(t, f.reportPath())
			if code != http.StatusOK {
				t.Fatalf("GET: %d", code)
			}
			if !strings.Contains(body, tt.note) || !strings.Contains(body, "rebuilt from the claims alone") {
				t.Errorf("page does not say why the text was rebuilt (%q)", tt.note)
			}
			shown := articleText(t, body, "report")
			l, _ := f.srv.loadReport(context.Background(), f.run, f.task)
			for _, c := range l.Res.Claims {
				if !strings.Contains(wordsOf(shown), visibleWords(c.Text)) {
					t.Errorf("rebuilt text lacks claim %s", c.ID)
				}
			}
			if got := len(claimClasses(body)); got != len(l.Res.Claims) {
				t.Errorf("%d claims highlighted in the rebuilt text, want %d", got, len(l.Res.Claims))
			}
		})
	}
}

func TestPagesAndErrors(t *testing.T) {
	f := demoFixture(t, "")
	rp := f.reportPath()
	tests := []struct {
		path string
		code int
		want string
	}{
		{"/", http.StatusOK, `href="/runs/` + f.run + `"`},
		{"/runs/" + f.run, http.StatusOK, `href="` + rp + `"`},
		{rp + "?claim=c2", http.StatusOK, `id="claim-panel" data-claim="c2"`},
		{rp + "?claim=c3", http.StatusOK, `id="claim-c3" class="claim st-supported selected"`},
		{rp + "/claims/c1", http.StatusOK, "check-worthy"},
		{"/runs/no-such-run", http.StatusNotFound, "run &#34;no-such-run&#34;: not found"},
		{"/runs/" + f.run + "/reports/no-such-task", http.StatusNotFound, "not found"},
		{rp + "?claim=c999", http.StatusNotFound, "claim &#34;c999&#34;"},
		{rp + "/claims/c999", http.StatusNotFound, "not found"},
		{rp + "?claim=%3Cb%3E", http.StatusBadRequest, "claim id &#34;&lt;b&gt;&#34;"},
		{"/runs/" + f.run + "/reports/a%2Fb", http.StatusBadRequest, "without slashes"},
		{"/runs/" + f.run + "/reports/a%00b", http.StatusBadRequest, "printable"},
		{"/runs/" + strings.Repeat("r", 300), http.StatusBadRequest, "run"},
		{rp + "/sources/x", http.StatusBadRequest, "source number"},
		{rp + "/sources/-1", http.StatusBadRequest, "source number"},
		{rp + "/sources/999", http.StatusNotFound, "not found"},
		{"/nowhere", http.StatusNotFound, ""},
		{"/static/audit.js", http.StatusOK, "use strict"},
		{"/static/style.css", http.StatusOK, "--evidence"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, body, hdr := f.get(t, tt.path)
			if code != tt.code {
				t.Fatalf("status %d, want %d\n%s", code, tt.code, body)
			}
			if !strings.Contains(body, tt.want) {
				t.Errorf("body lacks %q:\n%s", tt.want, body)
			}
			if hdr.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("nosniff header missing")
			}
		})
	}
	// A 500 says no more than "internal error".
	f.st.Close()
	code, body, _ := f.get(t, "/")
	if code != http.StatusInternalServerError || !strings.Contains(body, "internal error") || strings.Contains(body, "sql") {
		t.Errorf("closed store: %d %q; want 500 with no detail", code, body)
	}
}

// TestRunPageFollowsRewrittenReports checks that the run page's decoded
// headlines follow a report unit rewritten by a rerun.
func TestRunPageFollowsRewrittenReports(t *testing.T) {
	f := demoFixture(t, "")
	ctx := context.Background()
	_, body, _ := f.get(t, "/runs/"+f.run)
	if !strings.Contains(body, "71.0%") {
		t.Fatalf("run page lacks the report's PCov 71.0%%")
	}
	u, ok, err := f.st.GetUnit(ctx, f.run, "report", f.task)
	if err != nil || !ok {
		t.Fatalf("report unit: %v %v", ok, err)
	}
	u.Data = []byte(strings.Replace(string(u.Data), `"status":"done"`, `"status":"failed","error":"rerun broke it"`, 1))
	u.Status = "failed"
	if err := f.st.PutUnit(ctx, u); err != nil {
		t.Fatal(err)
	}
	_, body, _ = f.get(t, "/runs/"+f.run)
	if !strings.Contains(body, "rerun broke it") {
		t.Errorf("run page still shows the report as it was before the rewrite")
	}
}

func TestRunsPageOfAnEmptyStore(t *testing.T) {
	f := serve(t, &fixture{st: openStore(t, t.TempDir())}, "")
	code, body, _ := f.get(t, "/")
	if code != http.StatusOK || !strings.Contains(body, "The store holds no runs yet") {
		t.Errorf("empty store: %d\n%s", code, body)
	}
	if !strings.Contains(body, "read-only") {
		t.Errorf("a server without a token does not say it is read-only")
	}
}

// TestEveryEvidencePassageIsLocated checks, over the whole bundled report,
// that each verdict's evidence is found in its source's stored text, so the
// view highlights it rather than showing a bare quote.
func TestEveryEvidencePassageIsLocated(t *testing.T) {
	f := demoFixture(t, "")
	ctx := context.Background()
	l, err := f.srv.loadReport(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	var withText, located, quoted int
	for _, c := range l.Res.Claims {
		for _, v := range c.Verdicts {
			ev, err := f.srv.evidence(ctx, l, v, texts)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case ev.Located:
				located++
				withText++
			case ev.TextHref != "":
				withText++
				t.Errorf("claim %s, %s: evidence not located in the stored text: %s", c.ID, v.URL, ev.Note)
			case v.Evidence != "":
				quoted++
				if ev.Note == "" {
					t.Errorf("claim %s, %s: evidence shown alone without saying why", c.ID, v.URL)
				}
			}
		}
	}
	if withText == 0 || located != withText {
		t.Errorf("%d of %d evidence passages with a stored source text located", located, withText)
	}
	t.Logf("%d evidence passages located in stored source texts, %d shown as quotes (no stored text)", located, quoted)
}

// TestPagesShowThePrecisionRange: the audit view and the run page show
// strict precision and, beside it, the bound over verifiable citations.
func TestPagesShowThePrecisionRange(t *testing.T) {
	f := demoFixture(t, "")
	_, page, _ := f.get(t, f.reportPath())
	// The demo: 17 hits; 23 citations count strictly, 22 once its walled
	// page is left out.
	for _, s := range []string{"Citation precision", "73.9%", "Verifiable only", "77.3%"} {
		if !strings.Contains(page, s) {
			t.Errorf("audit view lacks %q", s)
		}
	}
	_, page, _ = f.get(t, "/runs/"+f.run)
	if !strings.Contains(page, `73.9% <span class="small">(77.3%)</span>`) {
		t.Errorf("run page lacks the precision range 73.9%% (77.3%%)")
	}
}
