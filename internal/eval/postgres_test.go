package eval

// End to end on PostgreSQL, what `claimtrace eval --store postgres://…` does:
// skipped unless CLAIMTRACE_TEST_POSTGRES names a server (.ci/run sets it).

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
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/demo"
	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// openPostgres opens a store on a fresh PostgreSQL schema, closed at the end.
func openPostgres(t *testing.T, dsn string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// evalOutputs runs an evaluation and returns its summary and the demo
// report's result, minus what legitimately differs between two runs (the
// clock, the output path).
func evalOutputs(t *testing.T, ctx context.Context, opts Options) (Summary, Result) {
	t.Helper()
	sum, res, err := runOutputs(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum, res
}

// runOutputs is evalOutputs for goroutines other than the test's.
func runOutputs(ctx context.Context, opts Options) (Summary, Result, error) {
	ev, err := New(opts)
	if err != nil {
		return Summary{}, Result{}, err
	}
	sum, err := ev.Run(ctx)
	if err != nil {
		return Summary{}, Result{}, err
	}
	res, err := ReadResult(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
	if err != nil {
		return Summary{}, Result{}, err
	}
	b, err := os.ReadFile(filepath.Join(opts.OutDir, "summary.json"))
	if err != nil {
		return Summary{}, Result{}, err
	}
	var written Summary
	if err := json.Unmarshal(b, &written); err != nil {
		return Summary{}, Result{}, fmt.Errorf("summary.json: %w", err)
	}
	if written.Reports != sum.Reports {
		return Summary{}, Result{}, fmt.Errorf("summary.json reports = %d, Run returned %d", written.Reports, sum.Reports)
	}
	written.GeneratedAt = time.Time{}
	res.File = ""
	return written, *res, nil
}

// attempts returns the attempts of every unit of run, by kind/key: a unit
// written again counts one more.
func attempts(t *testing.T, st *store.Store, run string) map[string]int {
	t.Helper()
	counts, err := st.Counts(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for kind := range counts {
		us, err := st.Units(context.Background(), run, kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			out[kind+"/"+u.Key] = u.Attempts
		}
	}
	if len(out) == 0 {
		t.Fatalf("run %s has no units", run)
	}
	return out
}

// TestDemoOnPostgres evaluates the bundled demo with a SQLite store and with a
// PostgreSQL store, from the same inputs: the outputs must be the same, and
// the PostgreSQL store must hold the run and its units.
func TestDemoOnPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	opts, dir := demoRun(t)
	wantSum, wantRes := evalOutputs(t, ctx, opts)

	pg := openPostgres(t, dsn)
	opts.Store, opts.OutDir = pg, filepath.Join(dir, "out-pg")
	gotSum, gotRes := evalOutputs(t, ctx, opts)
	if diff := cmp.Diff(wantSum, gotSum); diff != "" {
		t.Errorf("summary on PostgreSQL (-sqlite +postgres):\n%s", diff)
	}
	if diff := cmp.Diff(wantRes, gotRes); diff != "" {
		t.Errorf("report on PostgreSQL (-sqlite +postgres):\n%s", diff)
	}

	// Another process sees the run as this one left it.
	other := openPostgres(t, dsn)
	runs, err := other.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != gotSum.Run || runs[0].Units["report/done"] != 1 {
		t.Fatalf("runs seen by a second store = %+v, want run %s with its report done", runs, gotSum.Run)
	}
	before := attempts(t, other, gotSum.Run)
	// A rerun resumes from the store: same outputs, no unit redone.
	opts.OutDir = filepath.Join(dir, "out-pg-again")
	againSum, againRes := evalOutputs(t, ctx, opts)
	if diff := cmp.Diff(gotSum, againSum); diff != "" {
		t.Errorf("rerun summary (-first +rerun):\n%s", diff)
	}
	if diff := cmp.Diff(gotRes, againRes); diff != "" {
		t.Errorf("rerun report (-first +rerun):\n%s", diff)
	}
	if diff := cmp.Diff(before, attempts(t, other, gotSum.Run)); diff != "" {
		t.Errorf("unit attempts after the rerun (-before +after):\n%s", diff)
	}
}

// TestResumeOnPostgres interrupts a run on PostgreSQL at several points and
// resumes it: no source is fetched twice and the result equals an
// uninterrupted run. An interrupt cancels reads in flight, whose connections
// pgx closes behind database/sql's back: the writes that keep finished work
// must still land.
func TestResumeOnPostgres(t *testing.T) {
	storetest.PostgresDSN(t) // skips the test without a server
	opts, dir := demoRun(t)
	_, want := evalOutputs(t, context.Background(), opts)

	for _, after := range []int64{2, 5, 8, 11, 14} {
		t.Run(fmt.Sprintf("after %d fetches", after), func(t *testing.T) {
			opts := opts
			opts.Store, opts.OutDir = openPostgres(t, storetest.PostgresDSN(t)), filepath.Join(dir, fmt.Sprintf("out-pg-%d", after))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cf := &countingFetcher{inner: opts.Fetcher, counts: map[string]int{}, after: after, cancel: cancel}
			opts.Fetcher, opts.Concurrency = cf, 1
			ev, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ev.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: err = %v, want context.Canceled", err)
			}
			cf.after = 0
			_, got := evalOutputs(t, context.Background(), opts)
			for u, n := range cf.counts {
				if n > 1 {
					t.Errorf("%s fetched %d times across the interrupted run and the resume", u, n)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("resumed result on PostgreSQL differs from an uninterrupted run (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWorkersShareAPostgresStore runs two evaluators of the same run at once,
// each with its own *store.Store on one PostgreSQL database, as two worker
// processes would: both finish, and both write the same results.
func TestWorkersShareAPostgresStore(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	opts, dir := demoRun(t)
	_, want := evalOutputs(t, context.Background(), opts)

	var wg sync.WaitGroup
	results := make([]Result, 2)
	errs := make([]error, 2)
	for i := range results {
		o := opts
		o.Store, o.OutDir = openPostgres(t, dsn), filepath.Join(dir, fmt.Sprintf("worker%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i], errs[i] = runOutputs(context.Background(), o)
		}()
	}
	wg.Wait()
	for i, got := range results {
		if errs[i] != nil {
			t.Errorf("worker %d: %v", i, errs[i])
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("worker %d result (-sqlite +postgres):\n%s", i, diff)
		}
	}
}

// BenchmarkEvalSnapshotPostgres is BenchmarkEvalSnapshot (bench_test.go)
// with a PostgreSQL store: the whole default offline pipeline over the 100
// real Onyx reports, every unit written to PostgreSQL; "leases" takes the
// report leases `claimtrace eval` takes on PostgreSQL, "live" the source
// leases too (what they would cost where reading a source is cheap: the
// reason offline runs do not take them), and "workers=2" runs two
// evaluators of the run side by side, as two processes would.
func BenchmarkEvalSnapshotPostgres(b *testing.B) {
	for _, c := range []benchSetup{{false, 1, ""}, {true, 1, ""}, {true, 1, "live"}, {true, 2, ""}} {
		b.Run(c.String(), func(b *testing.B) {
			dsn := storetest.PostgresDSN(b)
			benchEvalSnapshot(b, b.TempDir(), func(lap int) string {
				// A fresh schema a lap, so that every lap does all the work.
				if lap > 0 {
					dsn = storetest.PostgresDSN(b)
				}
				return dsn
			}, c)
		})
	}
}

// TestWorkersShareARunOnPostgres runs two evaluators of one run, each with
// its own connection to one PostgreSQL database and the store's leases, as
// two `claimtrace eval` processes would: every report is judged once and
// every source fetched once in all, both workers did some, no lease is
// left, and both write the same results.
func TestWorkersShareARunOnPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	const n = 8
	opts := sharedDemo(t, n)
	var mu sync.Mutex
	judged := map[string]int{}
	j := &scriptedJudge{fn: func(source string, claims []string) ([]claimtrace.Verdict, error) {
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		judged[fmt.Sprint(claims)]++
		mu.Unlock()
		out := make([]claimtrace.Verdict, len(claims))
		for i := range out {
			out[i] = claimtrace.Verdict{Label: claimtrace.Unsupported}
		}
		return out, nil
	}}
	// Live: fetching costs, so sources are leased too (sourcesCost).
	fetches := &countingFetcher{inner: opts.Fetcher, counts: map[string]int{}}
	opts.Fetcher, opts.Mode = fetches, "live"
	outs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	owners := []string{store.NewOwner(), store.NewOwner()}
	stores := []*store.Store{openPostgres(t, dsn), openPostgres(t, dsn)}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	sums := make([]Summary, 2)
	for w := range 2 {
		o := opts
		o.Store, o.Leaser, o.Owner, o.OutDir, o.Concurrency = stores[w], stores[w], owners[w], outs[w], 2
		o.Judge, o.JudgeName = j, "scripted"
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev, err := New(o)
			if err != nil {
				errs[w] = err
				return
			}
			s, err := ev.Run(context.Background())
			if err == nil {
				sums[w] = *s
			}
			errs[w] = err
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
		if sums[w].Reports != n {
			t.Errorf("worker %d scored %d reports", w, sums[w].Reports)
		}
	}
	for k, c := range judged {
		if c != n {
			t.Errorf("batch asked %d times for %d reports: %.80s", c, n, k)
		}
	}
	// Every report cites the same sources: each is fetched once in all.
	for u, c := range fetches.counts {
		if c != 1 {
			t.Errorf("%s fetched %d times by the two workers, want once", u, c)
		}
	}
	o := opts
	o.Store, o.Judge, o.JudgeName = stores[0], j, "scripted"
	ev, _ := New(o)
	for i := range n {
		id := fmt.Sprintf("2401.%05d", i+1)
		if owner, _, ok, err := stores[0].LeaseHolder(context.Background(), ev.run, unitReport, id); err != nil || ok {
			t.Errorf("%s: lease left behind (held by %q), %v", id, owner, err)
		}
		a, errA := ReadResult(filepath.Join(outs[0], "reports", id+".json"))
		b, errB := ReadResult(filepath.Join(outs[1], "reports", id+".json"))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", id, errA, errB)
		}
		a.File, b.File = "", ""
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s differs between the workers (-a +b):\n%s", id, diff)
		}
	}
	// Each report unit was written once: no worker redid another's report.
	reports := 0
	for k, a := range attempts(t, stores[0], ev.run) {
		if strings.HasPrefix(k, unitReport+"/") {
			reports++
		}
		if strings.HasPrefix(k, unitReport+"/") && a != 1 {
			t.Errorf("%s written %d times", k, a)
		}
	}
	if reports != n {
		t.Errorf("%d report units in the run, want %d", reports, n)
	}
}
