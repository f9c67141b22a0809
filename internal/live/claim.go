package live

import (
	"context"
	"fmt"
	"math"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// ClaimInput records a claim (AAR definition 7) and the sources and
// reasoning steps it rests on.
type ClaimInput struct {
	ID        string `json:"id,omitempty" jsonschema:"node id, unique in the session; omit for a generated one (c1, c2, …)"`
	Statement string `json:"statement" jsonschema:"the sentence as you intend to write it in the report"`
	// Supports are the ids of the sources and reasoning steps the claim
	// rests on: supports edges into the claim. Each source among them is
	// judged against the statement.
	Supports []string `json:"supports,omitempty" jsonschema:"ids of the sources (judged against the statement) and reasoning steps the claim rests on"`
	Start    int      `json:"start,omitempty" jsonschema:"byte offset where the claim starts in the report text"`
	End      int      `json:"end,omitempty" jsonschema:"byte offset where the claim ends in the report text"`
	Section  string   `json:"section,omitempty" jsonschema:"where the claim sits, e.g. 'Findings, paragraph 2'"`
	// Revise replaces the claim with the same id: its statement, location
	// and supports edges (other edges into it stay).
	Revise bool `json:"revise,omitempty" jsonschema:"replace the claim with this id (statement and supports), e.g. after it was gated"`
}

// ClaimResult is what AddClaim recorded and the gate's decision on it.
type ClaimResult struct {
	Session string     `json:"session"`
	Claim   prov.Claim `json:"claim"`
	Revised bool       `json:"revised"`
	// Verdicts are the judge's verdicts on the claim's direct sources.
	Verdicts []Verdict `json:"verdicts"`
	Gate
	Figures ClaimFigures `json:"figures"`
}

// newClaimID stands for a claim whose id is generated later; ids given by
// clients cannot contain spaces, so it cannot collide with one.
const newClaimID = "(new claim)"

// judgeJob is one source to judge a statement against.
type judgeJob struct {
	source, url, text string
}

// AddClaim records a claim in session id and verifies it: each source in
// in.Supports is judged against the statement, the verdict, ν and the
// evidence go on its supports edge, and the gate decides. A gated claim is
// recorded too; revise it (same id, Revise set), back it with another
// source (AddEdge) or withdraw it.
func (s *Service) AddClaim(ctx context.Context, id string, in ClaimInput) (*ClaimResult, error) {
	if err := in.check(); err != nil {
		return nil, fmt.Errorf("add claim: %w", err)
	}
	// Check everything but the verdicts first, so that nothing is judged
	// for a claim that cannot be recorded.
	ss, err := s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	jobs, err := s.prepareClaim(ss, &in)
	if err == nil && !in.Revise {
		err = s.limits.full(ss, opClaim)
	}
	ss.mu.Unlock()
	if err != nil {
		return nil, err
	}
	verdicts, err := s.judgeAll(ctx, in.Statement, jobs)
	if err != nil {
		return nil, fmt.Errorf("add claim: %w", err)
	}

	ss, err = s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	soon := s.writes.expect() // stored next, unless refused
	defer soon.settle()
	if err := ss.checkClaimID(&in); err != nil {
		return nil, err // the session changed meanwhile; the rules are checked below
	}
	if in.ID == "" {
		in.ID = ss.nextID("c")
	}
	o := &op{Kind: opClaim, At: s.now(), Claim: &claimOp{
		Claim:  prov.Claim{ID: in.ID, Statement: in.Statement, Location: prov.Location{Start: in.Start, End: in.End, Section: in.Section}},
		Revise: in.Revise,
	}}
	for _, from := range in.Supports {
		e := prov.Edge{From: from, To: in.ID, Rel: prov.Supports}
		if v, ok := verdicts[from]; ok {
			judged(&e, v)
			if o.Claim.Verdicts == nil {
				o.Claim.Verdicts = make(map[string]claimtrace.Verdict)
			}
			o.Claim.Verdicts[from] = v
		}
		o.Claim.Edges = append(o.Claim.Edges, e)
	}
	g, err := ss.mutate(o)
	if err != nil {
		return nil, err
	}
	if err := s.validate(ss, o, g); err != nil {
		return nil, fmt.Errorf("add claim %q: %w", in.ID, err)
	}
	if err := s.commit(ctx, soon, ss, o, g); err != nil {
		return nil, err
	}
	ix, err := s.pathIndex(ss, in.ID)
	if err != nil {
		return nil, fmt.Errorf("add claim %q: %w", in.ID, err)
	}
	a, err := ss.assess(ix, in.ID, s.tau)
	if err != nil {
		return nil, err
	}
	return &ClaimResult{Session: id, Claim: o.Claim.Claim, Revised: in.Revise, Verdicts: orEmpty(a.verdicts), Gate: a.gate, Figures: ss.figures(a.path)}, nil
}

// check validates a claim before the session is consulted.
func (in *ClaimInput) check() error {
	if in.ID != "" {
		if err := checkID("claim", in.ID); err != nil {
			return err
		}
	}
	in.Statement = strings.TrimSpace(in.Statement)
	if in.Statement == "" {
		return fmt.Errorf("empty statement: %w", claimtrace.ErrInvalid)
	}
	if err := checkText("statement", in.Statement, MaxStatement); err != nil {
		return err
	}
	if err := checkText("section", in.Section, 1<<10); err != nil {
		return err
	}
	if in.Start < 0 || in.End < in.Start {
		return &prov.ValidationError{Violations: []prov.Violation{{Rule: prov.RuleSpan, Where: "claim " + quoteID(in.ID),
			Detail: fmt.Sprintf("span [%d, %d) is not 0 ≤ start ≤ end", in.Start, in.End)}}}
	}
	return checkInputs("supports", in.Supports)
}

// checkInputs validates a list of node ids an operation names.
func checkInputs(field string, ids []string) error {
	if len(ids) > MaxSupports {
		return fmt.Errorf("%s: %d ids, over the limit of %d: %w", field, len(ids), MaxSupports, claimtrace.ErrTooLarge)
	}
	for _, x := range ids {
		if err := checkID(field, x); err != nil {
			return err
		}
	}
	return nil
}

// prepareClaim checks in against the session (ids, revise, the AAR rules
// with the claim's edges unjudged) and returns the sources to judge; ss.mu
// is held.
func (s *Service) prepareClaim(ss *session, in *ClaimInput) ([]judgeJob, error) {
	if err := ss.checkClaimID(in); err != nil {
		return nil, err
	}
	id := in.ID
	probe := id
	if probe == "" {
		probe = newClaimID
	}
	o := &op{Kind: opClaim, Claim: &claimOp{Claim: prov.Claim{ID: probe, Statement: in.Statement}, Revise: in.Revise}}
	for _, from := range in.Supports {
		o.Claim.Edges = append(o.Claim.Edges, prov.Edge{From: from, To: probe, Rel: prov.Supports})
	}
	g, err := ss.mutate(o)
	if err != nil {
		return nil, err
	}
	if err := s.validate(ss, o, g); err != nil {
		return nil, fmt.Errorf("add claim %s: %w", quoteID(id), err)
	}
	var jobs []judgeJob
	for _, from := range in.Supports {
		if src, ok := ss.source(from); ok {
			jobs = append(jobs, judgeJob{source: from, url: src.URL, text: ss.sources[from].text})
		}
	}
	return jobs, nil
}

// checkClaimID checks the claim's id against the session: a new id must be
// free, a revised claim must exist; ss.mu is held.
func (ss *session) checkClaimID(in *ClaimInput) error {
	id := in.ID
	if id != "" {
		kind, exists := ss.kindOf(id)
		switch {
		case exists && kind != prov.KindClaim:
			return duplicate("claim", id)
		case exists && !in.Revise:
			return &prov.ValidationError{Violations: []prov.Violation{{Rule: prov.RuleUniqueID, Where: "claim " + quoteID(id),
				Detail: "a claim with this id exists; set revise to replace it, or choose another id"}}}
		case !exists && in.Revise:
			return fmt.Errorf("revise claim %q: no such claim in session %s: %w", id, ss.id, claimtrace.ErrNotFound)
		}
	} else if in.Revise {
		return fmt.Errorf("revise needs the id of the claim to replace: %w", claimtrace.ErrInvalid)
	}
	return nil
}

// judgeConcurrency bounds the sources judged at once for one claim.
const judgeConcurrency = 4

// judgeAll judges statement against each job's source text, by source id.
// A source without text gets an unknown verdict; a judge failure is an
// error, never a verdict.
func (s *Service) judgeAll(ctx context.Context, statement string, jobs []judgeJob) (map[string]claimtrace.Verdict, error) {
	out := make([]claimtrace.Verdict, len(jobs))
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(judgeConcurrency)
	for i, j := range jobs {
		if j.text == "" {
			out[i] = claimtrace.Verdict{URL: j.url, Label: claimtrace.Unknown, Reason: "the source has no text to judge against"}
			continue
		}
		eg.Go(func() error {
			vs, err := s.judge.JudgeSource(ctx, j.text, []string{statement})
			if err != nil {
				return fmt.Errorf("judge against source %q: %w", j.source, err)
			}
			if len(vs) != 1 {
				return fmt.Errorf("judge against source %q: %d verdicts for one claim", j.source, len(vs))
			}
			v := vs[0]
			v.URL = j.url
			out[i] = v
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	m := make(map[string]claimtrace.Verdict, len(jobs))
	for i, j := range jobs {
		m[j.source] = out[i]
	}
	return m, nil
}

// judged puts verdict v on edge e: label, strength ν (none when the pair
// could not be judged) and evidence.
func judged(e *prov.Edge, v claimtrace.Verdict) {
	e.Label = v.Label
	if !validLabel(v.Label) {
		e.Label = claimtrace.Unknown
	}
	e.Evidence = v.Evidence
	if e.Label != claimtrace.Unknown && !math.IsNaN(v.Strength) {
		e.Strength = prov.Nu(min(max(v.Strength, 0), 1))
	}
}

func validLabel(l claimtrace.Label) bool {
	switch l {
	case claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown:
		return true
	}
	return false
}

// ReasoningInput records a reasoning step (AAR definition 6).
type ReasoningInput struct {
	ID        string `json:"id,omitempty" jsonschema:"node id, unique in the session; omit for a generated one (r1, r2, …)"`
	Inference string `json:"inference" jsonschema:"what the step concludes from its inputs, and how"`
	Type      string `json:"type,omitempty" jsonschema:"deduction, induction or synthesis"`
	Model     string `json:"model,omitempty" jsonschema:"the model that made the inference"`
	// Inputs are the sources and earlier steps the step uses: supports
	// edges into it.
	Inputs []string `json:"inputs,omitempty" jsonschema:"ids of the sources and earlier reasoning steps the step uses"`
}

// ReasoningResult is what AddReasoning recorded.
type ReasoningResult struct {
	Session   string         `json:"session"`
	Reasoning prov.Reasoning `json:"reasoning"`
	Inputs    []string       `json:"inputs"`
	Warnings  []Reason       `json:"warnings,omitempty"`
}

// AddReasoning records a reasoning step in session id, with supports edges
// from its inputs.
func (s *Service) AddReasoning(ctx context.Context, id string, in ReasoningInput) (*ReasoningResult, error) {
	if in.ID != "" {
		if err := checkID("reasoning", in.ID); err != nil {
			return nil, fmt.Errorf("add reasoning: %w", err)
		}
	}
	in.Inference = strings.TrimSpace(in.Inference)
	if in.Inference == "" {
		return nil, fmt.Errorf("add reasoning: empty inference: %w", claimtrace.ErrInvalid)
	}
	for _, f := range []struct{ name, v string }{{"inference", in.Inference}, {"model", in.Model}} {
		if err := checkText(f.name, f.v, MaxStatement); err != nil {
			return nil, fmt.Errorf("add reasoning: %w", err)
		}
	}
	if err := checkInputs("inputs", in.Inputs); err != nil {
		return nil, fmt.Errorf("add reasoning: %w", err)
	}
	ss, err := s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	soon := s.writes.expect() // stored next, unless refused
	defer soon.settle()
	if in.ID == "" {
		in.ID = ss.nextID("r")
	}
	r := prov.Reasoning{ID: in.ID, Inference: in.Inference, Type: prov.ReasoningType(strings.ToLower(strings.TrimSpace(in.Type))), Model: in.Model}
	o := &op{Kind: opReasoning, At: s.now(), Reasoning: &reasoningOp{Reasoning: r}}
	for _, from := range in.Inputs {
		o.Reasoning.Edges = append(o.Reasoning.Edges, prov.Edge{From: from, To: in.ID, Rel: prov.Supports})
	}
	g, err := ss.mutate(o)
	if err != nil {
		return nil, err
	}
	if err := s.validate(ss, o, g); err != nil {
		return nil, fmt.Errorf("add reasoning %q: %w", in.ID, err)
	}
	if err := s.commit(ctx, soon, ss, o, g); err != nil {
		return nil, err
	}
	res := &ReasoningResult{Session: id, Reasoning: r, Inputs: orEmpty(in.Inputs)}
	if len(in.Inputs) == 0 {
		res.Warnings = []Reason{{Code: ReasonReasoningNoInput, Node: r.ID,
			Detail: "the step has no input, so every claim resting on it is gated until a supports edge into it is added"}}
	}
	return res, nil
}

// EdgeInput records one typed edge (AAR definition 8).
type EdgeInput struct {
	From string `json:"from" jsonschema:"tail node id (a source or reasoning step)"`
	To   string `json:"to" jsonschema:"head node id (a reasoning step or claim)"`
	Rel  string `json:"rel" jsonschema:"supports, contradicts, refines or prerequisite"`
	// Strength is ν for a supports edge between other nodes than a source
	// and a claim; a source → claim supports edge is judged instead.
	Strength *float64 `json:"strength,omitempty" jsonschema:"entailment strength in [0, 1], only on supports edges that do not run from a source to a claim (those are judged)"`
}

// EdgeView is one edge of the graph.
type EdgeView struct {
	From     string           `json:"from"`
	To       string           `json:"to"`
	Rel      string           `json:"rel"`
	Strength *float64         `json:"strength,omitempty"`
	Label    claimtrace.Label `json:"label,omitempty"`
	Evidence string           `json:"evidence,omitempty"`
}

func edgeView(e prov.Edge) EdgeView {
	return EdgeView{From: e.From, To: e.To, Rel: e.Rel.String(), Strength: e.Strength, Label: e.Label, Evidence: e.Evidence}
}

// EdgeResult is what AddEdge recorded. When the edge runs into a claim,
// Claim holds the claim's new gate decision.
type EdgeResult struct {
	Session string   `json:"session"`
	Edge    EdgeView `json:"edge"`
	// Verdict is the judge's verdict on a source → claim supports edge.
	Verdict *Verdict      `json:"verdict,omitempty"`
	Claim   *ClaimOutcome `json:"claim,omitempty"`
}

// ClaimOutcome is the gate decision on a claim after an operation.
type ClaimOutcome struct {
	ID string `json:"id"`
	Gate
	Figures ClaimFigures `json:"figures"`
}

// AddEdge records an edge in session id. A supports edge from a source into
// a claim is judged like the claim's own supports; any edge into a claim
// gates the claim again.
func (s *Service) AddEdge(ctx context.Context, id string, in EdgeInput) (*EdgeResult, error) {
	rel, err := prov.ParseRelation(strings.ToLower(strings.TrimSpace(in.Rel)))
	if err != nil {
		return nil, fmt.Errorf("add edge: %w", err)
	}
	for _, x := range []struct{ name, v string }{{"from", in.From}, {"to", in.To}} {
		if err := checkID(x.name, x.v); err != nil {
			return nil, fmt.Errorf("add edge: %w", err)
		}
	}
	e := prov.Edge{From: in.From, To: in.To, Rel: rel, Strength: in.Strength}
	ss, err := s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	job, statement, err := ss.prepareEdge(e)
	ss.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var verdicts map[string]claimtrace.Verdict
	if job != nil {
		if verdicts, err = s.judgeAll(ctx, statement, []judgeJob{*job}); err != nil {
			return nil, fmt.Errorf("add edge: %w", err)
		}
	}

	ss, err = s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	soon := s.writes.expect() // stored next, unless refused
	defer soon.settle()
	if _, _, err := ss.prepareEdge(e); err != nil {
		return nil, err
	}
	o := &op{Kind: opEdge, At: s.now(), Edge: &edgeOp{Edge: e}}
	if job != nil {
		v := verdicts[job.source]
		judged(&o.Edge.Edge, v)
		o.Edge.Verdict = &v
	}
	g, err := ss.mutate(o)
	if err != nil {
		return nil, err
	}
	ix, err := index(g)
	if err != nil {
		return nil, fmt.Errorf("add edge %s -%s-> %s: %w", e.From, rel, e.To, err)
	}
	if err := s.commit(ctx, soon, ss, o, g); err != nil {
		return nil, err
	}
	res := &EdgeResult{Session: id, Edge: edgeView(o.Edge.Edge)}
	if job != nil {
		v := ss.verdict(o.Edge.Edge, s.tau)
		res.Verdict = &v
	}
	if kind, _ := ss.kindOf(e.To); kind == prov.KindClaim {
		a, err := ss.assess(ix, e.To, s.tau)
		if err != nil {
			return nil, err
		}
		res.Claim = &ClaimOutcome{ID: e.To, Gate: a.gate, Figures: ss.figures(a.path)}
	}
	return res, nil
}

// prepareEdge checks e against the session and says whether it is to be
// judged (a supports edge from a source into a claim), with the claim's
// statement; ss.mu is held.
func (ss *session) prepareEdge(e prov.Edge) (*judgeJob, string, error) {
	src, fromSource := ss.source(e.From)
	kind, _ := ss.kindOf(e.To)
	toJudge := e.Rel == prov.Supports && fromSource && kind == prov.KindClaim
	if toJudge && e.Strength != nil {
		return nil, "", &prov.ValidationError{Violations: []prov.Violation{{Rule: prov.RuleStrength, Where: fmt.Sprintf("edge %s -supports-> %s", e.From, e.To),
			Detail: "the strength of a supports edge from a source into a claim is measured by the judge; omit it"}}}
	}
	g, err := ss.mutate(&op{Kind: opEdge, Edge: &edgeOp{Edge: e}})
	if err != nil {
		return nil, "", err
	}
	if _, err := index(g); err != nil {
		return nil, "", fmt.Errorf("add edge %s -%s-> %s: %w", e.From, e.Rel, e.To, err)
	}
	if !toJudge {
		return nil, "", nil
	}
	return &judgeJob{source: e.From, url: src.URL, text: ss.sources[e.From].text}, ss.g.Claims[ss.nodes[e.To].at].Statement, nil
}

// Withdraw removes a claim and the edges into it from session id: the agent
// dropped it from the report.
func (s *Service) Withdraw(ctx context.Context, id, claimID string) (*SessionInfo, error) {
	if err := checkID("claim", claimID); err != nil {
		return nil, fmt.Errorf("withdraw: %w", err)
	}
	ss, err := s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	soon := s.writes.expect() // stored next, unless refused
	defer soon.settle()
	if kind, ok := ss.kindOf(claimID); !ok || kind != prov.KindClaim {
		return nil, fmt.Errorf("withdraw claim %q: no such claim in session %s: %w", claimID, id, claimtrace.ErrNotFound)
	}
	o := &op{Kind: opWithdraw, At: s.now(), Withdraw: claimID}
	g, err := ss.mutate(o)
	if err != nil {
		return nil, err
	}
	if err := s.commit(ctx, soon, ss, o, g); err != nil {
		return nil, err
	}
	return ss.info(s.tau), nil
}

// kindOf says which kind of node id is; ss.mu is held.
func (ss *session) kindOf(id string) (prov.NodeKind, bool) {
	r, ok := ss.nodes[id]
	return r.kind, ok
}

// has reports whether a node has id; ss.mu is held.
func (ss *session) has(id string) bool {
	_, ok := ss.nodes[id]
	return ok
}

// source returns the source with id; ss.mu is held.
func (ss *session) source(id string) (prov.Source, bool) {
	r, ok := ss.nodes[id]
	if !ok || r.kind != prov.KindSource {
		return prov.Source{}, false
	}
	return ss.g.Sources[r.at], true
}

// nextID returns the first free id prefix+n, n counting from the number of
// nodes of the kind plus one; ss.mu is held.
func (ss *session) nextID(prefix string) string {
	n := 0
	switch prefix {
	case "s":
		n = len(ss.g.Sources)
	case "r":
		n = len(ss.g.Reasoning)
	case "c":
		n = len(ss.g.Claims)
	}
	for n++; ; n++ {
		id := fmt.Sprintf("%s%d", prefix, n)
		if !ss.has(id) {
			return id
		}
	}
}

// duplicate is the error for an id already used by a node.
func duplicate(kind, id string) error {
	return &prov.ValidationError{Violations: []prov.Violation{{Rule: prov.RuleUniqueID, Where: kind + " " + quoteID(id),
		Detail: "id already used by a node of the session; choose another id"}}}
}

func quoteID(id string) string {
	if id == "" {
		return "(new)"
	}
	return fmt.Sprintf("%q", id)
}

// orEmpty returns s, or an empty slice for nil, so that JSON shows [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
