package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzRequest sends arbitrary requests (method, path, body, with and
// without the token) to a server over the demo store: no request makes a
// 5xx, and no path is reflected into a page as markup.
func FuzzRequest(f *testing.F) {
	fx := demoFixture(f, testToken)
	rp := fx.reportPath()
	f.Add("GET", rp+"?claim=c3", "", false)
	f.Add("GET", rp+"/claims/<fuzz>", "", false)
	f.Add("GET", "/runs/<fuzz>/reports/x", "", false)
	f.Add("GET", rp+"/sources/1?claim=c3", "", false)
	f.Add("GET", "/api/runs/"+fx.run+"/graphs/"+fx.task+"?format=prov", "", false)
	f.Add("POST", "/api"+rp+"/timings", `{"session":"abcdefgh","claims":[{"claim":"c3","seconds":5}]}`, true)
	f.Add("POST", "/api"+rp+"/reviews", `{"claim":"c1","label":"false","note":"<fuzz>"}`, true)
	f.Add("POST", "/api"+rp+"/timings", `{"session":"abcdefgh","claims":[{"claim":"c3","seconds":1e308}]}`, true)
	f.Add("POST", "/api/runs/%3Cfuzz%3E/reports/x/reviews", `{}`, false)
	f.Add("POST", "/api"+rp+"/reviews", `{"claim":"c3","reviewer":"<fuzz>","label":"partial","url":"https://arxiv.org/abs/2005.11401"}`, true)
	f.Add("GET", "/api/runs/"+fx.run+"/reviews.jsonl", "", false)
	f.Add("GET", "/api/runs/<fuzz>/reviews", "", false)
	f.Fuzz(func(t *testing.T, method, path, body string, auth bool) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest(method, "http://claimtrace.test"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if auth {
			req.Header.Set("Authorization", "Bearer "+testToken)
		}
		rec := httptest.NewRecorder()
		fx.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: status %d: %s", method, path, rec.Code, rec.Body.String())
		}
		raw, _ := url.PathUnescape(req.URL.EscapedPath() + "?" + req.URL.RawQuery)
		if (strings.Contains(raw, "<fuzz") || strings.Contains(body, "<fuzz")) && strings.Contains(rec.Body.String(), "<fuzz") {
			t.Fatalf("%s %q reflected as markup:\n%s", method, path, rec.Body.String())
		}
	})
}
