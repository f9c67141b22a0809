package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Judge decides, for every claim citing one source, whether the source
// supports it. Verdicts come back in the order of claims; each verdict's
// Evidence must be a verbatim substring of source.
type Judge interface {
	JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error)
}

// CheckWorthy decides whether a non-cited claim is a specific, verifiable
// factual statement worth fact-checking, and says why.
type CheckWorthy func(claim string) (bool, string)

const unitVerdicts = "verdicts"

// CitedStats counts a report's (claim, source) pairs by verdict.
type CitedStats struct {
	Pairs        int      `json:"pairs"`
	Judged       int      `json:"judged"`
	Unknown      int      `json:"unknown"`
	Supported    int      `json:"supported"`
	Partial      int      `json:"partial"`
	Unsupported  int      `json:"unsupported"`
	Contradicted int      `json:"contradicted"`
	MatchRate    *float64 `json:"match_rate"`
	// Sound counts pairs whose strength exceeds τ (PSnd's numerator).
	Sound int `json:"sound"`
}

// NonCitedStats counts a report's non-cited claims.
type NonCitedStats struct {
	Claims      int      `json:"claims"`
	CheckWorthy int      `json:"check_worthy"`
	True        int      `json:"true"`
	False       int      `json:"false"`
	Undecided   int      `json:"undecided"`
	Accuracy    *float64 `json:"factual_accuracy"`
	// Extracted counts the statements the extraction model returned (the
	// paper's A.4.2, with --prompts reportbench); Extra holds those that
	// restate no parser claim. Both are absent otherwise.
	Extracted int              `json:"extracted,omitempty"`
	Extra     []ExtraStatement `json:"extra_statements,omitempty"`
	// Error says why the stage could not decide which claims to check (the
	// classifier or the extraction failed); the report's figures then
	// leave the non-cited means, and --retry-failed runs the stage again.
	Error string `json:"error,omitempty"`
}

// storedVerdicts is a verdict unit: the verdicts of the claims of one
// report that cite one source.
type storedVerdicts struct {
	Claims   []string             `json:"claims"`
	Verdicts []claimtrace.Verdict `json:"verdicts"`
}

// judgeCited judges every (claim, source) pair of the report when there
// is a judge: the claims citing one source in one batch (judgeSource),
// sources concurrently. Pairs whose source has no readable text are
// unknown, never unsupported. Each source's batch is stored as a unit as
// soon as it is judged. It reads each record's claims, resolution and the
// text of the claims citing it, writes each record's verdicts, and returns
// the units that failed, sorted. It writes nothing of the result, so the
// non-cited stage may run beside it (judgeAndCheck); placeVerdicts does,
// after.
func (e *Evaluator) judgeCited(ctx context.Context, st *reportState) ([]string, error) {
	if e.opts.Judge == nil {
		return nil, nil
	}
	var failed []string
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.opts.Concurrency)
	for _, s := range st.sources {
		if gctx.Err() != nil {
			break
		}
		if len(s.claims) == 0 {
			continue
		}
		texts := make([]string, len(s.claims))
		for i, ci := range s.claims {
			texts[i] = st.res.Claims[ci].Text
		}
		g.Go(func() error {
			vs, ok, err := e.judgeSource(gctx, st.file.Task, s, texts)
			if err != nil {
				return err
			}
			s.verdicts = vs
			if !ok {
				mu.Lock()
				failed = append(failed, unitVerdicts+":"+s.key)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // cancelled before every source was judged
	}
	sort.Strings(failed)
	return failed, nil
}

// placeVerdicts gives out the sources' verdicts (judgeCited) to the claims
// in key order, each showing its source as claimLabel, and writes
// st.judged and the cited figures. Without a judge it does nothing.
func (e *Evaluator) placeVerdicts(st *reportState) {
	if e.opts.Judge == nil {
		return
	}
	res := st.res
	st.judged = make([][]*citedSource, len(res.Claims))
	for _, s := range st.sources {
		for i, ci := range s.claims {
			v := s.verdicts[i]
			v.URL = s.claimLabel
			res.Claims[ci].Verdicts = append(res.Claims[ci].Verdicts, v)
			st.judged[ci] = append(st.judged[ci], s)
		}
	}
	cs := citedStats(res.Claims, e.opts.PartialWeight, e.opts.Tau)
	res.Cited = &cs
}

// judgeSource returns the verdicts of the claims citing one source, from
// the store or by judging, and whether judging succeeded. The source's text
// is read only when the claims are judged.
func (e *Evaluator) judgeSource(ctx context.Context, task string, s *citedSource, claims []string) ([]claimtrace.Verdict, bool, error) {
	unitKey := task + "|" + s.key
	src := s.resolution
	if src.Work.Kind == claimtrace.WorkNotFetched {
		// No verdict, and none kept: the next run fetches and judges it.
		out := make([]claimtrace.Verdict, len(claims))
		for i := range out {
			out[i] = claimtrace.Verdict{Label: claimtrace.Unknown, Reason: "source " + src.Work.Status, Judge: e.opts.JudgeName}
		}
		return out, true, nil
	}
	if u, ok, err := e.opts.Store.GetUnit(ctx, e.run, unitVerdicts, unitKey); err != nil {
		return nil, false, err
	} else if ok && (u.Status == store.StatusDone || !e.opts.RetryFailed) {
		var sv storedVerdicts
		if json.Unmarshal(u.Data, &sv) == nil && equalStrings(sv.Claims, claims) {
			return sv.Verdicts, u.Status == store.StatusDone, nil
		}
	}
	unknown := func(reason string) []claimtrace.Verdict {
		out := make([]claimtrace.Verdict, len(claims))
		for i := range out {
			out[i] = claimtrace.Verdict{Label: claimtrace.Unknown, Reason: reason, Judge: e.opts.JudgeName}
		}
		return out
	}
	var vs []claimtrace.Verdict
	status, errMsg := store.StatusDone, ""
	text, _, err := s.readText(ctx, e.opts.Store)
	if err != nil {
		return nil, false, err
	}
	switch {
	case !src.Fetched:
		reason := "source not readable: " + orDash(src.Work.Status)
		if src.Wall != "" {
			reason = "source shows a " + src.Wall + " page, not content"
		}
		vs = unknown(reason)
	case strings.TrimSpace(text) == "":
		vs = unknown("source has no readable text")
	default:
		e.judges <- struct{}{}
		got, err := e.opts.Judge.JudgeSource(ctx, text, claims)
		<-e.judges
		switch {
		case ctx.Err() != nil:
			return nil, false, ctx.Err()
		case err != nil && isFatal(err):
			return nil, false, err
		case err != nil:
			vs, status, errMsg = unknown("judge failed: "+err.Error()), store.StatusFailed, err.Error()
		case len(got) != len(claims):
			msg := fmt.Sprintf("judge returned %d verdicts for %d claims", len(got), len(claims))
			vs, status, errMsg = unknown(msg), store.StatusFailed, msg
		default:
			vs = got
			for i := range vs {
				checkEvidence(&vs[i], text)
				if vs[i].Judge == "" {
					vs[i].Judge = e.opts.JudgeName
				}
			}
		}
	}
	data, _ := json.Marshal(storedVerdicts{Claims: claims, Verdicts: vs})
	if err := e.opts.Store.PutUnit(context.WithoutCancel(ctx), store.Unit{Run: e.run, Kind: unitVerdicts, Key: unitKey, Status: status, Data: data, Err: errMsg}); err != nil {
		return nil, false, err
	}
	return vs, status == store.StatusDone, nil
}

// checkEvidence enforces that a verdict's evidence is a verbatim passage of
// the source: a quote that is not is rejected and the pair becomes unknown.
func checkEvidence(v *claimtrace.Verdict, source string) {
	if v.Label == claimtrace.Unknown || v.Evidence == "" {
		if v.Label == claimtrace.Supported || v.Label == claimtrace.Partial || v.Label == claimtrace.Contradicted {
			v.Label, v.Strength, v.Reason = claimtrace.Unknown, 0, "verdict without evidence: "+v.Reason
		}
		return
	}
	if !strings.Contains(source, v.Evidence) {
		v.Label, v.Strength = claimtrace.Unknown, 0
		v.Reason = "evidence quote not found in the source; verdict rejected"
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// citedStats counts the pairs of a report.
func citedStats(claims []ClaimResult, partialWeight, tau float64) CitedStats {
	var s CitedStats
	for _, c := range claims {
		for _, v := range c.Verdicts {
			s.Pairs++
			if v.Strength > tau {
				s.Sound++
			}
			switch v.Label {
			case claimtrace.Supported:
				s.Supported++
			case claimtrace.Partial:
				s.Partial++
			case claimtrace.Unsupported:
				s.Unsupported++
			case claimtrace.Contradicted:
				s.Contradicted++
			default:
				s.Unknown++
				continue
			}
			s.Judged++
		}
	}
	if s.Judged > 0 {
		r := (float64(s.Supported) + partialWeight*float64(s.Partial)) / float64(s.Judged)
		s.MatchRate = &r
	}
	return s
}

// isFatal reports errors that must stop the run rather than fail one unit:
// an exhausted budget (stop cleanly, keep what is done).
func isFatal(err error) bool { return errors.Is(err, claimtrace.ErrBudget) }
