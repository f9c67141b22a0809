package llm

import (
	"fmt"
	"sync"

	"github.com/claimtrace/claimtrace"
)

// Budget caps a run's spending across every Client that shares it. When it
// is exhausted new calls fail with claimtrace.ErrBudget before anything is
// sent; calls already in flight finish and are accounted. Cache hits are
// free and always allowed.
type Budget struct {
	maxCost  float64
	maxCalls int64

	mu       sync.Mutex
	calls    int64
	cost     float64
	reserved float64
}

// NewBudget returns a budget of at most maxCost US dollars and maxCalls
// provider calls; zero means no limit on that axis.
func NewBudget(maxCost float64, maxCalls int64) *Budget {
	return &Budget{maxCost: maxCost, maxCalls: maxCalls}
}

// begin admits one call whose cost is estimated at est. A call starts only
// while spent plus the estimates of calls in flight plus est stays within
// MaxCost, so the budget is overrun by at most the estimation error.
func (b *Budget) begin(est float64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxCalls > 0 && b.calls >= b.maxCalls {
		return fmt.Errorf("%d of %d calls made: %w", b.calls, b.maxCalls, claimtrace.ErrBudget)
	}
	if b.maxCost > 0 && b.cost+b.reserved+est > b.maxCost {
		return fmt.Errorf("$%.4f spent, $%.4f in flight, next call ~$%.4f, limit $%.4f: %w", b.cost, b.reserved, est, b.maxCost, claimtrace.ErrBudget)
	}
	b.calls++
	b.reserved += est
	return nil
}

// end settles a call admitted with estimate est at its actual cost.
func (b *Budget) end(est, actual float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.reserved -= est
	b.cost += actual
	b.mu.Unlock()
}

// Spent returns the calls made and dollars spent so far.
func (b *Budget) Spent() (calls int64, cost float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls, b.cost
}

// Totals sums LLM accounting (summary.json llm.*). Calls counts provider
// calls, failed ones included; cache hits are counted apart and cost
// nothing.
type Totals struct {
	Calls           int64   `json:"calls"`
	CacheHits       int64   `json:"cache_hits"`
	Failed          int64   `json:"failed"`
	InputTokens     int64   `json:"input_tokens"`
	OutputTokens    int64   `json:"output_tokens"`
	CachedTokens    int64   `json:"cached_tokens"`
	ReasoningTokens int64   `json:"reasoning_tokens"`
	Cost            float64 `json:"cost_usd"`
}

// Add counts one ledger record.
func (t *Totals) Add(c claimtrace.LLMCall) {
	if c.CacheHit {
		t.CacheHits++
		return
	}
	t.Calls++
	if c.Err != "" {
		t.Failed++
	}
	t.InputTokens += c.InputTokens
	t.OutputTokens += c.OutputTokens
	t.CachedTokens += c.CachedTokens
	t.ReasoningTokens += c.ReasoningTokens
	t.Cost += c.Cost
}

// Merge adds other into t.
func (t *Totals) Merge(o Totals) {
	t.Calls += o.Calls
	t.CacheHits += o.CacheHits
	t.Failed += o.Failed
	t.InputTokens += o.InputTokens
	t.OutputTokens += o.OutputTokens
	t.CachedTokens += o.CachedTokens
	t.ReasoningTokens += o.ReasoningTokens
	t.Cost += o.Cost
}

// EstimatedOutputTokens is the answer size assumed by estimates when a
// request sets no MaxTokens.
const EstimatedOutputTokens = 512

// Estimate is a prediction of one call's size and cost, made before it is
// sent (for rate limits, budgets and eval --dry-run).
type Estimate struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Cost         float64 `json:"cost_usd"`
	// Priced is false when the model has no known price (Cost is then 0).
	Priced bool `json:"priced"`
}

// EstimateTokens estimates a request's input tokens as bytes/4 (about
// right for English; it over-counts little for other scripts, whose
// characters take 2-3 bytes and about one token) plus a few tokens of
// framing per message and tool.
func EstimateTokens(req Request) int64 {
	n := len(req.System)
	turns := 1
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.Name)
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
		turns++
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
		turns++
	}
	if req.Schema != nil {
		n += len(req.Schema.JSON)
	}
	return int64((n+3)/4 + 4*turns)
}

// EstimateRequest predicts a request's tokens and cost at price p (ok
// false: unknown price).
func EstimateRequest(req Request, p Price, ok bool) Estimate {
	e := Estimate{InputTokens: EstimateTokens(req), OutputTokens: EstimatedOutputTokens, Priced: ok}
	if req.MaxTokens > 0 {
		e.OutputTokens = int64(req.MaxTokens)
	}
	if ok {
		u := Usage{InputTokens: e.InputTokens, OutputTokens: e.OutputTokens}
		if req.WebSearch {
			u.WebSearches = 1
		}
		e.Cost = p.Cost(u)
	}
	return e
}
