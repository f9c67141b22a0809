package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveToken is the write token the serve tests put in the environment.
const serveToken = "serve-test-token-7f3a9c2e41"

// demoStore runs `claimtrace demo --out DIR` and returns the store it kept.
func demoStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, errOut, code := cli(t, "demo", "--out", dir); code != 0 {
		t.Fatalf("demo exited %d: %s", code, errOut)
	}
	return filepath.Join(dir, "claimtrace.db")
}

// startServe starts `claimtrace serve` as a child process on a free port
// and returns the base URL it prints, its stdout and stderr (written to as
// the server runs) and the command.
func startServe(t *testing.T, env []string, args ...string) (string, *lockedBuffer, *lockedBuffer, *exec.Cmd) {
	t.Helper()
	cmd := child(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// The URL line, then the line saying whether writes are on.
	re := regexp.MustCompile(`(?s)(http://127\.0\.0\.1:\d+)/.*\n.*\n`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			return m[1], stdout, stderr, cmd
		}
	}
	t.Fatalf("serve printed no URL: %q, stderr %q", stdout.String(), stderr.String())
	return "", nil, nil, nil
}

// lockedBuffer collects a child's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func httpDo(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeCommand serves the demo's store, uses the read and write API
// and stops the server with SIGINT, as Ctrl-C does.
func TestServeCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := demoStore(t)
	base, stdout, stderr, cmd := startServe(t, []string{"CLAIMTRACE_TEST_WEB_TOKEN=" + serveToken},
		"--store", db, "--token-env", "CLAIMTRACE_TEST_WEB_TOKEN")

	code, body := httpDo(t, http.MethodGet, base+"/api/runs", "", "")
	var runs struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
		Writable bool `json:"writable"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &runs) != nil || len(runs.Runs) != 1 || !runs.Writable {
		t.Fatalf("GET /api/runs: %d %s", code, body)
	}
	report := base + "/runs/" + runs.Runs[0].ID + "/reports/2312.10997"
	if code, body := httpDo(t, http.MethodGet, report+"?claim=c3", "", ""); code != http.StatusOK || !strings.Contains(body, `<mark class="evidence">`) {
		t.Errorf("GET audit view: %d, evidence highlighted %v", code, strings.Contains(body, `<mark class="evidence">`))
	}
	timing := `{"session": "cli-session-1", "claims": [{"claim": "c3", "seconds": 42}]}`
	api := base + "/api/runs/" + runs.Runs[0].ID + "/reports/2312.10997/timings"
	if code, _ := httpDo(t, http.MethodPost, api, "", timing); code != http.StatusUnauthorized {
		t.Errorf("POST without a token: %d, want 401", code)
	}
	if code, _ := httpDo(t, http.MethodPost, api, serveToken+"0", timing); code != http.StatusUnauthorized {
		t.Errorf("POST with a wrong token: %d, want 401", code)
	}
	if code, body := httpDo(t, http.MethodPost, api, serveToken, timing); code != http.StatusOK || !strings.Contains(body, `"minutes_per_claim": 0.7`) {
		t.Errorf("POST with the token: %d %s", code, body)
	}

	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after SIGINT: %v (stderr %q)", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGINT")
	}
	out := stdout.String() + stderr.String()
	if !strings.Contains(out, "write API on") || !strings.Contains(out, "claimtrace serve: stopped") {
		t.Errorf("serve output: %q", out)
	}
	if strings.Contains(out, serveToken) {
		t.Errorf("serve printed the token")
	}

	// The timing survived the server: a read-only server over the same
	// store shows the empirical AEff.
	base, stdout, _, _ = startServe(t, nil, "--store", db, "--token-env", "CLAIMTRACE_TEST_WEB_UNSET")
	if !strings.Contains(stdout.String(), "read-only") {
		t.Errorf("serve without a token does not say it is read-only: %q", stdout.String())
	}
	code, body = httpDo(t, http.MethodGet, base+"/runs/"+runs.Runs[0].ID+"/reports/2312.10997", "", "")
	if code != http.StatusOK || !strings.Contains(body, "0.70 minutes per claim audited") {
		t.Errorf("read-only server: %d, AEff shown %v", code, strings.Contains(body, "0.70 minutes per claim audited"))
	}
	if code, body := httpDo(t, http.MethodPost, base+"/api/runs/"+runs.Runs[0].ID+"/reports/2312.10997/timings", serveToken, timing); code != http.StatusForbidden || !strings.Contains(body, "read-only") {
		t.Errorf("POST to a read-only server: %d %s", code, body)
	}
}

// TestServeRefusesAShortToken runs serve in process with a guessable token.
func TestServeRefusesAShortToken(t *testing.T) {
	t.Setenv("CLAIMTRACE_TEST_WEB_TOKEN", "hunter2")
	db := demoStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--store", db, "--token-env", "CLAIMTRACE_TEST_WEB_TOKEN"}, strings.NewReader(""), &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "at least 16") || !strings.Contains(errOut.String(), "$CLAIMTRACE_TEST_WEB_TOKEN") {
		t.Errorf("exit %d, stderr %q; want 1 naming the variable and the minimum", code, errOut.String())
	}
	if strings.Contains(out.String()+errOut.String(), "hunter2") {
		t.Errorf("serve printed the token")
	}
}

// TestServeMountsLiveProvenance checks that `serve` also takes live
// provenance: an agent opens a session, records a source and two claims,
// and one of them is gated.
func TestServeMountsLiveProvenance(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := demoStore(t)
	base, _, _, _ := startServe(t, []string{"CLAIMTRACE_TEST_WEB_TOKEN=" + serveToken}, "--store", db, "--token-env", "CLAIMTRACE_TEST_WEB_TOKEN")
	api := base + "/api/live"
	if code, body := httpDo(t, http.MethodPost, api+"/sessions", "", `{"id":"s-1","query":"q"}`); code != http.StatusUnauthorized {
		t.Errorf("write without a token: %d %s", code, body)
	}
	steps := []string{
		`{"id":"s-1","query":"Does retrieval help long-form QA?"}`,
		`{"id":"src1","url":"https://doi.org/10.5555/rag.2024.014","excerpt":"Across three long-form question answering benchmarks, retrieval-augmented generation improved answer accuracy by 14-18% over the same model without retrieval."}`,
	}
	for i, path := range []string{"/sessions", "/sessions/s-1/sources"} {
		if code, body := httpDo(t, http.MethodPost, api+path, serveToken, steps[i]); code/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, code, body)
		}
	}
	_, ok := httpDo(t, http.MethodPost, api+"/sessions/s-1/claims", serveToken,
		`{"statement":"Retrieval-augmented generation improved answer accuracy by 14-18% on long-form question answering benchmarks.","supports":["src1"]}`)
	_, bad := httpDo(t, http.MethodPost, api+"/sessions/s-1/claims", serveToken,
		`{"statement":"Quantum annealers halve the cost of training transformers.","supports":["src1"]}`)
	if !strings.Contains(ok, `"gated": false`) && !strings.Contains(ok, `"gated":false`) {
		t.Errorf("supported claim gated: %s", ok)
	}
	if !strings.Contains(bad, `"gated": true`) && !strings.Contains(bad, `"gated":true`) {
		t.Errorf("unsupported claim not gated: %s", bad)
	}
	if code, body := httpDo(t, http.MethodGet, api+"/sessions/s-1/metrics", "", ""); code != http.StatusUnauthorized {
		t.Errorf("metrics without the token: %d %s; want 401", code, body)
	}
	if code, body := httpDo(t, http.MethodGet, api+"/sessions/s-1/metrics", serveToken, ""); code != http.StatusOK || !strings.Contains(body, "pcov") {
		t.Errorf("metrics: %d %s", code, body)
	}
}

// TestServeReviewerTokens configures a token per reviewer: a review posted
// with alice's token naming bob is refused, one naming no one is alice's.
func TestServeReviewerTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := demoStore(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[serve.reviewers]\nalice = \"CLAIMTRACE_TEST_ALICE\"\nbob = \"CLAIMTRACE_TEST_BOB\"\n"), 0o644)
	const alice, bob = "alice-serve-token-0123456789", "bob-serve-token-0123456789ab"
	base, stdout, _, _ := startServe(t, []string{"CLAIMTRACE_CONFIG=" + cfg, "CLAIMTRACE_TEST_ALICE=" + alice, "CLAIMTRACE_TEST_BOB=" + bob},
		"--store", db, "--token-env", "CLAIMTRACE_TEST_WEB_UNSET")
	if !strings.Contains(stdout.String(), "reviewer's token (alice, bob)") {
		t.Errorf("serve does not name the reviewers: %q", stdout.String())
	}
	_, body := httpDo(t, http.MethodGet, base+"/api/runs", "", "")
	var runs struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	json.Unmarshal([]byte(body), &runs)
	if len(runs.Runs) != 1 {
		t.Fatalf("runs: %s", body)
	}
	api := base + "/api/runs/" + runs.Runs[0].ID + "/reports/2312.10997/reviews"
	if code, body := httpDo(t, http.MethodPost, api, alice, `{"claim":"c3","reviewer":"bob","label":"supported"}`); code != http.StatusForbidden {
		t.Errorf("alice's token posting as bob: %d %s, want 403", code, body)
	}
	if code, body := httpDo(t, http.MethodPost, api, alice, `{"claim":"c3","label":"supported"}`); code != http.StatusCreated || !strings.Contains(body, `"reviewer": "alice"`) {
		t.Errorf("alice's review: %d %s", code, body)
	}
	if code, body := httpDo(t, http.MethodGet, api, "", ""); code != http.StatusOK || !strings.Contains(body, `"reviewer": "alice"`) {
		t.Errorf("review history: %d %s", code, body)
	}
}

// TestServeChecksHost sends the Host header of a DNS rebinding attack
// (the attacker's name resolving to the server) and a configured name.
func TestServeChecksHost(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := demoStore(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[serve]\nallowed_hosts = [\"audit.example.org\"]\n"), 0o644)
	base, _, stderr, _ := startServe(t, []string{"CLAIMTRACE_CONFIG=" + cfg}, "--store", db, "--token-env", "CLAIMTRACE_TEST_WEB_UNSET")
	for host, want := range map[string]int{"rebind.attacker.example": http.StatusMisdirectedRequest, "audit.example.org": http.StatusOK, "": http.StatusOK} {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/runs", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", host, resp.StatusCode, want)
		}
	}
	if strings.Contains(stderr.String(), "without TLS") {
		t.Errorf("a loopback server warns about TLS: %q", stderr.String())
	}
}

// TestServeRefusesAMissingStore: a mistyped store path is an error naming
// it, and nothing is made on disk; --create makes the store.
func TestServeRefusesAMissingStore(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nosuch", "x.db")
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--store", missing},
		{"runs", "--store", missing},
		{"prov", "cited", "--store", missing},
	} {
		_, errOut, code := cli(t, args...)
		if code == 0 || !strings.Contains(errOut, missing) || !strings.Contains(errOut, "no such file") {
			t.Errorf("%v: exit %d, stderr %q; want an error naming the missing store", args, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nosuch")); !os.IsNotExist(err) {
		t.Fatalf("a folder was made for the missing store: %v", err)
	}
	created := filepath.Join(dir, "new", "live.db")
	startServe(t, nil, "--store", created, "--create")
	if _, err := os.Stat(created); err != nil {
		t.Errorf("serve --create made no store: %v", err)
	}
}
