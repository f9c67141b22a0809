package llm

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sync"
)

// DryRun is the dry-run mode of a Client (Options.DryRun): the client
// goes through its whole request path but sends nothing. Each request is
// recorded under its stage and priced at the client's price, as its
// estimate (EstimateRequest: input bytes/4, output at the request's token
// cap); it is answered with Answer's text or else with a neutral value
// that fits the request's schema (NeutralJSON), so the caller's pipeline
// runs on as it would. Answers from the response cache are used as in a
// real run and counted as cached. A dry client spends nothing: no budget,
// no ledger, nothing written to the cache. One DryRun is shared by every
// client of a run; it is safe for concurrent use.
type DryRun struct {
	// Answer, when set, answers the requests it knows (ok true); the
	// others get the neutral answer.
	Answer func(Request) (text string, ok bool)

	mu     sync.Mutex
	stages map[string]*StageEstimate
}

// StageEstimate sums the requests a dry run recorded for one stage.
type StageEstimate struct {
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Cost         float64 `json:"cost_usd"`
	// Unpriced is true when a request went to a model without a price.
	Unpriced bool `json:"unpriced,omitempty"`
	// Cached counts requests the response cache answered (free).
	Cached int64 `json:"cached,omitempty"`
}

// Stages returns the estimates by stage so far.
func (d *DryRun) Stages() map[string]StageEstimate {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]StageEstimate, len(d.stages))
	for k, v := range d.stages {
		out[k] = *v
	}
	return out
}

// Total sums every stage.
func (d *DryRun) Total() StageEstimate {
	var t StageEstimate
	stages := d.Stages()
	for _, k := range slices.Sorted(maps.Keys(stages)) {
		s := stages[k]
		t.Calls += s.Calls
		t.InputTokens += s.InputTokens
		t.OutputTokens += s.OutputTokens
		t.Cost += s.Cost
		t.Unpriced = t.Unpriced || s.Unpriced
		t.Cached += s.Cached
	}
	return t
}

func (d *DryRun) stage(name string) *StageEstimate {
	if d.stages == nil {
		d.stages = map[string]*StageEstimate{}
	}
	s := d.stages[name]
	if s == nil {
		s = &StageEstimate{}
		d.stages[name] = s
	}
	return s
}

// record counts one request that would be sent and returns its answer:
// Answer's, else the neutral value of the request's schema, else neutral
// (the neutral value of the Go type GenerateJSON decodes into).
func (d *DryRun) record(req Request, e Estimate, neutral string) Response {
	d.mu.Lock()
	s := d.stage(req.Stage)
	s.Calls++
	s.InputTokens += e.InputTokens
	s.OutputTokens += e.OutputTokens
	s.Cost += e.Cost
	s.Unpriced = s.Unpriced || !e.Priced
	d.mu.Unlock()
	text, ok := "", false
	if d.Answer != nil {
		text, ok = d.Answer(req)
	}
	switch {
	case ok:
	case req.Schema != nil:
		text = NeutralJSON(req.Schema.JSON)
	default:
		text = neutral
	}
	return Response{Text: text, FinishReason: FinishStop}
}

// cached counts one request the response cache answered.
func (d *DryRun) cached(stage string) {
	d.mu.Lock()
	d.stage(stage).Cached++
	d.mu.Unlock()
}

// neutralValue is the JSON of the zero value of t, with empty slices and
// maps instead of null: the neutral answer of a GenerateJSON request that
// has no schema.
func neutralValue(t reflect.Type) string {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Slice:
		v = reflect.MakeSlice(t, 0, 0)
	case reflect.Map:
		v = reflect.MakeMap(t)
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return ""
	}
	return string(b)
}

// neutralEnum lists the enum values that commit to nothing, in order of
// preference: a dry answer picks one of them when the schema allows it.
var neutralEnum = []string{"unknown", "unverifiable", "undecided", "neutral", "not_enough_info", "insufficient", "none"}

// NeutralJSON returns the smallest JSON value valid against the JSON
// Schema s that commits to nothing: objects with their required
// properties (all of them when none are listed), arrays with their
// minimum number of items, false, zero (or the minimum), empty strings,
// and from an enum a neutral value ("unknown", "unverifiable", "neutral"
// …) when there is one, else the first. It covers the schemas claimtrace
// sends (type, properties, required, items, minItems, enum, const,
// minimum, anyOf/oneOf); an unreadable schema gives "{}".
func NeutralJSON(s json.RawMessage) string {
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		return "{}"
	}
	b, err := json.Marshal(neutral(v))
	if err != nil {
		return "{}"
	}
	return string(b)
}

func neutral(schema any) any {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		for _, n := range neutralEnum {
			if slices.Contains(enum, any(n)) {
				return n
			}
		}
		return enum[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			return neutral(alts[0])
		}
	}
	typ := s["type"]
	if ts, ok := typ.([]any); ok && len(ts) > 0 {
		typ = ts[0]
		if slices.Contains(ts, any("null")) {
			return nil
		}
	}
	switch typ {
	case "object":
		props, _ := s["properties"].(map[string]any)
		out := map[string]any{}
		req, ok := s["required"].([]any)
		if !ok {
			for k := range props {
				req = append(req, k)
			}
		}
		for _, k := range req {
			if name, ok := k.(string); ok {
				out[name] = neutral(props[name])
			}
		}
		return out
	case "array":
		n, _ := s["minItems"].(float64)
		out := make([]any, 0, int(n))
		for range int(n) {
			out = append(out, neutral(s["items"]))
		}
		return out
	case "boolean":
		return false
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok && m > 0 {
			return m
		}
		return 0
	case "string":
		return ""
	}
	return nil
}
