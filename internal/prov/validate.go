package prov

import (
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// Rules a graph must keep. A Violation names the rule it breaks; the AAR
// definition a rule comes from is in its comment.
const (
	RuleID            = "id"                 // every node has a non-empty id
	RuleUniqueID      = "unique-id"          // node ids are unique across sources, reasoning and claims
	RuleEndpoint      = "edge-endpoint"      // both ends of an edge are nodes of the graph
	RuleRelation      = "relation"           // rel ∈ {supports, contradicts, refines, prerequisite} (definition 8)
	RuleSourceInbound = "source-no-incoming" // sources have no incoming edges (definition 5)
	RuleClaimOutbound = "claim-no-outgoing"  // claims have no outgoing edges (definition 7)
	RuleSelfLoop      = "no-self-loop"       // an edge joins two different nodes
	RuleDuplicateEdge = "unique-edge"        // at most one edge per (from, to, rel)
	RuleStrength      = "strength"           // ν ∈ [0, 1] on supports edges, null otherwise (definition 8)
	RuleLabel         = "edge-label"         // a verdict label is one of claimtrace's labels
	RuleReasoningType = "reasoning-type"     // type ∈ {deduction, induction, synthesis} (definition 6)
	RuleAcyclic       = "acyclic"            // no reasoning node is its own ancestor
	RuleSpan          = "claim-span"         // 0 ≤ start ≤ end
	RuleConflict      = "conflict"           // a conflict joins two different sources about a named entity
)

// Violation is one broken rule: which rule, where, and what is wrong.
type Violation struct {
	Rule   string `json:"rule"`
	Where  string `json:"where"`
	Detail string `json:"detail"`
}

func (v Violation) String() string { return fmt.Sprintf("%s: %s [rule %s]", v.Where, v.Detail, v.Rule) }

// ValidationError lists every rule a graph breaks. It matches
// claimtrace.ErrInvalid with errors.Is.
type ValidationError struct {
	Violations []Violation
}

func (e *ValidationError) Error() string {
	const show = 5
	var b strings.Builder
	fmt.Fprintf(&b, "invalid provenance graph: %d violation(s): ", len(e.Violations))
	for i, v := range e.Violations {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(e.Violations)-show)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Unwrap makes errors.Is(err, claimtrace.ErrInvalid) true.
func (e *ValidationError) Unwrap() error { return claimtrace.ErrInvalid }

// Validate checks g against every rule and returns a *ValidationError
// listing all violations, or nil.
func (g *Graph) Validate() error {
	_, err := NewIndex(g)
	return err
}

// maxViolations bounds the list kept for a hopeless input.
const maxViolations = 1000

type violations struct{ list []Violation }

func (vs *violations) add(rule, where, format string, args ...any) {
	if len(vs.list) < maxViolations {
		vs.list = append(vs.list, Violation{Rule: rule, Where: where, Detail: fmt.Sprintf(format, args...)})
	}
}

func (vs *violations) err() error {
	if len(vs.list) == 0 {
		return nil
	}
	return &ValidationError{Violations: vs.list}
}

func validLabel(l claimtrace.Label) bool {
	switch l {
	case "", claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown:
		return true
	}
	return false
}

func validReasoningType(t ReasoningType) bool {
	switch t {
	case "", Deduction, Induction, Synthesis:
		return true
	}
	return false
}

func edgeWhere(i int, e Edge) string {
	return fmt.Sprintf("edge %d (%s -%s-> %s)", i, e.From, e.Rel, e.To)
}
