package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Sessions in memory. A session is loaded (replayed from its stored log)
// when first used and stays while the memory of the sessions in memory
// (estimated by cost) is within Limits.MemoryBytes; past it, the sessions
// used least recently and not in use leave memory, to be replayed again
// when used. Loading happens outside the service's lock: other sessions
// are served meanwhile, and callers wanting the session being loaded wait
// for it (not for the lock).

// resident is a session in memory, or being loaded: ready is closed once
// ss or err is set.
type resident struct {
	ready chan struct{}
	ss    *session
	err   error
	cost  int64  // estimated memory, counted in Service.mem
	used  uint64 // Service.tick at the last use: the least recent leave first
}

// ownerKey carries the owner of a request in its context (WithOwner).
type ownerKey struct{}

// WithOwner returns ctx saying that its requests are made by owner: the
// holder of one token (OwnerOfToken). Open sessions are capped per owner
// (Limits.SessionsPerOwner); a context without one is the owner "".
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// OwnerOfToken names the holder of a bearer token without keeping the
// token: the first 16 hex digits of its SHA-256.
func OwnerOfToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "token:" + hex.EncodeToString(sum[:8])
}

func ownerOf(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}

// runParams are the stored parameters of a session's run.
type runParams struct {
	OpenInput
	// Owner is who opened the session (WithOwner).
	Owner string `json:"owner,omitempty"`
}

// cost estimates the memory a session in memory takes: about twice the
// text it recorded (its graph and the texts beside it), a few hundred
// bytes a node and edge, and its contradiction detector's index. ss.mu is
// held.
func (ss *session) cost() int64 {
	g := ss.g
	nodes := len(g.Sources) + len(g.Reasoning) + len(g.Claims) + len(g.Edges) + len(g.Conflicts)
	c := 4096 + 2*ss.bytes + 512*int64(nodes)
	if ss.detect != nil {
		c += ss.detect.Bytes()
	}
	return c
}

// locked returns the session with id, locked, loading it when it is not
// in memory. The caller unlocks it.
func (s *Service) locked(ctx context.Context, id string) (*session, error) {
	for {
		ss, err := s.session(ctx, id)
		if err != nil {
			return nil, err
		}
		ss.mu.Lock()
		s.unpin(ss)
		if !ss.evicted {
			return ss, nil
		}
		// It left memory between the lookup and the lock: look again.
		ss.mu.Unlock()
	}
}

// unpin releases the pin acquire put on ss: it may leave memory again
// once unlocked.
func (s *Service) unpin(ss *session) {
	s.mu.Lock()
	ss.pins--
	s.mu.Unlock()
}

// session returns the session with id from memory, or loads it, pinned
// in memory until the caller unpins it (locked does, once it holds the
// session's lock).
func (s *Service) session(ctx context.Context, id string) (*session, error) {
	if err := checkID("session", id); err != nil {
		return nil, err
	}
	ss, _, err := s.acquire(ctx, id, nil)
	return ss, err
}

// acquire returns the session with id from memory or loads it, pinned
// (see unpin); with create set, a session not in the store is created with
// it (created true). Only one caller loads a given session; others wait
// for it, or for their context to end.
func (s *Service) acquire(ctx context.Context, id string, create *OpenInput) (ss *session, created bool, err error) {
	for {
		s.mu.Lock()
		r := s.resident[id]
		if r == nil {
			r = &resident{ready: make(chan struct{})}
			s.resident[id] = r
			s.mu.Unlock()
			ss, created, err = s.load(ctx, id, create)
			s.loaded(id, r, ss, err)
			return ss, created, err
		}
		s.mu.Unlock()
		select {
		case <-r.ready:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		if r.err == nil {
			if s.touch(id, r) {
				return r.ss, false, nil
			}
			continue // it left memory meanwhile
		}
		if errors.Is(r.err, claimtrace.ErrNotFound) && create != nil {
			continue // another caller looked without creating; create it now
		}
		if errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded) {
			continue // the loader gave up; load it ourselves
		}
		return nil, false, r.err
	}
}

// load replays session id from the store, or creates it when it is not
// there and create is set. No service lock is held.
func (s *Service) load(ctx context.Context, id string, create *OpenInput) (*session, bool, error) {
	units, err := s.st.Units(ctx, runID(id), OpUnit)
	if err != nil {
		return nil, false, fmt.Errorf("load session %s: %w", id, err)
	}
	if len(units) > 0 {
		ss, err := replay(id, units)
		return ss, false, err
	}
	if create == nil {
		return nil, false, fmt.Errorf("session %q: %w", id, claimtrace.ErrNotFound)
	}
	ss, err := s.create(ctx, id, *create)
	return ss, err == nil, err
}

// loaded records the outcome of loading session id and wakes the callers
// waiting for it; a session that failed to load is forgotten, so the next
// caller tries again.
func (s *Service) loaded(id string, r *resident, ss *session, err error) {
	var cost int64
	if err == nil {
		ss.mu.Lock() // no one else has ss yet
		cost = ss.cost()
		ss.mu.Unlock()
	}
	s.mu.Lock()
	r.ss, r.err = ss, err
	if err != nil {
		delete(s.resident, id)
	} else {
		r.cost = cost
		ss.pins = 1 // the loader's
		s.mem += r.cost
		s.tick++
		r.used = s.tick
	}
	close(r.ready)
	s.mu.Unlock()
	if err == nil {
		s.evict()
	}
}

// touch marks a session in memory as just used and pins it; it reports
// false when the session has left memory.
func (s *Service) touch(id string, r *resident) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resident[id] != r {
		return false
	}
	s.tick++
	r.used = s.tick
	r.ss.pins++
	return true
}

// account updates the memory counted for ss after an operation changed
// it, then makes room. ss.mu is held (the lock order is ss.mu, then s.mu:
// no code waits for a session's lock while holding the service's).
func (s *Service) account(ss *session) {
	c := ss.cost()
	s.mu.Lock()
	if r := s.resident[ss.id]; r != nil && r.ss == ss {
		s.mem += c - r.cost
		r.cost = c
	}
	s.mu.Unlock()
	s.evict()
}

// evict makes sessions leave memory, least recently used first, until the
// sessions in memory fit in Limits.MemoryBytes. A session in use (its lock
// held, or pinned by a caller about to lock it) stays; so does a session
// being loaded.
func (s *Service) evict() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.mem > s.limits.MemoryBytes {
		var victim *resident
		var vid string
		for id, r := range s.resident {
			select {
			case <-r.ready:
			default:
				continue // being loaded
			}
			if r.ss.pins > 0 {
				continue // about to be used
			}
			if victim == nil || r.used < victim.used {
				if r.ss.mu.TryLock() {
					if victim != nil {
						victim.ss.mu.Unlock()
					}
					victim, vid = r, id
				}
			}
		}
		if victim == nil {
			return // every session in memory is in use
		}
		victim.ss.evicted = true
		victim.ss.mu.Unlock()
		delete(s.resident, vid)
		s.mem -= victim.cost
		s.evictions++
	}
}

// forget makes the locked session ss leave memory now (a closed session:
// its texts can be large and it changes no more). ss.mu is held.
func (s *Service) forget(ss *session) {
	ss.evicted = true
	s.mu.Lock()
	if r := s.resident[ss.id]; r != nil && r.ss == ss {
		delete(s.resident, ss.id)
		s.mem -= r.cost
	}
	s.mu.Unlock()
}

// Memory describes the sessions in memory.
type Memory struct {
	// Sessions is the number of sessions in memory, Bytes their estimated
	// memory and MaxBytes the budget (Limits.MemoryBytes).
	Sessions int   `json:"sessions"`
	Bytes    int64 `json:"bytes"`
	MaxBytes int64 `json:"max_bytes"`
	// Evictions counts the sessions that left memory to make room.
	Evictions int64 `json:"evictions"`
	// Open is the number of open sessions of the store (not closed), in
	// all; MaxOpen caps it.
	Open    int `json:"open"`
	MaxOpen int `json:"max_open"`
}

// Memory reports the sessions in memory and the open sessions.
func (s *Service) Memory(ctx context.Context) (Memory, error) {
	if err := s.countOpen(ctx); err != nil {
		return Memory{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return Memory{Sessions: len(s.resident), Bytes: s.mem, MaxBytes: s.limits.MemoryBytes, Evictions: s.evictions,
		Open: len(s.open), MaxOpen: s.limits.Sessions}, nil
}

// countOpen reads, once a process, which stored sessions are open (their
// log does not end with a close) and whose.
func (s *Service) countOpen(ctx context.Context) error {
	s.openMu.Lock()
	defer s.openMu.Unlock()
	if s.openKnown {
		return nil
	}
	runs, err := s.st.Runs(ctx)
	if err != nil {
		return fmt.Errorf("count open sessions: %w", err)
	}
	open := map[string]string{}
	for _, r := range runs {
		if r.Kind != RunKind || !strings.HasPrefix(r.ID, "live:") {
			continue
		}
		n := r.Units[OpUnit+"/"+store.StatusDone]
		if n == 0 {
			continue
		}
		last, ok, err := s.st.GetUnit(ctx, r.ID, OpUnit, opKey(n-1))
		if err != nil {
			return fmt.Errorf("count open sessions: %w", err)
		}
		var o struct {
			Kind opKind `json:"op"`
		}
		if ok && json.Unmarshal(last.Data, &o) == nil && o.Kind == opClose {
			continue
		}
		var p runParams
		json.Unmarshal([]byte(r.Params), &p) // ours; a bad one leaves no owner
		open[strings.TrimPrefix(r.ID, "live:")] = p.Owner
	}
	s.mu.Lock()
	s.open = open
	s.mu.Unlock()
	s.openKnown = true
	return nil
}

// reserve counts a new open session of owner, or refuses it past a cap.
func (s *Service) reserve(id, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range s.open {
		if o == owner {
			n++
		}
	}
	if n >= s.limits.SessionsPerOwner {
		return &LimitError{Session: id, Limit: LimitOpenSessionsPerToken, Max: int64(s.limits.SessionsPerOwner),
			what: fmt.Sprintf("this token has %d open sessions, the most one token may", n)}
	}
	if len(s.open) >= s.limits.Sessions {
		return &LimitError{Session: id, Limit: LimitOpenSessions, Max: int64(s.limits.Sessions),
			what: fmt.Sprintf("%d sessions are open, the most the server keeps open", len(s.open))}
	}
	s.open[id] = owner
	return nil
}

// unreserve forgets an open session: closed, or never created.
func (s *Service) unreserve(id string) {
	s.mu.Lock()
	delete(s.open, id)
	s.mu.Unlock()
}
