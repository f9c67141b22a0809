package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ReviewSample is the sample of a run's units drawn for human review.
type ReviewSample struct {
	Run string
	// Seed and Frame (the number of units it was drawn from) say how the
	// sample was drawn.
	Seed  int64
	Frame int
	// Data holds the sampled units in review order, as JSON.
	Data    []byte
	Created time.Time
}

// PutReviewSample stores the review sample of a run, replacing the one
// it had.
func (s *Store) PutReviewSample(ctx context.Context, rs ReviewSample) error {
	_, err := s.exec(ctx, `INSERT INTO review_samples (run_id, seed, frame, data, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET seed = excluded.seed, frame = excluded.frame, data = excluded.data, created_at = excluded.created_at`,
		rs.Run, rs.Seed, rs.Frame, s.d.bytes(rs.Data), s.now())
	if err != nil {
		return fmt.Errorf("put review sample of %s: %w", rs.Run, err)
	}
	return nil
}

// GetReviewSample returns the review sample of a run; ok is false when
// none was drawn.
func (s *Store) GetReviewSample(ctx context.Context, run string) (rs ReviewSample, ok bool, err error) {
	rs.Run = run
	var data []byte
	var created string
	err = s.queryRow(ctx, `SELECT seed, frame, data, created_at FROM review_samples WHERE run_id = ?`, run).Scan(&rs.Seed, &rs.Frame, &data, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return ReviewSample{}, false, nil
	}
	if err != nil {
		return ReviewSample{}, false, fmt.Errorf("get review sample of %s: %w", run, err)
	}
	rs.Data = data
	rs.Created = parseStamp(created)
	return rs, true, nil
}
