package httpserve

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// connGate admits connections under Limits: at most MaxConns open, at
// most MaxConnsPerAddr from one client address (more are closed at once),
// and at most MaxConns − ReservedConns that served a request without
// authenticating, so that clients with a token always find room. A
// connection is unauthenticated until a request on it passes a token check
// (Authenticated); while it is, it is closed after UnauthIdleTimeout
// without a request, and when a new connection needs a place, the
// unauthenticated one idle the longest is closed first. Only when every
// connection is authenticated or busy does Accept wait for one to close,
// as netutil.LimitListener does.
type connGate struct {
	net.Listener
	limits Limits

	mu      sync.Mutex
	room    *sync.Cond // signalled when a connection closes
	total   int
	perAddr map[string]int
	unauth  map[*trackedConn]struct{}
}

func newConnGate(ln net.Listener, l Limits) *connGate {
	g := &connGate{Listener: ln, limits: l, perAddr: map[string]int{}, unauth: map[*trackedConn]struct{}{}}
	g.room = sync.NewCond(&g.mu)
	return g
}

// maxUnauth is how many connections may be open without having
// authenticated.
func (g *connGate) maxUnauth() int { return max(g.limits.MaxConns-g.limits.ReservedConns, 1) }

// Accept returns the next connection the limits admit.
func (g *connGate) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := g.admit(c); tc != nil {
			return tc, nil
		}
	}
}

// admit counts c in, making room as the limits say, or closes it and
// returns nil.
func (g *connGate) admit(c net.Conn) *trackedConn {
	addr := hostOf(c.RemoteAddr())
	g.mu.Lock()
	if g.perAddr[addr] >= g.limits.MaxConnsPerAddr {
		g.mu.Unlock()
		c.Close()
		return nil
	}
	for g.total >= g.limits.MaxConns {
		// A connection that served a request without a token and waits for
		// another goes first; then one that has sent nothing for a while
		// (a client that just connected is about to send its request).
		v := g.longestIdle(true)
		if v == nil {
			if c := g.longestIdle(false); c != nil && c.idleFor() >= min(time.Second, g.limits.UnauthIdleTimeout/2) {
				v = c
			}
		}
		if v != nil {
			g.mu.Unlock()
			v.Close() // counted out in Close
			g.mu.Lock()
			continue
		}
		g.room.Wait() // every connection authenticated or busy: wait for one to close
	}
	tc := &trackedConn{Conn: c, gate: g, addr: addr, idleSince: time.Now()}
	g.total++
	g.perAddr[addr]++
	g.unauth[tc] = struct{}{}
	tc.idle = true
	tc.timer = time.AfterFunc(g.limits.UnauthIdleTimeout, tc.expire)
	g.mu.Unlock()
	return tc
}

// longestIdle returns the unauthenticated connection idle the longest
// (among those that served a request without authenticating, when
// servedOnly), nil when none is idle. g.mu is held.
func (g *connGate) longestIdle(servedOnly bool) *trackedConn {
	var v *trackedConn
	var vSince time.Time
	for c := range g.unauth {
		c.mu.Lock()
		idle, since, served := c.idle, c.idleSince, c.served
		c.mu.Unlock()
		if idle && (served || !servedOnly) && (v == nil || since.Before(vSince)) {
			v, vSince = c, since
		}
	}
	return v
}

// idleFor is how long the connection has been idle, 0 when busy.
func (c *trackedConn) idleFor() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.idle {
		return 0
	}
	return time.Since(c.idleSince)
}

// trim closes the unauthenticated connections that served a request, idle
// the longest first, while there are more than MaxConns − ReservedConns:
// the rest is kept for token holders.
func (g *connGate) trim() {
	for {
		g.mu.Lock()
		n := 0
		for c := range g.unauth {
			c.mu.Lock()
			if c.served {
				n++
			}
			c.mu.Unlock()
		}
		var v *trackedConn
		if n > g.maxUnauth() {
			v = g.longestIdle(true)
		}
		g.mu.Unlock()
		if v == nil {
			return
		}
		v.Close()
	}
}

// connState follows each connection between requests (http.Server's
// ConnState hook).
func connState(c net.Conn, state http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	switch state {
	case http.StateActive:
		tc.setIdle(false)
	case http.StateIdle:
		tc.setIdle(true)
	}
}

// connContext gives each request the connection it came on, for
// Authenticated.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

type connKey struct{}

// trackedConn is a connection admitted by a connGate.
type trackedConn struct {
	net.Conn
	gate *connGate
	addr string

	mu        sync.Mutex // under gate.mu when both are held
	auth      bool
	served    bool // a request on it ended without authenticating
	idle      bool
	idleSince time.Time
	timer     *time.Timer // closes an unauthenticated connection idle too long
	closeOnce sync.Once
}

func (c *trackedConn) setIdle(idle bool) {
	c.mu.Lock()
	c.idle = idle
	if idle {
		c.idleSince = time.Now()
	}
	if c.auth {
		c.mu.Unlock()
		return
	}
	if !idle {
		c.timer.Stop()
		c.mu.Unlock()
		return
	}
	c.timer.Reset(c.gate.limits.UnauthIdleTimeout)
	first := !c.served
	c.served = true
	c.mu.Unlock()
	if first {
		c.gate.trim()
	}
}

// expire closes the connection if it is still idle and unauthenticated.
func (c *trackedConn) expire() {
	c.mu.Lock()
	stale := c.idle && !c.auth && time.Since(c.idleSince) >= c.gate.limits.UnauthIdleTimeout
	c.mu.Unlock()
	if stale {
		c.Close()
	}
}

func (c *trackedConn) authenticate() {
	g := c.gate
	g.mu.Lock()
	c.mu.Lock()
	if !c.auth {
		c.auth = true
		c.timer.Stop()
		delete(g.unauth, c)
		g.room.Signal()
	}
	c.mu.Unlock()
	g.mu.Unlock()
}

// Close closes the connection once and counts it out.
func (c *trackedConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		g := c.gate
		g.mu.Lock()
		c.mu.Lock()
		c.timer.Stop()
		c.mu.Unlock()
		g.total--
		if g.perAddr[c.addr]--; g.perAddr[c.addr] <= 0 {
			delete(g.perAddr, c.addr)
		}
		delete(g.unauth, c)
		g.room.Broadcast()
		g.mu.Unlock()
		err = c.Conn.Close()
	})
	return err
}

// hostOf is the client address a connection is counted under: its IP.
func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}
