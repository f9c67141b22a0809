package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// policy decides which addresses the fetcher may connect to. The decision
// is made on the IP actually dialed, never on the spelling of the host, so
// redirects, DNS rebinding and odd host spellings all meet the same check.
type policy struct {
	allowAll bool
	hosts    map[string]bool
	prefixes []netip.Prefix
}

func newPolicy(allow []string, allowAll bool) *policy {
	p := &policy{allowAll: allowAll, hosts: make(map[string]bool)}
	for _, a := range allow {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "" {
			continue
		}
		if pr, err := netip.ParsePrefix(a); err == nil {
			p.prefixes = append(p.prefixes, pr.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(a); err == nil {
			p.prefixes = append(p.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
			continue
		}
		p.hosts[strings.TrimSuffix(a, ".")] = true
	}
	return p
}

// check returns an error wrapping claimtrace.ErrBlocked when host may not
// connect to ip.
func (p *policy) check(host string, ip netip.Addr) error {
	if p.allowAll {
		return nil
	}
	if p.hosts[strings.TrimSuffix(strings.ToLower(host), ".")] {
		return nil
	}
	u := ip.WithZone("").Unmap()
	for _, pr := range p.prefixes {
		if pr.Contains(u) {
			return nil
		}
	}
	if why := forbidden(ip); why != "" {
		return fmt.Errorf("address %s of %q is %s: %w", ip, host, why, claimtrace.ErrBlocked)
	}
	return nil
}

type namedPrefix struct {
	prefix netip.Prefix
	why    string
}

func mustPrefixes(pairs ...string) []namedPrefix {
	out := make([]namedPrefix, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, namedPrefix{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// Non-public IPv4 ranges (RFC 6890 special-purpose registry, RFC 6598).
var blocked4 = mustPrefixes(
	"0.0.0.0/8", "this-network",
	"10.0.0.0/8", "private",
	"100.64.0.0/10", "carrier-grade NAT",
	"127.0.0.0/8", "loopback",
	"169.254.0.0/16", "link-local",
	"172.16.0.0/12", "private",
	"192.0.0.0/24", "IETF protocol assignment",
	"192.0.2.0/24", "documentation",
	"192.88.99.0/24", "6to4 relay",
	"192.168.0.0/16", "private",
	"198.18.0.0/15", "benchmarking",
	"198.51.100.0/24", "documentation",
	"203.0.113.0/24", "documentation",
	"224.0.0.0/4", "multicast",
	"240.0.0.0/4", "reserved",
)

// Non-public IPv6 ranges. Ranges embedding an IPv4 address are handled in
// forbidden before this list.
var blocked6 = mustPrefixes(
	"::/128", "unspecified",
	"::1/128", "loopback",
	"::/96", "IPv4-compatible",
	"64:ff9b:1::/48", "local-use NAT64",
	"100::/64", "discard-only",
	"2001:db8::/32", "documentation",
	"fc00::/7", "unique local (private)",
	"fe80::/10", "link-local",
	"fec0::/10", "site-local",
	"ff00::/8", "multicast",
)

var (
	nat64Prefix  = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour    = netip.MustParsePrefix("2002::/16")
	teredoPrefix = netip.MustParsePrefix("2001::/32")
	globalV6     = netip.MustParsePrefix("2000::/3")
)

// forbidden returns why ip is not a public unicast address, or "".
func forbidden(ip netip.Addr) string {
	ip = ip.WithZone("")
	if !ip.IsValid() {
		return "invalid"
	}
	if ip.Is4In6() {
		if why := forbidden(ip.Unmap()); why != "" {
			return why + " (IPv4-mapped)"
		}
		return ""
	}
	if ip.Is4() {
		for _, np := range blocked4 {
			if np.prefix.Contains(ip) {
				return np.why
			}
		}
		return ""
	}
	b := ip.As16()
	switch {
	case nat64Prefix.Contains(ip):
		if why := forbidden(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); why != "" {
			return why + " (NAT64)"
		}
		return ""
	case sixToFour.Contains(ip):
		if why := forbidden(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); why != "" {
			return why + " (6to4)"
		}
		return ""
	case teredoPrefix.Contains(ip):
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		if why := forbidden(client); why != "" {
			return why + " (Teredo)"
		}
		return ""
	}
	for _, np := range blocked6 {
		if np.prefix.Contains(ip) {
			return np.why
		}
	}
	if !globalV6.Contains(ip) {
		return "not global unicast"
	}
	return ""
}

// parseTarget parses rawURL and applies the URL policy: http or https, a
// host, no credentials. Addresses are checked later, when dialing.
func parseTarget(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("fetch %q: %w: %w", rawURL, claimtrace.ErrInvalid, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return nil, fmt.Errorf("fetch %q: scheme %q not allowed: %w", rawURL, u.Scheme, claimtrace.ErrBlocked)
	}
	if u.User != nil {
		return nil, fmt.Errorf("fetch %q: credentials in URL: %w", rawURL, claimtrace.ErrBlocked)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("fetch %q: no host: %w", rawURL, claimtrace.ErrInvalid)
	}
	if _, err := hostAddr(u.Hostname()); err != nil && !errors.Is(err, errNotIPv4) {
		return nil, fmt.Errorf("fetch %q: %w", rawURL, err)
	}
	return u, nil
}

// hostAddr returns the IP a host spelling denotes without DNS: an IP
// literal, or a legacy IPv4 spelling that browsers and inet_aton accept
// ("2130706433", "0x7f.1", "017700000001"). It returns errNotIPv4 for a
// DNS name.
func hostAddr(host string) (netip.Addr, error) {
	h := strings.TrimSuffix(host, ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip, nil
	}
	return legacyIPv4(h)
}

var errNotIPv4 = errors.New("not an IPv4 spelling")

// legacyIPv4 parses host with the WHATWG URL IPv4 parser: one to four
// dot-separated parts, each decimal, octal (leading 0) or hex (0x); the
// last part fills the remaining bytes. It returns errNotIPv4 for names
// whose last part is not numeric, and ErrInvalid for numeric-looking hosts
// that are not valid addresses (such hosts must not reach DNS).
func legacyIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(host, ".")
	if len(parts) == 0 || !numericPart(parts[len(parts)-1]) {
		return netip.Addr{}, errNotIPv4
	}
	bad := fmt.Errorf("host %q is not a valid IPv4 address: %w", host, claimtrace.ErrInvalid)
	if len(parts) > 4 {
		return netip.Addr{}, bad
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, bad
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, bad
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, bad
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// numericPart reports whether p looks like an IPv4 number (WHATWG "ends in
// a number"): all digits, or 0x followed by hex digits.
func numericPart(p string) bool {
	if p == "" {
		return false
	}
	if strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X") {
		for _, r := range p[2:] {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return true
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" || len(p) > 12 {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 64)
	return n, err == nil
}

// dialContext returns a DialContext that resolves the host itself and
// dials only addresses the policy allows, so the check applies to the very
// IP the connection goes to (redirects and DNS rebinding included).
func (c *Client) dialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, portStr, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w: %w", addr, claimtrace.ErrInvalid, err)
		}
		port, err := strconv.ParseUint(portStr, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("dial %s: bad port: %w", addr, claimtrace.ErrInvalid)
		}
		ips, err := c.resolve(ctx, host)
		if err != nil {
			return nil, err
		}
		var firstErr error
		for _, ip := range ips {
			if err := c.policy.check(host, ip); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
			if err == nil {
				return conn, nil
			}
			firstErr = err
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("no address for %q: %w", host, claimtrace.ErrUnreachable)
		}
		return nil, firstErr
	}
}

// resolve returns the addresses of host: the literal or legacy-IPv4 address
// it spells, else what the resolver answers.
func (c *Client) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	ip, err := hostAddr(host)
	if err == nil {
		return []netip.Addr{ip}, nil
	}
	if !errors.Is(err, errNotIPv4) {
		return nil, err
	}
	ips, err := c.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	return ips, nil
}
