package factcheck

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

// LLMCheckWorthy classifies non-cited claims as worth fact-checking or
// not with a language model, by the paper's rules (prompt A.4.2:
// specific, verifiable, not opinion, not common knowledge), many claims a
// call. It is the model-based alternative to the lexical CheckWorthy, and
// works on the claims the report parser already found (with their spans),
// instead of asking a model to re-extract them from the report text.
type LLMCheckWorthy struct {
	c    *llm.Client
	opt  CheckWorthyOptions
	name string
	tmpl *prompts.Prompt
}

// CheckWorthyOptions tune LLMCheckWorthy. The zero value means the
// defaults.
type CheckWorthyOptions struct {
	// Batch is the most claims classified in one call (default 40).
	Batch int
	// Temperature of every call (default 0).
	Temperature *float64
}

// NewLLMCheckWorthy returns a classifier calling c.
func NewLLMCheckWorthy(c *llm.Client, opt CheckWorthyOptions) (*LLMCheckWorthy, error) {
	if c == nil {
		return nil, fmt.Errorf("check-worthiness classifier: no model client: %w", claimtrace.ErrInvalid)
	}
	tmpl, err := prompts.Get("judge/check_worthy")
	if err != nil {
		return nil, err
	}
	if opt.Batch <= 0 {
		opt.Batch = 40
	}
	if opt.Temperature == nil {
		zero := 0.0
		opt.Temperature = &zero
	}
	return &LLMCheckWorthy{c: c, opt: opt, name: c.Endpoint().String(), tmpl: tmpl}, nil
}

var checkWorthySchema = &llm.Schema{
	Name:   "check_worthiness",
	Strict: true,
	JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "claims": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "claim": {"type": "integer"},
          "check_worthy": {"type": "boolean"},
          "reason": {"type": "string"}
        },
        "required": ["claim", "check_worthy", "reason"],
        "additionalProperties": false
      }
    }
  },
  "required": ["claims"],
  "additionalProperties": false
}`),
}

type checkWorthyAnswer struct {
	Claims []struct {
		Claim       int    `json:"claim"`
		CheckWorthy bool   `json:"check_worthy"`
		Reason      string `json:"reason"`
	} `json:"claims"`
}

// Requests returns the requests ClassifyCheckWorthy would send, for
// estimates.
func (w *LLMCheckWorthy) Requests(claims []string) ([]llm.Request, error) {
	var out []llm.Request
	for _, b := range w.batches(claims) {
		req, err := w.request(claims, b)
		if err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, nil
}

// batches splits the indices of the non-empty claims into calls of
// near-equal size.
func (w *LLMCheckWorthy) batches(claims []string) [][]int {
	var live []int
	for i, c := range claims {
		if judge.ClaimText(c) != "" {
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return nil
	}
	n := (len(live) + w.opt.Batch - 1) / w.opt.Batch
	size := (len(live) + n - 1) / n
	var out [][]int
	for s := 0; s < len(live); s += size {
		out = append(out, live[s:min(s+size, len(live))])
	}
	return out
}

func (w *LLMCheckWorthy) request(claims []string, idx []int) (llm.Request, error) {
	texts := make([]string, len(idx))
	for k, i := range idx {
		texts[k] = judge.ClaimText(claims[i])
	}
	p, err := w.tmpl.Render(map[string]string{"Claims": prompts.Numbered("statement", texts)})
	if err != nil {
		return llm.Request{}, err
	}
	t := *w.opt.Temperature
	return llm.Request{Stage: StageCheckWorthy, Messages: []llm.Message{llm.UserMessage(p)}, Schema: checkWorthySchema, Temperature: &t}, nil
}

// ClassifyCheckWorthy decides for each claim whether it is worth
// fact-checking, with a reason, in order. A claim the model left out of
// its answer, or an empty claim, is decided by the offline CheckWorthy
// filter, and its reason says so: a missing answer never silently drops a
// claim. Model errors are returned as errors.
func (w *LLMCheckWorthy) ClassifyCheckWorthy(ctx context.Context, claims []string) ([]bool, []string, error) {
	worthy := make([]bool, len(claims))
	reasons := make([]string, len(claims))
	done := make([]bool, len(claims))
	for _, idx := range w.batches(claims) {
		req, err := w.request(claims, idx)
		if err != nil {
			return nil, nil, err
		}
		var ans checkWorthyAnswer
		if _, err := w.c.GenerateJSON(ctx, req, &ans); err != nil {
			return nil, nil, fmt.Errorf("check-worthiness %s: claims %s: %w", w.name, prompts.Range(idx), err)
		}
		for _, a := range ans.Claims {
			if a.Claim < 1 || a.Claim > len(idx) || done[idx[a.Claim-1]] {
				continue
			}
			i := idx[a.Claim-1]
			worthy[i], reasons[i], done[i] = a.CheckWorthy, w.name+": "+prompts.OneLine(a.Reason), true
		}
	}
	for i, c := range claims {
		if !done[i] {
			ok, why := CheckWorthy(c)
			worthy[i], reasons[i] = ok, "offline filter (no model answer): "+why
		}
	}
	return worthy, reasons, nil
}
