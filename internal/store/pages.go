package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Page is a cached fetch result. Body is stored once per content hash.
type Page struct {
	URL         string
	FinalURL    string
	Status      int
	ContentType string
	Body        []byte
	SHA256      string
	Truncated   bool
	Err         string
	FetchedAt   time.Time
}

// PutPage stores a fetched page and its body (deduplicated by hash).
func (s *Store) PutPage(ctx context.Context, p Page) error {
	if len(p.Body) > 0 && p.SHA256 == "" {
		sum := sha256.Sum256(p.Body)
		p.SHA256 = hex.EncodeToString(sum[:])
	}
	if p.FetchedAt.IsZero() {
		p.FetchedAt = s.Now()
	}
	err := s.writeTx(ctx, func(tx txn) error {
		if len(p.Body) > 0 {
			if _, err := tx.exec(ctx, `INSERT INTO blobs (sha256, size, data) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
				p.SHA256, len(p.Body), p.Body); err != nil {
				return err
			}
		}
		_, err := tx.exec(ctx, `INSERT INTO pages (url, final_url, status, content_type, sha256, truncated, error, fetched_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (url) DO UPDATE SET final_url = excluded.final_url, status = excluded.status,
			content_type = excluded.content_type, sha256 = excluded.sha256, truncated = excluded.truncated,
			error = excluded.error, fetched_at = excluded.fetched_at`,
			p.URL, p.FinalURL, p.Status, p.ContentType, p.SHA256, p.Truncated, cleanText(p.Err), stamp(p.FetchedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("put page %s: %w", p.URL, err)
	}
	return nil
}

// GetPage returns the cached page for url.
func (s *Store) GetPage(ctx context.Context, url string) (Page, bool, error) {
	row := s.queryRow(ctx, `SELECT p.final_url, p.status, p.content_type, p.sha256, p.truncated, p.error, p.fetched_at, b.data
		FROM pages p LEFT JOIN blobs b ON b.sha256 = p.sha256 WHERE p.url = ?`, url)
	p := Page{URL: url}
	var fetched string
	var body []byte
	err := row.Scan(&p.FinalURL, &p.Status, &p.ContentType, &p.SHA256, &p.Truncated, &p.Err, &fetched, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return Page{}, false, nil
	}
	if err != nil {
		return Page{}, false, fmt.Errorf("get page %s: %w", url, err)
	}
	p.Body = body
	p.FetchedAt = parseStamp(fetched)
	return p, true, nil
}
