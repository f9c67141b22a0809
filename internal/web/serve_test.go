package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestServeFinishesRequestsInFlight cancels the serving context while a
// request is being handled: the request completes, Serve returns nil and
// the port is closed.
func TestServeFinishesRequestsInFlight(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h, 5*time.Second) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{string(b), err}
	}()
	<-entered
	cancel()
	time.Sleep(50 * time.Millisecond) // shutdown has begun and waits for the handler
	close(release)
	if r := <-got; r.err != nil || r.body != "finished" {
		t.Errorf("request in flight: %q, %v; want it finished", r.body, r.err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the context was cancelled")
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Errorf("still accepting connections after shutdown")
	}
}

// TestHandleMountsBesideTheRoutes checks that a mounted handler gets the
// security headers and does not shadow the server's routes.
func TestHandleMountsBesideTheRoutes(t *testing.T) {
	f := serve(t, &fixture{st: openStore(t, t.TempDir())}, "")
	f.srv.Handle("GET /live/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "live") }))
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/live/x", nil))
	if rec.Body.String() != "live" || rec.Header().Get("Content-Security-Policy") == "" {
		t.Errorf("mounted handler: %q, CSP %q", rec.Body.String(), rec.Header().Get("Content-Security-Policy"))
	}
	code, body, _ := f.get(t, "/api/runs")
	if code != http.StatusOK || !strings.Contains(body, `"runs": []`) {
		t.Errorf("GET /api/runs beside a mount: %d %s", code, body)
	}
}
