package live

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claimtrace/claimtrace/internal/store"
)

// groupCommit stores the operations of concurrent sessions together: an
// operation that comes while another batch is being written waits for it,
// then goes in the next batch with every other operation that came
// meanwhile, in one transaction (store.PutUnits). An idle store writes an
// operation at once, alone; a busy one commits once for many sessions
// instead of once for each, which on SQLite (one writer at a time) is most
// of what a record costs the store.
//
// A put that is to lead a batch first waits, up to delay, for the
// operations announced as about to be stored (expect) that have not been
// queued yet: on a busy server the batch then holds them too, which saves
// a commit each (PostgreSQL's commit_delay, with the siblings counted
// exactly). An operation recorded while no other is under way does not
// wait.
//
// put returns once its unit is stored, as PutUnit would: an operation is
// acknowledged only after it is durable, batched or not. When a batch
// fails, each of its units is written again alone, so that one unit that
// cannot be stored fails its own operation only.
type groupCommit struct {
	st    *store.Store
	delay time.Duration // the longest a leader waits for announced operations

	mu sync.Mutex
	// queue holds the units waiting for the next batch; writing is true
	// while a batch is written, by the put that leads it.
	queue   []*queuedUnit
	writing bool

	// coming counts the announced operations not queued yet; wake is
	// signalled when it falls, for a leader waiting on it.
	coming atomic.Int64
	wake   chan struct{}
}

// newGroupCommit returns a groupCommit writing to st whose leaders wait up
// to delay for announced operations (none when delay <= 0).
func newGroupCommit(st *store.Store, delay time.Duration) *groupCommit {
	return &groupCommit{st: st, delay: delay, wake: make(chan struct{}, 1)}
}

// expected is an operation announced to a groupCommit: it is stored soon
// (put) or given up (settle).
type expected struct {
	g       *groupCommit
	settled atomic.Bool
}

// expect announces an operation that is about to be stored. Call it once
// the operation holds its session's lock and has no slow work left
// (fetching, judging): a leader waits for it. settle the result when the
// operation ends, stored or not.
func (g *groupCommit) expect() *expected {
	g.coming.Add(1)
	return &expected{g: g}
}

// settle says the operation is queued or given up; later calls do nothing.
func (e *expected) settle() {
	if e == nil || !e.settled.CompareAndSwap(false, true) {
		return
	}
	e.g.coming.Add(-1)
	select {
	case e.g.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// awaitComing waits until no announced operation is left to queue, or
// for g.delay at most.
func (g *groupCommit) awaitComing() {
	if g.delay <= 0 || g.coming.Load() <= 0 {
		return
	}
	timer := time.NewTimer(g.delay)
	defer timer.Stop()
	for g.coming.Load() > 0 {
		select {
		case <-g.wake:
		case <-timer.C:
			return
		}
	}
}

// queuedUnit is one put waiting in the queue. done receives its outcome,
// or lead when it is to write the next batch.
type queuedUnit struct {
	u    store.Unit
	done chan putOutcome
}

type putOutcome struct {
	err  error
	lead bool
}

// put stores u, in a batch with the units of other puts waiting at the
// same time; e, the operation's announcement (or nil), is settled once u
// is queued. Once queued, the unit is written whatever happens to ctx:
// the caller learns whether it was stored.
func (g *groupCommit) put(ctx context.Context, e *expected, u store.Unit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q := &queuedUnit{u: u, done: make(chan putOutcome, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, q)
	lead := !g.writing
	g.writing = true
	g.mu.Unlock()
	e.settle()
	if !lead {
		if o := <-q.done; !o.lead {
			return o.err
		}
	}
	// Lead: wait for the operations about to be queued, write everything
	// queued, q among it, then hand the lead to the first unit queued
	// meanwhile.
	g.awaitComing()
	g.mu.Lock()
	batch := g.queue
	g.queue = nil
	g.mu.Unlock()
	errs := make([]error, len(batch))
	for i := range errs {
		errs[i] = errWriteInterrupted
	}
	// Even when the write panics, every put of the batch gets its answer
	// and the lead passes on: a queue left waiting would stop every session.
	defer g.handOff(q, batch, errs)
	g.write(context.WithoutCancel(ctx), batch, errs)
	return errs[slices.Index(batch, q)]
}

// errWriteInterrupted answers the puts of a batch whose write panicked.
var errWriteInterrupted = errors.New("the store's write was interrupted")

// handOff gives the puts of batch other than q, the leader's, their
// outcome, then the lead to the first put queued meanwhile, if any.
func (g *groupCommit) handOff(q *queuedUnit, batch []*queuedUnit, errs []error) {
	for i, b := range batch {
		if b != q {
			b.done <- putOutcome{err: errs[i]}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) > 0 {
		g.queue[0].done <- putOutcome{lead: true}
	} else {
		g.writing = false
	}
}

// write stores a batch, setting errs[i] to the outcome of batch[i].
func (g *groupCommit) write(ctx context.Context, batch []*queuedUnit, errs []error) {
	units := make([]store.Unit, len(batch))
	for i, b := range batch {
		units[i] = b.u
	}
	err := g.st.PutUnits(ctx, units)
	if err == nil || len(batch) == 1 {
		for i := range errs {
			errs[i] = err
		}
		return
	}
	for i, u := range units {
		errs[i] = g.st.PutUnit(ctx, u)
	}
}
