package web

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReviewAPIDocumentedExample posts the review body docs/web.md shows
// with curl, and checks that a form body and a misnamed field are told
// which fields exist.
func TestReviewAPIDocumentedExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "web.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)curl[^\n]*/reviews \\\n.*?-H 'Content-Type: application/json'.*?-d '(\{[^']*\})'`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/web.md has no curl example posting a review as JSON")
	}
	var body map[string]any
	if err := json.Unmarshal(m[1], &body); err != nil {
		t.Fatalf("the documented body is not JSON: %v\n%s", err, m[1])
	}
	f := demoFixture(t, testToken)
	code, resp := f.post(t, f.apiPath()+"/reviews", testToken, string(m[1]))
	if code != http.StatusCreated {
		t.Fatalf("the documented example: %d %s", code, resp)
	}
	var rv Review
	if err := json.Unmarshal([]byte(resp), &rv); err != nil || rv.Claim != body["claim"] || rv.Label != body["label"] {
		t.Errorf("stored review %+v (%v), want the documented one", rv, err)
	}

	// What a first try looks like: a form, and the word the page uses.
	req, _ := http.NewRequest(http.MethodPost, f.ts.URL+f.apiPath()+"/reviews", strings.NewReader("claim=c3&label=supported"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+testToken)
	r, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	form := readAll(t, r)
	if r.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(form, "application/json") || !strings.Contains(form, `\"claim\": \"c1\"`) {
		t.Errorf("form body: %d %s; want 415 naming JSON with an example", r.StatusCode, form)
	}
	code, resp = f.post(t, f.apiPath()+"/reviews", testToken, `{"claim": "c3", "verdict": "supported"}`)
	for _, want := range []string{`unknown field \"verdict\"`, `\"verdict\" goes in \"label\"`, "claim (required", "label (required", "reviewer", "note", "url"} {
		if code != http.StatusBadRequest || !strings.Contains(resp, want) {
			t.Errorf("a verdict field: %d %s; want 400 with %q", code, resp, want)
		}
	}
	code, resp = f.post(t, f.apiPath()+"/timings", testToken, `{"session": "s-one-0001", "claims": [], "admin": true}`)
	if code != http.StatusBadRequest || !strings.Contains(resp, "session (8 to 64") {
		t.Errorf("unknown timing field: %d %s; want the fields named", code, resp)
	}
}
