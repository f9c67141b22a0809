package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

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
