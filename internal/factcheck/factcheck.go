// Package factcheck decides the claims a report makes without a citation:
// it picks the claims worth checking (CheckWorthy, by rules; LLMCheckWorthy,
// by a model) and has web-connected models vote on each (WebChecker,
// SearchChecker), decided by majority over an Ensemble (Aggregate), which
// stops voting once the majority is settled, checks several claims a call
// and shares one search among its checkers. Model and search errors are
// returned as errors, never counted as votes.
package factcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/report"
)

// Stages recorded in the LLM ledger for the calls of this package.
const (
	StageCheckWorthy = "check_worthy" // check-worthiness classification
	StageVote        = "fact_check"   // one fact-check vote
)

// Query is one non-cited claim to fact-check. The released ReportBench
// code sends the bare statement and lets the checker judge it against
// today's web; a checker here also gets the paragraph it comes from and
// the task's cutoff date, when known.
type Query struct {
	// Claim is the statement to check, as the report has it (citation
	// markers are removed before it is sent).
	Claim string
	// Context is the report paragraph around the claim (see Paragraph);
	// empty when unknown.
	Context string
	// Cutoff is the task's knowledge cutoff (dataset.Cutoff); zero when
	// unknown. The checker judges the claim as of that date.
	Cutoff time.Time
	// Vote numbers the independent votes of one checker on one claim
	// (1, 2, 3…). Each number is its own request (CacheTag "vote-N"), so a
	// cached rerun reproduces every vote and a new vote is a new sample.
	// 0 means a single, untagged vote.
	Vote int

	// memo shares the searches of one Ensemble.CheckAll among its
	// search checkers (nil: search every time).
	memo *searchMemo
}

// Checker answers one vote on a claim. On failure it returns the
// error, and a Vote naming the checker: an error is never a vote.
type Checker interface {
	Check(ctx context.Context, q Query) (claimtrace.Vote, error)
}

// Options tune the model-based fact-checkers. The zero value means the
// defaults.
type Options struct {
	// Prompts is judge.PromptsClaimtrace (default: the claim with its
	// context and cutoff, answer true, false or unverifiable) or
	// judge.PromptsReportBench (the paper's A.4.5 prompt with the bare
	// statement, answer true or false). Search checkers only have ours.
	Prompts string
	// Temperature of every vote (default 1: the votes are meant to be
	// independent samples, which identical greedy decodes are not; the
	// released code leaves it unset).
	Temperature *float64
	// MaxTokens caps each answer (default: the provider's).
	MaxTokens int
}

func (o Options) withDefaults() Options {
	if o.Prompts == "" {
		o.Prompts = judge.PromptsClaimtrace
	}
	if o.Temperature == nil {
		one := 1.0
		o.Temperature = &one
	}
	return o
}

// factSchema is our fact-check answer.
var factSchema = &llm.Schema{
	Name:   "fact_check",
	Strict: true,
	JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "verdict": {"type": "string", "enum": ["true", "false", "unverifiable"]},
    "reason": {"type": "string"}
  },
  "required": ["verdict", "reason"],
  "additionalProperties": false
}`),
}

// paritySchema is the A.4.5 answer.
var paritySchema = &llm.Schema{
	Name:   "web_verification",
	Strict: true,
	JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "reason": {"type": "string"},
    "decision": {"type": "boolean"}
  },
  "required": ["reason", "decision"],
  "additionalProperties": false
}`),
}

type factAnswer struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

type parityAnswer struct {
	Reason   string `json:"reason"`
	Decision bool   `json:"decision"`
}

// factLabel maps our answer's verdict to a vote label; "unverifiable" is
// an abstention (FactUndecided), which Aggregate does not count.
func factLabel(v string) claimtrace.FactLabel {
	switch v {
	case "true":
		return claimtrace.FactTrue
	case "false":
		return claimtrace.FactFalse
	}
	return claimtrace.FactUndecided
}

// WebChecker is a web-connected model answering one vote: the provider's
// own search (Gemini Google Search grounding, OpenAI web_search, Anthropic
// web search) through llm.Request.WebSearch. The vote's URLs are the
// answer's web citations, or the pages the search consulted when the
// provider attaches no citation.
type WebChecker struct {
	c    *llm.Client
	opt  Options
	name string
	tmpl *prompts.Prompt
	// batch is the several-statements prompt (nil in parity mode, whose
	// prompt checks one statement a call).
	batch *prompts.Prompt
}

// NewWebChecker returns a checker calling c with web search on.
func NewWebChecker(c *llm.Client, opt Options) (*WebChecker, error) {
	if c == nil {
		return nil, fmt.Errorf("web fact-checker: no model client: %w", claimtrace.ErrInvalid)
	}
	opt = opt.withDefaults()
	w := &WebChecker{c: c, opt: opt, name: "web:" + c.Endpoint().String()}
	tmpl := "judge/fact_check"
	switch opt.Prompts {
	case judge.PromptsClaimtrace:
	case judge.PromptsReportBench:
		tmpl, w.name = "reportbench/web_verification", "reportbench:"+w.name
	default:
		return nil, fmt.Errorf("web fact-checker: prompts %q: want %s or %s: %w", opt.Prompts, judge.PromptsClaimtrace, judge.PromptsReportBench, claimtrace.ErrInvalid)
	}
	var err error
	if w.tmpl, err = prompts.Get(tmpl); err != nil {
		return nil, err
	}
	if opt.Prompts == judge.PromptsClaimtrace {
		if w.batch, err = prompts.Get("judge/fact_check_batch"); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Name is the Checker field of its votes: "web:" and the endpoint, with
// "reportbench:" before it in parity mode.
func (w *WebChecker) Name() string { return w.name }

// Request returns the request one vote sends.
func (w *WebChecker) Request(q Query) (llm.Request, error) {
	data := map[string]string{"Statement": judge.ClaimText(q.Claim)}
	schema := paritySchema
	if w.opt.Prompts == judge.PromptsClaimtrace {
		data["Context"] = strings.TrimSpace(q.Context)
		data["Cutoff"] = cutoffDate(q.Cutoff)
		schema = factSchema
	}
	p, err := w.tmpl.Render(data)
	if err != nil {
		return llm.Request{}, err
	}
	t := *w.opt.Temperature
	return llm.Request{Stage: StageVote, Messages: []llm.Message{llm.UserMessage(p)}, Schema: schema,
		WebSearch: true, Temperature: &t, MaxTokens: w.opt.MaxTokens, CacheTag: voteTag(q.Vote)}, nil
}

// Check answers one vote.
func (w *WebChecker) Check(ctx context.Context, q Query) (claimtrace.Vote, error) {
	v := claimtrace.Vote{Checker: w.name}
	req, err := w.Request(q)
	if err != nil {
		return v, err
	}
	var resp llm.Response
	if w.opt.Prompts == judge.PromptsReportBench {
		var ans parityAnswer
		if resp, err = w.c.GenerateJSON(ctx, req, &ans); err != nil {
			return v, fmt.Errorf("fact check %s: %w", w.name, err)
		}
		v.Label, v.Reason = claimtrace.FactFalse, prompts.OneLine(ans.Reason)
		if ans.Decision {
			v.Label = claimtrace.FactTrue
		}
	} else {
		var ans factAnswer
		if resp, err = w.c.GenerateJSON(ctx, req, &ans); err != nil {
			return v, fmt.Errorf("fact check %s: %w", w.name, err)
		}
		v.Label, v.Reason = factLabel(ans.Verdict), prompts.OneLine(ans.Reason)
	}
	v.URLs = webURLs(resp)
	return v, nil
}

// webURLs returns the answer's cited URLs in order, without duplicates,
// or the consulted sources when nothing is cited.
func webURLs(r llm.Response) []string {
	var out []string
	seen := make(map[string]bool)
	add := func(u string) {
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, c := range r.Citations {
		add(c.URL)
	}
	if len(out) == 0 {
		for _, s := range r.Sources {
			add(s.URL)
		}
	}
	return out
}

// SearchResult is one web search hit.
type SearchResult struct {
	Title string
	URL   string
	// Snippet is the search engine's extract of the page.
	Snippet string
}

// Searcher is a web search API (SerpAPI, Brave, Tavily, SearXNG…):
// up to n results for query q, best first.
type Searcher interface {
	Search(ctx context.Context, q string, n int) ([]SearchResult, error)
}

// SearchChecker fact-checks with any model and a search API: the claim is
// searched, and the model votes on it given the results, naming the
// results it relied on (the vote's URLs). A search error is returned as
// an error, not a vote; a search with no result is an abstention
// (FactUndecided, no model call).
type SearchChecker struct {
	c        *llm.Client
	s        Searcher
	searcher string
	opt      Options
	results  int
	name     string
	tmpl     *prompts.Prompt
	batch    *prompts.Prompt
}

// NewSearchChecker returns a checker searching with s (results hits a
// query, default 5) and voting with c. searcher names the search API in
// the checker's name ("search:brave+openai:gpt-4o-mini").
func NewSearchChecker(c *llm.Client, s Searcher, searcher string, results int, opt Options) (*SearchChecker, error) {
	if c == nil || s == nil {
		return nil, fmt.Errorf("search fact-checker: need a model client and a searcher: %w", claimtrace.ErrInvalid)
	}
	opt = opt.withDefaults()
	if opt.Prompts != judge.PromptsClaimtrace {
		return nil, fmt.Errorf("search fact-checker: prompts %q: only %s (the paper has no search-API prompt): %w", opt.Prompts, judge.PromptsClaimtrace, claimtrace.ErrInvalid)
	}
	if results <= 0 {
		results = 5
	}
	tmpl, err := prompts.Get("judge/fact_check_search")
	if err != nil {
		return nil, err
	}
	batch, err := prompts.Get("judge/fact_check_search_batch")
	if err != nil {
		return nil, err
	}
	if searcher == "" {
		searcher = "search"
	}
	return &SearchChecker{c: c, s: s, searcher: searcher, opt: opt, results: results, name: "search:" + searcher + "+" + c.Endpoint().String(), tmpl: tmpl, batch: batch}, nil
}

// Name is the Checker field of its votes.
func (sc *SearchChecker) Name() string { return sc.name }

var searchSchema = &llm.Schema{
	Name:   "fact_check",
	Strict: true,
	JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "verdict": {"type": "string", "enum": ["true", "false", "unverifiable"]},
    "reason": {"type": "string"},
    "sources": {"type": "array", "items": {"type": "integer"}}
  },
  "required": ["verdict", "reason", "sources"],
  "additionalProperties": false
}`),
}

// SearchQuery is the query a claim is searched with: its first 32 words
// (search APIs cut longer queries), citation markers removed.
func SearchQuery(claim string) string {
	words := strings.Fields(judge.CleanClaim(claim))
	return strings.Join(words[:min(len(words), 32)], " ")
}

// Request returns the request one vote sends given the search results.
func (sc *SearchChecker) Request(q Query, results []SearchResult) (llm.Request, error) {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "<result n=\"%d\">\nTitle: %s\nURL: %s\n%s\n</result>", i+1, prompts.OneLine(r.Title), r.URL, prompts.OneLine(r.Snippet))
	}
	p, err := sc.tmpl.Render(map[string]string{
		"Statement": judge.ClaimText(q.Claim),
		"Context":   strings.TrimSpace(q.Context),
		"Cutoff":    cutoffDate(q.Cutoff),
		"Results":   b.String(),
	})
	if err != nil {
		return llm.Request{}, err
	}
	t := *sc.opt.Temperature
	return llm.Request{Stage: StageVote, Messages: []llm.Message{llm.UserMessage(p)}, Schema: searchSchema,
		Temperature: &t, MaxTokens: sc.opt.MaxTokens, CacheTag: voteTag(q.Vote)}, nil
}

// search returns the results for query, shared through memo with the
// other checkers searching the same API (the name's search part).
func (sc *SearchChecker) search(ctx context.Context, memo *searchMemo, query string) ([]SearchResult, error) {
	key := sc.searcher + "\x00" + strconv.Itoa(sc.results) + "\x00" + query
	return memo.search(ctx, key, func(ctx context.Context) ([]SearchResult, error) {
		return sc.s.Search(ctx, query, sc.results)
	})
}

// Check searches the claim and answers one vote.
func (sc *SearchChecker) Check(ctx context.Context, q Query) (claimtrace.Vote, error) {
	v := claimtrace.Vote{Checker: sc.name}
	query := SearchQuery(q.Claim)
	if query == "" {
		return v, fmt.Errorf("fact check %s: empty claim: %w", sc.name, claimtrace.ErrInvalid)
	}
	results, err := sc.search(ctx, q.memo, query)
	if err != nil {
		return v, fmt.Errorf("fact check %s: search %q: %w", sc.name, query, err)
	}
	if len(results) > sc.results {
		results = results[:sc.results]
	}
	if len(results) == 0 {
		v.Label, v.Reason = claimtrace.FactUndecided, "the web search returned no results"
		return v, nil
	}
	req, err := sc.Request(q, results)
	if err != nil {
		return v, err
	}
	return sc.vote(ctx, req, results)
}

// vote sends one single-statement vote request made from results.
func (sc *SearchChecker) vote(ctx context.Context, req llm.Request, results []SearchResult) (claimtrace.Vote, error) {
	v := claimtrace.Vote{Checker: sc.name}
	var ans struct {
		factAnswer
		Sources []int `json:"sources"`
	}
	if _, err := sc.c.GenerateJSON(ctx, req, &ans); err != nil {
		return v, fmt.Errorf("fact check %s: %w", sc.name, err)
	}
	v.Label, v.Reason = factLabel(ans.Verdict), prompts.OneLine(ans.Reason)
	v.URLs = resultURLs(results, ans.Sources)
	return v, nil
}

func voteTag(n int) string {
	if n <= 0 {
		return ""
	}
	return "vote-" + strconv.Itoa(n)
}

func cutoffDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// maxParagraph bounds the context Paragraph returns.
const maxParagraph = 1500

// Paragraph returns the report context of the claim at text[start:end]:
// the paragraph holding it (the lines between blank lines), preceded by
// the nearest Markdown heading above it, cut to about 1,500 bytes around
// the claim. Offsets are clamped to the text; the result is "" for an
// empty text.
func Paragraph(text string, start, end int) string {
	start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
	if end < start {
		start, end = end, start
	}
	for start > 0 && start < len(text) && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	ps := strings.LastIndex(text[:start], "\n\n")
	if ps < 0 {
		ps = 0
	} else {
		ps += 2
	}
	pe := strings.Index(text[end:], "\n\n")
	if pe < 0 {
		pe = len(text)
	} else {
		pe += end
	}
	if pe-ps > maxParagraph {
		extra := max(0, maxParagraph-(end-start)) / 2
		ps = max(ps, start-extra)
		pe = min(pe, end+extra)
		for ps > 0 && ps < start && !utf8.RuneStart(text[ps]) {
			ps++
		}
		for pe < len(text) && pe > end && !utf8.RuneStart(text[pe]) {
			pe--
		}
		// Start and end on word boundaries.
		if i := strings.IndexAny(text[ps:start], " \n"); ps > 0 && i >= 0 {
			ps += i + 1
		}
		if i := strings.LastIndexAny(text[end:pe], " \n"); pe < len(text) && i >= 0 {
			pe = end + i
		}
	}
	para := strings.TrimSpace(text[ps:pe])
	if h := headingAbove(text, ps); h != "" && h != para && !strings.HasPrefix(para, "#") {
		return h + "\n\n" + para
	}
	return para
}

// headingAbove returns the last Markdown heading line that ends before
// offset at.
func headingAbove(text string, at int) string {
	lines := strings.Split(text[:at], "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); report.IsHeading(l) {
			return l
		}
	}
	return ""
}
