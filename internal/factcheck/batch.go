package factcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

// Several claims in one call (BatchChecker): the prompt numbers the
// statements, each with its report context (a paragraph shared with an
// earlier statement is shown once) and, for a search checker, its own
// search results; the answer gives one verdict a statement number. A
// statement the answer leaves out gets a failed vote.

// batchSchema is the answer of a batched call; sources are result numbers
// (search checkers) or URLs (web checkers).
func batchSchema(sources string) *llm.Schema {
	return &llm.Schema{
		Name:   "fact_checks",
		Strict: true,
		JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "verdicts": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "statement": {"type": "integer"},
          "verdict": {"type": "string", "enum": ["true", "false", "unverifiable"]},
          "reason": {"type": "string"},
          "sources": {"type": "array", "items": {"type": "` + sources + `"}}
        },
        "required": ["statement", "verdict", "reason", "sources"],
        "additionalProperties": false
      }
    }
  },
  "required": ["verdicts"],
  "additionalProperties": false
}`),
	}
}

var (
	searchBatchSchema = batchSchema("integer")
	webBatchSchema    = batchSchema("string")
)

// batchAnswer is a batched answer; Sources holds numbers or URLs.
type batchAnswer struct {
	Verdicts []struct {
		Statement int               `json:"statement"`
		Verdict   string            `json:"verdict"`
		Reason    string            `json:"reason"`
		Sources   []json.RawMessage `json:"sources"`
	} `json:"verdicts"`
}

// statementBlocks renders the numbered statements of a batch, each with
// its context and, when results is set, its search results.
func statementBlocks(qs []Query, results [][]SearchResult) string {
	var b strings.Builder
	seen := map[string]int{} // context → the statement that showed it
	for i, q := range qs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "<statement n=\"%d\">\nStatement: %s\n", i+1, judge.ClaimText(q.Claim))
		if ctx := strings.TrimSpace(q.Context); ctx != "" {
			if n, ok := seen[ctx]; ok {
				fmt.Fprintf(&b, "Context: the same paragraph as statement %d.\n", n)
			} else {
				seen[ctx] = i + 1
				fmt.Fprintf(&b, "Context (the report paragraph it comes from):\n<context>\n%s\n</context>\n", ctx)
			}
		}
		if results != nil {
			b.WriteString("Search results:\n")
			writeResults(&b, results[i])
			b.WriteByte('\n')
		}
		b.WriteString("</statement>")
	}
	return b.String()
}

// writeResults writes numbered search results.
func writeResults(b *strings.Builder, results []SearchResult) {
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(b, "<result n=\"%d\">\nTitle: %s\nURL: %s\n%s\n</result>", i+1, prompts.OneLine(r.Title), r.URL, prompts.OneLine(r.Snippet))
	}
}

// batchRequest builds the request of one batched vote.
func batchRequest(tmpl *prompts.Prompt, schema *llm.Schema, qs []Query, results [][]SearchResult, opt Options, web bool) (llm.Request, error) {
	p, err := tmpl.Render(map[string]string{"Statements": statementBlocks(qs, results), "Cutoff": cutoffDate(qs[0].Cutoff)})
	if err != nil {
		return llm.Request{}, err
	}
	t := *opt.Temperature
	return llm.Request{Stage: StageVote, Messages: []llm.Message{llm.UserMessage(p)}, Schema: schema,
		WebSearch: web, Temperature: &t, MaxTokens: opt.MaxTokens, CacheTag: voteTag(qs[0].Vote)}, nil
}

// spread turns a batched answer into one vote a query: the first verdict
// given for each statement number, a failed vote for a statement left
// out. urls turns a verdict's sources into the vote's URLs.
func spread(name string, ans batchAnswer, n int, urls func(i int, sources []json.RawMessage) []string) []claimtrace.Vote {
	votes := make([]claimtrace.Vote, n)
	done := make([]bool, n)
	for _, a := range ans.Verdicts {
		i := a.Statement - 1
		if i < 0 || i >= n || done[i] {
			continue
		}
		done[i] = true
		votes[i] = claimtrace.Vote{Checker: name, Label: factLabel(a.Verdict), Reason: prompts.OneLine(a.Reason), URLs: urls(i, a.Sources)}
	}
	for i := range votes {
		if !done[i] {
			votes[i] = claimtrace.Vote{Checker: name, Err: fmt.Sprintf("fact check %s: the batched answer has no verdict for statement %d of %d", name, i+1, n)}
		}
	}
	return votes
}

// RequestBatch returns the request one batched vote on qs sends (all qs
// with the same vote number).
func (w *WebChecker) RequestBatch(qs []Query) (llm.Request, error) {
	if w.batch == nil {
		return llm.Request{}, fmt.Errorf("web fact-checker: prompts %s check one statement a call: %w", w.opt.Prompts, claimtrace.ErrInvalid)
	}
	return batchRequest(w.batch, webBatchSchema, qs, nil, w.opt, true)
}

// CheckBatch answers one vote on each of qs in one web-searching call
// (BatchChecker). A vote's URLs are the pages its verdict names that the
// provider's search returned or cited; with the paper's prompts, which
// check one statement a call, each claim is checked on its own.
func (w *WebChecker) CheckBatch(ctx context.Context, qs []Query) ([]claimtrace.Vote, error) {
	if w.batch == nil || len(qs) == 1 {
		out := make([]claimtrace.Vote, len(qs))
		for i, q := range qs {
			v, err := w.Check(ctx, q)
			if err != nil {
				v.Err = err.Error()
			}
			out[i] = v
		}
		return out, nil
	}
	req, err := w.RequestBatch(qs)
	if err != nil {
		return nil, err
	}
	var ans batchAnswer
	resp, err := w.c.GenerateJSON(ctx, req, &ans)
	if err != nil {
		return nil, fmt.Errorf("fact check %s: statements 1-%d: %w", w.name, len(qs), err)
	}
	returned := map[string]bool{}
	for _, u := range webURLs(resp) {
		returned[u] = true
	}
	for _, s := range resp.Sources {
		returned[s.URL] = true
	}
	return spread(w.name, ans, len(qs), func(_ int, sources []json.RawMessage) []string {
		var out []string
		seen := map[string]bool{}
		for _, raw := range sources {
			var u string
			if json.Unmarshal(raw, &u) == nil && returned[u] && !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
		return out
	}), nil
}

// RequestBatch returns the request one batched vote on qs sends, each
// query with its search results.
func (sc *SearchChecker) RequestBatch(qs []Query, results [][]SearchResult) (llm.Request, error) {
	return batchRequest(sc.batch, searchBatchSchema, qs, results, sc.opt, false)
}

// CheckBatch searches each of qs (once for every checker of the same
// search API, within an Ensemble) and answers one vote on each in one
// call (BatchChecker). A claim whose search fails gets a failed vote; one
// without results abstains without a model call, as in Check.
func (sc *SearchChecker) CheckBatch(ctx context.Context, qs []Query) ([]claimtrace.Vote, error) {
	out := make([]claimtrace.Vote, len(qs))
	results := make([][]SearchResult, len(qs))
	var ask []int
	for i, q := range qs {
		out[i] = claimtrace.Vote{Checker: sc.name}
		query := SearchQuery(q.Claim)
		if query == "" {
			out[i].Err = fmt.Sprintf("fact check %s: empty claim: %v", sc.name, claimtrace.ErrInvalid)
			continue
		}
		rs, err := sc.search(ctx, q.memo, query)
		switch {
		case err != nil:
			out[i].Err = fmt.Sprintf("fact check %s: search %q: %v", sc.name, query, err)
		case len(rs) == 0:
			out[i].Label, out[i].Reason = claimtrace.FactUndecided, "the web search returned no results"
		default:
			results[i] = rs[:min(len(rs), sc.results)]
			ask = append(ask, i)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch len(ask) {
	case 0:
		return out, nil
	case 1:
		i := ask[0]
		req, err := sc.Request(qs[i], results[i])
		if err != nil {
			return nil, err
		}
		v, err := sc.vote(ctx, req, results[i])
		if err != nil {
			v.Err = err.Error()
		}
		out[i] = v
		return out, nil
	}
	batch := make([]Query, len(ask))
	rs := make([][]SearchResult, len(ask))
	for j, i := range ask {
		batch[j], rs[j] = qs[i], results[i]
	}
	req, err := sc.RequestBatch(batch, rs)
	if err != nil {
		return nil, err
	}
	var ans batchAnswer
	if _, err := sc.c.GenerateJSON(ctx, req, &ans); err != nil {
		return nil, fmt.Errorf("fact check %s: statements 1-%d: %w", sc.name, len(batch), err)
	}
	votes := spread(sc.name, ans, len(batch), func(j int, sources []json.RawMessage) []string {
		var nums []int
		for _, raw := range sources {
			var n int
			if json.Unmarshal(raw, &n) == nil {
				nums = append(nums, n)
			}
		}
		return resultURLs(rs[j], nums)
	})
	for j, i := range ask {
		out[i] = votes[j]
	}
	return out, nil
}

// resultURLs returns the URLs of the numbered results, in the order
// given, each once; numbers out of range are skipped.
func resultURLs(results []SearchResult, nums []int) []string {
	var out []string
	seen := make(map[int]bool)
	for _, n := range nums {
		if n >= 1 && n <= len(results) && !seen[n] && results[n-1].URL != "" {
			seen[n] = true
			out = append(out, results[n-1].URL)
		}
	}
	return out
}
