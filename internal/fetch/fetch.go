// Package fetch retrieves cited sources safely and turns them into text.
//
// A Client fetches a URL from, in order, a frozen snapshot directory, a
// content cache and the live web. Live fetches are SSRF-safe: every address
// is checked when the connection is made (so redirects and DNS rebinding are
// covered), only http and https are followed, bodies are capped, hosts are
// rate limited and transient failures are retried with jittered backoff.
//
// Extract turns a fetched Page into readable main text and scholarly
// metadata (citation_* tags, Dublin Core, Open Graph, JSON-LD, PDF info),
// and flags bot walls, paywalls, login walls, error pages and empty pages so
// that callers can label a claim "unknown" instead of "unsupported".
package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/backoff"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultUserAgent    = "claimtrace/0.1 (+https://github.com/claimtrace/claimtrace)"
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBytes     = 20 << 20
	DefaultRetries      = 2
	DefaultPerHostRPS   = 1.0
	DefaultMaxRedirects = 10
	DefaultBackoff      = 500 * time.Millisecond
	DefaultMaxWait      = 30 * time.Second
)

// Options configures a Client. The zero value is a safe live fetcher with
// the defaults above.
type Options struct {
	// UserAgent is sent with every request.
	UserAgent string
	// Timeout bounds one attempt, body included.
	Timeout time.Duration
	// MaxBytes caps a body. Longer bodies are cut at MaxBytes and the page is
	// flagged Truncated; they are never read fully into memory.
	MaxBytes int64
	// Retries is the number of extra attempts after a 429, a 5xx, a timeout
	// or a connection failure. Negative means none.
	Retries int
	// Backoff is the base delay of the jittered exponential backoff.
	Backoff time.Duration
	// MaxWait caps one wait between attempts, Retry-After included.
	MaxWait time.Duration
	// MaxRedirects caps the redirects followed for one URL.
	MaxRedirects int
	// PerHostRPS limits requests per second to one host (politeness).
	// Zero means DefaultPerHostRPS; negative means unlimited.
	PerHostRPS float64
	// AllowHosts lists hostnames ("intranet.example") or IPs and CIDRs
	// ("127.0.0.1", "10.1.0.0/16") that may resolve to non-public addresses.
	// Use it for tests against httptest servers and for trusted intranets.
	AllowHosts []string
	// AllowPrivate disables the address policy entirely. Tests only.
	AllowPrivate bool
	// Offline forbids opening any socket: every URL not in the snapshot is
	// unreachable. The cache is not consulted either, so that an offline run
	// depends on the snapshot alone.
	Offline bool
	// Snapshot holds frozen pages, consulted first.
	Snapshot *Snapshot
	// Canon maps a URL to its canonical form; snapshot entries are also
	// looked up by it. Nil uses a conservative built-in canonicalizer.
	// Callers normally pass biblio.CanonicalURL wrapped to drop its error.
	Canon func(string) string
	// Cache is an optional content cache consulted after the snapshot.
	Cache Cache
	// Resolver resolves host names. Nil uses net.DefaultResolver. Tests
	// inject one to simulate DNS answers such as rebinding to private IPs.
	Resolver Resolver
	// Probe lists URLs whose answer proves the network works
	// (DefaultProbes for the web). When a live fetch fails without any
	// server answering (DNS, refused or unreachable connections) and
	// nothing answered within ProbeEvery, they are asked: if none answers
	// either, the network is down, and fetches fail at once with
	// claimtrace.ErrNoNetwork (not a dead link) for ProbeEvery (default
	// DefaultProbeEvery). Empty: no such check.
	Probe      []string
	ProbeEvery time.Duration
	// Now returns the current time (FetchedAt, Retry-After dates).
	Now func() time.Time
}

// Resolver resolves a host name to IP addresses. *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Page is one fetched URL. A dead link (404, 410) is a Page with its Status;
// an unreachable or blocked URL is described by Err.
type Page struct {
	URL          string    `json:"url"`
	FinalURL     string    `json:"final_url,omitempty"`
	Status       int       `json:"status"`
	ContentType  string    `json:"content_type,omitempty"`
	Body         []byte    `json:"body,omitempty"`
	Truncated    bool      `json:"truncated,omitempty"`
	FetchedAt    time.Time `json:"fetched_at,omitzero"`
	Err          string    `json:"error,omitempty"`
	SHA256       string    `json:"sha256,omitempty"`
	FromSnapshot bool      `json:"-"`
	FromCache    bool      `json:"-"`
	// Kept is the extracted content a snapshot keeps beside the page
	// (nil when it keeps none): Extract returns it, while the page is the
	// one it was kept for, instead of extracting the page again.
	Kept *KeptContent `json:"-"`
}

// Dead reports whether the page is a dead link (404 Not Found or 410 Gone).
func (p *Page) Dead() bool {
	return p.Status == http.StatusNotFound || p.Status == http.StatusGone
}

// Client fetches pages. It is safe for concurrent use.
type Client struct {
	opts     Options
	policy   *policy
	http     *http.Client
	resolver Resolver
	canon    func(string) string
	// canonIndex maps canonical snapshot URLs to entries.
	canonIndex map[string]Entry

	mu       sync.Mutex
	limiters map[string]*rate.Limiter
	// outage tells a network that is down from dead links (nil: Probe
	// is empty).
	outage *outage
}

// New returns a Client with opts, filling in defaults.
func New(opts Options) *Client {
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.PerHostRPS == 0 {
		opts.PerHostRPS = DefaultPerHostRPS
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Client{
		opts:     opts,
		policy:   newPolicy(opts.AllowHosts, opts.AllowPrivate),
		resolver: opts.Resolver,
		canon:    opts.Canon,
		limiters: make(map[string]*rate.Limiter),
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if len(opts.Probe) > 0 {
		every := opts.ProbeEvery
		if every <= 0 {
			every = DefaultProbeEvery
		}
		c.outage = &outage{probe: opts.Probe, every: every, now: opts.Now}
	}
	if c.canon == nil {
		c.canon = canonicalKey
	}
	if opts.Snapshot != nil {
		c.canonIndex = make(map[string]Entry, opts.Snapshot.Len())
		for _, e := range opts.Snapshot.entries {
			k := c.canon(e.URL)
			if _, ok := c.canonIndex[k]; !ok {
				c.canonIndex[k] = e
			}
		}
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:                 nil, // untrusted URLs never go through an env-configured proxy
		DialContext:           c.dialContext(dialer),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
	}
	c.http = &http.Client{
		Transport:     transport,
		CheckRedirect: c.checkRedirect,
	}
	return c
}

// Fetch returns the page at rawURL from the snapshot, the cache or the web.
//
// A dead link (404, 410) and any other HTTP answer is a Page with no error.
// A URL refused by the address policy returns an error wrapping
// claimtrace.ErrBlocked; a URL that cannot be reached (offline and not in the
// snapshot, DNS failure, timeouts, 429/5xx after retries) returns an error
// wrapping claimtrace.ErrUnreachable. In both cases a non-nil Page describing
// the failure (Err set, and the last HTTP answer if there was one) is returned
// with the error, so that callers can record it in a snapshot or store.
func (c *Client) Fetch(ctx context.Context, rawURL string) (*Page, error) {
	if e, ok := c.lookupSnapshot(rawURL); ok {
		return c.snapshotPage(rawURL, e)
	}
	if c.opts.Offline {
		return c.failed(rawURL, nil, fmt.Errorf("fetch %s: offline and not in snapshot: %w", rawURL, claimtrace.ErrUnreachable))
	}
	u, err := parseTarget(rawURL)
	if err != nil {
		return c.failed(rawURL, nil, err)
	}
	if c.opts.Cache != nil {
		p, ok, err := c.opts.Cache.GetPage(ctx, rawURL)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: cache: %w", rawURL, err)
		}
		if ok {
			cp := *p
			cp.FromCache = true
			cp.FromSnapshot = false
			return &cp, nil
		}
	}
	if err := c.outage.down(); err != nil {
		return c.failed(rawURL, nil, fmt.Errorf("fetch %s: %w", rawURL, err))
	}
	p, err := c.live(ctx, rawURL, u)
	if err != nil {
		return p, err
	}
	if c.opts.Cache != nil {
		if err := c.opts.Cache.PutPage(ctx, p); err != nil {
			return nil, fmt.Errorf("fetch %s: cache: %w", rawURL, err)
		}
	}
	return p, nil
}

// failed returns a Page recording err together with err.
func (c *Client) failed(rawURL string, last *Page, err error) (*Page, error) {
	p := last
	if p == nil {
		p = &Page{URL: rawURL, FetchedAt: c.opts.Now().UTC()}
	}
	p.Err = err.Error()
	return p, err
}

// live fetches u from the network with rate limiting and retries.
func (c *Client) live(ctx context.Context, rawURL string, u *url.URL) (*Page, error) {
	host := strings.ToLower(u.Hostname())
	var last *Page
	for attempt := 0; ; attempt++ {
		if err := c.limiter(host).Wait(ctx); err != nil {
			return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
		}
		if err := c.outage.down(); err != nil {
			// The network went down while this fetch waited its turn.
			return c.failed(rawURL, nil, fmt.Errorf("fetch %s: %w", rawURL, err))
		}
		p, retryAfter, err := c.once(ctx, rawURL, u)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fetch %s: %w", rawURL, ctx.Err())
		}
		retry := false
		switch {
		case err != nil && errors.Is(err, claimtrace.ErrBlocked):
			return c.failed(rawURL, nil, fmt.Errorf("fetch %s: %w", rawURL, err))
		case err != nil && errors.Is(err, claimtrace.ErrUnreachable):
			// Redirect loops and the like: retrying cannot help.
			return c.failed(rawURL, nil, fmt.Errorf("fetch %s: %w", rawURL, err))
		case err != nil:
			if networkFailure(err) {
				// No server answered: the link's fault, or the network's?
				if oerr := c.outage.check(ctx, c); oerr != nil {
					if ctx.Err() != nil {
						return nil, fmt.Errorf("fetch %s: %w", rawURL, ctx.Err())
					}
					return c.failed(rawURL, nil, fmt.Errorf("fetch %s: %w (%v)", rawURL, oerr, err))
				}
			}
			if isPermanentNetErr(err) {
				return c.failed(rawURL, nil, fmt.Errorf("fetch %s: %w: %w", rawURL, claimtrace.ErrUnreachable, err))
			}
			retry = true
		case p.Status == http.StatusTooManyRequests || p.Status >= 500:
			c.outage.answered()
			last = p
			retry = true
		default:
			c.outage.answered()
			return p, nil
		}
		if attempt >= c.opts.Retries {
			if err == nil {
				err = fmt.Errorf("http %d", p.Status)
			}
			return c.failed(rawURL, last, fmt.Errorf("fetch %s: %w after %d attempts: %w", rawURL, claimtrace.ErrUnreachable, attempt+1, err))
		}
		if retry {
			if err := backoff.Sleep(ctx, c.backoff(attempt, retryAfter)); err != nil {
				return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
			}
		}
	}
}

// once makes one request. It returns the page (any HTTP status), the
// server's Retry-After delay if any, or a transport error.
func (c *Client) once(ctx context.Context, rawURL string, u *url.URL) (*Page, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", claimtrace.ErrBlocked, err)
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	req.Header.Set("Accept-Language", "en;q=1.0,*;q=0.5")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, truncated, err := readCapped(resp.Body, c.opts.MaxBytes)
	if err != nil {
		return nil, 0, fmt.Errorf("read body: %w", err)
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" && len(body) > 0 {
		ct = http.DetectContentType(body)
	}
	p := &Page{
		URL:         rawURL,
		FinalURL:    resp.Request.URL.String(),
		Status:      resp.StatusCode,
		ContentType: ct,
		Body:        body,
		Truncated:   truncated,
		FetchedAt:   c.opts.Now().UTC(),
		SHA256:      hashHex(body),
	}
	return p, backoff.RetryAfter(resp.Header.Get("Retry-After"), c.opts.Now()), nil
}

// readCapped reads at most max bytes of r, reporting whether more remained.
func readCapped(r io.Reader, max int64) ([]byte, bool, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, max+1))
	if err != nil {
		return nil, false, err
	}
	if n > max {
		return buf.Bytes()[:max], true, nil
	}
	return buf.Bytes(), false, nil
}

// limiter returns the rate limiter of host.
func (c *Client) limiter(host string) *rate.Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.limiters[host]
	if !ok {
		if c.opts.PerHostRPS < 0 {
			l = rate.NewLimiter(rate.Inf, 1)
		} else {
			l = rate.NewLimiter(rate.Limit(c.opts.PerHostRPS), 1)
		}
		c.limiters[host] = l
	}
	return l
}

// checkRedirect applies the URL policy and the redirect cap to each hop.
// Addresses are checked when the connection is dialed.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opts.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects: %w", len(via), claimtrace.ErrUnreachable)
	}
	if _, err := parseTarget(req.URL.String()); err != nil {
		return fmt.Errorf("redirect: %w", err)
	}
	return nil
}

// isPermanentNetErr reports transport errors retrying cannot fix.
func isPermanentNetErr(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

// hashHex returns the hex SHA-256 of b.
func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
