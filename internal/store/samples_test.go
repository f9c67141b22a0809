package store

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// TestReviewSamples stores a run's sample, reads it back, replaces it with
// a larger one, and finds none for another run; a run's deletion takes its
// sample with it.
func TestReviewSamples(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		s.Now = clock(at, time.Second)
		if err := s.EnsureRun(ctx, "r1", "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.GetReviewSample(ctx, "r1"); ok || err != nil {
			t.Fatalf("before any sample: ok %v, err %v", ok, err)
		}
		first := ReviewSample{Run: "r1", Seed: math.MinInt64 + 7, Frame: 1200, Data: []byte(`[{"task":"t1","claim":"c3"}]`)}
		if err := s.PutReviewSample(ctx, first); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.GetReviewSample(ctx, "r1")
		if err != nil || !ok {
			t.Fatalf("get: ok %v, err %v", ok, err)
		}
		first.Created = at.Add(time.Second) // EnsureRun read the clock first
		if d := cmp.Diff(first, got); d != "" {
			t.Errorf("sample (-want +got):\n%s", d)
		}
		larger := ReviewSample{Run: "r1", Seed: 42, Frame: 1200, Data: []byte(`[{"task":"t1","claim":"c3"},{"task":"t2","claim":"c1"}]`)}
		if err := s.PutReviewSample(ctx, larger); err != nil {
			t.Fatal(err)
		}
		got, _, err = s.GetReviewSample(ctx, "r1")
		if err != nil || got.Seed != 42 || string(got.Data) != string(larger.Data) {
			t.Errorf("after replacing: %+v, %v", got, err)
		}
		if _, ok, err := s.GetReviewSample(ctx, "r2"); ok || err != nil {
			t.Errorf("another run: ok %v, err %v", ok, err)
		}
		if err := s.PutReviewSample(ctx, ReviewSample{Run: "no-such-run", Data: []byte(`[]`)}); err == nil {
			t.Error("a sample of a run that does not exist was stored")
		}
	})
}
