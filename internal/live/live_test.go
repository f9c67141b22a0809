package live

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// Hand-written sources of a session answering "Does retrieval-augmented
// generation improve factual accuracy in long-form QA?" (the seed's
// Figure 4 question).
const (
	excerptGain     = "Across three long-form question answering benchmarks, retrieval-augmented generation improved answer accuracy by 14-18% over the same model without retrieval. The gains were largest on questions about events after the model's training cutoff."
	excerptNoisy    = "Retrieval augmentation did not improve answer accuracy on long-form questions when the retrieved passages were noisy or off-topic. In that setting the retrieval-augmented model was 2% less accurate."
	excerptScale    = "We evaluate models from 7B to 70B parameters. The benefit of retrieval shrinks as model size grows and is within noise for the 70B model."
	excerptPolarity = "In our replication, retrieval augmentation improved answer accuracy on long-form questions when the retrieved passages were noisy or off-topic."

	claimGain      = "Retrieval-augmented generation improved answer accuracy by 14-18% over models without retrieval on long-form question answering benchmarks."
	claimWrongNum  = "Retrieval-augmented generation improved answer accuracy by 40% on long-form question answering benchmarks."
	claimUnrelated = "RAG is the preferred architecture for all factual tasks."
	claimNoisy     = "Retrieval augmentation did not improve answer accuracy when the retrieved passages were noisy."
)

var t0 = time.Date(2026, 11, 20, 10, 15, 0, 0, time.UTC)

// clock returns a Now that advances one second a call.
func clock() func() time.Time {
	var mu sync.Mutex
	t := t0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func openStore(t testing.TB, dsn string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newService(t testing.TB, st *store.Store, opts Options) *Service {
	t.Helper()
	opts.Store = st
	if opts.Now == nil {
		opts.Now = clock()
	}
	svc, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// testService returns a service on a fresh SQLite store.
func testService(t testing.TB, opts Options) *Service {
	return newService(t, openStore(t, storetest.SQLiteDSN(t)), opts)
}

func mustOpen(t testing.TB, svc *Service, id string) string {
	t.Helper()
	info, err := svc.Open(context.Background(), OpenInput{ID: id, Query: "Does RAG improve factual accuracy in long-form QA?", Agent: "test-agent"})
	if err != nil {
		t.Fatal(err)
	}
	return info.ID
}

func mustSource(t testing.TB, svc *Service, sid string, in SourceInput) *SourceResult {
	t.Helper()
	res, err := svc.AddSource(context.Background(), sid, in)
	if err != nil {
		t.Fatalf("add source %+v: %v", in.ID, err)
	}
	return res
}

func mustClaim(t testing.TB, svc *Service, sid string, in ClaimInput) *ClaimResult {
	t.Helper()
	res, err := svc.AddClaim(context.Background(), sid, in)
	if err != nil {
		t.Fatalf("add claim %q: %v", in.Statement, err)
	}
	return res
}

func mustReasoning(t testing.TB, svc *Service, sid string, in ReasoningInput) {
	t.Helper()
	if _, err := svc.AddReasoning(context.Background(), sid, in); err != nil {
		t.Fatalf("add reasoning %q: %v", in.ID, err)
	}
}

// seed records the three excerpt sources s1–s3, an unresolved source s4
// (URL only, no fetcher) and two reasoning steps: r1 uses s1 and s3, r0 has
// no input.
func seed(t testing.TB, svc *Service, sid string) {
	t.Helper()
	mustSource(t, svc, sid, SourceInput{ID: "s1", URL: "https://doi.org/10.5555/rag.2024.014", Title: "Retrieval helps long-form answers", Excerpt: excerptGain})
	mustSource(t, svc, sid, SourceInput{ID: "s2", DOI: "10.5555/rag.2025.230", Excerpt: excerptNoisy})
	mustSource(t, svc, sid, SourceInput{ID: "s3", Title: "Scaling retrieval", Excerpt: excerptScale})
	mustSource(t, svc, sid, SourceInput{ID: "s4", URL: "https://example.org/blog/rag-wins"})
	mustReasoning(t, svc, sid, ReasoningInput{ID: "r1", Type: "synthesis", Inference: "s1 reports a gain that s3 finds shrinking with model size: the gain holds for mid-size models.", Inputs: []string{"s1", "s3"}})
	mustReasoning(t, svc, sid, ReasoningInput{ID: "r0", Type: "deduction", Inference: "An unsupported leap."})
}

func codes(rs []Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Code+":"+r.Node)
	}
	return out
}

func TestGate(t *testing.T) {
	tests := []struct {
		name         string
		in           ClaimInput
		gated        bool
		reasons      []string
		warnings     []string
		labels       []claimtrace.Label
		soundSources []string
	}{
		{
			name:         "supported by its source",
			in:           ClaimInput{Statement: claimGain, Supports: []string{"s1"}},
			labels:       []claimtrace.Label{claimtrace.Supported},
			soundSources: []string{"s1"},
		},
		{
			// The source gives 14-18% for the same quantity: it
			// contradicts the claim, and the gate says so.
			name:     "number the source states otherwise",
			in:       ClaimInput{Statement: claimWrongNum, Supports: []string{"s1"}},
			gated:    true,
			reasons:  []string{"unsupported:"},
			warnings: []string{"contradicted:s1"},
			labels:   []claimtrace.Label{claimtrace.Contradicted},
		},
		{
			name:    "overgeneralization",
			in:      ClaimInput{Statement: claimUnrelated, Supports: []string{"s1", "s3"}},
			gated:   true,
			reasons: []string{"unsupported:"},
			labels:  []claimtrace.Label{claimtrace.Unsupported, claimtrace.Unsupported},
		},
		{
			name:    "no source at all",
			in:      ClaimInput{Statement: claimGain},
			gated:   true,
			reasons: []string{"no_source:", "no_direct_support:"},
		},
		{
			name:    "only through reasoning: nothing verified",
			in:      ClaimInput{Statement: claimGain, Supports: []string{"r1"}},
			gated:   true,
			reasons: []string{"no_direct_support:"},
		},
		{
			name:     "unresolved source",
			in:       ClaimInput{Statement: claimGain, Supports: []string{"s4"}},
			gated:    true,
			reasons:  []string{"unresolved_source:s4", "unsupported:"},
			warnings: []string{"unknown:s4"},
			labels:   []claimtrace.Label{claimtrace.Unknown},
		},
		{
			name:         "sound source beside an unresolved one",
			in:           ClaimInput{Statement: claimGain, Supports: []string{"s1", "s4"}},
			gated:        true,
			reasons:      []string{"unresolved_source:s4"},
			warnings:     []string{"unknown:s4", "weak_support:s4"},
			labels:       []claimtrace.Label{claimtrace.Supported, claimtrace.Unknown},
			soundSources: []string{"s1"},
		},
		{
			name:         "reasoning step without input",
			in:           ClaimInput{Statement: claimGain, Supports: []string{"s1", "r0"}},
			gated:        true,
			reasons:      []string{"reasoning_no_input:r0"},
			labels:       []claimtrace.Label{claimtrace.Supported},
			soundSources: []string{"s1"},
		},
		{
			name:         "sound and weak support",
			in:           ClaimInput{Statement: claimGain, Supports: []string{"s1", "s3", "r1"}},
			warnings:     []string{"weak_support:s3"},
			labels:       []claimtrace.Label{claimtrace.Supported, claimtrace.Unsupported},
			soundSources: []string{"s1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := testService(t, Options{})
			sid := mustOpen(t, svc, "")
			seed(t, svc, sid)
			res := mustClaim(t, svc, sid, tt.in)
			if res.Gated != tt.gated {
				t.Errorf("gated = %v, want %v (reasons %+v)", res.Gated, tt.gated, res.Reasons)
			}
			if diff := cmp.Diff(tt.reasons, codes(res.Reasons)); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, codes(res.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			var labels []claimtrace.Label
			var sound []string
			for _, v := range res.Verdicts {
				labels = append(labels, v.Label)
				if v.Sound {
					sound = append(sound, v.Source)
				}
				text := map[string]string{"s1": excerptGain, "s2": excerptNoisy, "s3": excerptScale}[v.Source]
				if v.Evidence != "" && !strings.Contains(text, v.Evidence) {
					t.Errorf("evidence %q of %s is not a passage of the source", v.Evidence, v.Source)
				}
				if v.Label == claimtrace.Unknown && v.Strength != nil {
					t.Errorf("unjudged %s has strength %v", v.Source, *v.Strength)
				}
				if v.Sound != (v.Strength != nil && *v.Strength > svc.Tau()) {
					t.Errorf("%s: sound %v with strength %v", v.Source, v.Sound, v.Strength)
				}
			}
			if diff := cmp.Diff(tt.labels, labels); diff != "" {
				t.Errorf("verdict labels (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.soundSources, sound); diff != "" {
				t.Errorf("sound sources (-want +got):\n%s", diff)
			}
			// The verdict is on the graph's edge, and the metrics agree with the gate.
			g, err := svc.Graph(context.Background(), sid)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range g.Edges {
				if e.To != res.Claim.ID || !strings.HasPrefix(e.From, "s") {
					continue
				}
				for _, v := range res.Verdicts {
					if v.Source == e.From && (v.Label != e.Label || v.Evidence != e.Evidence || !cmp.Equal(v.Strength, e.Strength)) {
						t.Errorf("edge %s→%s = %+v, verdict %+v", e.From, e.To, e, v)
					}
				}
			}
			m, err := svc.Metrics(context.Background(), sid)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range m.PerClaim {
				if f.ID == res.Claim.ID {
					if diff := cmp.Diff(f, res.Figures); diff != "" {
						t.Errorf("figures of add_claim differ from the metrics' (-metrics +add_claim):\n%s", diff)
					}
				}
			}
			var gated []string
			for _, gc := range m.Gated {
				gated = append(gated, gc.ID)
			}
			if want := tt.gated; want != (len(gated) == 1) {
				t.Errorf("metrics list gated claims %v, want gated=%v", gated, want)
			}
		})
	}
}

// TestReviseAndBack follows an agent through a gated claim: it is revised
// to what the source says, then a second claim is backed by a new source,
// then one is withdrawn.
func TestReviseAndBack(t *testing.T) {
	ctx := context.Background()
	svc := testService(t, Options{})
	sid := mustOpen(t, svc, "rev")
	seed(t, svc, sid)

	res := mustClaim(t, svc, sid, ClaimInput{ID: "c1", Statement: claimWrongNum, Supports: []string{"s1"}})
	if !res.Gated {
		t.Fatalf("wrong number not gated: %+v", res)
	}
	res = mustClaim(t, svc, sid, ClaimInput{ID: "c1", Statement: claimGain, Supports: []string{"s1"}, Revise: true})
	if res.Gated || !res.Revised {
		t.Fatalf("revised claim: gated %v revised %v: %+v", res.Gated, res.Revised, res.Reasons)
	}

	res = mustClaim(t, svc, sid, ClaimInput{ID: "c2", Statement: claimNoisy, Supports: []string{"s3"}})
	if !res.Gated {
		t.Fatalf("c2 citing the wrong source not gated: %+v", res)
	}
	er, err := svc.AddEdge(ctx, sid, EdgeInput{From: "s2", To: "c2", Rel: "supports"})
	if err != nil {
		t.Fatal(err)
	}
	if er.Verdict == nil || !er.Verdict.Sound || er.Claim == nil || er.Claim.Gated {
		t.Fatalf("backing c2 with s2: %+v %+v", er.Verdict, er.Claim)
	}

	mustClaim(t, svc, sid, ClaimInput{ID: "c3", Statement: claimUnrelated, Supports: []string{"s1"}})
	info, err := svc.Withdraw(ctx, sid, "c3")
	if err != nil {
		t.Fatal(err)
	}
	if info.Claims != 2 || info.Gated != 0 {
		t.Errorf("after withdrawing c3: %d claims, %d gated; want 2, 0", info.Claims, info.Gated)
	}
	g, err := svc.Graph(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	var into []string
	for _, e := range g.Edges {
		if e.To == "c1" || e.To == "c2" || e.To == "c3" {
			into = append(into, e.From+">"+e.To)
		}
	}
	if diff := cmp.Diff([]string{"s1>c1", "s3>c2", "s2>c2"}, into); diff != "" {
		t.Errorf("edges into claims (-want +got):\n%s", diff)
	}
	m, err := svc.Metrics(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if *m.PCov != 1 || *m.PSnd != 2.0/3 || len(m.Gated) != 0 {
		t.Errorf("metrics: pcov %v psnd %v gated %v; want 1, 2/3, none", *m.PCov, *m.PSnd, m.Gated)
	}
}

func TestValidation(t *testing.T) {
	ctx := context.Background()
	type op func(svc *Service, sid string) error
	claim := func(in ClaimInput) op {
		return func(svc *Service, sid string) error { _, err := svc.AddClaim(ctx, sid, in); return err }
	}
	source := func(in SourceInput) op {
		return func(svc *Service, sid string) error { _, err := svc.AddSource(ctx, sid, in); return err }
	}
	reasoning := func(in ReasoningInput) op {
		return func(svc *Service, sid string) error { _, err := svc.AddReasoning(ctx, sid, in); return err }
	}
	edge := func(in EdgeInput) op {
		return func(svc *Service, sid string) error { _, err := svc.AddEdge(ctx, sid, in); return err }
	}
	tests := []struct {
		name string
		op   op
		rule string // the rule the error names, or ""
		is   error
		msg  string
	}{
		{"unknown support", claim(ClaimInput{Statement: claimGain, Supports: []string{"s9"}}), prov.RuleEndpoint, claimtrace.ErrInvalid, `no node "s9"`},
		{"duplicate source id", source(SourceInput{ID: "s1", Title: "Again"}), prov.RuleUniqueID, claimtrace.ErrInvalid, "s1"},
		{"claim id of a source", claim(ClaimInput{ID: "s2", Statement: claimGain, Supports: []string{"s1"}}), prov.RuleUniqueID, claimtrace.ErrInvalid, "s2"},
		{"claim id taken without revise", claim(ClaimInput{ID: "c1", Statement: claimGain, Supports: []string{"s1"}}), prov.RuleUniqueID, claimtrace.ErrInvalid, "revise"},
		{"revise a missing claim", claim(ClaimInput{ID: "c9", Statement: claimGain, Revise: true}), "", claimtrace.ErrNotFound, "c9"},
		{"revise without id", claim(ClaimInput{Statement: claimGain, Revise: true}), "", claimtrace.ErrInvalid, "revise"},
		{"claim as a reasoning input", reasoning(ReasoningInput{Inference: "builds on c1", Inputs: []string{"c1"}}), prov.RuleClaimOutbound, claimtrace.ErrInvalid, "c1"},
		{"edge into a source", edge(EdgeInput{From: "r1", To: "s2", Rel: "supports"}), prov.RuleSourceInbound, claimtrace.ErrInvalid, "s2"},
		{"cycle", edge(EdgeInput{From: "r2", To: "r1", Rel: "prerequisite"}), prov.RuleAcyclic, claimtrace.ErrInvalid, "cycle"},
		{"self loop", edge(EdgeInput{From: "r1", To: "r1", Rel: "refines"}), prov.RuleSelfLoop, claimtrace.ErrInvalid, "r1"},
		{"duplicate edge", edge(EdgeInput{From: "s1", To: "r1", Rel: "supports"}), prov.RuleDuplicateEdge, claimtrace.ErrInvalid, "twice"},
		{"duplicate support", claim(ClaimInput{Statement: claimGain, Supports: []string{"s1", "s1"}}), prov.RuleDuplicateEdge, claimtrace.ErrInvalid, "twice"},
		{"bad relation", edge(EdgeInput{From: "s1", To: "c1", Rel: "cites"}), "", claimtrace.ErrInvalid, "cites"},
		{"strength on a judged edge", edge(EdgeInput{From: "s2", To: "c1", Rel: "supports", Strength: prov.Nu(0.9)}), prov.RuleStrength, claimtrace.ErrInvalid, "judge"},
		{"strength out of range", edge(EdgeInput{From: "r1", To: "c1", Rel: "supports", Strength: prov.Nu(1.5)}), prov.RuleStrength, claimtrace.ErrInvalid, "1.5"},
		{"strength on contradicts", edge(EdgeInput{From: "s2", To: "c1", Rel: "contradicts", Strength: prov.Nu(0.5)}), prov.RuleStrength, claimtrace.ErrInvalid, "contradicts"},
		{"bad reasoning type", reasoning(ReasoningInput{Inference: "a guess", Type: "abduction", Inputs: []string{"s1"}}), prov.RuleReasoningType, claimtrace.ErrInvalid, "abduction"},
		{"bad span", claim(ClaimInput{Statement: claimGain, Supports: []string{"s1"}, Start: 40, End: 10}), prov.RuleSpan, claimtrace.ErrInvalid, "[40, 10)"},
		{"bad id", claim(ClaimInput{ID: "c 1", Statement: claimGain}), "", claimtrace.ErrInvalid, "c 1"},
		{"empty statement", claim(ClaimInput{Statement: "  "}), "", claimtrace.ErrInvalid, "empty statement"},
		{"source without identity", source(SourceInput{Excerpt: excerptGain}), "", claimtrace.ErrInvalid, "url, a doi or a title"},
		{"ftp url", source(SourceInput{URL: "ftp://example.org/x"}), "", claimtrace.ErrInvalid, "ftp://"},
		{"bad doi", source(SourceInput{DOI: "rag-2024"}), "", claimtrace.ErrInvalid, "rag-2024"},
		{"excerpt too large", source(SourceInput{Title: "Huge", Excerpt: strings.Repeat("word ", MaxText/5+1)}), "", claimtrace.ErrTooLarge, "excerpt"},
		{"too many supports", claim(ClaimInput{Statement: claimGain, Supports: strings.Fields(strings.Repeat("s1 ", MaxSupports+1))}), "", claimtrace.ErrTooLarge, "supports"},
		{"invalid UTF-8", claim(ClaimInput{Statement: "bad \xff byte"}), "", claimtrace.ErrInvalid, "UTF-8"},
		{"unknown session", func(svc *Service, _ string) error {
			_, err := svc.AddClaim(ctx, "nope", ClaimInput{Statement: claimGain})
			return err
		}, "", claimtrace.ErrNotFound, "nope"},
		{"withdraw a source", func(svc *Service, sid string) error { _, err := svc.Withdraw(ctx, sid, "s1"); return err }, "", claimtrace.ErrNotFound, "s1"},
		{"why of a step", func(svc *Service, sid string) error { _, err := svc.Why(ctx, sid, "r1"); return err }, "", claimtrace.ErrNotFound, "r1"},
		{"bad export format", func(svc *Service, sid string) error { _, err := svc.PROV(ctx, sid, "turtle"); return err }, "", claimtrace.ErrInvalid, "turtle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := testService(t, Options{})
			sid := mustOpen(t, svc, "v")
			seed(t, svc, sid)
			mustReasoning(t, svc, sid, ReasoningInput{ID: "r2", Inference: "follows r1", Inputs: []string{"r1"}})
			mustClaim(t, svc, sid, ClaimInput{ID: "c1", Statement: claimGain, Supports: []string{"s1"}})
			before, err := svc.Graph(ctx, sid)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.op(svc, sid)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
			var ve *prov.ValidationError
			switch {
			case tt.rule == "" && errors.As(err, &ve):
				t.Errorf("unexpected rule violation: %v", err)
			case tt.rule != "" && !errors.As(err, &ve):
				t.Errorf("error %q names no rule, want %s", err, tt.rule)
			case tt.rule != "" && ve.Violations[0].Rule != tt.rule:
				t.Errorf("rule %s, want %s (%v)", ve.Violations[0].Rule, tt.rule, err)
			}
			after, err := svc.Graph(ctx, sid)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("a refused operation changed the graph (-before +after):\n%s", diff)
			}
		})
	}
}

func TestClosed(t *testing.T) {
	ctx := context.Background()
	svc := testService(t, Options{})
	sid := mustOpen(t, svc, "done")
	mustSource(t, svc, sid, SourceInput{ID: "s1", Title: "Gain", Excerpt: excerptGain})
	info, err := svc.Close(ctx, sid)
	if err != nil || !info.Closed {
		t.Fatalf("close: %+v, %v", info, err)
	}
	if _, err := svc.AddClaim(ctx, sid, ClaimInput{Statement: claimGain, Supports: []string{"s1"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("claim in a closed session: %v, want ErrClosed", err)
	}
	if _, err := svc.Close(ctx, sid); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	if _, err := svc.PROV(ctx, sid, ""); err != nil {
		t.Errorf("export of a closed session: %v", err)
	}
	info, err = svc.Open(ctx, OpenInput{ID: sid})
	if err != nil || !info.Resumed || !info.Closed || info.Sources != 1 {
		t.Errorf("reopening a closed session: %+v, %v", info, err)
	}
}

// TestPersistence records a session, drops the service without closing
// anything (a crash: every acknowledged operation is already stored),
// reopens the store and checks that the session continues where it was.
func TestPersistence(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := openStore(t, dsn)
		svc := newService(t, st, Options{})
		sid := mustOpen(t, svc, "persist-1")
		seed(t, svc, sid)
		mustClaim(t, svc, sid, ClaimInput{ID: "c1", Statement: claimWrongNum, Supports: []string{"s1"}})
		mustClaim(t, svc, sid, ClaimInput{ID: "c1", Statement: claimGain, Supports: []string{"s1", "r1"}, Revise: true, Start: 0, End: 139, Section: "Findings"})
		mustClaim(t, svc, sid, ClaimInput{ID: "c2", Statement: claimUnrelated, Supports: []string{"s1"}})
		mustClaim(t, svc, sid, ClaimInput{ID: "c3", Statement: claimNoisy, Supports: []string{"s2"}})
		if _, err := svc.AddEdge(ctx, sid, EdgeInput{From: "s2", To: "c1", Rel: "contradicts"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Withdraw(ctx, sid, "c2"); err != nil {
			t.Fatal(err)
		}
		wantGraph, _ := svc.Graph(ctx, sid)
		wantMetrics, _ := svc.Metrics(ctx, sid)
		wantWhy, _ := svc.Why(ctx, sid, "c1")
		wantInfo, _ := svc.Session(ctx, sid)
		st.Close()

		// A new process: the judge must not be consulted to rebuild the session.
		st2 := openStore(t, dsn)
		svc2 := newService(t, st2, Options{Judge: failingJudge{}})
		gotGraph, err := svc2.Graph(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantGraph, gotGraph); diff != "" {
			t.Errorf("graph after reopening (-before +after):\n%s", diff)
		}
		gotMetrics, _ := svc2.Metrics(ctx, sid)
		if diff := cmp.Diff(wantMetrics, gotMetrics); diff != "" {
			t.Errorf("metrics after reopening (-before +after):\n%s", diff)
		}
		gotWhy, _ := svc2.Why(ctx, sid, "c1")
		if diff := cmp.Diff(wantWhy, gotWhy); diff != "" {
			t.Errorf("why after reopening (-before +after):\n%s", diff)
		}
		info, err := svc2.Open(ctx, OpenInput{ID: sid, Query: "another question"})
		if err != nil {
			t.Fatal(err)
		}
		wantInfo.Resumed = true
		if diff := cmp.Diff(wantInfo, info); diff != "" {
			t.Errorf("resumed session (-want +got):\n%s", diff)
		}
		// It continues: new nodes get the next ids and are stored too.
		res, err := svc2.AddSource(ctx, sid, SourceInput{Title: "Fifth", Excerpt: excerptPolarity})
		if err != nil || res.Source.ID != "s5" {
			t.Fatalf("source after resuming: %+v, %v", res, err)
		}
		if _, err := svc2.AddClaim(ctx, sid, ClaimInput{Statement: claimGain, Supports: []string{"s1"}}); err == nil || !strings.Contains(err.Error(), "judge is down") {
			t.Errorf("claim with a failing judge: %v, want the judge's error", err)
		}
		st2.Close()
		svc3 := newService(t, openStore(t, dsn), Options{})
		list, err := svc3.Sessions(ctx)
		if err != nil || len(list) != 1 || list[0].ID != sid || list[0].Query != wantInfo.Query {
			t.Errorf("sessions: %+v, %v", list, err)
		}
		info, err = svc3.Session(ctx, sid)
		if err != nil || info.Sources != 5 || info.Claims != 2 {
			t.Errorf("third process sees %+v, %v; want 5 sources, 2 claims", info, err)
		}
	})
}

type failingJudge struct{}

func (failingJudge) JudgeSource(context.Context, string, []string) ([]claimtrace.Verdict, error) {
	return nil, errors.New("judge is down")
}

// TestStoreFailureChangesNothing: an operation the store cannot record is
// not applied.
func TestStoreFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, storetest.SQLiteDSN(t))
	svc := newService(t, st, Options{})
	sid := mustOpen(t, svc, "fail")
	mustSource(t, svc, sid, SourceInput{ID: "s1", Title: "Gain", Excerpt: excerptGain})
	before, _ := svc.Graph(ctx, sid)
	st.Close()
	if _, err := svc.AddClaim(ctx, sid, ClaimInput{Statement: claimGain, Supports: []string{"s1"}}); err == nil || !strings.Contains(err.Error(), "record claim") {
		t.Fatalf("claim with a closed store: %v", err)
	}
	after, _ := svc.Graph(ctx, sid)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("unrecorded operation was applied (-before +after):\n%s", diff)
	}
}

func TestReplayRejectsCorruptLog(t *testing.T) {
	ctx := context.Background()
	unit := func(seq int, data string) store.Unit { return store.Unit{Key: opKey(seq), Data: []byte(data)} }
	for name, units := range map[string][]store.Unit{
		"not json":              {unit(2, "{")},
		"sequence gap":          {unit(3, `{"seq":3,"op":"close"}`)},
		"key mismatch":          {unit(2, `{"seq":1,"op":"close"}`)},
		"wrong payload":         {unit(2, `{"seq":2,"op":"claim"}`)},
		"unknown op":            {unit(2, `{"seq":2,"op":"merge"}`)},
		"bad edge":              {unit(2, `{"seq":2,"op":"edge","edge":{"edge":{"from":"s1","to":"zz","rel":"supports"}}}`)},
		"after close":           {unit(2, `{"seq":2,"op":"close"}`), unit(3, `{"seq":3,"op":"source","source":{"source":{"id":"s2","title":"t"},"content":"none"}}`)},
		"resolved without text": {unit(2, `{"seq":2,"op":"source","source":{"source":{"id":"s2","title":"t","resolved":true},"content":"none"}}`)},
		"verdict on a step edge": {
			unit(2, `{"seq":2,"op":"reasoning","reasoning":{"reasoning":{"id":"r1","inference":"i"},"edges":[{"from":"s1","to":"r1","rel":"supports"}]}}`),
			unit(3, `{"seq":3,"op":"claim","claim":{"claim":{"id":"c1","statement":"x"},"edges":[{"from":"r1","to":"c1","rel":"supports"}],"verdicts":{"r1":{"url":"","label":"supported","strength":1}}}}`),
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := openStore(t, storetest.SQLiteDSN(t))
			svc := newService(t, st, Options{})
			sid := mustOpen(t, svc, "corrupt")
			mustSource(t, svc, sid, SourceInput{ID: "s1", Title: "Gain", Excerpt: excerptGain})
			for _, u := range units {
				u.Run, u.Kind, u.Status = runID(sid), OpUnit, store.StatusDone
				if err := st.PutUnit(ctx, u); err != nil {
					t.Fatal(err)
				}
			}
			fresh := newService(t, st, Options{})
			_, err := fresh.Graph(ctx, sid)
			if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "session corrupt") {
				t.Errorf("replaying a corrupt log: %v", err)
			}
		})
	}
}
