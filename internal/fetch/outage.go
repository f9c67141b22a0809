package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/claimtrace/claimtrace"
)

// DefaultProbeEvery is how long a probe's answer stands (Options.ProbeEvery).
const DefaultProbeEvery = 30 * time.Second

// DefaultProbes returns the URLs whose answer proves the network works in
// a live run (Options.Probe): the resolvers of the two identifiers every
// citation pipeline depends on.
func DefaultProbes() []string { return []string{"https://doi.org/", "https://arxiv.org/"} }

// outage tells a network that is down from links that are dead. A link
// whose host does not resolve or refuses connections is dead only if the
// network works: when such a failure comes and nothing answered lately,
// the probe URLs are asked (once for all concurrent callers); if none of
// them answers either, the network is down, and for ProbeEvery every fetch
// fails at once with claimtrace.ErrNoNetwork instead of waiting out its
// timeouts and retries. Any answer, from a probe or a fetch, says the
// network works for ProbeEvery.
type outage struct {
	probe []string
	every time.Duration
	now   func() time.Time

	mu        sync.Mutex
	upUntil   time.Time // the network answered: failures are the links'
	downUntil time.Time // the probes failed: fail at once
	lastErr   error     // the probes' failure, for messages
	probing   chan struct{}
}

// networkFailure reports errors by which no server answered at all: a name
// lookup that failed (any DNS answer or none), a connection refused, a
// network or host unreachable, a dial that timed out.
func networkFailure(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}

// NetworkDown reports whether the client knows the network to be down
// right now (see Options.Probe): callers skip other network work, such as
// scholarly lookups, that would only wait out the same failure.
func (c *Client) NetworkDown() bool { return c.outage.down() != nil }

// answered records that a server answered: the network works.
func (o *outage) answered() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.upUntil, o.downUntil = o.now().Add(o.every), time.Time{}
	o.mu.Unlock()
}

// down returns the outage's error while the network is known to be down.
func (o *outage) down() error {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.now().Before(o.downUntil) {
		return o.err()
	}
	return nil
}

func (o *outage) err() error {
	return fmt.Errorf("%w: %w: %v could not be reached either (%v)", claimtrace.ErrNoNetwork, claimtrace.ErrUnreachable, o.probe, o.lastErr)
}

// check is called after a network failure: it returns the outage's error
// when the network is down (probing it if no answer came lately), nil when
// the failure is the link's own.
func (o *outage) check(ctx context.Context, c *Client) error {
	if o == nil {
		return nil
	}
	for {
		o.mu.Lock()
		now := o.now()
		switch {
		case now.Before(o.upUntil):
			o.mu.Unlock()
			return nil
		case now.Before(o.downUntil):
			o.mu.Unlock()
			return o.err()
		case o.probing != nil:
			wait := o.probing
			o.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		done := make(chan struct{})
		o.probing = done
		o.mu.Unlock()
		up, err := o.run(ctx, c)
		o.mu.Lock()
		o.probing = nil
		close(done)
		switch {
		case ctx.Err() != nil:
			o.mu.Unlock()
			return ctx.Err()
		case up:
			o.upUntil = o.now().Add(o.every)
			o.mu.Unlock()
			return nil
		}
		o.downUntil, o.lastErr = o.now().Add(o.every), err
		e := o.err()
		o.mu.Unlock()
		return e
	}
}

// run asks each probe URL once, without retries: any HTTP answer, whatever
// its status, is the network working.
func (o *outage) run(ctx context.Context, c *Client) (bool, error) {
	var last error
	for _, p := range o.probe {
		u, err := url.Parse(p)
		if err != nil {
			last = err
			continue
		}
		_, _, err = c.once(ctx, p, u)
		if err == nil {
			return true, nil
		}
		last = err
		if !networkFailure(err) && ctx.Err() == nil {
			// A TLS or protocol error: something answered.
			return true, nil
		}
	}
	return false, last
}
