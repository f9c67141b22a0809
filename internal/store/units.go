package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Unit statuses.
const (
	StatusDone   = "done"
	StatusFailed = "failed"
)

// Unit is one stored unit of work. Data is the unit's JSON result; a failed
// unit carries Err and is retried only when the caller asks.
type Unit struct {
	Run      string
	Kind     string
	Key      string
	Status   string
	Data     []byte
	Err      string
	Attempts int
	Updated  time.Time
}

// EnsureRun records a run, keeping its creation time when it exists.
func (s *Store) EnsureRun(ctx context.Context, id, kind, params string) error {
	now := s.now()
	_, err := s.exec(ctx, `INSERT INTO runs (id, kind, params, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at`, id, kind, params, now, now)
	if err != nil {
		return fmt.Errorf("ensure run %s: %w", id, err)
	}
	return nil
}

// putUnitSQL stores a unit (PutUnit, PutUnits).
const putUnitSQL = `INSERT INTO units (run_id, kind, key, status, data, error, attempts, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, 1, ?)
		ON CONFLICT (run_id, kind, key) DO UPDATE SET status = excluded.status, data = excluded.data,
			error = excluded.error, attempts = units.attempts + 1, updated_at = excluded.updated_at`

// putUnitArgs are putUnitSQL's arguments for u, stored at now.
func (s *Store) putUnitArgs(u Unit, now string) []any {
	return []any{u.Run, u.Kind, u.Key, u.Status, s.d.bytes(u.Data), cleanText(u.Err), now}
}

// PutUnit stores u, replacing any earlier result for the same key and
// counting the attempt.
func (s *Store) PutUnit(ctx context.Context, u Unit) error {
	_, err := s.exec(ctx, putUnitSQL, s.putUnitArgs(u, s.now())...)
	if err != nil {
		return fmt.Errorf("put unit %s/%s: %w", u.Kind, u.Key, err)
	}
	return nil
}

// GetUnit returns a stored unit.
func (s *Store) GetUnit(ctx context.Context, run, kind, key string) (Unit, bool, error) {
	row := s.queryRow(ctx, `SELECT status, data, error, attempts, updated_at FROM units WHERE run_id = ? AND kind = ? AND key = ?`, run, kind, key)
	u := Unit{Run: run, Kind: kind, Key: key}
	var data sql.NullString
	var updated string
	err := row.Scan(&u.Status, &data, &u.Err, &u.Attempts, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Unit{}, false, nil
	}
	if err != nil {
		return Unit{}, false, fmt.Errorf("get unit %s/%s: %w", kind, key, err)
	}
	u.Data = []byte(data.String)
	u.Updated = parseStamp(updated)
	return u, true, nil
}

// Units lists the units of one kind in a run, ordered by key.
func (s *Store) Units(ctx context.Context, run, kind string) ([]Unit, error) {
	rows, err := s.query(ctx, `SELECT key, status, data, error, attempts, updated_at FROM units WHERE run_id = ? AND kind = ? ORDER BY key`, run, kind)
	if err != nil {
		return nil, fmt.Errorf("list units %s: %w", kind, err)
	}
	defer rows.Close()
	var out []Unit
	for rows.Next() {
		u := Unit{Run: run, Kind: kind}
		var data sql.NullString
		var updated string
		if err := rows.Scan(&u.Key, &u.Status, &data, &u.Err, &u.Attempts, &updated); err != nil {
			return nil, err
		}
		u.Data = []byte(data.String)
		u.Updated = parseStamp(updated)
		out = append(out, u)
	}
	return out, rows.Err()
}

// Counts returns, for a run, the number of units per kind and status.
func (s *Store) Counts(ctx context.Context, run string) (map[string]map[string]int, error) {
	rows, err := s.query(ctx, `SELECT kind, status, COUNT(*) FROM units WHERE run_id = ? GROUP BY kind, status`, run)
	if err != nil {
		return nil, fmt.Errorf("count units: %w", err)
	}
	defer rows.Close()
	out := map[string]map[string]int{}
	for rows.Next() {
		var kind, status string
		var n int
		if err := rows.Scan(&kind, &status, &n); err != nil {
			return nil, err
		}
		if out[kind] == nil {
			out[kind] = map[string]int{}
		}
		out[kind][status] = n
	}
	return out, rows.Err()
}

// UnitsOfKind lists the done units of one kind across runs (or in one run
// when run is not empty), ordered by run and key.
func (s *Store) UnitsOfKind(ctx context.Context, kind, run string) ([]Unit, error) {
	q := `SELECT run_id, key, status, data, error, attempts, updated_at FROM units WHERE kind = ? AND status = 'done'`
	args := []any{kind}
	if run != "" {
		q += ` AND run_id = ?`
		args = append(args, run)
	}
	rows, err := s.query(ctx, q+` ORDER BY run_id, key`, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s units: %w", kind, err)
	}
	defer rows.Close()
	var out []Unit
	for rows.Next() {
		u := Unit{Kind: kind}
		var data sql.NullString
		var updated string
		if err := rows.Scan(&u.Run, &u.Key, &u.Status, &data, &u.Err, &u.Attempts, &updated); err != nil {
			return nil, err
		}
		u.Data = []byte(data.String)
		u.Updated = parseStamp(updated)
		out = append(out, u)
	}
	return out, rows.Err()
}

// Run is one stored run.
type Run struct {
	ID      string         `json:"id"`
	Kind    string         `json:"kind"`
	Params  string         `json:"params"`
	Created time.Time      `json:"created"`
	Updated time.Time      `json:"updated"`
	Units   map[string]int `json:"units"` // "kind/status" → count
}

// Runs lists the stored runs, newest first.
func (s *Store) Runs(ctx context.Context) ([]Run, error) {
	rows, err := s.query(ctx, `SELECT id, kind, params, created_at, updated_at FROM runs ORDER BY updated_at DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []Run
	for rows.Next() {
		var r Run
		var c, u string
		if err := rows.Scan(&r.ID, &r.Kind, &r.Params, &c, &u); err != nil {
			rows.Close()
			return nil, err
		}
		r.Created = parseStamp(c)
		r.Updated = parseStamp(u)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		counts, err := s.Counts(ctx, out[i].ID)
		if err != nil {
			return nil, err
		}
		out[i].Units = map[string]int{}
		for kind, m := range counts {
			for status, n := range m {
				out[i].Units[kind+"/"+status] = n
			}
		}
	}
	return out, nil
}

// UnitSize returns the size in bytes of a stored unit's data without
// reading it, so that a caller can make room before loading a large one.
func (s *Store) UnitSize(ctx context.Context, run, kind, key string) (int64, bool, error) {
	row := s.queryRow(ctx, `SELECT COALESCE(octet_length(data), 0) FROM units WHERE run_id = ? AND kind = ? AND key = ?`, run, kind, key)
	var n int64
	err := row.Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("size of unit %s/%s: %w", kind, key, err)
	}
	return n, true, nil
}
