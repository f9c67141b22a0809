package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// PutText stores the readable text extracted from the page body with hash sha.
func (s *Store) PutText(ctx context.Context, sha, title, text string) error {
	_, err := s.exec(ctx, `INSERT INTO texts (sha256, title, text, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (sha256) DO NOTHING`, sha, cleanText(title), s.d.bytes([]byte(text)), s.now())
	if err != nil {
		return fmt.Errorf("put text %s: %w", sha, err)
	}
	return nil
}

// GetText returns the text stored for the page body with hash sha.
func (s *Store) GetText(ctx context.Context, sha string) (title, text string, ok bool, err error) {
	err = s.queryRow(ctx, `SELECT title, text FROM texts WHERE sha256 = ?`, sha).Scan(&title, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("get text %s: %w", sha, err)
	}
	return title, text, true, nil
}
