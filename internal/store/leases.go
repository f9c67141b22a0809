package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/claimtrace/claimtrace"
)

// TryLease takes the lease on the unit (run, kind, key) for owner until ttl
// from now, and reports whether it did. It takes the lease when no one
// holds it or its holder's lease has expired, and renews it when owner
// holds it already; it returns false while another owner's lease runs. Of
// workers racing for one lease, exactly one gets it.
//
// Leases let workers sharing one store — several processes on one
// PostgreSQL database, or on one SQLite file — split a run's units instead
// of each doing every unit still in flight. A unit is leased under the
// triple it is stored under. The protocol, for a worker identified by owner
// (NewOwner):
//
//  1. GetUnit: when the unit is stored, use it; nothing to do.
//  2. TryLease. On false, another worker is doing the unit: wait a little
//     and start over at 1, or do other units and come back. Its result
//     appears on GetUnit; if that worker dies, its lease expires after the
//     ttl it chose and a later TryLease takes it over.
//  3. GetUnit again: the previous holder may have stored the unit and
//     released its lease between steps 1 and 2.
//  4. Do the work. Work that can outlast ttl renews the lease, calling
//     TryLease again with the same owner before ttl runs out.
//  5. PutUnit, then ReleaseLease. Releasing before storing would let
//     another worker start the unit over.
//
// On clean shutdown, ReleaseLeases drops what the worker still holds, so
// that others need not wait for its leases to expire.
//
// Expiry is judged by the clock of the worker taking a lease (Store.Now),
// so the workers' clocks must agree to well within a ttl. A lease saves
// duplicate work; it is not a lock correctness depends on: PutUnit takes
// any worker's result, and a worker that stalled past its ttl and lost its
// lease may still store its own. On SQLite, where the store serializes its
// writes, a lease costs one small write.
func (s *Store) TryLease(ctx context.Context, run, kind, key, owner string, ttl time.Duration) (bool, error) {
	if owner == "" || ttl <= 0 {
		return false, fmt.Errorf("take lease %s/%s: owner %q, ttl %v: %w", kind, key, owner, ttl, claimtrace.ErrInvalid)
	}
	now := s.Now()
	// One statement, so that the database decides the race: on PostgreSQL,
	// a racer blocked on the row's insertion re-checks the WHERE against
	// the winner's row once it commits, and updates nothing.
	res, err := s.exec(ctx, `INSERT INTO leases (run_id, kind, key, owner, expires_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (run_id, kind, key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
		WHERE leases.owner = excluded.owner OR leases.expires_at <= ?`,
		run, kind, key, owner, stamp(now.Add(ttl)), stamp(now))
	if err != nil {
		return false, fmt.Errorf("take lease %s/%s: %w", kind, key, err)
	}
	// Both drivers count the row inserted or updated, and 0 when the
	// WHERE keeps the other owner's row.
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("take lease %s/%s: %w", kind, key, err)
	}
	return n == 1, nil
}

// ReleaseLease gives up owner's lease on the unit (run, kind, key). It does
// nothing when owner does not hold it, as when its lease expired and
// another worker took it over.
func (s *Store) ReleaseLease(ctx context.Context, run, kind, key, owner string) error {
	_, err := s.exec(ctx, `DELETE FROM leases WHERE run_id = ? AND kind = ? AND key = ? AND owner = ?`, run, kind, key, owner)
	if err != nil {
		return fmt.Errorf("release lease %s/%s: %w", kind, key, err)
	}
	return nil
}

// ReleaseLeases gives up every lease owner holds, in every run; a worker
// calls it as it shuts down cleanly.
func (s *Store) ReleaseLeases(ctx context.Context, owner string) error {
	if _, err := s.exec(ctx, `DELETE FROM leases WHERE owner = ?`, owner); err != nil {
		return fmt.Errorf("release leases of %s: %w", owner, err)
	}
	return nil
}

// LeaseHolder returns the lease recorded on the unit (run, kind, key), for
// diagnostics: its owner and when it expires. ok reports whether a lease is
// recorded at all; a recorded lease may have expired (compare expires with
// Store.Now), and then anyone may take it over.
func (s *Store) LeaseHolder(ctx context.Context, run, kind, key string) (owner string, expires time.Time, ok bool, err error) {
	var at string
	err = s.queryRow(ctx, `SELECT owner, expires_at FROM leases WHERE run_id = ? AND kind = ? AND key = ?`, run, kind, key).Scan(&owner, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("get lease %s/%s: %w", kind, key, err)
	}
	return owner, parseStamp(at), true, nil
}

// NewOwner returns a lease owner id for this process: its host name and
// process id, which say who holds a lease, and a random suffix, which keeps
// ids unique when a process id is reused or one process runs several
// workers.
func NewOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	var suffix [6]byte
	rand.Read(suffix[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(suffix[:]))
}
