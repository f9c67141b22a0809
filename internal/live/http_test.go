package live

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testToken = "s3cret-token-for-tests"

// apiServer mounts the handler the way the web server does.
func apiServer(t *testing.T, svc *Service, token string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/live/", http.StripPrefix("/api/live", Handler(svc, token)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// call sends a request and decodes a JSON answer into a generic value.
func call(t *testing.T, srv *httptest.Server, method, path, token, body string) (int, http.Header, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+"/api/live"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %v\n%s", method, path, err, data)
	}
	return resp.StatusCode, resp.Header, v
}

func TestHTTPAuth(t *testing.T) {
	svc := testService(t, Options{})
	mustOpen(t, svc, "a")

	open := apiServer(t, svc, "")
	code, _, body := call(t, open, "POST", "/sessions", testToken, `{"query":"q"}`)
	if code != http.StatusForbidden || !strings.Contains(body["error"].(string), "CLAIMTRACE_TOKEN") {
		t.Errorf("write without a configured token: %d %v", code, body)
	}
	if code, _, _ := call(t, open, "GET", "/sessions/a", testToken, ""); code != http.StatusForbidden {
		t.Errorf("read without a configured token: %d, want 403", code)
	}

	// Reads need the token too: no route of the live API is public.
	srv := apiServer(t, svc, testToken)
	for _, path := range []string{"/sessions", "/sessions/a", "/sessions/a/info", "/sessions/a/metrics", "/sessions/a/prov", "/sessions/a/claims/c1/why", "/nowhere"} {
		for _, tok := range []string{"", "wrong"} {
			if code, hdr, _ := call(t, srv, "GET", path, tok, ""); code != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("GET %s with token %q: %d, want 401", path, tok, code)
			}
		}
	}
	if code, _, _ := call(t, srv, "GET", "/sessions/a", testToken, ""); code != http.StatusOK {
		t.Errorf("read with the token: %d, want 200", code)
	}

	for _, tok := range []string{"", "wrong", testToken + "x", strings.ToUpper(testToken)} {
		code, hdr, body := call(t, srv, "POST", "/sessions/a/sources", tok, `{"title":"t","excerpt":"x y z"}`)
		if code != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") || body["error"] == nil {
			t.Errorf("token %q: %d %v %v", tok, code, hdr, body)
		}
	}
	if code, _, body := call(t, srv, "POST", "/sessions/a/sources", testToken, `{"title":"t","excerpt":"x y z"}`); code != http.StatusCreated {
		t.Errorf("right token: %d %v", code, body)
	}
	info, _ := svc.Session(t.Context(), "a")
	if info.Sources != 1 {
		t.Errorf("%d sources after one authorized write among five attempts", info.Sources)
	}
}

// TestHTTPSession drives one session through the API and checks statuses
// and the shapes of the answers.
func TestHTTPSession(t *testing.T) {
	svc := testService(t, Options{})
	srv := apiServer(t, svc, testToken)
	post := func(path, body string) (int, map[string]any) {
		code, _, v := call(t, srv, "POST", path, testToken, body)
		return code, v
	}
	code, s := post("/sessions", `{"id":"h1","query":"Does RAG improve factual accuracy?","agent":"curl"}`)
	if code != http.StatusCreated || s["id"] != "h1" || s["resumed"] != false {
		t.Fatalf("open: %d %v", code, s)
	}
	if code, s = post("/sessions", `{"id":"h1"}`); code != http.StatusOK || s["resumed"] != true || s["query"] != "Does RAG improve factual accuracy?" {
		t.Errorf("resume: %d %v", code, s)
	}
	if code, s = post("/sessions", ``); code != http.StatusCreated || len(s["id"].(string)) != 16 {
		t.Errorf("open with no body: %d %v", code, s)
	}

	body, _ := json.Marshal(SourceInput{ID: "s1", URL: "https://doi.org/10.5555/rag.2024.014", Excerpt: excerptGain})
	code, src := post("/sessions/h1/sources", string(body))
	if code != http.StatusCreated || src["source"].(map[string]any)["resolved"] != true || src["source"].(map[string]any)["excerpt"] != nil {
		t.Errorf("add source: %d %v", code, src)
	}
	code, r := post("/sessions/h1/reasoning", `{"id":"r1","type":"deduction","inference":"s1 states the gain","inputs":["s1"]}`)
	if code != http.StatusCreated || r["reasoning"].(map[string]any)["type"] != "deduction" {
		t.Errorf("add reasoning: %d %v", code, r)
	}
	body, _ = json.Marshal(ClaimInput{ID: "c1", Statement: claimGain, Supports: []string{"s1", "r1"}})
	code, c := post("/sessions/h1/claims", string(body))
	if code != http.StatusCreated || c["gated"] != false || len(c["verdicts"].([]any)) != 1 {
		t.Errorf("passing claim: %d %v", code, c)
	}
	body, _ = json.Marshal(ClaimInput{ID: "c2", Statement: claimUnrelated, Supports: []string{"s1"}})
	code, c = post("/sessions/h1/claims", string(body))
	if code != http.StatusCreated || c["gated"] != true || c["reasons"].([]any)[0].(map[string]any)["code"] != ReasonUnsupported {
		t.Errorf("gated claim: %d %v", code, c)
	}
	body, _ = json.Marshal(ClaimInput{ID: "c2", Statement: claimGain, Supports: []string{"s1"}, Revise: true})
	if code, c = post("/sessions/h1/claims", string(body)); code != http.StatusOK || c["gated"] != false || c["revised"] != true {
		t.Errorf("revised claim: %d %v", code, c)
	}
	if code, e := post("/sessions/h1/edges", `{"from":"r1","to":"c2","rel":"supports","strength":0.8}`); code != http.StatusCreated || e["claim"].(map[string]any)["gated"] != false {
		t.Errorf("add edge: %d %v", code, e)
	}

	code, _, m := call(t, srv, "GET", "/sessions/h1/metrics", testToken, "")
	if code != http.StatusOK || m["pcov"] != 1.0 || m["psnd"] != 1.0 || m["ctran"] != nil {
		t.Errorf("metrics: %d pcov %v psnd %v ctran %v", code, m["pcov"], m["psnd"], m["ctran"])
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	want := []string{"aeff_proxy", "aeff_words", "claims", "conflicts", "counts", "ctran", "gated", "pcov", "per_claim", "psnd", "psnd_unverifiable", "session", "tau"}
	if diff := cmp.Diff(want, sorted(keys)); diff != "" {
		t.Errorf("metrics keys (-want +got):\n%s", diff)
	}
	code, _, w := call(t, srv, "GET", "/sessions/h1/claims/c1/why", testToken, "")
	if code != http.StatusOK || len(w["sources"].([]any)) != 1 || len(w["reasoning"].([]any)) != 1 || len(w["edges"].([]any)) != 3 {
		t.Errorf("why: %d %v", code, w)
	}
	code, _, g := call(t, srv, "GET", "/sessions/h1", testToken, "")
	if code != http.StatusOK || g["format"] != "aar-graph/1" || len(g["claims"].([]any)) != 2 {
		t.Errorf("graph: %d %v", code, g)
	}
	code, hdr, p := call(t, srv, "GET", "/sessions/h1/prov", testToken, "")
	if code != http.StatusOK || hdr.Get("Content-Type") != "application/json" || p["wasDerivedFrom"] == nil {
		t.Errorf("prov: %d %s %v", code, hdr.Get("Content-Type"), keysOf(p))
	}
	if code, hdr, _ = call(t, srv, "GET", "/sessions/h1/prov?format=prov-jsonld", testToken, ""); code != http.StatusOK || hdr.Get("Content-Type") != "application/ld+json" {
		t.Errorf("prov-jsonld: %d %s", code, hdr.Get("Content-Type"))
	}
	code, _, l := call(t, srv, "GET", "/sessions", testToken, "")
	if code != http.StatusOK || len(l["sessions"].([]any)) != 2 {
		t.Errorf("list: %d %v", code, l)
	}
	code, _, d := call(t, srv, "DELETE", "/sessions/h1/claims/c2", testToken, "")
	if code != http.StatusOK || d["claims"] != 1.0 {
		t.Errorf("withdraw: %d %v", code, d)
	}
	if code, d = post("/sessions/h1/close", ""); code != http.StatusOK || d["closed"] != true {
		t.Errorf("close: %d %v", code, d)
	}
}

func TestHTTPErrors(t *testing.T) {
	svc := testService(t, Options{})
	sid := mustOpen(t, svc, "e1")
	seed(t, svc, sid)
	mustOpen(t, svc, "closed")
	svc.Close(t.Context(), "closed")
	srv := apiServer(t, svc, testToken)
	huge := `{"title":"x","excerpt":"` + strings.Repeat("a", MaxBody) + `"}`
	tests := []struct {
		name, method, path, body string
		status                   int
		msg                      string
		rule                     string
	}{
		{"unknown session", "POST", "/sessions/nope/claims", `{"statement":"x"}`, 404, `session "nope"`, ""},
		{"unknown claim", "GET", "/sessions/e1/claims/c9/why", "", 404, "c9", ""},
		{"not JSON", "POST", "/sessions/e1/claims", `{"statement":`, 400, "request body", ""},
		{"unknown field", "POST", "/sessions/e1/claims", `{"statement":"x","cites":["s1"]}`, 400, "cites", ""},
		{"two objects", "POST", "/sessions/e1/claims", `{"statement":"x"} {}`, 400, "after the JSON object", ""},
		{"empty body", "POST", "/sessions/e1/sources", ``, 400, "empty request body", ""},
		{"white space only", "POST", "/sessions/e1/sources", " \n\t ", 400, "empty request body", ""},
		{"an object, then too much", "POST", "/sessions/e1/claims", `{"statement":"x"}` + strings.Repeat(" ", MaxBody), 413, "bytes", ""},
		{"rule violation", "POST", "/sessions/e1/claims", `{"statement":"x","supports":["s9"]}`, 422, `no node "s9"`, "edge-endpoint"},
		{"cycle", "POST", "/sessions/e1/edges", `{"from":"r1","to":"r1","rel":"refines"}`, 422, "itself", "no-self-loop"},
		{"bad relation", "POST", "/sessions/e1/edges", `{"from":"s1","to":"r1","rel":"cites"}`, 400, "cites", ""},
		{"closed", "POST", "/sessions/closed/sources", `{"title":"t"}`, 409, "closed", ""},
		{"too large", "POST", "/sessions/e1/sources", huge, 413, "bytes", ""},
		{"bad format", "GET", "/sessions/e1/prov?format=turtle", "", 400, "turtle", ""},
		{"bad session id", "GET", "/sessions/bad%20id/metrics", "", 400, "bad id", ""},
		{"no such endpoint", "GET", "/sessions/e1/claims", "", 404, "no endpoint", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := call(t, srv, tt.method, tt.path, testToken, tt.body)
			if code != tt.status || body["status"] != float64(tt.status) {
				t.Errorf("status %d (body %v), want %d", code, body["status"], tt.status)
			}
			if msg, _ := body["error"].(string); !strings.Contains(msg, tt.msg) {
				t.Errorf("error %q does not mention %q", msg, tt.msg)
			}
			var rule string
			if vs, ok := body["violations"].([]any); ok {
				rule = vs[0].(map[string]any)["rule"].(string)
			}
			if rule != tt.rule {
				t.Errorf("violated rule %q, want %q", rule, tt.rule)
			}
		})
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return sorted(out)
}

// TestWriteJSONBuffers: a response that cannot be encoded is an error, with
// nothing written yet.
func TestWriteJSONBuffers(t *testing.T) {
	rec := httptest.NewRecorder()
	if err := writeJSON(rec, http.StatusOK, map[string]any{"x": func() {}}); err == nil {
		t.Fatal("encoding a func: no error")
	}
	if rec.Body.Len() != 0 {
		t.Errorf("partial response written: %q", rec.Body.String())
	}
}

// TestHTTPClientHangsUpMidPost sends half of a source's body and hangs up:
// the server answers a client error and logs nothing, where it logged a
// 500.
func TestHTTPClientHangsUpMidPost(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	svc := testService(t, Options{Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	mustOpen(t, svc, "h")
	h := Handler(svc, testToken)
	done := make(chan int, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		done <- rec.status
	}))
	defer ts.Close()
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /sessions/h/sources HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n{\"title\": \"t\", \"excerpt\": \"abc", testToken)
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case status := <-done:
		if status != http.StatusBadRequest {
			t.Errorf("a client hanging up mid-POST: status %d, want 400", status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not return")
	}
	mu.Lock()
	defer mu.Unlock()
	if logs.Len() != 0 {
		t.Errorf("a client hanging up mid-POST is logged as a server error: %s", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

// TestHTTPBearerSchemeAnyCase reads and writes with the scheme spelled
// three ways, as RFC 9110 allows.
func TestHTTPBearerSchemeAnyCase(t *testing.T) {
	svc := testService(t, Options{})
	mustOpen(t, svc, "b")
	srv := apiServer(t, svc, testToken)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		for _, m := range []struct{ method, path, body string }{{"GET", "/sessions/b/info", ""}, {"POST", "/sessions", `{"id":"b"}`}} {
			req, _ := http.NewRequest(m.method, srv.URL+"/api/live"+m.path, strings.NewReader(m.body))
			req.Header.Set("Authorization", scheme+" "+testToken)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s %s with %q: %d", m.method, m.path, scheme, resp.StatusCode)
			}
		}
	}
}
