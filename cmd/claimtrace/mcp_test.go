package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claimtrace/claimtrace/internal/live"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

const (
	mcpExcerpt   = "Across three long-form question answering benchmarks, retrieval-augmented generation improved answer accuracy by 14-18% over the same model without retrieval."
	mcpGoodClaim = "Retrieval-augmented generation improved answer accuracy by 14-18% over models without retrieval on long-form question answering benchmarks."
	mcpBadClaim  = "RAG is the preferred architecture for all factual tasks."
)

// mcpEnv isolates the child's configuration.
func mcpEnv(t *testing.T) string {
	dir := t.TempDir()
	empty := filepath.Join(dir, "config.toml")
	os.WriteFile(empty, nil, 0o644)
	t.Setenv("CLAIMTRACE_CONFIG", empty)
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(dir, "data"))
	return dir
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %v", name, res.Content)
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestMCPStdio runs `claimtrace mcp` as a subprocess the way an MCP client
// does, records a session over stdio, and resumes it in a second process.
func TestMCPStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := mcpEnv(t)
	dsn := filepath.Join(dir, "live.db")
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)

	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: child(t, "mcp", "--store", dsn)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 11 {
		t.Fatalf("tools: %v, %v", tools, err)
	}
	var info live.SessionInfo
	mcpCall(t, cs, "open_session", map[string]any{"id": "cli-1", "query": "Does RAG improve factual accuracy?"}, &info)
	var src live.SourceResult
	mcpCall(t, cs, "add_source", map[string]any{"session": "cli-1", "title": "Retrieval helps long-form answers", "excerpt": mcpExcerpt}, &src)
	var good, bad live.ClaimResult
	mcpCall(t, cs, "add_claim", map[string]any{"session": "cli-1", "statement": mcpGoodClaim, "supports": []string{src.Source.ID}}, &good)
	mcpCall(t, cs, "add_claim", map[string]any{"session": "cli-1", "statement": mcpBadClaim, "supports": []string{src.Source.ID}}, &bad)
	if good.Gated || !bad.Gated || bad.Reasons[0].Code != live.ReasonUnsupported {
		t.Errorf("passing claim gated %v; overgeneralization gated %v %+v", good.Gated, bad.Gated, bad.Reasons)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}

	// A second process resumes the session from the store.
	cs, err = client.Connect(ctx, &mcp.CommandTransport{Command: child(t, "mcp", "--store", dsn)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcpCall(t, cs, "open_session", map[string]any{"id": "cli-1"}, &info)
	if !info.Resumed || info.Claims != 2 || info.Gated != 1 || info.Query != "Does RAG improve factual accuracy?" {
		t.Errorf("resumed session: %+v", info)
	}
	var m live.MetricsResult
	mcpCall(t, cs, "get_metrics", map[string]any{"session": "cli-1"}, &m)
	if m.PSnd == nil || *m.PSnd != 0.5 || len(m.Gated) != 1 {
		t.Errorf("metrics after resuming: psnd %v gated %+v", m.PSnd, m.Gated)
	}
}

// TestMCPStdioMalformedLine writes a line that is not JSON to the real
// process's stdin: it answers a JSON-RPC parse error and goes on to answer
// the next request, where it used to exit.
func TestMCPStdioMalformedLine(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := mcpEnv(t)
	cmd := child(t, "mcp", "--store", filepath.Join(dir, "live.db"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(stdin, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for i, want := range []string{`"code":-32700`, `"id":2,"result"`} {
		select {
		case l, ok := <-lines:
			if !ok || !strings.Contains(l, want) {
				t.Fatalf("answer %d: %q (open %v); want %s", i+1, l, ok, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer %d", i+1)
		}
	}
}

func TestMCPFlags(t *testing.T) {
	dir := mcpEnv(t)
	dsn := filepath.Join(dir, "live.db")
	t.Setenv("CLAIMTRACE_TOKEN", "")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"mcp", "--store", dsn, "--http", "127.0.0.1:0"}, "CLAIMTRACE_TOKEN"},
		{[]string{"mcp", "--store", dsn, "--tau", "1"}, "--tau 1"},
		{[]string{"mcp", "--store", dsn, "extra"}, "unknown command"},
		{[]string{"mcp", "--store", dsn, "--judge", "nosuch"}, `model spec "nosuch"`},
	} {
		_, errOut, code := cli(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want an error mentioning %q", tc.args, code, errOut, tc.msg)
		}
	}
	t.Setenv("CLAIMTRACE_TOKEN", "short")
	if _, errOut, code := cli(t, "mcp", "--store", dsn, "--http", "127.0.0.1:0"); code == 0 || !strings.Contains(errOut, "at least 16") {
		t.Errorf("short token: exit %d, %q", code, errOut)
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// startMCPHTTP starts `claimtrace mcp --http 127.0.0.1:0` with token and
// returns the process and the address it listens on.
func startMCPHTTP(t *testing.T, dir, token string) (*exec.Cmd, string) {
	t.Helper()
	cmd := child(t, "mcp", "--store", filepath.Join(dir, "live.db"), "--http", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, "CLAIMTRACE_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`listening on http://(\S+)/mcp`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case addr := <-addrs:
		return cmd, addr
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not say where it listens")
	}
	return nil, ""
}

// TestMCPHTTP runs `claimtrace mcp --http` as a subprocess: MCP over
// streamable HTTP and the JSON API on one address, then a clean stop on
// SIGINT.
func TestMCPHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := mcpEnv(t)
	const token = "e2e-token-0123456789abcdef"
	cmd, addr := startMCPHTTP(t, dir, token)

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var info live.SessionInfo
	mcpCall(t, cs, "open_session", map[string]any{"id": "web-1"}, &info)
	var src live.SourceResult
	mcpCall(t, cs, "add_source", map[string]any{"session": "web-1", "title": "Study", "excerpt": mcpExcerpt}, &src)
	var good live.ClaimResult
	mcpCall(t, cs, "add_claim", map[string]any{"session": "web-1", "statement": mcpGoodClaim, "supports": []string{"s1"}}, &good)
	cs.Close()
	if good.Gated {
		t.Errorf("claim over HTTP gated: %+v", good.Reasons)
	}

	// The JSON API sees the same session.
	if resp, err := http.Get("http://" + addr + "/api/live/sessions/web-1/metrics"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("JSON API read without the token: %v, %v; want 401", resp, err)
	}
	mreq, _ := http.NewRequest("GET", "http://"+addr+"/api/live/sessions/web-1/metrics", nil)
	mreq.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(mreq)
	if err != nil {
		t.Fatal(err)
	}
	var m live.MetricsResult
	json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || m.Claims != 1 || m.PCov == nil || *m.PCov != 1 {
		t.Errorf("JSON API metrics: %d %+v", resp.StatusCode, m)
	}
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/live/sessions/web-1/close", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("JSON API write without the token: %d", resp.StatusCode)
	}

	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("stop on SIGINT: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("the server did not stop on SIGINT")
	}
}

// TestMCPHTTPDropsIdleConnections holds a keep-alive connection to `mcp
// --http` idle and trickles a request body on another, as the attack's
// 21,000 connections did: with [serve] timeouts of one second the server
// closes both.
func TestMCPHTTPDropsIdleConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := mcpEnv(t)
	os.WriteFile(os.Getenv("CLAIMTRACE_CONFIG"), []byte("[serve]\nidle_timeout_seconds = 1\nread_timeout_seconds = 1\n"), 0o644)
	const token = "e2e-token-0123456789abcdef"
	_, addr := startMCPHTTP(t, dir, token)

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprintf(idle, "GET /api/live/sessions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", addr, token)
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
	fmt.Fprintf(slow, "POST /api/live/sessions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\n{", addr, token)
	for name, c := range map[string]net.Conn{"idle keep-alive": idle, "slow body": slow} {
		c.SetReadDeadline(time.Now().Add(4 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Errorf("%s connection still open after 4 s with 1 s timeouts", name)
			}
		}
	}
}

// TestMCPLLMJudge runs `claimtrace mcp --judge openai:…` in-process on
// piped stdio against a fake OpenAI server: add_claim's verdicts come from
// the model, with the evidence it quoted.
func TestMCPLLMJudge(t *testing.T) {
	isolateLLMEnv(t)
	srv := llmtest.NewServer(t)
	srv.RequireKey(fakeKey)
	srv.Handle(scriptedJudge)
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", fakeKey)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut strings.Builder
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"mcp", "--store", filepath.Join(t.TempDir(), "live.db"), "--judge", "openai:gpt-4o-mini"}, inR, outW, &errOut)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var info live.SessionInfo
	mcpCall(t, cs, "open_session", map[string]any{"id": "llm-1"}, &info)
	var src live.SourceResult
	mcpCall(t, cs, "add_source", map[string]any{"session": "llm-1", "title": "Study", "excerpt": mcpExcerpt}, &src)
	var good, bad live.ClaimResult
	mcpCall(t, cs, "add_claim", map[string]any{"session": "llm-1", "statement": mcpGoodClaim, "supports": []string{"s1"}}, &good)
	mcpCall(t, cs, "add_claim", map[string]any{"session": "llm-1", "statement": mcpBadClaim, "supports": []string{"s1"}}, &bad)
	cs.Close()
	inW.Close()
	if code := <-exited; code != 0 {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	if len(good.Verdicts) != 1 || good.Verdicts[0].Judge == "offline" || good.Gated || good.Verdicts[0].Evidence != mcpExcerpt {
		t.Errorf("claim judged by the model: %+v", good.Verdicts)
	}
	if !bad.Gated || bad.Verdicts[0].Label != "unsupported" {
		t.Errorf("overgeneralization judged by the model: %+v", bad)
	}
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("%d model calls, want one per judged claim (2)", n)
	}
}
