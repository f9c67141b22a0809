package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
)

// downResolver is a machine without a network: every lookup fails the way
// the stub resolver fails when no route exists (or, with nxdomain, the way
// a captive resolver answers every name). It counts lookups.
type downResolver struct {
	nxdomain bool
	n        atomic.Int32
}

func (r *downResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.n.Add(1)
	if r.nxdomain {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return nil, &net.DNSError{Err: "dial udp 10.0.0.53:53: connect: network is unreachable", Name: host, IsTemporary: true}
}

// TestNoNetwork: on a machine whose lookups all fail, a fetch says the
// network is down (claimtrace.ErrNoNetwork), not that the link is dead, and
// after the probe fails once the next fetches fail at once, without a
// lookup, until ProbeEvery passes.
func TestNoNetwork(t *testing.T) {
	for _, nx := range []bool{false, true} {
		t.Run(fmt.Sprintf("nxdomain=%v", nx), func(t *testing.T) {
			res := &downResolver{nxdomain: nx}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var mu sync.Mutex
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			o := testOptions()
			o.Resolver, o.Probe, o.Now, o.Retries = res, []string{"https://probe-a.example/", "https://probe-b.example/"}, clock, 3
			c := New(o)
			start := time.Now()
			_, err := c.Fetch(context.Background(), "https://journal.example/paper/1")
			if !errors.Is(err, claimtrace.ErrNoNetwork) || !errors.Is(err, claimtrace.ErrUnreachable) {
				t.Fatalf("Fetch error = %v, want ErrNoNetwork (and ErrUnreachable)", err)
			}
			if got := res.n.Load(); got != 3 {
				t.Errorf("%d lookups, want 3: the URL once (no retries once the network is known down) and the two probes", got)
			}
			for i := range 20 {
				if _, err := c.Fetch(context.Background(), fmt.Sprintf("https://other%d.example/x", i)); !errors.Is(err, claimtrace.ErrNoNetwork) {
					t.Fatalf("fetch %d: %v, want ErrNoNetwork", i, err)
				}
			}
			if got := res.n.Load(); got != 3 {
				t.Errorf("%d lookups after 20 more fetches, want still 3: a known outage fails at once", got)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("21 fetches took %v without a network", d)
			}
			mu.Lock()
			now = now.Add(DefaultProbeEvery + time.Second)
			mu.Unlock()
			if _, err := c.Fetch(context.Background(), "https://journal.example/paper/2"); !errors.Is(err, claimtrace.ErrNoNetwork) {
				t.Errorf("after ProbeEvery: %v, want ErrNoNetwork again", err)
			}
			if got := res.n.Load(); got != 6 {
				t.Errorf("%d lookups, want 6: after ProbeEvery the URL and the probes are tried again", got)
			}
		})
	}
}

// TestDeadLinkWithNetwork: when the probes answer, a host that does not
// exist is a dead link (no ErrNoNetwork), and the answer stands for
// ProbeEvery: more dead hosts do not probe again.
func TestDeadLinkWithNetwork(t *testing.T) {
	var probes atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		probes.Add(1)
		w.WriteHeader(http.StatusForbidden) // any answer will do
	})
	res := &fakeResolver{answers: map[string][]netip.Addr{"probe.example": addrs("127.0.0.1")}}
	o := testOptions()
	o.Resolver, o.Probe = res, []string{"http://probe.example:" + srv.port() + "/"}
	c := New(o)
	for i := range 5 {
		_, err := c.Fetch(context.Background(), fmt.Sprintf("https://made-up-%d.example/paper", i))
		if err == nil || errors.Is(err, claimtrace.ErrNoNetwork) || !errors.Is(err, claimtrace.ErrUnreachable) {
			t.Fatalf("dead host %d: %v, want unreachable, not ErrNoNetwork", i, err)
		}
	}
	if probes.Load() != 1 {
		t.Errorf("%d probes for 5 dead hosts, want 1", probes.Load())
	}
}

// TestOutageProbesOnce: concurrent fetches failing together probe once.
func TestOutageProbesOnce(t *testing.T) {
	res := &downResolver{}
	o := testOptions()
	o.Resolver, o.Probe, o.Retries = res, []string{"https://probe.example/"}, -1
	c := New(o)
	var wg sync.WaitGroup
	var down atomic.Int32
	for i := range 16 {
		wg.Go(func() {
			if _, err := c.Fetch(context.Background(), fmt.Sprintf("https://host%d.example/", i)); errors.Is(err, claimtrace.ErrNoNetwork) {
				down.Add(1)
			}
		})
	}
	wg.Wait()
	if down.Load() != 16 {
		t.Errorf("%d of 16 fetches said no network", down.Load())
	}
	// Each fetch looks its host up at most once, the probe once: 17 at most.
	if got := res.n.Load(); got > 17 {
		t.Errorf("%d lookups, want at most 17 (one probe for all)", got)
	}
}

// TestNoProbeNoOutage: without probe URLs a failed lookup is what it
// always was: a dead link, no outage.
func TestNoProbeNoOutage(t *testing.T) {
	o := testOptions()
	o.Resolver = &downResolver{nxdomain: true}
	_, err := New(o).Fetch(context.Background(), "https://made-up.example/")
	if err == nil || errors.Is(err, claimtrace.ErrNoNetwork) {
		t.Errorf("error %v, want a dead link", err)
	}
}

func TestNetworkFailure(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&net.DNSError{Err: "no such host", IsNotFound: true}, true},
		{fmt.Errorf("get: %w", &net.OpError{Op: "dial", Err: errors.New("connect: connection refused")}), true},
		{&net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, false},
		{errors.New("tls: handshake failure"), false},
		{context.DeadlineExceeded, false},
	} {
		if got := networkFailure(tt.err); got != tt.want {
			t.Errorf("networkFailure(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
