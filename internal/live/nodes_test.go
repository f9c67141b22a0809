package live

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// hashJudge gives each (source, claim) pair a verdict of its own, from a
// hash of the two: some supported, some partial, some unsupported or
// contradicted, some unknown.
type hashJudge struct{}

func (hashJudge) JudgeSource(_ context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	out := make([]claimtrace.Verdict, len(claims))
	for i, c := range claims {
		h := fnv.New32a()
		h.Write([]byte(source + "\x00" + c))
		n := h.Sum32()
		labels := []claimtrace.Label{claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown}
		v := claimtrace.Verdict{Label: labels[n%5], Strength: float64(n%101) / 100, Judge: "hash"}
		if v.Label != claimtrace.Unknown {
			v.Evidence = source[:min(len(source), 30)]
		}
		out[i] = v
	}
	return out, nil
}

// TestOperationsCheckedByWhatTheyAdd drives two services through the same
// random sessions, valid and invalid operations mixed (duplicate ids,
// unknown inputs, claims as inputs, an input named twice, a node citing
// itself, bad reasoning types, cycles through reasoning steps, revisions,
// withdrawals), one indexing the whole graph on every operation as
// before, the other checking operations by what they add and assessing
// claims on their provenance path's part of the graph. Every answer and
// every error must be the same, and so must the sessions' metrics, gates
// and explanations at the end.
func TestOperationsCheckedByWhatTheyAdd(t *testing.T) {
	ctx := context.Background()
	full := testService(t, Options{Judge: hashJudge{}, Detector: prov.Offline{}})
	full.alwaysIndex = true
	quick := testService(t, Options{Judge: hashJudge{}, Detector: prov.Offline{}})
	asJSON := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		b, jerr := json.Marshal(v)
		if jerr != nil {
			t.Fatal(jerr)
		}
		return string(b)
	}
	refused, accepted := 0, 0
	for seed := range 40 {
		r := rand.New(rand.NewPCG(uint64(seed), 4))
		sid := fmt.Sprintf("ops-%d", seed)
		mustOpen(t, full, sid)
		mustOpen(t, quick, sid)
		var ids []string // every id used so far, valid or not
		var sources []string
		pickSources := func() []string {
			var out []string
			for range r.IntN(4) {
				if len(sources) > 0 && r.IntN(5) > 0 {
					out = append(out, sources[r.IntN(len(sources))])
				}
			}
			return out
		}
		pick := func() string {
			if len(ids) == 0 || r.IntN(10) == 0 {
				return fmt.Sprintf("n%d", r.IntN(50)) // often unknown
			}
			return ids[r.IntN(len(ids))]
		}
		picks := func() []string {
			var out []string
			for range r.IntN(4) {
				out = append(out, pick())
			}
			return out
		}
		for step := range 60 {
			var a, b string
			switch k := r.IntN(12); {
			case k < 3:
				in := SourceInput{ID: fmt.Sprintf("s%d", step), Title: "a paper", Excerpt: agentExcerpt(r)}
				if r.IntN(8) == 0 {
					in.ID = pick()
				}
				if r.IntN(6) == 0 {
					in.Excerpt = ""
				}
				ids, sources = append(ids, in.ID), append(sources, in.ID)
				a, b = asJSON(full.AddSource(ctx, sid, in)), asJSON(quick.AddSource(ctx, sid, in))
			case k < 5:
				in := ReasoningInput{ID: fmt.Sprintf("r%d", step), Inference: "combines the inputs", Type: []string{"synthesis", "deduction", "guess", ""}[r.IntN(4)], Inputs: picks()}
				if r.IntN(10) == 0 {
					in.Inputs = append(in.Inputs, in.ID)
				}
				ids = append(ids, in.ID)
				a, b = asJSON(full.AddReasoning(ctx, sid, in)), asJSON(quick.AddReasoning(ctx, sid, in))
			case k < 9:
				in := ClaimInput{ID: fmt.Sprintf("c%d", step), Statement: agentExcerpt(r), Supports: pickSources(), Start: r.IntN(100), End: 100 + r.IntN(100)}
				if r.IntN(3) == 0 {
					in.Supports = append(in.Supports, picks()...)
				}
				if r.IntN(6) == 0 {
					in.ID, in.Revise = pick(), r.IntN(2) == 0
				}
				if r.IntN(10) == 0 && len(in.Supports) > 0 {
					in.Supports = append(in.Supports, in.Supports[0])
				}
				ids = append(ids, in.ID)
				a, b = asJSON(full.AddClaim(ctx, sid, in)), asJSON(quick.AddClaim(ctx, sid, in))
			case k < 11:
				in := EdgeInput{From: pick(), To: pick(), Rel: []string{"supports", "contradicts", "refines", "prerequisite"}[r.IntN(4)]}
				a, b = asJSON(full.AddEdge(ctx, sid, in)), asJSON(quick.AddEdge(ctx, sid, in))
			default:
				c := pick()
				a, b = asJSON(full.Withdraw(ctx, sid, c)), asJSON(quick.Withdraw(ctx, sid, c))
			}
			if a != b {
				t.Fatalf("seed %d, step %d: whole-graph index and quick checks disagree:\n%s", seed, step, cmp.Diff(a, b))
			}
			if len(a) > 6 && a[:6] == "error:" {
				refused++
			} else {
				accepted++
			}
		}
		if a, b := asJSON(full.Metrics(ctx, sid)), asJSON(quick.Metrics(ctx, sid)); a != b {
			t.Errorf("seed %d: metrics differ:\n%s", seed, cmp.Diff(a, b))
		}
		g, err := quick.Graph(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range g.Claims {
			if a, b := asJSON(full.Why(ctx, sid, c.ID)), asJSON(quick.Why(ctx, sid, c.ID)); a != b {
				t.Errorf("seed %d: why %s differs:\n%s", seed, c.ID, cmp.Diff(a, b))
			}
		}
		if a, b := asJSON(full.Session(ctx, sid)), asJSON(quick.Session(ctx, sid)); a != b {
			t.Errorf("seed %d: session info differs:\n%s", seed, cmp.Diff(a, b))
		}
	}
	t.Logf("%d refused, %d accepted", refused, accepted)
	if refused < 100 || accepted < 500 {
		t.Errorf("%d operations refused, %d accepted: the sessions do not exercise both", refused, accepted)
	}
}
