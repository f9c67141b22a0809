package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

// TestHTTPSessionLimits grows a session past each limit through the API:
// the write is refused with 422 and a body naming the limit and how to
// raise it, and the session is unchanged.
func TestHTTPSessionLimits(t *testing.T) {
	svc := testService(t, Options{Limits: Limits{Sources: 2, Claims: 1, Edges: 100, Bytes: 4000}})
	srv := apiServer(t, svc, testToken)
	mustOpen(t, svc, "lim")
	post := func(path string, v any) (int, map[string]any) {
		body, _ := json.Marshal(v)
		code, _, m := call(t, srv, "POST", path, testToken, string(body))
		return code, m
	}
	wantLimit := func(what string, code int, m map[string]any, limit string) {
		t.Helper()
		l, _ := m["limit"].(map[string]any)
		msg, _ := m["error"].(string)
		if code != http.StatusUnprocessableEntity || l == nil || l["name"] != limit || !strings.Contains(msg, "[live]") {
			t.Errorf("%s: %d %v; want 422 naming %s and how to raise it", what, code, m, limit)
		}
	}
	for i := range 2 {
		if code, m := post("/sessions/lim/sources", SourceInput{Title: fmt.Sprint("t", i), Excerpt: excerptGain}); code != http.StatusCreated {
			t.Fatalf("source %d: %d %v", i, code, m)
		}
	}
	code, m := post("/sessions/lim/sources", SourceInput{Title: "t3", Excerpt: excerptGain})
	wantLimit("third source", code, m, LimitSources)

	if code, m := post("/sessions/lim/claims", ClaimInput{Statement: claimGain, Supports: []string{"s1"}}); code != http.StatusCreated {
		t.Fatalf("claim: %d %v", code, m)
	}
	code, m = post("/sessions/lim/claims", ClaimInput{Statement: claimGain, Supports: []string{"s2"}})
	wantLimit("second claim", code, m, LimitClaims)
	code, m = post("/sessions/lim/reasoning", ReasoningInput{Inference: strings.Repeat("long ", 800), Inputs: []string{"s1"}})
	wantLimit("text past the byte limit", code, m, LimitBytes)

	info, _ := svc.Session(t.Context(), "lim")
	if info.Sources != 2 || info.Claims != 1 || info.Reasoning != 0 {
		t.Errorf("after refused writes: %+v", info)
	}

	// A session stored under larger limits still loads under smaller ones.
	small := newService(t, svc.st, Options{Limits: Limits{Sources: 1, Claims: 1, Bytes: 10}})
	if info, err := small.Session(t.Context(), "lim"); err != nil || info.Sources != 2 {
		t.Errorf("reloading under smaller limits: %+v, %v", info, err)
	}
}

// heapProbe is a ResponseWriter that discards the body and, once half of
// it has been written, measures the live heap: a response built whole is
// alive then; a streamed one is not.
type heapProbe struct {
	hdr      http.Header
	status   int
	written  int
	half     int
	measured bool
	heap     uint64
}

func (p *heapProbe) Header() http.Header { return p.hdr }
func (p *heapProbe) WriteHeader(s int)   { p.status = s }
func (p *heapProbe) Write(b []byte) (int, error) {
	p.written += len(b)
	if !p.measured && p.written >= p.half {
		p.measured = true
		p.heap = liveHeap()
	}
	return len(b), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestHTTPReadsStream reads a session of 48 sources with 128 KiB excerpts
// (a 6 MiB answer) as the graph and both PROV formats: the answers are the
// documents prov.Marshal and provjson write, and while one is being sent
// the server holds far less than the answer beside the session itself.
func TestHTTPReadsStream(t *testing.T) {
	svc := testService(t, Options{Limits: Limits{Bytes: 64 << 20}})
	mustOpen(t, svc, "big")
	for i := range 48 {
		ex := fmt.Sprintf("Source %d reports that retrieval improved accuracy. ", i) + strings.Repeat(fmt.Sprintf("filler%d ", i%10), 128<<10/8)
		mustSource(t, svc, "big", SourceInput{ID: fmt.Sprint("s", i), Title: "t", Excerpt: ex})
	}
	if _, err := svc.AddClaim(t.Context(), "big", ClaimInput{ID: "c1", Statement: "Retrieval improved accuracy.", Supports: []string{"s0"}}); err != nil {
		t.Fatal(err)
	}
	g, err := svc.Graph(t.Context(), "big")
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(svc, testToken)
	for _, tc := range []struct {
		path string
		want func() ([]byte, error)
	}{
		{"/sessions/big", func() ([]byte, error) { return prov.Marshal(g) }},
		{"/sessions/big/prov", func() ([]byte, error) { return provjson.Marshal(g) }},
		{"/sessions/big/prov?format=prov-jsonld", func() ([]byte, error) { return provjson.MarshalLD(g) }},
	} {
		want, err := tc.want()
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("GET %s: %d, %d bytes; want the %d bytes of the whole document", tc.path, rec.Code, rec.Body.Len(), len(want))
		}
		size := len(want)
		want, rec = nil, nil

		before := liveHeap()
		probe := &heapProbe{hdr: http.Header{}, half: size / 2}
		h.ServeHTTP(probe, req)
		if probe.written != size || !probe.measured {
			t.Fatalf("GET %s: %d bytes written, want %d", tc.path, probe.written, size)
		}
		held := int64(probe.heap) - int64(before)
		t.Logf("GET %s: %d bytes, %d held while sending", tc.path, size, held)
		if held > int64(size/4) {
			t.Errorf("GET %s: %d bytes of heap held midway through a %d-byte answer: the answer is built whole", tc.path, held, size)
		}
	}
}
