package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHostileReportIsInertText renders a report whose claims and cited page
// carry script and markup payloads and checks that every page shows them as
// escaped text: no payload element, no payload attribute, quotes escaped.
func TestHostileReportIsInertText(t *testing.T) {
	f := hostileFixture(t, testToken)
	ctx := context.Background()
	l, err := f.srv.loadReport(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	// The pipeline kept the payloads: the test is about the view.
	var cited, evidence bool
	for _, c := range l.Res.Claims {
		cited = cited || strings.Contains(c.Text, "<script>alert(1)</script>")
		for _, v := range c.Verdicts {
			evidence = evidence || strings.Contains(v.Evidence, "<script>alert(1)</script>")
		}
	}
	if !cited || !evidence {
		t.Fatalf("fixture: payload in a claim %v, in an evidence passage %v; want both", cited, evidence)
	}
	text, err := os.ReadFile(filepath.Join("testdata", "hostile", "hostile.md"))
	if err != nil {
		t.Fatal(err)
	}

	pages := map[string]string{}
	for _, c := range l.Res.Claims {
		for _, p := range []string{f.reportPath() + "?claim=" + c.ID, f.reportPath() + "/claims/" + c.ID} {
			code, body, _ := f.get(t, p)
			if code != http.StatusOK {
				t.Fatalf("GET %s: %d", p, code)
			}
			pages[p] = body
		}
	}
	code, body, _ := f.get(t, f.reportPath()+"/sources/0")
	if code != http.StatusOK {
		t.Fatalf("GET source page: %d", code)
	}
	pages["source"] = body
	code, body, _ = f.get(t, "/runs/"+f.run)
	if code != http.StatusOK {
		t.Fatalf("GET run page: %d", code)
	}
	pages["run"] = body

	for name, body := range pages {
		for _, raw := range []string{"<script>alert", "<img", "onerror=alert(2)>", `"double"`, `'single'`, "</article><script>", "javascript:alert"} {
			if strings.Contains(body, raw) && !(raw == "javascript:alert" && strings.Contains(body, "[click me](javascript:alert(3))")) {
				t.Errorf("%s: raw %q in the HTML", name, raw)
			}
		}
		if n := strings.Count(body, "<script"); n > 1 {
			t.Errorf("%s: %d script elements", name, n)
		}
		if strings.Contains(body, `href="javascript:`) {
			t.Errorf("%s: a javascript: link", name)
		}
	}
	audit := pages[f.reportPath()+"?claim=c1"]
	for _, escaped := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "&#34;double&#34;", "&#39;single&#39;", "&lt;/article&gt;&lt;script&gt;alert(4)&lt;/script&gt;"} {
		if !strings.Contains(audit, escaped) {
			t.Errorf("audit view lacks the escaped text %q", escaped)
		}
	}
	if got, want := wordsOf(articleText(t, audit, "report")), visibleWords(string(text)); got != want {
		t.Errorf("the hostile report's text is not all shown:\n%s", articleText(t, audit, "report"))
	}
	if !strings.Contains(pages[f.reportPath()+"/claims/c1"], `<mark class="evidence">`) {
		t.Errorf("c1's evidence (holding a payload) is not highlighted in the source text")
	}

	// The JSON API gives the same text, as JSON strings.
	code, raw, hdr := f.get(t, "/api/runs/"+f.run+"/reports/"+f.task)
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Fatalf("API report: %d %s", code, hdr.Get("Content-Type"))
	}
	var back struct {
		Claims []struct {
			Text string `json:"text"`
		} `json:"claims"`
	}
	if err := json.Unmarshal([]byte(raw), &back); err != nil || len(back.Claims) != len(l.Res.Claims) || back.Claims[0].Text != l.Res.Claims[0].Text {
		t.Errorf("API report does not round-trip the claims: %v", err)
	}

	// A review note is text too.
	note := `<script>alert("note")</script><img src=x onerror=alert(6)>`
	body2, _ := json.Marshal(map[string]string{"claim": "c1", "label": "unsupported", "note": note})
	if code, resp := f.post(t, f.apiPath()+"/reviews", testToken, string(body2)); code != http.StatusCreated {
		t.Fatalf("post review: %d %s", code, resp)
	}
	_, panel, _ := f.get(t, f.reportPath()+"/claims/c1")
	if strings.Contains(panel, "<script>alert(") || strings.Contains(panel, "<img") || !strings.Contains(panel, "&lt;script&gt;alert(&#34;note&#34;)&lt;/script&gt;") {
		t.Errorf("the review note is not escaped in the panel")
	}
	if n := strings.Count(panel, "<textarea"); n != 1 {
		t.Errorf("%d textareas: the note broke out of its textarea", n)
	}

	// A reviewer name is text too: in the panel's list, its attributes,
	// and the agreement figures naming the two reviewers of c1 (the
	// anonymous note above and this one).
	reviewer := `<script>alert("rv")</script><img src=x onerror=alert(8)>`
	note2 := `</li></ul><script>alert(9)</script>`
	body3, _ := json.Marshal(map[string]string{"claim": "c1", "reviewer": reviewer, "label": "supported", "note": note2})
	if code, resp := f.post(t, f.apiPath()+"/reviews", testToken, string(body3)); code != http.StatusCreated {
		t.Fatalf("post review by a hostile name: %d %s", code, resp)
	}
	escapedName := "&lt;script&gt;alert(&#34;rv&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(8)&gt;"
	reviewed := map[string]string{}
	for _, p := range []string{f.reportPath() + "/claims/c1", f.reportPath() + "?claim=c1", f.reportPath(), "/runs/" + f.run} {
		code, body, _ := f.get(t, p)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d", p, code)
		}
		reviewed[p] = body
		for _, raw := range []string{"<script>alert", "<img", "onerror=alert(8)>", `"rv"`, "</li></ul><script>"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s: raw %q in the HTML", p, raw)
			}
		}
		if n := strings.Count(body, "<script"); n > 1 {
			t.Errorf("%s: %d script elements", p, n)
		}
		if !strings.Contains(body, escapedName) {
			t.Errorf("%s does not show the reviewer's name as escaped text", p)
		}
	}
	panel = reviewed[f.reportPath()+"/claims/c1"]
	if !strings.Contains(panel, `data-reviewer="`+escapedName+`"`) || !strings.Contains(panel, `<span class="reviewer">`+escapedName+`</span>`) ||
		!strings.Contains(panel, "&lt;/li&gt;&lt;/ul&gt;&lt;script&gt;alert(9)&lt;/script&gt;") {
		t.Errorf("the hostile reviewer's review is not listed as text in the panel")
	}
	list := regexp.MustCompile(`(?s)<ul class="reviews" id="reviews">(.*?)</ul>`).FindStringSubmatch(panel)
	if list == nil || strings.Count(list[1], `<li class="review-item"`) != 2 || strings.Count(list[1], "</li>") != 2 {
		t.Errorf("the review list is broken: %q", list)
	}
	// The JSON API and the JSONL export carry the name as a JSON string,
	// never as markup.
	for _, p := range []string{f.apiPath() + "/audit", "/api/runs/" + f.run + "/reviews", "/api/runs/" + f.run + "/reviews.jsonl"} {
		code, body, hdr := f.get(t, p)
		if code != http.StatusOK || strings.Contains(body, "<script") || strings.Contains(body, "<img") || hdr.Get("X-Content-Type-Options") != "nosniff" || strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s: %d %q, markup in the body: %v", p, code, hdr.Get("Content-Type"), strings.Contains(body, "<script"))
		}
	}
	_, raw, _ = f.get(t, f.apiPath()+"/audit")
	var names []string
	for _, rv := range decode[AuditResponse](t, raw).Reviews {
		names = append(names, rv.Reviewer)
	}
	if strings.Join(names, ",") != reviewer+",anonymous" { // same time: by name
		t.Errorf("reviewers in the API: %q", names)
	}
	_, raw, _ = f.get(t, "/api/runs/"+f.run+"/reviews.jsonl")
	if lines := strings.Split(strings.TrimSpace(raw), "\n"); len(lines) != 2 || decode[LabelledPair](t, lines[0]).Reviewer != reviewer || decode[LabelledPair](t, lines[0]).Note != note2 {
		t.Errorf("the JSONL export does not round-trip the hostile review:\n%s", raw)
	}
}

// apiPath is the API path of the fixture's report.
func (f *fixture) apiPath() string { return "/api" + f.reportPath() }
