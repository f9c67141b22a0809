// Package entail asks a language model whether one sentence entails or
// contradicts another, both directions in one call: the entailment
// provider (prov.Entailer) of the two-way contradiction detector
// (prov.TwoWay).
package entail

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// Stage is recorded in the LLM ledger for the calls of this package.
const Stage = "entail"

// LLM is a prov.Entailer asking a language model about both directions
// of a sentence pair in one call: prov.TwoWay asks A→B and then B→A, and
// the second question is answered from the first call. The pair is put in
// a fixed order before asking, so the request (and its cache key) is the
// same whichever direction comes first. The model gives a label and its
// confidence per direction; the confidence goes to that label and the rest
// is split evenly between the other two. It is safe for concurrent use.
type LLM struct {
	c    *llm.Client
	temp float64
	tmpl *prompts.Prompt

	mu   sync.Mutex
	memo map[[2]string]twoWayAnswer
}

// entailMemo bounds the answers an LLM remembers; past it the memo
// starts over (the response cache still has them).
const entailMemo = 4096

// NewLLM returns an entailer calling c at temperature 0.
func NewLLM(c *llm.Client) (*LLM, error) {
	if c == nil {
		return nil, fmt.Errorf("llm entailer: no model client: %w", claimtrace.ErrInvalid)
	}
	tmpl, err := prompts.Get("judge/entail")
	if err != nil {
		return nil, err
	}
	return &LLM{c: c, tmpl: tmpl, memo: make(map[[2]string]twoWayAnswer)}, nil
}

var entailSchema = &llm.Schema{
	Name:   "entailment",
	Strict: true,
	JSON:   json.RawMessage(`{"type": "object", "properties": {"a_to_b": ` + directionSchema + `, "b_to_a": ` + directionSchema + `}, "required": ["a_to_b", "b_to_a"], "additionalProperties": false}`),
}

// directionSchema is written out twice in entailSchema rather than
// referenced: not every provider's structured output resolves $ref.
const directionSchema = `{"type": "object", "properties": {"label": {"type": "string", "enum": ["entailment", "neutral", "contradiction"]}, "confidence": {"type": "number"}}, "required": ["label", "confidence"], "additionalProperties": false}`

type direction struct {
	Label      string  `json:"label"`
	Confidence float64 `json:"confidence"`
}

type twoWayAnswer struct {
	AToB direction `json:"a_to_b"`
	BToA direction `json:"b_to_a"`
}

// Request returns the request asking about the pair (in its fixed order).
func (e *LLM) Request(premise, hypothesis string) (llm.Request, error) {
	a, b := orderPair(premise, hypothesis)
	p, err := e.tmpl.Render(map[string]string{"A": prompts.OneLine(a), "B": prompts.OneLine(b)})
	if err != nil {
		return llm.Request{}, err
	}
	t := e.temp
	return llm.Request{Stage: Stage, Messages: []llm.Message{llm.UserMessage(p)}, Schema: entailSchema, Temperature: &t}, nil
}

func orderPair(x, y string) (string, string) {
	if y < x {
		return y, x
	}
	return x, y
}

// Entail returns the model's view of whether premise entails or
// contradicts hypothesis.
func (e *LLM) Entail(ctx context.Context, premise, hypothesis string) (prov.Entailment, error) {
	a, b := orderPair(premise, hypothesis)
	key := [2]string{a, b}
	e.mu.Lock()
	ans, ok := e.memo[key]
	e.mu.Unlock()
	if !ok {
		req, err := e.Request(premise, hypothesis)
		if err != nil {
			return prov.Entailment{}, err
		}
		if _, err := e.c.GenerateJSON(ctx, req, &ans); err != nil {
			return prov.Entailment{}, fmt.Errorf("entail %s: %w", e.c.Endpoint(), err)
		}
		e.mu.Lock()
		if len(e.memo) >= entailMemo {
			clear(e.memo)
		}
		e.memo[key] = ans
		e.mu.Unlock()
	}
	d := ans.AToB
	if premise != a {
		d = ans.BToA
	}
	return d.entailment(), nil
}

// entailment spreads a label and its confidence over the three classes.
func (d direction) entailment() prov.Entailment {
	c := min(max(d.Confidence, 0), 1)
	rest := (1 - c) / 2
	out := prov.Entailment{Entail: rest, Neutral: rest, Contradict: rest}
	switch d.Label {
	case "entailment":
		out.Entail = c
	case "contradiction":
		out.Contradict = c
	default:
		out.Neutral = c
	}
	return out
}
