package httpserve

import (
	"bufio"
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
	go func() { served <- Serve(ctx, ln, h, Limits{}, 5*time.Second) }()

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

// serveLimited serves h on a loopback port under limits until the test
// ends, and returns the address.
func serveLimited(t *testing.T, h http.Handler, limits Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, limits, time.Second) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}

// closedWithin reports whether the server closes c (a read returns EOF or
// a reset) within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// TestServeDropsIdleAndSlowConnections holds connections open the way the
// attack did: a keep-alive connection that sends nothing after its first
// request, and one that trickles its request body. The server closes both;
// with a cap of two connections, a third client is served once they are
// gone.
func TestServeDropsIdleAndSlowConnections(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	})
	addr := serveLimited(t, ok, Limits{ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: 300 * time.Millisecond,
		WriteTimeout: time.Second, IdleTimeout: 300 * time.Millisecond, MaxConns: 2})

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	io.WriteString(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	io.WriteString(slow, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
	go func() {
		for range 20 {
			if _, err := io.WriteString(slow, "x"); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	// Both slots are taken: the third client waits for one to be freed.
	start := time.Now()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err = c.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("a client after the idle and slow ones: %v", err)
	}
	resp.Body.Close()
	t.Logf("third client served after %v", time.Since(start))

	if !closedWithin(idle, 2*time.Second) {
		t.Error("an idle keep-alive connection stays open past IdleTimeout")
	}
	if !closedWithin(slow, 2*time.Second) {
		t.Error("a request body trickled byte by byte keeps its connection past ReadTimeout")
	}
}

// TestServeCapsConnections checks that no more than MaxConns connections
// are served at once; the next one waits for a slot.
func TestServeCapsConnections(t *testing.T) {
	entered := make(chan struct{}, 10)
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	addr := serveLimited(t, h, Limits{MaxConns: 2})
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		conns = append(conns, c)
	}
	for range 2 {
		<-entered
	}
	select {
	case <-entered:
		t.Error("a third connection is served beside two with MaxConns 2")
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	conns[0].Close() // a slot frees when a connection closes
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Error("the third connection is not served once the others are done")
	}
}

// TestCheckHost sends the Host headers of DNS rebinding (an attacker's
// name resolving to the server's address) and of legitimate clients.
func TestCheckHost(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	h := CheckHost(Hosts(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, []string{"audit.example.org"}), ok)
	for host, want := range map[string]int{
		"127.0.0.1:8080":          http.StatusOK,
		"localhost:8080":          http.StatusOK,
		"LOCALHOST.":              http.StatusOK,
		"[::1]:8080":              http.StatusOK,
		"audit.example.org":       http.StatusOK,
		"Audit.Example.Org:443":   http.StatusOK,
		"evil.example:8080":       http.StatusMisdirectedRequest,
		"rebind.attacker.example": http.StatusMisdirectedRequest,
		"127.0.0.1.evil.example":  http.StatusMisdirectedRequest,
		"":                        http.StatusMisdirectedRequest,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
	}
}

func TestPlaintextWarning(t *testing.T) {
	for addr, warn := range map[*net.TCPAddr]bool{
		{IP: net.IPv4(127, 0, 0, 1), Port: 80}: false,
		{IP: net.IPv6loopback, Port: 80}:       false,
		{IP: net.IPv4zero, Port: 80}:           true,
		{IP: net.IPv6unspecified, Port: 80}:    true,
		{IP: net.IPv4(192, 168, 1, 5)}:         true,
	} {
		if got := PlaintextWarning(addr); (got != "") != warn || (warn && !strings.Contains(got, "TLS")) {
			t.Errorf("%v: %q, want a warning %v", addr, got, warn)
		}
	}
}

// TestBearerToken reads the scheme in any case.
func TestBearerToken(t *testing.T) {
	for header, want := range map[string]string{
		"Bearer abc": "abc", "bearer abc": "abc", "BEARER abc": "abc", "BeArEr  abc ": "abc",
		"Basic abc": "", "Bearer": "", "Bearer ": "", "abc": "", "": "",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", header)
		if got, ok := BearerToken(r); got != want || ok != (want != "") {
			t.Errorf("%q: %q, %v; want %q", header, got, ok, want)
		}
	}
}
