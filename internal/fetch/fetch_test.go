package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

// server is an httptest server that counts requests and new connections,
// so tests can prove that a refused fetch never reached it.
type server struct {
	*httptest.Server
	requests atomic.Int64
	conns    atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// port returns the server's port.
func (s *server) port() string {
	u, _ := url.Parse(s.URL)
	return u.Port()
}

// fakeResolver answers from a table and counts lookups; unknown names are
// NXDOMAIN. It never touches the network.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	lookups []string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups = append(r.lookups, host)
	if a, ok := r.answers[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *fakeResolver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.lookups)
}

func addrs(ss ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

// testOptions returns fast options that may reach 127.0.0.1.
func testOptions() Options {
	return Options{
		AllowHosts: []string{"127.0.0.1"},
		PerHostRPS: -1,
		Backoff:    time.Millisecond,
		MaxWait:    50 * time.Millisecond,
		Timeout:    5 * time.Second,
		Resolver:   &fakeResolver{},
	}
}

const articleHTML = `<!DOCTYPE html><html><head><title>A page</title></head><body><p>Hello.</p></body></html>`

func TestFetchLive(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/paper", http.StatusMovedPermanently)
		case "/paper":
			if got := r.Header.Get("User-Agent"); got != "claimtrace-test/1" {
				t.Errorf("User-Agent = %q", got)
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, articleHTML)
		case "/gone":
			http.Error(w, "gone", http.StatusGone)
		default:
			http.NotFound(w, r)
		}
	})
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	opts := testOptions()
	opts.UserAgent = "claimtrace-test/1"
	opts.Now = func() time.Time { return now }
	c := New(opts)
	ctx := context.Background()

	p, err := c.Fetch(ctx, srv.URL+"/old")
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	want := &Page{
		URL:         srv.URL + "/old",
		FinalURL:    srv.URL + "/paper",
		Status:      200,
		ContentType: "text/html; charset=utf-8",
		Body:        []byte(articleHTML),
		FetchedAt:   now,
		SHA256:      hashHex([]byte(articleHTML)),
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}

	for _, path := range []string{"/missing", "/gone"} {
		p, err := c.Fetch(ctx, srv.URL+path)
		if err != nil {
			t.Fatalf("Fetch %s: dead link should not be an error: %v", path, err)
		}
		if !p.Dead() {
			t.Errorf("Fetch %s: status %d, want a dead link", path, p.Status)
		}
	}
}

func TestFetchRefusesNonPublicAddresses(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") })
	port := srv.port()
	res := &fakeResolver{answers: map[string][]netip.Addr{
		"localhost":      addrs("127.0.0.1", "::1"),
		"rebind.example": addrs("10.0.0.5"),
		"mixed.example":  addrs("192.168.1.10", "127.0.0.1"),
		"meta.example":   addrs("169.254.169.254"),
		"v6.example":     addrs("fd00::1"),
		"mapped.example": addrs("::ffff:127.0.0.1"),
	}}
	// No AllowHosts: this client must refuse every one of these.
	c := New(Options{Resolver: res, PerHostRPS: -1, Retries: -1, Timeout: 2 * time.Second})
	tests := []struct {
		url  string
		want error
	}{
		{"http://127.0.0.1:" + port + "/", claimtrace.ErrBlocked},
		{"http://localhost:" + port + "/", claimtrace.ErrBlocked},
		{"http://2130706433:" + port + "/", claimtrace.ErrBlocked},   // decimal
		{"http://0x7f.1:" + port + "/", claimtrace.ErrBlocked},       // hex + short form
		{"http://017700000001:" + port + "/", claimtrace.ErrBlocked}, // octal
		{"http://0x7f000001:" + port + "/", claimtrace.ErrBlocked},
		{"http://127.1:" + port + "/", claimtrace.ErrBlocked},
		{"http://0177.0.0.01:" + port + "/", claimtrace.ErrBlocked},
		{"http://127.0.0.1.:" + port + "/", claimtrace.ErrBlocked}, // trailing dot
		{"http://[::1]:" + port + "/", claimtrace.ErrBlocked},
		{"http://[::ffff:127.0.0.1]:" + port + "/", claimtrace.ErrBlocked},
		{"http://[::ffff:7f00:1]:" + port + "/", claimtrace.ErrBlocked},
		{"http://[64:ff9b::7f00:1]:" + port + "/", claimtrace.ErrBlocked}, // NAT64 of loopback
		{"http://[2002:7f00:1::1]:" + port + "/", claimtrace.ErrBlocked},  // 6to4 of loopback
		{"http://[::127.0.0.1]:" + port + "/", claimtrace.ErrBlocked},     // IPv4-compatible
		{"http://[fe80::1%25eth0]:" + port + "/", claimtrace.ErrBlocked},
		{"http://0.0.0.0:" + port + "/", claimtrace.ErrBlocked},
		{"http://0:" + port + "/", claimtrace.ErrBlocked},
		{"http://[::]:" + port + "/", claimtrace.ErrBlocked},
		{"http://10.1.2.3/", claimtrace.ErrBlocked},
		{"http://172.31.255.1/", claimtrace.ErrBlocked},
		{"http://192.168.0.1/", claimtrace.ErrBlocked},
		{"http://100.64.0.1/", claimtrace.ErrBlocked},
		{"http://169.254.169.254/latest/meta-data/", claimtrace.ErrBlocked},
		{"http://224.0.0.1/", claimtrace.ErrBlocked},
		{"http://255.255.255.255/", claimtrace.ErrBlocked},
		{"http://[fc00::1]/", claimtrace.ErrBlocked},
		{"http://[ff02::1]/", claimtrace.ErrBlocked},
		{"http://rebind.example/", claimtrace.ErrBlocked},
		{"http://mixed.example:" + port + "/", claimtrace.ErrBlocked},
		{"http://meta.example/", claimtrace.ErrBlocked},
		{"http://v6.example/", claimtrace.ErrBlocked},
		{"http://mapped.example:" + port + "/", claimtrace.ErrBlocked},
		{"ftp://example.org/paper.pdf", claimtrace.ErrBlocked},
		{"file:///etc/passwd", claimtrace.ErrBlocked},
		{"gopher://example.org/", claimtrace.ErrBlocked},
		{"http://user:pass@example.org/", claimtrace.ErrBlocked},
		{"http://1.2.3.999/", claimtrace.ErrInvalid},
		{"http://nxdomain.example/", claimtrace.ErrUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			p, err := c.Fetch(context.Background(), tt.url)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Fetch(%s) error = %v, want %v", tt.url, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.url) {
				t.Errorf("error %q does not name the URL", err)
			}
			if p == nil || p.Err == "" {
				t.Errorf("Fetch(%s) page = %+v, want a page recording the failure", tt.url, p)
			}
		})
	}
	if n := srv.conns.Load(); n != 0 {
		t.Errorf("the loopback server accepted %d connections, want 0", n)
	}
	names := map[string]bool{"localhost": true, "rebind.example": true, "mixed.example": true, "meta.example": true,
		"v6.example": true, "mapped.example": true, "nxdomain.example": true}
	for _, h := range res.lookups {
		if !names[h] {
			t.Errorf("host %q was sent to DNS; numeric hosts must be parsed as addresses", h)
		}
	}
}

func TestFetchRedirectToPrivateRefused(t *testing.T) {
	inner := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal admin page") })
	outer := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-loopback":
			http.Redirect(w, r, "http://127.0.0.1:"+inner.port()+"/admin", http.StatusFound)
		case "/to-decimal":
			http.Redirect(w, r, "http://2130706433:"+inner.port()+"/admin", http.StatusFound)
		case "/to-rebind":
			http.Redirect(w, r, "http://evil.example:"+inner.port()+"/admin", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	})
	res := &fakeResolver{answers: map[string][]netip.Addr{
		"public.example": addrs("127.0.0.1"), // stands in for a public host
		"evil.example":   addrs("127.0.0.1"), // rebinding: a name that resolves to loopback
	}}
	// Only the host name public.example may reach the loopback server.
	c := New(Options{AllowHosts: []string{"public.example"}, Resolver: res, PerHostRPS: -1, Retries: -1})
	for _, path := range []string{"/to-loopback", "/to-decimal", "/to-rebind", "/to-file"} {
		t.Run(path, func(t *testing.T) {
			_, err := c.Fetch(context.Background(), "http://public.example:"+outer.port()+path)
			if !errors.Is(err, claimtrace.ErrBlocked) {
				t.Fatalf("error = %v, want ErrBlocked", err)
			}
		})
	}
	if n := outer.requests.Load(); n != 4 {
		t.Errorf("allowed server got %d requests, want 4", n)
	}
	if n := inner.conns.Load(); n != 0 {
		t.Errorf("redirect target accepted %d connections, want 0", n)
	}
}

func TestFetchDNSRebindingAtDialTime(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	// The first answer is what a pre-flight check would have seen; the
	// second, used when dialing, points at a private address.
	res := &rebindingResolver{first: addrs("127.0.0.1"), then: addrs("10.0.0.7")}
	c := New(Options{AllowHosts: []string{"127.0.0.1"}, Resolver: res, PerHostRPS: -1, Retries: -1})
	if _, err := c.Fetch(context.Background(), "http://flip.example:"+srv.port()+"/"); err != nil {
		t.Fatalf("first fetch (allowed address): %v", err)
	}
	c2 := New(Options{AllowHosts: []string{"127.0.0.1"}, Resolver: res, PerHostRPS: -1, Retries: -1})
	_, err := c2.Fetch(context.Background(), "http://flip.example:"+srv.port()+"/")
	if !errors.Is(err, claimtrace.ErrBlocked) {
		t.Fatalf("after rebinding to 10.0.0.7: error = %v, want ErrBlocked", err)
	}
}

type rebindingResolver struct {
	mu          sync.Mutex
	n           int
	first, then []netip.Addr
}

func (r *rebindingResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	if r.n == 1 {
		return r.first, nil
	}
	return r.then, nil
}

func TestFetchSizeCap(t *testing.T) {
	var written atomic.Int64
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 32<<10))
		for r.Context().Err() == nil && written.Load() < 64<<20 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	opts := testOptions()
	opts.MaxBytes = 1 << 20
	p, err := New(opts).Fetch(context.Background(), srv.URL+"/endless")
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if !p.Truncated || len(p.Body) != 1<<20 {
		t.Errorf("Truncated=%v len=%d, want true and %d", p.Truncated, len(p.Body), 1<<20)
	}
	if p.SHA256 != hashHex(p.Body) {
		t.Errorf("SHA256 does not match the kept body")
	}
	if w := written.Load(); w >= 64<<20 {
		t.Errorf("server wrote %d bytes: the body was read to the end", w)
	}
}

func TestFetchRetries(t *testing.T) {
	t.Run("429 then success honours Retry-After", func(t *testing.T) {
		var hits atomic.Int64
		var times []time.Time
		var mu sync.Mutex
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			times = append(times, time.Now())
			mu.Unlock()
			if hits.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, "ok")
		})
		opts := testOptions()
		opts.MaxWait = 3 * time.Second
		p, err := New(opts).Fetch(context.Background(), srv.URL)
		if err != nil || p.Status != 200 {
			t.Fatalf("Fetch = %+v, %v; want 200", p, err)
		}
		if gap := times[1].Sub(times[0]); gap < 900*time.Millisecond {
			t.Errorf("retried after %v, want >= 1s (Retry-After)", gap)
		}
	})
	t.Run("Retry-After is capped by MaxWait", func(t *testing.T) {
		var hits atomic.Int64
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) <= 2 {
				w.Header().Set("Retry-After", "3600")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "ok")
		})
		start := time.Now()
		p, err := New(testOptions()).Fetch(context.Background(), srv.URL)
		if err != nil || p.Status != 200 {
			t.Fatalf("Fetch = %+v, %v; want 200", p, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %v: Retry-After 3600 was not capped", d)
		}
	})
	t.Run("5xx exhausted", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "upstream broke", http.StatusBadGateway)
		})
		opts := testOptions()
		opts.Retries = 3
		p, err := New(opts).Fetch(context.Background(), srv.URL)
		if !errors.Is(err, claimtrace.ErrUnreachable) {
			t.Fatalf("error = %v, want ErrUnreachable", err)
		}
		if p == nil || p.Status != http.StatusBadGateway || !strings.Contains(string(p.Body), "upstream broke") {
			t.Errorf("page = %+v, want the last 502 answer", p)
		}
		if n := srv.requests.Load(); n != 4 {
			t.Errorf("requests = %d, want 4 (1 + 3 retries)", n)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		})
		opts := testOptions()
		opts.Timeout = 100 * time.Millisecond
		opts.Retries = 1
		start := time.Now()
		_, err := New(opts).Fetch(context.Background(), srv.URL)
		if !errors.Is(err, claimtrace.ErrUnreachable) {
			t.Fatalf("error = %v, want ErrUnreachable", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
		if n := srv.requests.Load(); n != 2 {
			t.Errorf("requests = %d, want 2", n)
		}
	})
	t.Run("canceled context is not unreachable", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := New(testOptions()).Fetch(ctx, srv.URL)
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, claimtrace.ErrUnreachable) {
			t.Fatalf("error = %v, want the context's error", err)
		}
	})
	t.Run("redirect loop", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		})
		opts := testOptions()
		opts.MaxRedirects = 3
		_, err := New(opts).Fetch(context.Background(), srv.URL+"/a")
		if !errors.Is(err, claimtrace.ErrUnreachable) {
			t.Fatalf("error = %v, want ErrUnreachable", err)
		}
		if n := srv.requests.Load(); n != 4 {
			t.Errorf("requests = %d, want 4 (no retries of a redirect loop)", n)
		}
	})
}

func TestFetchPerHostRateLimit(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	res := &fakeResolver{answers: map[string][]netip.Addr{
		"a.example": addrs("127.0.0.1"),
		"b.example": addrs("127.0.0.1"),
	}}
	c := New(Options{AllowHosts: []string{"127.0.0.1"}, Resolver: res, PerHostRPS: 20})
	ctx := context.Background()
	start := time.Now()
	for i := range 5 {
		if _, err := c.Fetch(ctx, fmt.Sprintf("http://a.example:%s/%d", srv.port(), i)); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 180*time.Millisecond {
		t.Errorf("5 requests to one host at 20/s took %v, want >= 200ms", d)
	}
	// Another host has its own budget: not delayed by a.example's.
	start = time.Now()
	if _, err := c.Fetch(ctx, "http://b.example:"+srv.port()+"/"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Errorf("first request to another host waited %v", d)
	}
}

func TestFetchOffline(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "live") })
	dir := t.TempDir()
	w, err := CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	frozen := srv.URL + "/frozen"
	if err := w.Add(&Page{URL: frozen, Status: 200, ContentType: "text/plain", Body: []byte("frozen text")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := &fakeResolver{}
	cache := NewMemoryCache()
	cache.PutPage(context.Background(), &Page{URL: srv.URL + "/cached", Status: 200, Body: []byte("cached")})
	opts := testOptions()
	opts.Offline, opts.Snapshot, opts.Resolver, opts.Cache = true, snap, res, cache
	c := New(opts)

	p, err := c.Fetch(context.Background(), frozen)
	if err != nil || string(p.Body) != "frozen text" || !p.FromSnapshot {
		t.Fatalf("Fetch(frozen) = %+v, %v", p, err)
	}
	for _, u := range []string{srv.URL + "/live", srv.URL + "/cached", "https://example.org/"} {
		if _, err := c.Fetch(context.Background(), u); !errors.Is(err, claimtrace.ErrUnreachable) {
			t.Errorf("Fetch(%s) offline error = %v, want ErrUnreachable", u, err)
		}
	}
	if n := srv.conns.Load(); n != 0 {
		t.Errorf("offline client opened %d connections", n)
	}
	if n := res.count(); n != 0 {
		t.Errorf("offline client made %d DNS lookups", n)
	}
}

func TestFetchCache(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flaky":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/dead":
			http.NotFound(w, r)
		default:
			io.WriteString(w, "body")
		}
	})
	cache := NewMemoryCache()
	opts := testOptions()
	opts.Cache = cache
	opts.Retries = -1
	c := New(opts)
	ctx := context.Background()
	for range 2 {
		c.Fetch(ctx, srv.URL+"/page")
		c.Fetch(ctx, srv.URL+"/dead")
		c.Fetch(ctx, srv.URL+"/flaky")
	}
	p, err := c.Fetch(ctx, srv.URL+"/page")
	if err != nil || !p.FromCache || string(p.Body) != "body" {
		t.Errorf("third fetch = %+v, %v; want a cache hit", p, err)
	}
	// page and dead once each; the 503 is never cached, so fetched twice.
	if n := srv.requests.Load(); n != 4 {
		t.Errorf("server requests = %d, want 4", n)
	}
	if n := cache.Len(); n != 2 {
		t.Errorf("cache holds %d pages, want 2", n)
	}
}

func TestFetchSnapshotCanonicalLookup(t *testing.T) {
	dir := t.TempDir()
	w, err := CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Add(&Page{URL: "https://www.Example.org/papers/42/", Status: 200, ContentType: "text/html", Body: []byte(articleHTML)})
	w.Add(&Page{URL: "https://openreview.net/forum?id=AAA", Status: 200, ContentType: "text/html", Body: []byte("A")})
	w.Add(&Page{URL: "https://openreview.net/forum?id=BBB", Status: 200, ContentType: "text/html", Body: []byte("B")})
	w.Add(&Page{URL: "https://example.org/dead", Status: 404})
	w.Add(&Page{URL: "https://example.org/down", Err: "dial tcp: connection refused"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Snapshot: snap, Offline: true})
	ctx := context.Background()
	tests := []struct {
		url      string
		wantBody string
		wantErr  error
		status   int
	}{
		{"https://www.Example.org/papers/42/", articleHTML, nil, 200},
		{"http://example.org/papers/42", articleHTML, nil, 200},
		{"https://example.org/papers/42#section-2", articleHTML, nil, 200},
		{"https://openreview.net/forum?id=BBB", "B", nil, 200},
		{"http://www.openreview.net/forum?id=AAA", "A", nil, 200},
		{"https://example.org/dead", "", nil, 404},
		{"https://example.org/down", "", claimtrace.ErrUnreachable, 0},
		{"https://openreview.net/forum?id=CCC", "", claimtrace.ErrUnreachable, 0},
	}
	for _, tt := range tests {
		p, err := c.Fetch(ctx, tt.url)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("Fetch(%s) error = %v, want %v", tt.url, err, tt.wantErr)
			continue
		}
		if p.Status != tt.status || string(p.Body) != tt.wantBody {
			t.Errorf("Fetch(%s) = status %d body %q, want %d %q", tt.url, p.Status, p.Body, tt.status, tt.wantBody)
		}
	}
	// A caller-supplied canonicalizer is used for the second lookup.
	lower := New(Options{Snapshot: snap, Offline: true, Canon: func(s string) string {
		return strings.ToLower(strings.TrimSuffix(s, "/"))
	}})
	if p, err := lower.Fetch(ctx, "HTTPS://WWW.EXAMPLE.ORG/PAPERS/42"); err != nil || string(p.Body) != articleHTML {
		t.Errorf("custom Canon lookup = %v, %v", p, err)
	}
}
