package web

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStaticListsNoDirectory asks for the static folder itself.
func TestStaticListsNoDirectory(t *testing.T) {
	f := serve(t, &fixture{st: openStore(t, t.TempDir())}, "")
	for _, path := range []string{"/static/", "/static/?x=1"} {
		if code, body, _ := f.get(t, path); code != http.StatusNotFound || strings.Contains(body, "audit.js") {
			t.Errorf("GET %s: %d, lists files %v; want 404", path, code, strings.Contains(body, "audit.js"))
		}
	}
	if code, _, _ := f.get(t, "/static/audit.js"); code != http.StatusOK {
		t.Errorf("GET /static/audit.js: %d", code)
	}
}

// statusRecorder notes the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

// syncBuffer is a log sink the server and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestClientHangingUpMidPost sends half of a review's body and hangs up:
// the server answers a client error (or nothing) and logs no internal
// error.
func TestClientHangingUpMidPost(t *testing.T) {
	f := demoFixture(t, testToken)
	var logs syncBuffer
	srv, err := New(Options{Store: f.st, Token: testToken, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		srv.ServeHTTP(rec, r)
		done <- rec.status
	}))
	defer ts.Close()
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST %s/reviews HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"claim\": \"c3\", \"label\": ",
		f.apiPath(), ts.Listener.Addr(), testToken)
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case status := <-done:
		if status >= 500 {
			t.Errorf("a client hanging up mid-POST: status %d", status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not return")
	}
	if l := logs.String(); l != "" {
		t.Errorf("a client hanging up mid-POST is logged as a server error: %s", l)
	}
}

// TestBearerSchemeAnyCase posts with the scheme spelled three ways.
func TestBearerSchemeAnyCase(t *testing.T) {
	f := demoFixture(t, testToken)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req, _ := http.NewRequest(http.MethodPost, f.ts.URL+f.apiPath()+"/timings", strings.NewReader(`{"session": "s", "claims": []}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", scheme+" "+testToken)
		resp, err := f.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", scheme, resp.StatusCode)
		}
	}
}
