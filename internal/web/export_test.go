package web

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExportDemo exports the demo run: an index linking the report page,
// and a report page holding the whole report text, one anchor and one
// panel per claim, the evidence highlighted, no script and a CSP that
// forbids loading anything.
func TestExportDemo(t *testing.T) {
	f := demoFixture(t, "")
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "html")
	out, err := f.srv.Export(ctx, f.run, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Reports) != 1 || len(out.Failed) != 0 {
		t.Fatalf("export = %+v", out)
	}
	index, err := os.ReadFile(out.Index)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), `<a href="`+f.task+`.html">`+f.task+`</a>`) {
		t.Errorf("the index does not link the report page:\n%s", index)
	}
	b, err := os.ReadFile(filepath.Join(dir, f.task+".html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	l, err := f.srv.loadReport(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(f.dir, f.task+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wordsOf(articleText(t, page, "report")), visibleWords(string(text)); got != want {
		t.Errorf("the report text shown differs from the file's visible text")
	}
	for _, c := range l.Res.Claims {
		if !strings.Contains(page, `href="#panel-`+c.ID+`" id="claim-`+c.ID+`"`) || !strings.Contains(page, `<span class="static-anchor" id="panel-`+c.ID+`"></span><section class="static-panel" id="panel-`+c.ID+`-body">`) {
			t.Errorf("claim %s: no anchor or no panel", c.ID)
		}
	}
	if n := strings.Count(page, `<mark class="evidence">`); n == 0 {
		t.Error("no evidence passage highlighted")
	}
	for _, bad := range []string{"<script", "/static/", "/runs/", "/api/", "<form", "claim-timer"} {
		if strings.Contains(page, bad) || strings.Contains(string(index), bad) {
			t.Errorf("the static pages hold %q", bad)
		}
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	if csp == nil || !strings.Contains(csp[1], "default-src 'none'") {
		t.Errorf("no CSP forbidding loads: %v", csp)
	}
}

// TestExportHostileIsInert exports the hostile report: its payloads are
// text in the static page too.
func TestExportHostileIsInert(t *testing.T) {
	f := hostileFixture(t, "")
	dir := t.TempDir()
	out, err := f.srv.Export(context.Background(), f.run, dir, nil)
	if err != nil || len(out.Reports) != 1 {
		t.Fatalf("export = %+v, %v", out, err)
	}
	b, _ := os.ReadFile(out.Reports[0])
	page := string(b)
	for _, raw := range []string{"<script", "<img", "onerror=alert(2)>", `href="javascript:`} {
		if strings.Contains(page, raw) {
			t.Errorf("raw %q in the static page", raw)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the payload is not shown as escaped text")
	}
	text, _ := os.ReadFile(filepath.Join("testdata", "hostile", "hostile.md"))
	if got, want := wordsOf(articleText(t, page, "report")), visibleWords(string(text)); got != want {
		t.Errorf("the hostile report's text is not all shown")
	}
}

func TestExportName(t *testing.T) {
	for in, want := range map[string]string{"2312.10997": "2312.10997.html", "hep-th_9901001": "hep-th_9901001.html"} {
		if got := exportName(in); got != want {
			t.Errorf("exportName(%q) = %q, want %q", in, got, want)
		}
	}
	seen := map[string]string{}
	for _, in := range []string{"a b", "a_b", "a/b", "..", ".hidden", "index", "ünï"} {
		got := exportName(in)
		if strings.ContainsAny(got, "/ \\") || strings.HasPrefix(got, ".") || got == "index.html" {
			t.Errorf("exportName(%q) = %q", in, got)
		}
		if prev, ok := seen[got]; ok {
			t.Errorf("%q and %q share the file %s", prev, in, got)
		}
		seen[got] = in
	}
}
