package httpserve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const connTestToken = "conn-test-token-0123456789"

// tokenHandler answers 401 without the token and 200 with it, marking the
// connection authenticated as the live API and the web write API do.
var tokenHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if tok, ok := BearerToken(r); !ok || !SumToken(connTestToken).Matches(tok) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "missing or wrong bearer token")
		return
	}
	Authenticated(r)
	io.WriteString(w, "ok")
})

// dialFrom connects to addr from the loopback address from (127.0.0.0/8
// is all loopback on Linux), skipping where that is not possible.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("dial from %s: %v (needs the 127.0.0.0/8 loopback range)", from, err)
	}
	return c
}

// request sends one request on c and reads the answer's status; token ""
// sends none.
func request(c net.Conn, br *bufio.Reader, token string) (int, error) {
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	c.SetDeadline(time.Now().Add(2 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, "GET /api/live/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"+auth+"\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestUnauthenticatedConnsLeaveRoom replays issue 23 item 2 at a small
// scale: clients on three addresses fill every connection with keep-alive
// connections that each got a 401 and keep asking again (which used to
// lock the token holder out for the whole idle timeout, renewable at
// will). The token holder is served at once: a quarter of the connections
// is kept for authenticated clients.
func TestUnauthenticatedConnsLeaveRoom(t *testing.T) {
	addr := serveLimited(t, tokenHandler, Limits{MaxConns: 16, MaxConnsPerAddr: 6, ReservedConns: 4,
		UnauthIdleTimeout: 2 * time.Second, IdleTimeout: 2 * time.Minute})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := 0
	for i := range 18 {
		c := dialFrom(t, fmt.Sprintf("127.0.0.%d", 2+i%3), addr)
		defer c.Close()
		br := bufio.NewReader(c)
		if code, err := request(c, br, ""); err != nil || code != http.StatusUnauthorized {
			continue // refused or closed: the limits at work
		}
		mu.Lock()
		held++
		mu.Unlock()
		wg.Add(1)
		go func() { // renew: ask again before the short idle timeout
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(300 * time.Millisecond):
				}
				if _, err := request(c, br, ""); err != nil {
					return
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	t.Logf("%d unauthenticated keep-alive connections got a 401", held)
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	c := dialFrom(t, "127.0.0.1", addr)
	defer c.Close()
	code, err := request(c, bufio.NewReader(c), connTestToken)
	if err != nil || code != http.StatusOK {
		t.Fatalf("the token holder: %d, %v after %v; want 200 at once", code, err, time.Since(start))
	}
	t.Logf("token holder served after %v", time.Since(start))
}

// TestConnsPerAddr: one address holds at most MaxConnsPerAddr
// connections; the others are closed as soon as they are accepted, and
// another address is not affected.
func TestConnsPerAddr(t *testing.T) {
	addr := serveLimited(t, tokenHandler, Limits{MaxConns: 64, MaxConnsPerAddr: 4})
	served := 0
	for range 10 {
		c := dialFrom(t, "127.0.0.7", addr)
		defer c.Close()
		if code, err := request(c, bufio.NewReader(c), ""); err == nil && code == http.StatusUnauthorized {
			served++
		}
	}
	if served != 4 {
		t.Errorf("%d connections from one address served, want MaxConnsPerAddr = 4", served)
	}
	c := dialFrom(t, "127.0.0.8", addr)
	defer c.Close()
	if code, err := request(c, bufio.NewReader(c), ""); err != nil || code != http.StatusUnauthorized {
		t.Errorf("another address: %d, %v", code, err)
	}
}

// TestUnauthIdleTimeout: a connection that got a 401 is closed after the
// short UnauthIdleTimeout; one that authenticated stays for the full
// IdleTimeout.
func TestUnauthIdleTimeout(t *testing.T) {
	addr := serveLimited(t, tokenHandler, Limits{UnauthIdleTimeout: 300 * time.Millisecond, IdleTimeout: time.Minute})
	anon := dialFrom(t, "127.0.0.9", addr)
	defer anon.Close()
	if code, err := request(anon, bufio.NewReader(anon), ""); err != nil || code != http.StatusUnauthorized {
		t.Fatalf("anonymous: %d, %v", code, err)
	}
	authed := dialFrom(t, "127.0.0.9", addr)
	defer authed.Close()
	br := bufio.NewReader(authed)
	if code, err := request(authed, br, connTestToken); err != nil || code != http.StatusOK {
		t.Fatalf("with the token: %d, %v", code, err)
	}
	// A connection that never sends anything goes too.
	silent := dialFrom(t, "127.0.0.9", addr)
	defer silent.Close()
	start := time.Now()
	if !closedWithin(anon, 2*time.Second) {
		t.Error("an unauthenticated connection stays open past UnauthIdleTimeout")
	}
	if !closedWithin(silent, 2*time.Second) {
		t.Error("a connection that sent nothing stays open past UnauthIdleTimeout")
	}
	t.Logf("unauthenticated connections closed after %v", time.Since(start))
	time.Sleep(time.Second - time.Since(start))
	if code, err := request(authed, br, connTestToken); err != nil || code != http.StatusOK {
		t.Errorf("the authenticated connection after a second idle: %d, %v; want it kept", code, err)
	}
	if !strings.Contains(fmt.Sprint(DefaultLimits()), "5s") {
		t.Errorf("default UnauthIdleTimeout: %+v", DefaultLimits())
	}
}
