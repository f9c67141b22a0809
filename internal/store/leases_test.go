package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// TestLeases walks one lease through its life on a clock the test moves:
// taken, refused to another owner, renewed, expired and taken over, refused
// to the owner that lost it, released.
func TestLeases(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		// Not a whole second, so that the stored times carry a fraction.
		start := time.Date(2026, 3, 4, 5, 6, 7, 250_000_000, time.UTC)
		now := start
		s.Now = func() time.Time { return now }
		const ttl = time.Minute

		try := func(owner string, want bool) {
			t.Helper()
			got, err := s.TryLease(ctx, "r", "judge", "k", owner, ttl)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("at %v: TryLease(%s) = %v, want %v", now.Sub(start), owner, got, want)
			}
		}
		holder := func(wantOwner string, wantExpires time.Time) {
			t.Helper()
			owner, expires, ok, err := s.LeaseHolder(ctx, "r", "judge", "k")
			if err != nil {
				t.Fatal(err)
			}
			if wantOwner == "" {
				if ok {
					t.Errorf("at %v: LeaseHolder = %s until %v, want none", now.Sub(start), owner, expires)
				}
				return
			}
			if !ok || owner != wantOwner || !expires.Equal(wantExpires) {
				t.Errorf("at %v: LeaseHolder = %q until %v (%v), want %q until %v", now.Sub(start), owner, expires, ok, wantOwner, wantExpires)
			}
		}

		holder("", time.Time{})
		try("a", true)
		holder("a", start.Add(ttl))
		try("b", false)
		holder("a", start.Add(ttl))

		now = start.Add(30 * time.Second)
		try("a", true) // renewed
		renewed := now.Add(ttl)
		holder("a", renewed)

		now = renewed.Add(-time.Nanosecond)
		try("b", false) // the first expiry has passed, the renewed one not
		now = renewed
		try("b", true) // expired: taken over
		holder("b", renewed.Add(ttl))
		try("a", false) // a lost it

		if err := s.ReleaseLease(ctx, "r", "judge", "k", "a"); err != nil {
			t.Fatal(err)
		}
		holder("b", renewed.Add(ttl)) // a's release does not touch b's lease
		if err := s.ReleaseLease(ctx, "r", "judge", "k", "b"); err != nil {
			t.Fatal(err)
		}
		holder("", time.Time{})
		try("a", true)
		holder("a", renewed.Add(ttl))
	})
}

// TestLeasesAreSeparate checks that a lease covers one unit only, and that
// ReleaseLeases drops all of one owner's leases and no one else's.
func TestLeasesAreSeparate(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		s.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
		units := [][3]string{{"r1", "judge", "k"}, {"r1", "judge", "k2"}, {"r1", "fetch", "k"}, {"r2", "judge", "k"}}
		for _, u := range units {
			if ok, err := s.TryLease(ctx, u[0], u[1], u[2], "a", time.Hour); err != nil || !ok {
				t.Fatalf("TryLease(%v, a) = %v, %v", u, ok, err)
			}
		}
		if ok, err := s.TryLease(ctx, "r3", "judge", "k", "b", time.Hour); err != nil || !ok {
			t.Fatalf("TryLease(r3, b) = %v, %v", ok, err)
		}
		for _, u := range units {
			if ok, err := s.TryLease(ctx, u[0], u[1], u[2], "b", time.Hour); err != nil || ok {
				t.Errorf("TryLease(%v, b) = %v, %v; want refused", u, ok, err)
			}
		}
		if err := s.ReleaseLeases(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if owner, _, ok, err := s.LeaseHolder(ctx, u[0], u[1], u[2]); err != nil || ok {
				t.Errorf("after ReleaseLeases(a): LeaseHolder(%v) = %q %v %v", u, owner, ok, err)
			}
		}
		if owner, _, ok, err := s.LeaseHolder(ctx, "r3", "judge", "k"); err != nil || !ok || owner != "b" {
			t.Errorf("after ReleaseLeases(a): LeaseHolder(r3) = %q %v %v; want b's lease kept", owner, ok, err)
		}
	})
}

func TestTryLeaseInvalid(t *testing.T) {
	s := openDSN(t, storetest.SQLiteDSN(t))
	ctx := context.Background()
	for _, tt := range []struct {
		owner string
		ttl   time.Duration
	}{{"", time.Minute}, {"a", 0}, {"a", -time.Second}} {
		if _, err := s.TryLease(ctx, "r", "k", "k", tt.owner, tt.ttl); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("TryLease(owner %q, ttl %v) = %v, want ErrInvalid", tt.owner, tt.ttl, err)
		}
	}
}

// TestLeaseRace has workers, each with a store of its own (processes, in
// production), race for the same leases: exactly one wins each, first for
// free leases, then for expired ones.
func TestLeaseRace(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		const workers, rounds, ttl = 8, 20, time.Minute
		start := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		var clockMu sync.Mutex
		now := start
		stores := make([]*Store, workers)
		for i := range stores {
			stores[i] = openDSN(t, dsn)
			stores[i].Now = func() time.Time {
				clockMu.Lock()
				defer clockMu.Unlock()
				return now
			}
		}
		// race runs every worker's TryLease on key at once and returns the
		// owners that got it.
		race := func(key, owners string) []string {
			var wg sync.WaitGroup
			begin := make(chan struct{})
			won := make([]bool, workers)
			errs := make([]error, workers)
			for i, s := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-begin
					won[i], errs[i] = s.TryLease(ctx, "r", "judge", key, fmt.Sprintf("%s%d", owners, i), ttl)
				}()
			}
			close(begin)
			wg.Wait()
			var winners []string
			for i := range stores {
				if errs[i] != nil {
					t.Fatalf("%s: worker %d: %v", key, i, errs[i])
				}
				if won[i] {
					winners = append(winners, fmt.Sprintf("%s%d", owners, i))
				}
			}
			return winners
		}
		check := func(key string, winners []string) {
			t.Helper()
			if len(winners) != 1 {
				t.Errorf("%s: winners %v, want exactly one", key, winners)
				return
			}
			if owner, _, ok, err := stores[0].LeaseHolder(ctx, "r", "judge", key); err != nil || owner != winners[0] {
				t.Errorf("%s: LeaseHolder = %q %v %v, want the winner %s", key, owner, ok, err, winners[0])
			}
		}
		for r := range rounds {
			key := fmt.Sprintf("k%02d", r)
			check(key, race(key, "first"))
		}
		clockMu.Lock()
		now = start.Add(ttl)
		clockMu.Unlock()
		for r := range rounds {
			key := fmt.Sprintf("k%02d", r)
			check(key, race(key, "second"))
		}
	})
}

func TestNewOwner(t *testing.T) {
	a, b := NewOwner(), NewOwner()
	if a == b {
		t.Errorf("NewOwner twice = %q", a)
	}
	if !strings.Contains(a, fmt.Sprintf("-%d-", os.Getpid())) {
		t.Errorf("NewOwner = %q, want the process id in it", a)
	}
}
