package factcheck

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/claimtrace/claimtrace"
)

// BatchChecker is a Checker that can also answer one vote on several
// claims in one call (the claims of one report, which share its cutoff).
// Every query of a batch has the same vote number. The votes come back
// in the order of qs; a claim the answer leaves out gets a vote with Err
// set, never a guess. An error fails every vote of the batch.
type BatchChecker interface {
	Checker
	CheckBatch(ctx context.Context, qs []Query) ([]claimtrace.Vote, error)
}

// Ensemble decides claims by majority over several fact-checkers' votes:
// each checker votes Votes times (default 3), every vote a separate call
// with its own CacheTag. With the paper's default of two models × three
// votes that is six votes a claim. A failed vote is kept with its error
// and not counted (Aggregate); a tie, or no valid vote, is undecided.
//
// With EarlyStop, votes are cast in rounds, alternating checkers (vote 1
// of each, then vote 2 of each, …), and a claim gets no more votes once
// the ones left cannot change its majority: once the lead of true over
// false (or back) is larger than the votes not yet cast. The label is
// then exactly the one all the votes would give, whatever they would have
// said; only Confidence differs, being the winning share of the votes
// cast. The first round casts the fewest votes that can decide (4 of 6),
// each later round the fewest that can decide what is left (a 3–1 round
// needs one more vote, a 2–2 round both), so an agreeing claim costs 4
// calls instead of 6.
//
// With Batch above 1, checkers that can (BatchChecker) answer one vote on
// up to Batch claims in one call: CheckAll groups the claims that need the
// same vote of the same checker. Search checkers (SearchChecker) with the
// same search API search each claim once for all of them.
type Ensemble struct {
	Checkers []Checker
	// Votes per checker (default 3).
	Votes int
	// EarlyStop stops casting votes on a claim once its majority is
	// decided (see above).
	EarlyStop bool
	// Batch is the most claims one call of a BatchChecker answers
	// (default 1: one claim a call).
	Batch int
}

// Check fact-checks one claim. The Fact lists every vote cast, checker by
// checker and vote by vote. The error is non-nil when ctx ends, or when
// every vote failed: the claim is then a failed unit for the caller to
// retry, never a decision.
func (e Ensemble) Check(ctx context.Context, q Query) (claimtrace.Fact, error) {
	fs, errs := e.CheckAll(ctx, []Query{q})
	return fs[0], errs[0]
}

// CheckAll fact-checks several claims of one report together (see
// Ensemble): the Fact and error of each claim are those Check would give,
// in the order of qs. The Vote field of the queries is ignored.
func (e Ensemble) CheckAll(ctx context.Context, qs []Query) ([]claimtrace.Fact, []error) {
	facts := make([]claimtrace.Fact, len(qs))
	errs := make([]error, len(qs))
	if len(e.Checkers) == 0 {
		for i := range errs {
			errs[i] = fmt.Errorf("fact check: no checkers: %w", claimtrace.ErrInvalid)
		}
		return facts, errs
	}
	votes := e.Votes
	if votes <= 0 {
		votes = 3
	}
	nc := len(e.Checkers)
	// Slot k of a claim is vote k/nc+1 of checker k%nc: alternating, so
	// every round hears every checker.
	total := votes * nc
	type tally struct {
		slots []claimtrace.Vote
		errs  []error
		cast  int // slots [0, cast) are done
		need  int // slots [cast, cast+need) are this round's
	}
	ts := make([]tally, len(qs))
	first := total
	if e.EarlyStop {
		first = total/2 + 1
	}
	memo := newSearchMemo()
	qs = slices.Clone(qs)
	for i := range ts {
		ts[i] = tally{slots: make([]claimtrace.Vote, total), errs: make([]error, total), need: first}
		qs[i].memo = memo
	}
	for {
		// The claims each slot is asked for this round, by slot.
		bySlot := make(map[int][]int)
		for i, t := range ts {
			for k := t.cast; k < t.cast+t.need; k++ {
				bySlot[k] = append(bySlot[k], i)
			}
		}
		if len(bySlot) == 0 {
			break
		}
		var wg sync.WaitGroup
		for k, claims := range bySlot {
			checker := e.Checkers[k%nc]
			vote := k/nc + 1
			set := func(i int, v claimtrace.Vote, err error) {
				if err != nil {
					v = claimtrace.Vote{Checker: v.Checker, Err: err.Error()}
				}
				ts[i].slots[k], ts[i].errs[k] = v, err
			}
			bc, batches := checker.(BatchChecker)
			size := 1
			if batches && e.Batch > 1 {
				size = e.Batch
			}
			for from := 0; from < len(claims); from += size {
				part := claims[from:min(from+size, len(claims))]
				wg.Add(1)
				go func() {
					defer wg.Done()
					batch := make([]Query, len(part))
					for j, i := range part {
						batch[j] = qs[i]
						batch[j].Vote = vote
					}
					if len(part) == 1 || !batches || size == 1 {
						for j, i := range part {
							v, err := checker.Check(ctx, batch[j])
							set(i, v, err)
						}
						return
					}
					vs, err := bc.CheckBatch(ctx, batch)
					for j, i := range part {
						var v claimtrace.Vote
						if j < len(vs) {
							v = vs[j]
						}
						verr := err
						if verr == nil && v.Err != "" {
							verr = errString(v.Err)
						}
						set(i, v, verr)
					}
				}()
			}
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			for i := range errs {
				facts[i], errs[i] = claimtrace.Fact{}, fmt.Errorf("fact check: %w", err)
			}
			return facts, errs
		}
		for i := range ts {
			ts[i].cast += ts[i].need
			ts[i].need = 0
			if e.EarlyStop {
				ts[i].need = undecided(ts[i].slots[:ts[i].cast], total-ts[i].cast)
			}
		}
	}
	for i, t := range ts {
		// Report votes checker by checker.
		var ordered []claimtrace.Vote
		var firstErr error
		valid := 0
		for c := range e.Checkers {
			for k := c; k < t.cast; k += nc {
				ordered = append(ordered, t.slots[k])
				if t.errs[k] != nil && firstErr == nil {
					firstErr = t.errs[k]
				}
				if t.errs[k] == nil {
					valid++
				}
			}
		}
		facts[i] = Aggregate(ordered)
		if valid == 0 {
			errs[i] = fmt.Errorf("fact check: all %d votes failed: %w", len(ordered), firstErr)
		}
	}
	return facts, errs
}

// undecided returns how many more votes a claim needs in the next round
// given the votes cast and the number left: none when the lead of one
// side is larger than what is left (the full vote's label is settled),
// else the fewest votes that could settle it (all going to the leader).
func undecided(cast []claimtrace.Vote, left int) int {
	var yes, no int
	for _, v := range cast {
		if v.Err != "" {
			continue
		}
		switch v.Label {
		case claimtrace.FactTrue:
			yes++
		case claimtrace.FactFalse:
			no++
		}
	}
	lead := max(yes-no, no-yes)
	if left <= 0 || lead > left {
		return 0
	}
	return min(left, (left-lead)/2+1)
}

type errString string

func (e errString) Error() string { return string(e) }

// searchMemo shares searches among the checkers of one CheckAll call:
// each (search API, query, results) is searched once, whoever asks first.
type searchMemo struct {
	mu sync.Mutex
	m  map[string]*memoEntry
}

type memoEntry struct {
	done    chan struct{}
	results []SearchResult
	err     error
}

func newSearchMemo() *searchMemo { return &searchMemo{m: map[string]*memoEntry{}} }

// search returns the results of search(ctx) for key, running it once: a
// caller that arrives while it runs waits for its answer. A nil memo
// searches every time.
func (m *searchMemo) search(ctx context.Context, key string, search func(context.Context) ([]SearchResult, error)) ([]SearchResult, error) {
	if m == nil {
		return search(ctx)
	}
	m.mu.Lock()
	e, ok := m.m[key]
	if !ok {
		e = &memoEntry{done: make(chan struct{})}
		m.m[key] = e
	}
	m.mu.Unlock()
	if !ok {
		e.results, e.err = search(ctx)
		close(e.done)
		return e.results, e.err
	}
	select {
	case <-e.done:
		return e.results, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
