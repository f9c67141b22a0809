package eval

import (
	"context"
	"errors"
	"time"
)

// Leaser hands out work leases on a shared database: the store implements
// it. TryLease takes (or renews) the lease on a unit for owner unless
// another owner holds it unexpired; ReleaseLease gives it back.
type Leaser interface {
	TryLease(ctx context.Context, run, kind, key, owner string, ttl time.Duration) (bool, error)
	ReleaseLease(ctx context.Context, run, kind, key, owner string) error
}

// DefaultLeaseTTL is how long a lease lasts without renewal: how
// long the others wait before taking over the reports of an evaluator that
// died. A live evaluator renews its leases every third of it.
const DefaultLeaseTTL = 2 * time.Minute

// pollEvery is how long an evaluator waits between two looks at a unit
// another holds: a twentieth of the lease's lifetime, and at most
// maxPoll, since a report or a source takes seconds, not minutes, and a
// look is one small read.
func (e *Evaluator) pollEvery() time.Duration {
	return min(e.opts.LeaseTTL/20, maxPoll)
}

const maxPoll = 250 * time.Millisecond

// errLeased says another evaluator holds the report's lease.
var errLeased = errors.New("leased by another evaluator")

// lease takes the lease on a unit and keeps renewing it until release is
// called. ok is false when another evaluator holds it.
func (e *Evaluator) lease(ctx context.Context, kind, key string) (release func(), ok bool, err error) {
	l, ttl, owner := e.opts.Leaser, e.opts.LeaseTTL, e.opts.Owner
	ok, err = l.TryLease(ctx, e.run, kind, key, owner, ttl)
	if err != nil || !ok {
		return nil, false, err
	}
	stop := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				// A failed renewal is not fatal: at worst the lease lapses
				// and another evaluator repeats the report.
				l.TryLease(context.WithoutCancel(ctx), e.run, kind, key, owner, ttl)
			}
		}
	}()
	return func() {
		close(stop)
		<-renewed
		l.ReleaseLease(context.WithoutCancel(ctx), e.run, kind, key, owner)
	}, true, nil
}
