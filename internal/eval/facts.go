package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store"
)

const (
	unitWorthy = "check_worthy"
	unitFact   = "fact"
)

// FactInput is what a fact-checker is given: the claim, the paragraph it
// stands in (so pronouns and scope resolve) and the task's cutoff, when
// known, so the claim is judged as of the time it was written for.
type FactInput struct {
	Claim   string
	Context string
	Cutoff  time.Time
}

// worthy is a stored check-worthiness decision.
type worthy struct {
	Claims  []string `json:"claims"`
	Worthy  []bool   `json:"worthy"`
	Reasons []string `json:"reasons"`
}

// nonCited decides which non-cited claims are check-worthy and fact-checks
// them. Without fact-checkers every check-worthy claim is undecided: counted
// and shown, never guessed. A fact-check that fails is recorded as failed
// and its claim undecided; --retry-failed tries it again.
func (e *Evaluator) nonCited(ctx context.Context, task, text string, cutoff time.Time, claims []ClaimResult, failed *[]string) (*NonCitedStats, error) {
	s := &NonCitedStats{}
	var idx []int
	for i, c := range claims {
		if !c.Cited {
			idx = append(idx, i)
		}
	}
	if e.opts.ExtractNonCited != nil {
		return e.nonCitedExtracted(ctx, task, text, cutoff, claims, failed)
	}
	s.Claims = len(idx)
	if len(idx) == 0 || (e.opts.CheckWorthy == nil && e.opts.ClassifyCheckWorthy == nil) {
		return s, nil
	}
	texts := make([]string, len(idx))
	for i, ci := range idx {
		texts[i] = claims[ci].Text
	}
	ok, why, err := e.checkWorthy(ctx, task, texts)
	if err != nil {
		if ctx.Err() != nil || isFatal(err) {
			return nil, err
		}
		s.Error = err.Error()
		*failed = append(*failed, unitWorthy+":"+task)
		return s, nil
	}
	var check []int
	for i, ci := range idx {
		w := ok[i]
		claims[ci].CheckWorthy, claims[ci].Why = &w, why[i]
		if w {
			s.CheckWorthy++
			check = append(check, ci)
		}
	}
	if e.opts.FactCheckAll != nil && e.opts.FactBatch > 1 {
		if err := e.factsTogether(ctx, task, text, cutoff, claims, check, failed); err != nil {
			return nil, err
		}
	} else {
		var mu sync.Mutex
		g, gctx := errgroup.WithContext(ctx)
		for _, ci := range check {
			g.Go(func() error {
				f, ok, err := e.fact(gctx, task, claims[ci], paragraph(text, claims[ci].Start, claims[ci].End), cutoff)
				if err != nil {
					return err
				}
				mu.Lock()
				claims[ci].Fact = f
				if !ok {
					*failed = append(*failed, unitFact+":"+claims[ci].ID)
				}
				mu.Unlock()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	sort.Strings(*failed)
	for _, ci := range check {
		s.count(claims[ci].Fact)
	}
	return s, nil
}

// count adds a fact-check to the figures: true, false or undecided, and
// the accuracy over the decided ones.
func (s *NonCitedStats) count(f *claimtrace.Fact) {
	switch f.Label {
	case claimtrace.FactTrue:
		s.True++
	case claimtrace.FactFalse:
		s.False++
	default:
		s.Undecided++
	}
	s.Accuracy = nil
	if d := s.True + s.False; d > 0 {
		a := float64(s.True) / float64(d)
		s.Accuracy = &a
	}
}

// checkWorthy runs the batched classifier (stored as one unit a report) or
// the offline filter.
func (e *Evaluator) checkWorthy(ctx context.Context, task string, texts []string) ([]bool, []string, error) {
	if e.opts.ClassifyCheckWorthy == nil {
		ok := make([]bool, len(texts))
		why := make([]string, len(texts))
		for i, t := range texts {
			ok[i], why[i] = e.opts.CheckWorthy(t)
		}
		return ok, why, nil
	}
	if u, found, err := e.opts.Store.GetUnit(ctx, e.run, unitWorthy, task); err != nil {
		return nil, nil, err
	} else if found && u.Status == store.StatusDone {
		var w worthy
		if json.Unmarshal(u.Data, &w) == nil && equalStrings(w.Claims, texts) && len(w.Worthy) == len(texts) && len(w.Reasons) == len(texts) {
			return w.Worthy, w.Reasons, nil
		}
	}
	ok, why, err := e.opts.ClassifyCheckWorthy(ctx, texts)
	if err == nil && (len(ok) != len(texts) || len(why) != len(texts)) {
		err = fmt.Errorf("check-worthiness classifier returned %d answers for %d claims", len(ok), len(texts))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("check-worthiness of %s: %w", task, err)
	}
	data, _ := json.Marshal(worthy{Claims: texts, Worthy: ok, Reasons: why})
	if err := e.opts.Store.PutUnit(context.WithoutCancel(ctx), store.Unit{Run: e.run, Kind: unitWorthy, Key: task, Status: store.StatusDone, Data: data}); err != nil {
		return nil, nil, err
	}
	return ok, why, nil
}

// fact returns the stored fact-check of a claim, or runs it, and whether it
// succeeded.
func (e *Evaluator) fact(ctx context.Context, task string, c ClaimResult, context_ string, cutoff time.Time) (*claimtrace.Fact, bool, error) {
	if e.opts.FactCheck == nil {
		return &claimtrace.Fact{Label: claimtrace.FactUndecided, Votes: []claimtrace.Vote{}}, true, nil
	}
	key := factKey(task, c)
	if f, ok, found, err := e.storedFact(ctx, key); err != nil || found {
		return f, ok, err
	}
	e.judges <- struct{}{}
	f, err := e.opts.FactCheck(ctx, FactInput{Claim: c.Text, Context: context_, Cutoff: cutoff})
	<-e.judges
	return e.putFact(ctx, key, f, err)
}

// factsTogether fact-checks the claims check (indices into claims) with
// FactCheckAll, FactBatch claims a call in document order, after taking
// the ones stored by an earlier run from the store; each claim is stored
// as its own unit, failed ones added to failed.
func (e *Evaluator) factsTogether(ctx context.Context, task, text string, cutoff time.Time, claims []ClaimResult, check []int, failed *[]string) error {
	var mu sync.Mutex
	done := func(ci int, f *claimtrace.Fact, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		claims[ci].Fact = f
		if !ok {
			*failed = append(*failed, unitFact+":"+claims[ci].ID)
		}
	}
	var todo []int
	for _, ci := range check {
		f, ok, found, err := e.storedFact(ctx, factKey(task, claims[ci]))
		if err != nil {
			return err
		}
		if found {
			done(ci, f, ok)
			continue
		}
		todo = append(todo, ci)
	}
	g, gctx := errgroup.WithContext(ctx)
	for from := 0; from < len(todo); from += e.opts.FactBatch {
		part := todo[from:min(from+e.opts.FactBatch, len(todo))]
		g.Go(func() error {
			in := make([]FactInput, len(part))
			for j, ci := range part {
				in[j] = FactInput{Claim: claims[ci].Text, Context: paragraph(text, claims[ci].Start, claims[ci].End), Cutoff: cutoff}
			}
			e.judges <- struct{}{}
			fs, errs := e.opts.FactCheckAll(gctx, in)
			<-e.judges
			if len(fs) != len(part) || len(errs) != len(part) {
				return fmt.Errorf("fact-checker returned %d facts for %d claims", len(fs), len(part))
			}
			for j, ci := range part {
				f, ok, err := e.putFact(gctx, factKey(task, claims[ci]), fs[j], errs[j])
				if err != nil {
					return err
				}
				done(ci, f, ok)
			}
			return nil
		})
	}
	return g.Wait()
}

// factKey is the unit key of a claim's fact-check: the task, the claim's
// id and a hash of its text.
func factKey(task string, c ClaimResult) string {
	sum := sha256.Sum256([]byte(c.Text))
	return task + "|" + c.ID + "|" + hex.EncodeToString(sum[:8])
}

// storedFact returns the fact-check stored under key and whether it
// succeeded; found is false when there is none to reuse (none stored, or
// a failed one under --retry-failed).
func (e *Evaluator) storedFact(ctx context.Context, key string) (f *claimtrace.Fact, ok, found bool, err error) {
	u, found, err := e.opts.Store.GetUnit(ctx, e.run, unitFact, key)
	if err != nil {
		return nil, false, false, err
	}
	if found && (u.Status == store.StatusDone || !e.opts.RetryFailed) {
		var f claimtrace.Fact
		if json.Unmarshal(u.Data, &f) == nil {
			return &f, u.Status == store.StatusDone, true, nil
		}
	}
	return nil, false, false, nil
}

// putFact stores the outcome of a claim's fact-check under key: the fact,
// or a failed unit when err is not fatal (the claim is then undecided and
// --retry-failed tries it again). It returns the fact as stored and
// whether it succeeded.
func (e *Evaluator) putFact(ctx context.Context, key string, f claimtrace.Fact, err error) (*claimtrace.Fact, bool, error) {
	status, msg := store.StatusDone, ""
	switch {
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case err != nil && isFatal(err):
		return nil, false, err
	case err != nil:
		f = claimtrace.Fact{Label: claimtrace.FactUndecided, Votes: []claimtrace.Vote{{Err: err.Error()}}}
		status, msg = store.StatusFailed, err.Error()
	}
	if f.Votes == nil {
		f.Votes = []claimtrace.Vote{}
	}
	data, _ := json.Marshal(f)
	if err := e.opts.Store.PutUnit(context.WithoutCancel(ctx), store.Unit{Run: e.run, Kind: unitFact, Key: key, Status: status, Data: data, Err: msg}); err != nil {
		return nil, false, err
	}
	return &f, status == store.StatusDone, nil
}

// paragraph returns the paragraph of text around [start, end).
func paragraph(text string, start, end int) string {
	if start < 0 || end > len(text) || start > end {
		return ""
	}
	from := strings.LastIndex(text[:start], "\n\n")
	if from < 0 {
		from = 0
	}
	to := strings.Index(text[end:], "\n\n")
	if to < 0 {
		to = len(text)
	} else {
		to += end
	}
	p := strings.TrimSpace(text[from:to])
	if len(p) > 4000 {
		p = p[:4000]
	}
	return p
}
