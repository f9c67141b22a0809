package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/demo"
	"github.com/claimtrace/claimtrace/internal/fetch"
)

// memLeaser is an in-memory Leaser with the store's semantics, counting
// the leases each owner took.
type memLeaser struct {
	mu     sync.Mutex
	now    func() time.Time
	held   map[string]memLease
	taken  map[string]int // owner → report leases taken (renewals not counted)
	broken map[string]bool
}

type memLease struct {
	owner   string
	expires time.Time
}

func (l *memLeaser) TryLease(_ context.Context, run, kind, key, owner string, ttl time.Duration) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := run + "|" + kind + "|" + key
	cur, ok := l.held[k]
	now := l.now()
	if ok && cur.owner != owner && now.Before(cur.expires) {
		return false, nil
	}
	if (!ok || cur.owner != owner) && kind == unitReport {
		l.taken[owner]++
	}
	l.held[k] = memLease{owner, now.Add(ttl)}
	return true, nil
}

func (l *memLeaser) ReleaseLease(_ context.Context, run, kind, key, owner string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := run + "|" + kind + "|" + key
	if l.held[k].owner == owner && !l.broken[owner] {
		delete(l.held, k)
	}
	return nil
}

// sharedDemo writes a dataset of n copies of the demo task (other ids,
// same report and ground truth) and returns options reading it offline.
func sharedDemo(t *testing.T, n int) Options {
	opts, dir := demoRun(t)
	line, err := os.ReadFile(filepath.Join(dir, demo.DatasetDir, "ReportBench_v1.1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	gt, _ := os.ReadFile(filepath.Join(dir, demo.DatasetDir, "ReportBench_v1.1_GT", demo.TaskID+".jsonl"))
	rep, _ := os.ReadFile(filepath.Join(dir, demo.ReportsDir, demo.TaskID+".md"))
	var tasks strings.Builder
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("2401.%05d", i+1)
		tasks.WriteString(strings.Replace(strings.TrimSpace(string(line)), demo.TaskID, id, 1) + "\n")
		os.WriteFile(filepath.Join(dir, demo.DatasetDir, "ReportBench_v1.1_GT", id+".jsonl"), gt, 0o644)
		os.WriteFile(filepath.Join(dir, demo.ReportsDir, id+".md"), rep, 0o644)
	}
	os.WriteFile(filepath.Join(dir, demo.DatasetDir, "ReportBench_v1.1.jsonl"), []byte(tasks.String()), 0o644)
	os.Remove(filepath.Join(dir, demo.ReportsDir, demo.TaskID+".md"))
	ds, err := dataset.LoadDataset(filepath.Join(dir, demo.DatasetDir))
	if err != nil {
		t.Fatal(err)
	}
	opts.Dataset = ds
	return opts
}

// TestLeasesShareTheWork runs two evaluators of one run side by side on
// one store, as two workers on one PostgreSQL database would: each report
// is judged once in all, both write the same results, and each worker did
// some of the reports.
func TestLeasesShareTheWork(t *testing.T) {
	const n = 8
	opts := sharedDemo(t, n)
	leaser := &memLeaser{now: time.Now, held: map[string]memLease{}, taken: map[string]int{}}
	var mu sync.Mutex
	judged := map[string]int{} // source+claims → calls
	j := &scriptedJudge{fn: func(source string, claims []string) ([]claimtrace.Verdict, error) {
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		judged[strings.Join(claims, "|")]++
		mu.Unlock()
		out := make([]claimtrace.Verdict, len(claims))
		for i := range out {
			out[i] = claimtrace.Verdict{Label: claimtrace.Unsupported}
		}
		return out, nil
	}}
	opts.Judge, opts.JudgeName, opts.Leaser, opts.LeaseTTL, opts.Concurrency = j, "scripted", leaser, time.Second, 2
	// Live: fetching costs, so sources are leased too (sourcesCost).
	fetches := &countingFetcher{inner: opts.Fetcher, counts: map[string]int{}}
	opts.Fetcher, opts.Mode = fetches, "live"

	outs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	var wg sync.WaitGroup
	sums := make([]*Summary, 2)
	errs := make([]error, 2)
	for w := range 2 {
		o := opts
		o.OutDir, o.Owner = outs[w], fmt.Sprintf("worker-%d", w)
		ev, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[w], errs[w] = ev.Run(t.Context())
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
		if sums[w].Reports != n {
			t.Errorf("worker %d scored %d reports, want %d", w, sums[w].Reports, n)
		}
	}
	// Every report shares one set of claims, so each batch is asked once
	// a report: n times in all, never 2n.
	for k, c := range judged {
		if c != n {
			t.Errorf("batch asked %d times for %d reports: %.80s", c, n, k)
		}
	}
	// A worker may take a lease the other has just given back, find the
	// report done and leave it: more takes than reports, no work redone
	// (the judge counts above say so).
	if leaser.taken["worker-0"] == 0 || leaser.taken["worker-1"] == 0 || leaser.taken["worker-0"]+leaser.taken["worker-1"] < n {
		t.Errorf("leases taken: %v, want the %d reports split between both workers", leaser.taken, n)
	}
	if len(leaser.held) != 0 {
		t.Errorf("%d leases left behind", len(leaser.held))
	}
	// Every report cites the same sources: each is fetched once in all.
	for u, c := range fetches.counts {
		if c != 1 {
			t.Errorf("%s fetched %d times by the two workers, want once", u, c)
		}
	}
	for i := range n {
		id := fmt.Sprintf("2401.%05d", i+1)
		a, _ := os.ReadFile(filepath.Join(outs[0], "reports", id+".json"))
		b, _ := os.ReadFile(filepath.Join(outs[1], "reports", id+".json"))
		var ra, rb Result
		if json.Unmarshal(a, &ra) != nil || json.Unmarshal(b, &rb) != nil {
			t.Fatalf("%s: report files unreadable", id)
		}
		if diff := cmp.Diff(ra, rb); diff != "" {
			t.Errorf("%s differs between the workers (-a +b):\n%s", id, diff)
		}
	}
}

// TestLeaseOfADeadWorkerLapses: a report leased by a worker that died
// (its lease is never released nor renewed) is taken over once the lease
// lapses.
func TestLeaseOfADeadWorkerLapses(t *testing.T) {
	opts := sharedDemo(t, 2)
	leaser := &memLeaser{now: time.Now, held: map[string]memLease{}, taken: map[string]int{}}
	ev, err := New(Options{Store: opts.Store, Fetcher: opts.Fetcher, Dataset: opts.Dataset, ReportsDir: opts.ReportsDir, OutDir: opts.OutDir, Mode: opts.Mode, Snapshot: opts.Snapshot, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The dead worker holds the first report.
	leaser.TryLease(t.Context(), ev.run, unitReport, "2401.00001", "dead", 300*time.Millisecond)
	opts.Leaser, opts.LeaseTTL, opts.Owner = leaser, 300*time.Millisecond, "alive"
	ev, _ = New(opts)
	start := time.Now()
	sum, err := ev.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reports != 2 || leaser.taken["alive"] != 2 {
		t.Errorf("%d reports, %d leases taken by the live worker; want 2 and 2", sum.Reports, leaser.taken["alive"])
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("the dead worker's report was taken after %v, before its lease lapsed", d)
	}
}

// failingFetcher fails one URL as a network error would, counting the
// fetches of every URL.
type failingFetcher struct {
	inner  Fetcher
	fail   string
	mu     sync.Mutex
	counts map[string]int
}

func (f *failingFetcher) Fetch(ctx context.Context, u string) (*fetch.Page, error) {
	f.mu.Lock()
	f.counts[u]++
	f.mu.Unlock()
	if u == f.fail {
		return nil, errors.New("connection reset by peer")
	}
	return f.inner.Fetch(ctx, u)
}

// TestRetryFailedOnceAcrossWorkers: with --retry-failed, two workers of one
// run retry a failed source once in all and each failed report once; a
// worker that finds a unit retried by the other since it started takes that
// answer, even a second failure, rather than retrying it again.
func TestRetryFailedOnceAcrossWorkers(t *testing.T) {
	const n = 6
	opts := sharedDemo(t, n)
	const flaky = "https://arxiv.org/abs/2005.11401"
	ff := &failingFetcher{inner: opts.Fetcher, fail: flaky, counts: map[string]int{}}
	opts.Fetcher, opts.Mode, opts.Concurrency = ff, "live", 2
	ev, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ff.counts[flaky] != 1 {
		t.Fatalf("first pass fetched %s %d times, want 1", flaky, ff.counts[flaky])
	}
	before := attempts(t, opts.Store, ev.RunID())
	failedReports := 0
	for k := range before {
		if strings.HasPrefix(k, unitReport+"/") {
			failedReports++
		}
	}

	// Two workers retry the failures; the source still fails.
	ff.counts = map[string]int{}
	leaser := &memLeaser{now: time.Now, held: map[string]memLease{}, taken: map[string]int{}}
	// Both are made before either starts, as two workers launched together.
	workers := make([]*Evaluator, 2)
	for w := range workers {
		o := opts
		o.OutDir, o.Owner, o.Leaser, o.LeaseTTL, o.RetryFailed = filepath.Join(t.TempDir(), fmt.Sprint(w)), fmt.Sprintf("worker-%d", w), leaser, time.Second, true
		if workers[w], err = New(o); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w, ev := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[w] = ev.Run(t.Context())
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
	}
	if ff.counts[flaky] != 1 {
		t.Errorf("the two workers retried %s %d times in all, want once", flaky, ff.counts[flaky])
	}
	after := attempts(t, opts.Store, ev.RunID())
	if failedReports != n {
		t.Fatalf("%d report units after the first pass, want %d", failedReports, n)
	}
	for k, a := range after {
		if strings.HasPrefix(k, unitReport+"/") && a != before[k]+1 {
			t.Errorf("%s written %d times by the retrying workers, want once", k, a-before[k])
		}
	}
	if a := after[unitSource+"/url:"+flaky]; a != before[unitSource+"/url:"+flaky]+1 {
		t.Errorf("the failed source's unit was written %d times by the retrying workers, want once (units %v)", a-before[unitSource+"/url:"+flaky], after)
	}
}
