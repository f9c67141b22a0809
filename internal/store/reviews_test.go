package store

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// TestReviewsAreAppended writes two reviewers' reviews of one claim, one of
// them twice: every version stays, in order, with its author and time.
func TestReviewsAreAppended(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		s.Now = clock(at, time.Second)
		if err := s.EnsureRun(ctx, "r1", "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		for _, r := range []Review{
			{Run: "r1", Task: "t", Claim: "c1", Reviewer: "alice", Data: []byte(`{"label":"supported"}`)},
			{Run: "r1", Task: "t", Claim: "c1", Reviewer: "bob", Data: []byte(`{"label":"unsupported"}`)},
			{Run: "r1", Task: "t", Claim: "c1", Reviewer: "alice", Data: []byte(`{"label":"partial"}`)},
		} {
			if err := s.AppendReview(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Reviews(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].ID >= got[1].ID || got[1].ID >= got[2].ID {
			t.Fatalf("reviews %+v: want three versions in increasing id order", got)
		}
		for i := range got {
			got[i].ID = 0
		}
		want := []Review{
			{Run: "r1", Task: "t", Claim: "c1", Reviewer: "alice", Data: []byte(`{"label":"supported"}`), Created: at.Add(time.Second)},
			{Run: "r1", Task: "t", Claim: "c1", Reviewer: "bob", Data: []byte(`{"label":"unsupported"}`), Created: at.Add(2 * time.Second)},
			{Run: "r1", Task: "t", Claim: "c1", Reviewer: "alice", Data: []byte(`{"label":"partial"}`), Created: at.Add(3 * time.Second)},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("reviews (-want +got):\n%s", diff)
		}
		if n, err := s.CountReviews(ctx, "r1"); err != nil || n != 2 {
			t.Errorf("CountReviews = %d, %v; want 2 (alice's and bob's, however many versions)", n, err)
		}
		if err := s.AppendReview(ctx, Review{Run: "missing", Task: "t", Claim: "c", Reviewer: "x", Data: []byte("{}")}); err == nil {
			t.Error("a review of an unknown run was accepted")
		}
		if other, err := s.Reviews(ctx, "other"); err != nil || len(other) != 0 {
			t.Errorf("reviews of another run: %v, %v", other, err)
		}
	})
}
