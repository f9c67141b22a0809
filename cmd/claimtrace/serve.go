package main

import (
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/httpserve"
	"github.com/claimtrace/claimtrace/internal/live"
	"github.com/claimtrace/claimtrace/internal/web"
)

// ServeConfig configures the HTTP servers of claimtrace serve and
// claimtrace mcp --http (the [serve] table). Zero values take the defaults
// of httpserve.DefaultLimits.
type ServeConfig struct {
	// ReadTimeoutSecs bounds reading one request, body included.
	ReadTimeoutSecs int `toml:"read_timeout_seconds"`
	// WriteTimeoutSecs bounds writing one response.
	WriteTimeoutSecs int `toml:"write_timeout_seconds"`
	// IdleTimeoutSecs closes keep-alive connections idle that long.
	IdleTimeoutSecs int `toml:"idle_timeout_seconds"`
	// MaxConns caps the connections open at once.
	MaxConns int `toml:"max_conns"`
	// MaxConnsPerAddr caps the connections of one client address;
	// ReservedConns are kept for clients that authenticated; connections
	// that have not are closed after UnauthIdleTimeoutSecs idle.
	MaxConnsPerAddr       int `toml:"max_conns_per_addr"`
	ReservedConns         int `toml:"reserved_conns"`
	UnauthIdleTimeoutSecs int `toml:"unauth_idle_timeout_seconds"`
	// CountOtherReviewers makes review agreement count reviews not posted
	// by a configured reviewer with their own token (by default, once
	// reviewers are configured, only theirs count).
	CountOtherReviewers bool `toml:"count_other_reviewers"`
	// MaxResponseBytes bounds the stored documents (report results,
	// graphs) held in memory at once to answer reads.
	MaxResponseBytes int64 `toml:"max_response_bytes"`
	// AllowedHosts are names, beside the loopback names and the addresses
	// listened on, that clients may give in the Host header (a proxy's
	// public name); any other name is refused (421), against DNS
	// rebinding.
	AllowedHosts []string `toml:"allowed_hosts"`
	// Reviewers maps each reviewer's name to the environment variable
	// holding their token ([serve.reviewers] alice = "CLAIMTRACE_TOKEN_ALICE"):
	// a review posted with it is theirs. Tokens never sit in the file.
	Reviewers map[string]string `toml:"reviewers"`
}

// checkHost refuses requests naming a host the server is not (DNS
// rebinding).
func (c ServeConfig) checkHost(addr net.Addr, h http.Handler) http.Handler {
	return httpserve.CheckHost(httpserve.Hosts(addr, c.AllowedHosts), h)
}

// reviewerTokens reads the reviewers' tokens from the environment: token →
// name.
func (c ServeConfig) reviewerTokens() (map[string]string, error) {
	out := make(map[string]string, len(c.Reviewers))
	for name, env := range c.Reviewers {
		token := os.Getenv(env)
		if token == "" {
			return nil, fmt.Errorf("serve: reviewer %s: $%s, named in [serve.reviewers], is empty: %w", name, env, claimtrace.ErrInvalid)
		}
		if other, ok := out[token]; ok {
			return nil, fmt.Errorf("serve: reviewers %s and %s have one token: give each a token of their own: %w", other, name, claimtrace.ErrInvalid)
		}
		out[token] = name
	}
	return out, nil
}

// limits are the server limits the configuration asks for.
func (c ServeConfig) limits() httpserve.Limits {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	return httpserve.Limits{ReadTimeout: sec(c.ReadTimeoutSecs), WriteTimeout: sec(c.WriteTimeoutSecs), IdleTimeout: sec(c.IdleTimeoutSecs), MaxConns: c.MaxConns,
		MaxConnsPerAddr: c.MaxConnsPerAddr, ReservedConns: c.ReservedConns, UnauthIdleTimeout: sec(c.UnauthIdleTimeoutSecs)}
}

func (a *app) serveCmd() *cobra.Command {
	var addr, dsn, tokenEnv string
	var pageClaims int
	var create bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the web audit view and the JSON API over a store",
		Long: `Serve the runs of a store over HTTP: the runs, each run's reports with their
headline figures, and the audit view of one report, where every claim is
highlighted by status (supported, partial, unsupported, contradicted,
unknown, uncited) and selecting one shows its sources, the evidence passage
inside each source's text, the verdicts and reasons, its provenance path
and AAR figures. The view measures the seconds a reader spends on each claim
(page visible and focused) and the report page shows the empirical AEff,
minutes per claim audited. Keys j and k move between claims.

JSON API (read): /api/runs, /api/runs/RUN/reports,
/api/runs/RUN/reports/TASK (the stored result), .../TASK/audit (timings,
reviews, AEff, review agreement), /api/runs/RUN/reviews (every review and how
often reviews agree with the pipeline and each other), /api/runs/RUN/reviews.jsonl
(reviews of cited claims as labelled pairs for 'claimtrace judge eval --labels'),
/api/runs/RUN/graphs/TASK[?format=prov|jsonld].
Write API: POST /api/runs/RUN/reports/TASK/timings and .../reviews, with
"Authorization: Bearer TOKEN". The token is read from the environment
variable named by --token-env (at least 16 characters, e.g. openssl rand
-hex 32); when it is unset the server is read-only and says so.

Reviews are appended, never replaced: GET .../TASK/reviews lists every
version with its author and time. Give each reviewer a token of their own
in the config file, [serve.reviewers] alice = "CLAIMTRACE_TOKEN_ALICE" (the
variable holds the token): a review posted with it is alice's, a body
naming someone else is refused (403), and the --token-env token can no
longer post as alice. The live provenance
API under /api/live/ (see claimtrace mcp --help) needs the token for reads
too, and is closed without one.

Requests whose Host header names another host are refused (421: DNS
rebinding); [serve] allowed_hosts adds names, e.g. a proxy's. Listening
beyond this machine without TLS prints a warning: put a TLS-terminating
proxy in front. Timeouts and the connection caps: [serve]
read_timeout_seconds, write_timeout_seconds, idle_timeout_seconds,
max_conns, max_conns_per_addr, reserved_conns (kept for token holders),
unauth_idle_timeout_seconds; max_response_bytes bounds large reads held at
once. Once reviewers are configured, a name that looks like one of theirs
(case, width, look-alike letters) is refused to the --token-env token, and
review agreement counts only their own reviews ([serve]
count_other_reviewers counts all). See docs/security.md.

The audit view shows a long report in pages of --page-claims claims
(and at most 128 KiB of text each): ?page=N, or ?claim=ID for the page
of one claim.

The store must exist (eval, audit and demo --out make one): a path that
names no store is an error, not an empty store; --create makes a new one
(for the live API alone).

Ctrl-C stops the server after the requests in flight.`,
		Example: `  claimtrace demo --out demo && claimtrace serve --store demo/claimtrace.db
  CLAIMTRACE_TOKEN=$(openssl rand -hex 32) claimtrace serve --store results.db --addr 127.0.0.1:8080
  claimtrace serve --store live.db --create    # a new store for the live provenance API`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			open := a.openExistingStore
			if create {
				open = a.openStore
			}
			st, err := open(ctx, dsn)
			if err != nil {
				return fmt.Errorf("serve: %w (--create makes a new store)", err)
			}
			var token string
			if tokenEnv != "" {
				token = os.Getenv(tokenEnv)
			}
			reviewers, err := a.cfg.Serve.reviewerTokens()
			if err != nil {
				return err
			}
			srv, err := web.New(web.Options{Store: st, Token: token, Reviewers: reviewers, Log: slog.New(slog.NewTextHandler(a.stderr, nil)), PageClaims: pageClaims,
				MaxResponseBytes: a.cfg.Serve.MaxResponseBytes, CountOtherReviewers: a.cfg.Serve.CountOtherReviewers})
			if err != nil {
				return fmt.Errorf("serve: token from $%s: %w", tokenEnv, err)
			}
			// Agents record provenance live through the same server: the
			// JSON API under /api/live/ (offline judge, τ 0.5, no fetching).
			svc, err := live.New(live.Options{Store: st, Limits: a.cfg.Live.limits()})
			if err != nil {
				return err
			}
			srv.Handle("/api/live/", http.StripPrefix("/api/live", live.Handler(svc, token)))
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			fmt.Fprintf(a.stdout, "claimtrace serve: http://%s/ (store %s)\n", ln.Addr(), st)
			if w := httpserve.PlaintextWarning(ln.Addr()); w != "" {
				fmt.Fprintln(a.stderr, w)
			}
			if srv.Writable() {
				fmt.Fprintf(a.stdout, "write API on: POST requests need the token in $%s", tokenEnv)
				if len(reviewers) > 0 {
					fmt.Fprintf(a.stdout, " or a reviewer's token (%s)", strings.Join(slices.Sorted(maps.Keys(a.cfg.Serve.Reviewers)), ", "))
				}
				fmt.Fprintln(a.stdout)
			} else {
				fmt.Fprintf(a.stdout, "read-only: set $%s to a token of at least %d characters to save audit timings and reviews\n", tokenEnv, web.MinTokenBytes)
			}
			if err := httpserve.Serve(ctx, ln, a.cfg.Serve.checkHost(ln.Addr(), srv), a.cfg.Serve.limits(), 5*time.Second); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "claimtrace serve: stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().StringVar(&dsn, "store", "", "store DSN (default: <data dir>/claimtrace.db)")
	cmd.Flags().StringVar(&tokenEnv, "token-env", "CLAIMTRACE_TOKEN", "environment variable holding the write API's bearer token")
	cmd.Flags().IntVar(&pageClaims, "page-claims", web.DefaultPageClaims, fmt.Sprintf("claims one page of the audit view shows (1 to %d; a page also holds at most 128 KiB of report text)", web.MaxPageClaims))
	cmd.Flags().BoolVar(&create, "create", false, "make the store when it does not exist (default: a missing store is an error)")
	return cmd
}
