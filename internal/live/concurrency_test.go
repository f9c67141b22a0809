package live

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// TestConcurrentWriters has several agents write into one session at once,
// with generated ids, while readers compute metrics and explanations; run
// it with -race. Every write must land once, with distinct ids, and the
// store must hold exactly what memory holds.
func TestConcurrentWriters(t *testing.T) {
	const writers, perWriter = 6, 5
	ctx := context.Background()
	dsn := storetest.SQLiteDSN(t)
	svc := newService(t, openStore(t, dsn), Options{})
	sid := mustOpen(t, svc, "busy")
	mustSource(t, svc, sid, SourceInput{ID: "base", Title: "Gain", Excerpt: excerptGain})
	mustClaim(t, svc, sid, ClaimInput{ID: "c0", Statement: claimGain, Supports: []string{"base"}})

	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter*2+64)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				src, err := svc.AddSource(ctx, sid, SourceInput{URL: fmt.Sprintf("https://example.org/w%d/%d", w, i), Excerpt: excerptGain})
				if err != nil {
					errs <- err
					return
				}
				stmt := claimGain
				if i%2 == 1 {
					stmt = claimUnrelated
				}
				if _, err := svc.AddClaim(ctx, sid, ClaimInput{Statement: stmt, Supports: []string{src.Source.ID}}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 3 {
		wg.Go(func() {
			for range 20 {
				if _, err := svc.Metrics(ctx, sid); err != nil {
					errs <- err
				}
				if _, err := svc.Why(ctx, sid, "c0"); err != nil {
					errs <- err
				}
				if _, err := svc.PROV(ctx, sid, ""); err != nil {
					errs <- err
				}
				if info, err := svc.Open(ctx, OpenInput{ID: sid}); err != nil || !info.Resumed {
					errs <- fmt.Errorf("resume while writing: %+v, %v", info, err)
				}
				if _, err := svc.Sessions(ctx); err != nil {
					errs <- err
				}
			}
		})
	}
	// Other sessions proceed meanwhile.
	wg.Go(func() {
		for i := range 5 {
			other, err := svc.Open(ctx, OpenInput{ID: fmt.Sprintf("other-%d", i)})
			if err != nil {
				errs <- err
				continue
			}
			if _, err := svc.AddSource(ctx, other.ID, SourceInput{Title: "Gain", Excerpt: excerptGain}); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	info, err := svc.Session(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if info.Sources != writers*perWriter+1 || info.Claims != writers*perWriter+1 {
		t.Errorf("%d sources and %d claims, want %d of each", info.Sources, info.Claims, writers*perWriter+1)
	}
	// Odd-numbered claims overgeneralize: gated.
	if want := writers * (perWriter / 2); info.Gated != want {
		t.Errorf("%d gated claims, want %d", info.Gated, want)
	}
	g, _ := svc.Graph(ctx, sid)
	if err := g.Validate(); err != nil {
		t.Errorf("concurrent writes left an invalid graph: %v", err)
	}
	seen := map[string]bool{}
	for _, c := range g.Claims {
		if seen[c.ID] {
			t.Errorf("claim id %s given twice", c.ID)
		}
		seen[c.ID] = true
	}
	fresh := newService(t, openStore(t, dsn), Options{})
	stored, err := fresh.Graph(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g, stored); diff != "" {
		t.Errorf("store differs from memory (-memory +store):\n%s", diff)
	}
}

// TestConcurrentOpen: many clients opening the same new id get one session.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	svc := testService(t, Options{})
	var wg sync.WaitGroup
	created := make(chan bool, 8)
	for range 8 {
		wg.Go(func() {
			info, err := svc.Open(ctx, OpenInput{ID: "same", Query: "q"})
			if err != nil {
				t.Error(err)
				return
			}
			created <- !info.Resumed
		})
	}
	wg.Wait()
	close(created)
	n := 0
	for c := range created {
		if c {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d opens created the session, want 1", n)
	}
}
