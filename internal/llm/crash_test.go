package llm_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"golang.org/x/sync/errgroup"
)

const crashChildEnv = "CLAIMTRACE_LLM_CRASH_CHILD"

// TestCrashChild is the worker process of TestCrashResume: it makes N calls
// through a Client with a durable FileCache, four at a time, printing one
// line per finished call.
func TestCrashChild(t *testing.T) {
	if os.Getenv(crashChildEnv) == "" {
		t.Skip("helper process of TestCrashResume")
	}
	n, _ := strconv.Atoi(os.Getenv("CRASH_N"))
	cache, err := llm.NewFileCache(os.Getenv("CRASH_CACHE_DIR"))
	if err != nil {
		t.Fatal(err)
	}
	ep := llm.Endpoint{Provider: llm.OpenAI, Model: "gpt-4o", BaseURL: os.Getenv("CRASH_BASE_URL"), APIKey: testKey, API: llm.APIChat}
	c, err := llm.Open(t.Context(), ep, llm.Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	var out sync.Mutex
	g, ctx := errgroup.WithContext(t.Context())
	g.SetLimit(4)
	for i := range n {
		g.Go(func() error {
			r, err := c.Generate(ctx, ask(fmt.Sprintf("item %03d", i)))
			if err != nil {
				return err
			}
			out.Lock()
			fmt.Printf("done item %03d hit=%v %s\n", i, r.CacheHit, r.Text)
			out.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestCrashResume kills a worker with SIGKILL mid-batch, with calls in
// flight, and reruns it: no call that completed is made again (the
// durable cache answers it) and none is lost.
func TestCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const n, k = 40, 12
	srv := llmtest.NewServer(t)
	var mu sync.Mutex
	served, gate := 0, true
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		mu.Lock()
		if gate && served >= k {
			mu.Unlock()
			<-ctx.Done() // hold the call in flight until the worker dies
			return llmtest.Fail(llmtest.DropConnection)
		}
		served++
		mu.Unlock()
		return llmtest.Text("answer to " + c.Prompt)
	})
	dir := t.TempDir()

	// Run 1: wait until k calls are reported done and more are in flight,
	// then kill.
	cmd, lines := startChild(t, srv, dir, n)
	done1 := map[string]bool{}
	deadline := time.After(60 * time.Second)
	for len(done1) < k {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("worker exited early after %d calls", len(done1))
			}
			done1[prompt(t, l)] = true
		case <-deadline:
			t.Fatalf("timed out with %d calls done", len(done1))
		}
	}
	for len(srv.Calls()) <= k {
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for range lines {
	}
	inFlight := len(srv.Calls()) - k

	// Run 2: no gate; the worker finishes.
	mu.Lock()
	gate = false
	mu.Unlock()
	cmd, lines = startChild(t, srv, dir, n)
	hits, all := map[string]bool{}, map[string]bool{}
	for l := range lines {
		p := prompt(t, l)
		all[p] = true
		if strings.Contains(l, "hit=true") {
			hits[p] = true
		}
		if want := "answer to " + p; !strings.HasSuffix(l, want) {
			t.Errorf("line %q, want the answer %q", l, want)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rerun failed: %v", err)
	}

	if len(all) != n {
		t.Errorf("rerun finished %d calls, want %d (none lost)", len(all), n)
	}
	for p := range done1 {
		if !hits[p] {
			t.Errorf("%s completed before the crash but was not a cache hit on rerun", p)
		}
	}
	if len(hits) != len(done1) {
		t.Errorf("rerun had %d cache hits, want %d", len(hits), len(done1))
	}
	// A call the worker finished is never asked again. A call in flight
	// when it died may have been answered by the server without the worker
	// recording it (lost with the crash, allowed): it is asked again, once.
	for i := range n {
		p := fmt.Sprintf("item %03d", i)
		got := srv.Completed(p)
		switch {
		case done1[p] && got != 1:
			t.Errorf("%s finished before the crash but was answered %d times", p, got)
		case got < 1 || got > 2:
			t.Errorf("%s was answered %d times, want once (twice at most if in flight at the crash)", p, got)
		}
	}
	t.Logf("killed with %d calls done and %d in flight; rerun made %d requests for %d calls", k, inFlight, len(srv.Calls())-k-inFlight, n)
}

// startChild runs TestCrashChild in a new process and streams its "done"
// lines.
func startChild(t *testing.T, srv *llmtest.Server, dir string, n int) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"=1", "CRASH_BASE_URL="+srv.OpenAIBaseURL(), "CRASH_CACHE_DIR="+dir, "CRASH_N="+strconv.Itoa(n))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "done ") {
				lines <- sc.Text()
			}
		}
	}()
	return cmd, lines
}

// prompt returns "item NNN" from a "done item NNN hit=… answer" line.
func prompt(t *testing.T, line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		t.Fatalf("bad line %q", line)
	}
	return f[1] + " " + f[2]
}
