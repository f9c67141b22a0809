package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
)

// ErrClosed reports a write to a closed session. A closed session is final:
// its graph can still be read and exported.
var ErrClosed = errors.New("session closed")

// Judge decides whether a source supports claims: verdicts for all claims
// citing one source, in order, with verbatim evidence. judge.Offline and the
// LLM judges implement it.
type Judge interface {
	JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error)
}

// Fetcher retrieves a URL; *fetch.Client (SSRF-safe) implements it.
type Fetcher interface {
	Fetch(ctx context.Context, url string) (*fetch.Page, error)
}

// Limits on what one operation may carry.
const (
	// MaxText caps a source's text, an excerpt or fetched readable text
	// (bytes); longer fetched text is cut, a longer excerpt refused.
	MaxText = 1 << 20
	// MaxStatement caps a claim's statement and a step's inference (bytes).
	MaxStatement = 16 << 10
	// MaxSupports caps the nodes one claim or step may name as inputs.
	MaxSupports = 64
)

// Options configure a Service.
type Options struct {
	// Store keeps every session (required).
	Store *store.Store
	// Judge verifies claims against their sources. Nil means the offline
	// judge with the shipped calibration.
	Judge Judge
	// Tau is the entailment threshold τ: a supports edge is sound when
	// ν > τ. Nil means prov.DefaultTau (0.5).
	Tau *float64
	// Fetcher, when set, fetches sources the agent records by URL (or DOI)
	// without an excerpt. Nil leaves such sources unresolved.
	Fetcher Fetcher
	// Detector, when set, looks for contradictions between a new source and
	// the earlier ones of its session (prov.Offline is the built-in one);
	// they become the graph's conflicts, which CTran counts.
	Detector prov.Detector
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Logger, when set, logs the HTTP API's server-side failures (5xx).
	Logger *slog.Logger
	// Limits bound what one session may hold; zero fields take
	// DefaultLimits.
	Limits Limits
	// CommitDelay is the longest an operation about to be stored waits
	// for the operations of other sessions that are about to be stored
	// too, so that one commit stores them all; zero means
	// DefaultCommitDelay, a negative value never waits. An operation
	// recorded while no other is under way never waits.
	CommitDelay time.Duration
}

// DefaultCommitDelay is Options.CommitDelay's default: at most this much
// more latency for an operation that leads a batch. On 2 cores with 8
// busy clients (BenchmarkRecording) a commit then stores 1.2–1.4
// operations instead of 1.13; more clients, or a slower disk, make
// larger batches.
const DefaultCommitDelay = 300 * time.Microsecond

// Service records live provenance sessions. It is safe for concurrent
// use; operations on one session are serialized.
type Service struct {
	st       *store.Store
	writes   *groupCommit // operations, stored with other sessions'
	judge    Judge
	fetcher  Fetcher
	detector prov.Detector
	tau      float64
	now      func() time.Time
	log      *slog.Logger
	limits   Limits
	// alwaysIndex makes every operation index the whole graph, as before
	// operations were checked by what they add (tests compare the two).
	alwaysIndex bool

	// mu guards the sessions in memory and the open sessions; it is never
	// held while a session is loaded or a session's lock awaited.
	mu        sync.Mutex
	resident  map[string]*resident
	mem       int64  // estimated memory of the sessions in resident
	tick      uint64 // use counter, for least-recently-used eviction
	evictions int64
	// open maps the open sessions of the store to their owners, once
	// countOpen has read them (openKnown, under openMu).
	open      map[string]string
	openMu    sync.Mutex
	openKnown bool
}

// New returns a Service with opts.
func New(opts Options) (*Service, error) {
	if opts.Store == nil {
		return nil, fmt.Errorf("live: no store: %w", claimtrace.ErrInvalid)
	}
	tau := prov.DefaultTau
	if opts.Tau != nil {
		tau = *opts.Tau
	}
	if math.IsNaN(tau) || tau < 0 || tau >= 1 {
		return nil, fmt.Errorf("live: tau %v: want 0 ≤ τ < 1: %w", tau, claimtrace.ErrInvalid)
	}
	j := opts.Judge
	if j == nil {
		var err error
		if j, err = judge.NewDefaultOffline(); err != nil {
			return nil, fmt.Errorf("live: %w", err)
		}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	delay := opts.CommitDelay
	if delay == 0 {
		delay = DefaultCommitDelay
	}
	return &Service{
		st: opts.Store, writes: newGroupCommit(opts.Store, delay), judge: j, fetcher: opts.Fetcher, detector: opts.Detector, tau: tau,
		now:      func() time.Time { return now().UTC() },
		log:      opts.Logger,
		limits:   opts.Limits.orDefault(),
		resident: make(map[string]*resident),
		open:     make(map[string]string),
	}, nil
}

// Tau returns the service's entailment threshold τ.
func (s *Service) Tau() float64 { return s.tau }

// Limits returns the limits of one session.
func (s *Service) Limits() Limits { return s.limits }

// Run kinds and unit kinds of the store.
const (
	// RunKind is the kind of the store run holding one session.
	RunKind = "live"
	// OpUnit is the kind of the units holding a session's operations.
	OpUnit = "live_op"
)

// runID is the store run of session id.
func runID(id string) string { return "live:" + id }

// idPattern is what node and session ids may look like: safe in URL paths
// and PROV qualified names.
var idPattern = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// checkID validates an id given by a client.
func checkID(what, id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%s id %q: want 1–128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit: %w", what, id, claimtrace.ErrInvalid)
	}
	return nil
}

// OpenInput opens a new session or resumes one.
type OpenInput struct {
	ID    string `json:"id,omitempty" jsonschema:"session id to resume, or to give a new session; omit for a generated id"`
	Query string `json:"query,omitempty" jsonschema:"the research question the report answers"`
	Agent string `json:"agent,omitempty" jsonschema:"the agent or model writing the report"`
}

// SessionInfo describes a session.
type SessionInfo struct {
	ID      string    `json:"id"`
	Query   string    `json:"query,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Closed  bool      `json:"closed"`
	// Resumed is true when Open found the session already recorded.
	Resumed bool `json:"resumed"`
	// Tau is the threshold τ the gate and PSnd use.
	Tau       float64 `json:"tau"`
	Sources   int     `json:"sources"`
	Reasoning int     `json:"reasoning"`
	Claims    int     `json:"claims"`
	Edges     int     `json:"edges"`
	// Gated is the number of claims the gate currently holds back.
	Gated int `json:"gated"`
}

// Open starts a session, or resumes the one with in.ID when it exists (in
// memory or in the store), whatever the query given. A new session gets
// in.ID, or a random id when it is empty.
func (s *Service) Open(ctx context.Context, in OpenInput) (*SessionInfo, error) {
	if err := checkText("query", in.Query, MaxStatement); err != nil {
		return nil, err
	}
	if err := checkText("agent", in.Agent, 256); err != nil {
		return nil, err
	}
	id := in.ID
	if id == "" {
		var b [8]byte
		rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	} else if err := checkID("session", id); err != nil {
		return nil, err
	}
	if err := s.countOpen(ctx); err != nil {
		return nil, err
	}
	ss, created, err := s.acquire(ctx, id, &in)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	s.unpin(ss)
	info := ss.info(s.tau)
	ss.mu.Unlock()
	info.Resumed = !created
	return info, nil
}

// create records a new session with id, counted among the open sessions of
// the caller's owner (refused past a cap).
func (s *Service) create(ctx context.Context, id string, in OpenInput) (*session, error) {
	owner := ownerOf(ctx)
	if err := s.reserve(id, owner); err != nil {
		return nil, err
	}
	ss, err := s.record(ctx, id, in, owner)
	if err != nil {
		s.unreserve(id)
		return nil, err
	}
	return ss, nil
}

func (s *Service) record(ctx context.Context, id string, in OpenInput, owner string) (*session, error) {
	params, err := json.Marshal(runParams{OpenInput: in, Owner: owner})
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	if err := s.st.EnsureRun(ctx, runID(id), RunKind, string(params)); err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	ss := newSession(id)
	o := &op{Kind: opOpen, At: s.now(), Open: &openOp{Query: in.Query, Agent: in.Agent}}
	g, err := ss.mutate(o)
	if err != nil {
		return nil, err
	}
	if err := s.commit(ctx, nil, ss, o, g); err != nil {
		return nil, err
	}
	return ss, nil
}

// Close marks a session final: later writes fail with ErrClosed. Closing a
// closed session is not an error. A closed session leaves memory (its
// source texts can be large) and is replayed from the store when read.
func (s *Service) Close(ctx context.Context, id string) (*SessionInfo, error) {
	if err := s.countOpen(ctx); err != nil {
		return nil, err
	}
	ss, err := s.locked(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	if !ss.closed {
		soon := s.writes.expect()
		defer soon.settle()
		if err := s.commit(ctx, soon, ss, &op{Kind: opClose, At: s.now()}, ss.g); err != nil {
			return nil, err
		}
	}
	s.forget(ss)
	s.unreserve(id)
	return ss.info(s.tau), nil
}

// Session describes one session.
func (s *Service) Session(ctx context.Context, id string) (*SessionInfo, error) {
	ss, err := s.locked(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	return ss.info(s.tau), nil
}

// Sessions lists the sessions of the store, newest first. Sessions not
// loaded in this process are described from the store without replaying
// them: their counts are zero and Updated is their creation time.
func (s *Service) Sessions(ctx context.Context) ([]SessionInfo, error) {
	runs, err := s.st.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []SessionInfo
	for _, r := range runs {
		if r.Kind != RunKind || !strings.HasPrefix(r.ID, "live:") {
			continue
		}
		id := strings.TrimPrefix(r.ID, "live:")
		var ss *session
		s.mu.Lock()
		if r := s.resident[id]; r != nil {
			select {
			case <-r.ready:
				ss = r.ss
			default: // being loaded: described from the store
			}
		}
		s.mu.Unlock()
		if ss != nil {
			ss.mu.Lock()
			out = append(out, *ss.info(s.tau))
			ss.mu.Unlock()
			continue
		}
		var in OpenInput
		json.Unmarshal([]byte(r.Params), &in) // params are ours; a bad one leaves the fields empty
		out = append(out, SessionInfo{ID: id, Query: in.Query, Agent: in.Agent, Created: r.Created, Updated: r.Updated, Tau: s.tau})
	}
	slices.SortStableFunc(out, func(a, b SessionInfo) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// writable returns the session with id, locked, or an error when it does
// not exist or is closed. The caller unlocks it.
func (s *Service) writable(ctx context.Context, id string) (*session, error) {
	ss, err := s.locked(ctx, id)
	if err != nil {
		return nil, err
	}
	if ss.closed {
		ss.mu.Unlock()
		return nil, fmt.Errorf("session %q: %w: open a new session to record more", id, ErrClosed)
	}
	return ss, nil
}

// commit persists o as the session's next operation, then applies it with
// g, the graph after it (already validated). ss.mu is held, or ss is not
// shared yet. e is the operation's announcement to the group commit
// (expect), or nil.
func (s *Service) commit(ctx context.Context, e *expected, ss *session, o *op, g *prov.Graph) error {
	if err := s.limits.check(ss, o, g); err != nil {
		return err
	}
	o.Seq = ss.seq
	data, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("session %s: encode %s: %w", ss.id, o.Kind, err)
	}
	u := store.Unit{Run: runID(ss.id), Kind: OpUnit, Key: opKey(o.Seq), Status: store.StatusDone, Data: data}
	if err := s.writes.put(ctx, e, u); err != nil {
		return fmt.Errorf("session %s: record %s: %w", ss.id, o.Kind, err)
	}
	ss.apply(o, g)
	s.account(ss)
	return nil
}

// checkText validates a free-text field: UTF-8 and at most max bytes.
func checkText(field, v string, max int) error {
	if len(v) > max {
		return fmt.Errorf("%s: %d bytes, over the %d-byte limit: %w", field, len(v), max, claimtrace.ErrTooLarge)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s: not valid UTF-8: %w", field, claimtrace.ErrInvalid)
	}
	return nil
}
