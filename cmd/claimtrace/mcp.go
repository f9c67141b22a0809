package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/httpserve"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/live"
	"github.com/claimtrace/claimtrace/internal/live/mcpserver"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// mcpFlags are the settings of claimtrace mcp.
type mcpFlags struct {
	http       string
	store      string
	judge      string
	tau        float64
	allowFetch bool
	allowHosts []string
	detect     bool
	tokenEnv   string
}

// LiveConfig bounds one live provenance session (the [live] table), for
// claimtrace mcp and the /api/live/ API of claimtrace serve. Zero values
// take live.DefaultLimits.
type LiveConfig struct {
	MaxSources      int   `toml:"max_sources"`
	MaxClaims       int   `toml:"max_claims"`
	MaxEdges        int   `toml:"max_edges"`
	MaxSessionBytes int64 `toml:"max_session_bytes"`
	// Open sessions in all and per token, and the memory the sessions in
	// memory may take (idle ones leave it and are reloaded when used).
	MaxOpenSessions         int   `toml:"max_open_sessions"`
	MaxOpenSessionsPerToken int   `toml:"max_open_sessions_per_token"`
	MaxMemoryBytes          int64 `toml:"max_memory_bytes"`
}

func (c LiveConfig) limits() live.Limits {
	return live.Limits{Sources: c.MaxSources, Claims: c.MaxClaims, Edges: c.MaxEdges, Bytes: c.MaxSessionBytes,
		Sessions: c.MaxOpenSessions, SessionsPerOwner: c.MaxOpenSessionsPerToken, MemoryBytes: c.MaxMemoryBytes}
}

// minTokenBytes is the shortest bearer token the HTTP transport accepts.
const minTokenBytes = 16

func (a *app) mcpCmd() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR] [--store DSN] [--judge offline] [--tau 0.5] [--allow-fetch]",
		Short: "Serve live provenance tools to an agent over MCP: claims are verified and gated before they are written",
		Long: `Serve the live provenance API as Model Context Protocol tools, so that an
agent records the provenance of its report while it writes it (the AAR
standard's "validation during synthesis"):

  open_session    one session per report
  add_source      a source and the excerpt the agent read
  add_reasoning   an inference step and its inputs
  add_claim       a claim with the sources it rests on: each source is judged
                  against the statement now, and the answer says whether the
                  claim is gated (incomplete provenance, or no source supports
                  it with strength ν > τ) and why
  add_edge, withdraw_claim, get_metrics (PCov, PSnd, CTran, AEff), why,
  export_prov (W3C PROV-JSON), get_graph, close_session

Every operation is stored as soon as it is applied (--store, default the
configured store): a crash loses nothing and reopening a session id
continues it.

By default the server speaks MCP on stdin/stdout: configure your MCP client
to run "claimtrace mcp". With --http ADDR it serves streamable HTTP at
http://ADDR/mcp and the same operations as a JSON API at
http://ADDR/api/live/; every request to either, reads included, needs
"Authorization: Bearer <token>", the token read from $CLAIMTRACE_TOKEN
(--token-env names another variable).

A session holds at most 1,000 sources, 5,000 claims, 5,000 reasoning
steps, 50,000 edges and 32 MiB of text; a write past a limit is refused
(HTTP 422, naming the limit). At most 1,000 sessions are open at once, 100
of one token; sessions not in use leave memory past 256 MiB and are
reloaded when used. Raise them under [live] in the config file:
max_sources, max_claims, max_edges, max_session_bytes, max_open_sessions,
max_open_sessions_per_token, max_memory_bytes.

Sources given by URL alone are fetched (SSRF-safe, through the page cache)
only with --allow-fetch; otherwise they stay unresolved and claims resting on
them are gated.`,
		Example: `  claimtrace mcp
  claimtrace mcp --store ~/claimtrace/live.db --allow-fetch
  CLAIMTRACE_TOKEN=$(openssl rand -hex 32) claimtrace mcp --http 127.0.0.1:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runMCP(cmd.Context(), f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	fs.StringVar(&f.store, "store", "", "store DSN: SQLite path or postgres:// URL (default: the configured store)")
	fs.StringVar(&f.judge, "judge", "offline", "support judge: offline, or an LLM judge spec (provider:model or a configured name)")
	fs.Float64Var(&f.tau, "tau", prov.DefaultTau, "entailment threshold τ: a source supports a claim when its strength ν > τ")
	fs.BoolVar(&f.allowFetch, "allow-fetch", false, "fetch sources recorded by URL without an excerpt (SSRF-safe fetcher)")
	fs.StringSliceVar(&f.allowHosts, "allow-host", nil, "host or CIDR that may resolve to a private address when fetching; repeatable")
	fs.BoolVar(&f.detect, "detect", true, "look for contradictions between each new source and the earlier ones (offline detector)")
	fs.StringVar(&f.tokenEnv, "token-env", live.TokenEnv, "environment variable holding the bearer token of --http")
	return cmd
}

func (a *app) runMCP(ctx context.Context, f mcpFlags) error {
	if math.IsNaN(f.tau) || f.tau < 0 || f.tau >= 1 {
		return fmt.Errorf("--tau %v: want 0 ≤ τ < 1: %w", f.tau, claimtrace.ErrInvalid)
	}
	var token string
	if f.http != "" {
		token = os.Getenv(f.tokenEnv)
		if len(token) < minTokenBytes {
			return fmt.Errorf("mcp --http needs a bearer token of at least %d characters in $%s (e.g. export %s=$(openssl rand -hex 32)); clients send it as 'Authorization: Bearer <token>': %w",
				minTokenBytes, f.tokenEnv, f.tokenEnv, claimtrace.ErrInvalid)
		}
	}
	st, err := a.openStore(ctx, f.store)
	if err != nil {
		return err
	}
	opts := live.Options{Store: st, Tau: &f.tau, Logger: slog.New(slog.NewTextHandler(a.stderr, nil)), Limits: a.cfg.Live.limits()}
	if f.judge == "offline" {
		if opts.Judge, err = judge.NewDefaultOffline(); err != nil {
			return err
		}
	} else {
		j, _, _, err := a.openJudge(ctx, f.judge, "", judge.PromptsClaimtrace, a.liveRun(st))
		if err != nil {
			return err
		}
		opts.Judge = j
	}
	if f.allowFetch {
		if opts.Fetcher, err = a.newFetcher(fetchFlags{allowHosts: f.allowHosts}, st); err != nil {
			return err
		}
	}
	if f.detect {
		opts.Detector = prov.Offline{}
	}
	svc, err := live.New(opts)
	if err != nil {
		return err
	}
	srv := mcpserver.New(svc, buildVersion())
	fetching := "off"
	if f.allowFetch {
		fetching = "on"
	}
	if f.http == "" {
		fmt.Fprintf(a.stderr, "claimtrace mcp: MCP on stdio · store %s · judge %s · τ %g · fetching %s\n", st, f.judge, f.tau, fetching)
		err := srv.Run(ctx, mcpserver.StdioTransport(a.stdin, a.stdout))
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("mcp: %w", err)
		}
		return nil
	}
	return a.serveMCP(ctx, f.http, svc, srv, token, fmt.Sprintf("store %s · judge %s · τ %g · fetching %s", st, f.judge, f.tau, fetching))
}

// serveMCP serves MCP at /mcp and the JSON API at /api/live/ until ctx
// ends, then shuts down gracefully.
func (a *app) serveMCP(ctx context.Context, addr string, svc *live.Service, srv *mcp.Server, token, about string) error {
	h, err := mcpserver.Handler(srv, token)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/api/live/", http.StripPrefix("/api/live", live.Handler(svc, token)))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp --http %s: %w", addr, err)
	}
	fmt.Fprintf(a.stderr, "claimtrace mcp: listening on http://%s/mcp (MCP, streamable HTTP) and http://%s/api/live/ (JSON API) · %s\n", ln.Addr(), ln.Addr(), about)
	if w := httpserve.PlaintextWarning(ln.Addr()); w != "" {
		fmt.Fprintln(a.stderr, w)
	}
	if err := httpserve.Serve(ctx, ln, a.cfg.Serve.checkHost(ln.Addr(), mux), a.cfg.Serve.limits(), 5*time.Second); err != nil {
		return fmt.Errorf("mcp --http: %w", err)
	}
	return nil
}

// buildVersion is the module version the binary was built from, or "devel".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
