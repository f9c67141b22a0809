package store

import (
	"context"
	"fmt"
	"time"
)

// Review is one version of a human review of a claim. Reviews are only
// ever appended: a reviewer's new verdict is a new version, and the
// earlier ones stay, for the history.
type Review struct {
	// ID orders the versions: a later version has a higher id.
	ID       int64
	Run      string
	Task     string
	Claim    string
	Reviewer string
	// Data is the review as JSON.
	Data    []byte
	Created time.Time
}

// AppendReview stores a new version of a review. It never replaces one.
func (s *Store) AppendReview(ctx context.Context, r Review) error {
	_, err := s.exec(ctx, `INSERT INTO reviews (run_id, task, claim, reviewer, data, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Run, r.Task, r.Claim, r.Reviewer, s.d.bytes(r.Data), s.now())
	if err != nil {
		return fmt.Errorf("append review of %s/%s by %s: %w", r.Task, r.Claim, r.Reviewer, err)
	}
	return nil
}

// Reviews lists every version of the reviews of a run, oldest first.
func (s *Store) Reviews(ctx context.Context, run string) ([]Review, error) {
	rows, err := s.query(ctx, `SELECT id, task, claim, reviewer, data, created_at FROM reviews WHERE run_id = ? ORDER BY id`, run)
	if err != nil {
		return nil, fmt.Errorf("list reviews of %s: %w", run, err)
	}
	defer rows.Close()
	var out []Review
	for rows.Next() {
		r := Review{Run: run}
		var data []byte
		var created string
		if err := rows.Scan(&r.ID, &r.Task, &r.Claim, &r.Reviewer, &data, &created); err != nil {
			return nil, fmt.Errorf("list reviews of %s: %w", run, err)
		}
		r.Data = data
		r.Created = parseStamp(created)
		out = append(out, r)
	}
	return out, rows.Err()
}

// CountReviews counts the reviews of a run in the current view: one per
// task, claim and reviewer, whatever the number of versions.
func (s *Store) CountReviews(ctx context.Context, run string) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT DISTINCT task, claim, reviewer FROM reviews WHERE run_id = ?) AS current`, run).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count reviews of %s: %w", run, err)
	}
	return n, nil
}
