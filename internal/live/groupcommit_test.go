package live

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// TestGroupCommit: units put at once from many goroutines are all stored,
// each once, whatever batches they went in; a put with a cancelled context
// stores nothing.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, storetest.SQLiteDSN(t))
	const writers, each = 16, 40
	for w := range writers {
		if err := st.EnsureRun(ctx, fmt.Sprintf("run%d", w), RunKind, "{}"); err != nil {
			t.Fatal(err)
		}
	}
	g := newGroupCommit(st, 0)
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				errs <- g.put(ctx, nil, store.Unit{Run: fmt.Sprintf("run%d", w), Kind: OpUnit, Key: opKey(i), Status: store.StatusDone, Data: []byte(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for w := range writers {
		us, err := st.Units(ctx, fmt.Sprintf("run%d", w), OpUnit)
		if err != nil {
			t.Fatal(err)
		}
		if len(us) != each {
			t.Fatalf("run%d: %d units stored, want %d", w, len(us), each)
		}
		for i, u := range us {
			if want := fmt.Sprintf(`{"w":%d,"i":%d}`, w, i); string(u.Data) != want || u.Attempts != 1 {
				t.Errorf("run%d unit %s: %s, %d attempts; want %s once", w, u.Key, u.Data, u.Attempts, want)
			}
		}
	}
	if g.writing || len(g.queue) > 0 {
		t.Errorf("after the puts: writing %v, %d queued; want idle", g.writing, len(g.queue))
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.put(cancelled, nil, store.Unit{Run: "run0", Kind: OpUnit, Key: "late", Status: store.StatusDone, Data: []byte(`{}`)}); err == nil {
		t.Error("a put with a cancelled context succeeded")
	}
	if _, ok, err := st.GetUnit(ctx, "run0", OpUnit, "late"); err != nil || ok {
		t.Errorf("the cancelled put's unit: stored %v (%v)", ok, err)
	}
}

// TestGroupCommitFailsOneUnit: a batch holding a unit that cannot be stored
// (its run does not exist) fails that unit's put only; the others are
// stored.
func TestGroupCommitFailsOneUnit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, storetest.SQLiteDSN(t))
	if err := st.EnsureRun(ctx, "good", RunKind, "{}"); err != nil {
		t.Fatal(err)
	}
	g := newGroupCommit(st, 0)
	var batch []*queuedUnit
	for i, run := range []string{"good", "no-such-run", "good"} {
		batch = append(batch, &queuedUnit{u: store.Unit{Run: run, Kind: OpUnit, Key: opKey(i), Status: store.StatusDone, Data: []byte(`{}`)}})
	}
	errs := make([]error, len(batch))
	g.write(ctx, batch, errs)
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the good units failed: %v, %v", errs[0], errs[2])
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), opKey(1)) {
		t.Errorf("the unit of a missing run: %v, want an error naming it", errs[1])
	}
	us, err := st.Units(ctx, "good", OpUnit)
	if err != nil || len(us) != 2 {
		t.Errorf("%d good units stored (%v), want 2", len(us), err)
	}
}

// TestGroupCommitSurvivesPanic: a write that panics (here a store that is
// not there) leaves the queue free: the next put is written, or panics,
// instead of waiting for ever.
func TestGroupCommitSurvivesPanic(t *testing.T) {
	g := newGroupCommit(nil, 0)
	u := store.Unit{Run: "r", Kind: OpUnit, Key: opKey(0), Status: store.StatusDone, Data: []byte(`{}`)}
	for attempt := range 2 {
		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			g.put(context.Background(), nil, u)
		}()
		select {
		case p := <-done:
			if p == nil {
				t.Fatalf("put %d without a store did not panic", attempt)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("put %d waits for ever after a write panicked", attempt)
		}
	}
	if g.writing || len(g.queue) > 0 {
		t.Errorf("after the panics: writing %v, %d queued; want idle", g.writing, len(g.queue))
	}
}

// TestGroupCommitWaitsForAnnounced: a leader waits for the operations
// announced as about to be stored, and no longer than it takes them to be
// queued or given up; with none announced, or with the delay off, it
// writes at once. The delay is an hour, so a wait that is not cut short
// fails the test by its timeout.
func TestGroupCommitWaitsForAnnounced(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, storetest.SQLiteDSN(t))
	if err := st.EnsureRun(ctx, "r", RunKind, "{}"); err != nil {
		t.Fatal(err)
	}
	unit := func(key string) store.Unit {
		return store.Unit{Run: "r", Kind: OpUnit, Key: key, Status: store.StatusDone, Data: []byte(`{}`)}
	}
	// within runs f and fails when it takes more than a minute.
	within := func(what string, f func() error) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: still waiting after a minute", what)
		}
	}
	// leading starts a put that leads, and returns once it waits for the
	// announced operations, with its outcome to come.
	leading := func(g *groupCommit, key string) chan error {
		t.Helper()
		out := make(chan error, 1)
		go func() { out <- g.put(ctx, nil, unit(key)) }()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			g.mu.Lock()
			waiting := g.writing && len(g.queue) == 1
			g.mu.Unlock()
			if waiting {
				return out
			}
		}
		t.Fatalf("put %s never waited for the announced operations", key)
		return nil
	}

	g := newGroupCommit(st, time.Hour)
	within("a put with nothing announced", func() error { return g.put(ctx, nil, unit("alone")) })

	soon := g.expect()
	lead := leading(g, "lead")
	select {
	case err := <-lead:
		t.Fatalf("the leader wrote before the announced operation came (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	within("the announced put", func() error { return g.put(ctx, soon, unit("announced")) })
	within("the leader", func() error { return <-lead })
	soon.settle() // once queued, settling again changes nothing
	if n := g.coming.Load(); n != 0 {
		t.Errorf("%d operations still announced, want 0", n)
	}

	given := g.expect()
	lead = leading(g, "lead2")
	given.settle() // refused before it was stored
	within("the leader of a given-up operation", func() error { return <-lead })

	off := newGroupCommit(st, -1)
	off.expect() // never comes
	within("a put with the delay off", func() error { return off.put(ctx, nil, unit("off")) })

	for _, key := range []string{"alone", "lead", "announced", "lead2", "off"} {
		if _, ok, err := st.GetUnit(ctx, "r", OpUnit, key); err != nil || !ok {
			t.Errorf("unit %s: stored %v (%v)", key, ok, err)
		}
	}
}

// blockingJudge answers once release is closed, after saying it started.
type blockingJudge struct {
	started chan struct{}
	release chan struct{}
}

func (j *blockingJudge) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	j.started <- struct{}{}
	<-j.release
	out := make([]claimtrace.Verdict, len(claims))
	for i := range out {
		out[i] = claimtrace.Verdict{Label: claimtrace.Unknown, Reason: "test judge"}
	}
	return out, nil
}

// blockingFetcher fails once release is closed, after saying it started.
type blockingFetcher struct {
	started chan struct{}
	release chan struct{}
}

func (f *blockingFetcher) Fetch(ctx context.Context, url string) (*fetch.Page, error) {
	f.started <- struct{}{}
	<-f.release
	return nil, fmt.Errorf("fetch %s: test fetcher: %w", url, claimtrace.ErrUnreachable)
}

// TestCommitDoesNotWaitForSlowWork: while one session's claim waits for a
// model judge, or its source for a page, other sessions' operations are
// stored at once, though a batch may wait an hour for the operations
// about to be stored: an operation counts as about to be stored only when
// it has no slow work left.
func TestCommitDoesNotWaitForSlowWork(t *testing.T) {
	j := &blockingJudge{started: make(chan struct{}, 1), release: make(chan struct{})}
	f := &blockingFetcher{started: make(chan struct{}, 1), release: make(chan struct{})}
	svc := testService(t, Options{Judge: j, Fetcher: f, CommitDelay: time.Hour})
	ctx := t.Context()
	for _, id := range []string{"slow", "fast"} {
		mustOpen(t, svc, id)
	}
	mustSource(t, svc, "slow", SourceInput{ID: "s1", Title: "a quoted passage", Excerpt: "The bridge opened in 1932 and carries eight lanes."})

	claimDone := make(chan error, 1)
	go func() {
		_, err := svc.AddClaim(ctx, "slow", ClaimInput{Statement: "The bridge opened in 1932.", Supports: []string{"s1"}})
		claimDone <- err
	}()
	<-j.started
	sourceDone := make(chan error, 1)
	go func() {
		_, err := svc.AddSource(ctx, "slow", SourceInput{ID: "s2", URL: "https://example.org/a-page"})
		sourceDone <- err
	}()
	<-f.started

	done := make(chan error, 1)
	go func() {
		_, err := svc.AddSource(ctx, "fast", SourceInput{ID: "s1", Title: "another", Excerpt: "Tides at the harbour peak twice a day."})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("an operation waited for a claim being judged and a page being fetched")
	}
	close(j.release)
	close(f.release)
	for what, ch := range map[string]chan error{"the judged claim": claimDone, "the fetched source": sourceDone} {
		select {
		case err := <-ch:
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: not stored after a minute", what)
		}
	}
	if n := svc.writes.coming.Load(); n != 0 {
		t.Errorf("%d operations still announced after all ended, want 0", n)
	}
}
