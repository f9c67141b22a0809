package httpserve

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
)

// Hosts lists the names a server answers to in the Host header: the
// loopback names, the address it is bound to (every address of the machine
// and its host name when bound to all of them) and extra, the names a
// proxy or DNS gives it.
func Hosts(addr net.Addr, extra []string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP != nil {
		hosts = append(hosts, tcp.IP.String())
		if tcp.IP.IsUnspecified() {
			if name, err := os.Hostname(); err == nil {
				hosts = append(hosts, name)
			}
			if addrs, err := net.InterfaceAddrs(); err == nil {
				for _, a := range addrs {
					if ipn, ok := a.(*net.IPNet); ok {
						hosts = append(hosts, ipn.IP.String())
					}
				}
			}
		}
	}
	return append(hosts, extra...)
}

// CheckHost answers 421 Misdirected Request to a request whose Host header
// is none of hosts (see Hosts). A page of another site that a browser
// reaches through DNS rebinding (the attacker's name resolving to this
// address) sends the attacker's name, and is refused before anything is
// read or written.
func CheckHost(hosts []string, next http.Handler) http.Handler {
	allowed := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		allowed[hostName(h)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[hostName(r.Host)] {
			http.Error(w, fmt.Sprintf("host %q is not served here: name this server by an address it listens on, or add the name to allowed_hosts under [serve] in claimtrace's config", clip(r.Host, 100)), http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostName is the lowercase host of a Host header or configured name,
// without port, brackets or trailing dot.
func hostName(h string) string {
	h = strings.TrimSpace(h)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// PlaintextWarning returns a warning when a server on addr is reachable
// from other machines without TLS, "" on a loopback address: bearer tokens
// and review notes would cross the network in clear text.
func PlaintextWarning(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || (tcp.IP != nil && tcp.IP.IsLoopback()) {
		return ""
	}
	return fmt.Sprintf("warning: listening on %s, beyond this machine, without TLS: bearer tokens travel in clear text. Put a TLS-terminating proxy in front (and add its host name to allowed_hosts under [serve]), or listen on 127.0.0.1", addr)
}
