package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

// Stages recorded in the LLM ledger for the calls of this package.
const (
	StageJudge   = "judge"        // batched cited-statement verdicts
	StageMatch   = "judge_match"  // parity: supporting-passage extraction (A.4.3)
	StageVerify  = "judge_verify" // parity: consistency verification (A.4.4)
	StageExtract = "extract"      // parity: non-cited statement extraction (A.4.2)
)

// LLMJudgeOptions tune an LLMJudge. The zero value means the defaults.
type LLMJudgeOptions struct {
	// MaxClaims is the most claims judged in one call (default 20); a
	// source cited by more is judged in several calls of near-equal size.
	MaxClaims int
	// PassageTokens budgets the source text sent per call, in tokens
	// estimated as bytes/4 like llm.EstimateTokens (default 4000). A source
	// that fits is sent whole; a longer one is cut to its opening and the
	// passages that rank best for the call's claims.
	PassageTokens int
	// PassagesPerClaim is how many ranked passages of each claim compete
	// for the budget (default 3).
	PassagesPerClaim int
	// Window is the number of sentences in a ranked passage (default 3).
	Window int
	// Temperature of every call (default 0, so that answers, and their
	// cache keys, are as repeatable as the provider allows).
	Temperature *float64
	// MaxTokens caps each answer (default: the provider's).
	MaxTokens int
}

func (o LLMJudgeOptions) withDefaults() LLMJudgeOptions {
	if o.MaxClaims <= 0 {
		o.MaxClaims = 20
	}
	if o.PassageTokens <= 0 {
		o.PassageTokens = 4000
	}
	if o.PassagesPerClaim <= 0 {
		o.PassagesPerClaim = 3
	}
	if o.Window <= 0 {
		o.Window = 3
	}
	if o.Temperature == nil {
		zero := 0.0
		o.Temperature = &zero
	}
	return o
}

// LLMJudge judges cited claims with a language model, one call per source:
// the source (whole, or the passages BM25 ranks best for its claims, within
// a token budget) comes first so that providers' prefix caching applies to
// every call about it, and all the claims citing it come after, numbered.
// The answer is JSON, one verdict per claim, each with an evidence quote
// that must occur verbatim in the source (white space and typographic
// punctuation aside): a quote that does not, or a supporting verdict
// without one, is sent back once listing the bad quotes; a second failure
// makes that claim unknown, with the reason. Model errors (after the llm
// layer's retries and re-asks for malformed JSON) are returned as errors,
// never as verdicts. It is safe for concurrent use.
type LLMJudge struct {
	c     *llm.Client
	opt   LLMJudgeOptions
	name  string
	batch *prompts.Prompt
	reask *prompts.Prompt
}

// NewLLMJudge returns a judge calling c.
func NewLLMJudge(c *llm.Client, opt LLMJudgeOptions) (*LLMJudge, error) {
	if c == nil {
		return nil, fmt.Errorf("llm judge: no model client: %w", claimtrace.ErrInvalid)
	}
	batch, err := prompts.Get("judge/cited_batch")
	if err != nil {
		return nil, err
	}
	reask, err := prompts.Get("judge/cited_reask")
	if err != nil {
		return nil, err
	}
	return &LLMJudge{c: c, opt: opt.withDefaults(), name: "llm:" + c.Endpoint().String(), batch: batch, reask: reask}, nil
}

// Name is the Judge field of the verdicts: "llm:" and the endpoint
// ("llm:openai:gpt-4o").
func (j *LLMJudge) Name() string { return j.name }

// verdictSchema is the answer of a batched judge call.
var verdictSchema = &llm.Schema{
	Name:        "verdicts",
	Description: "one verdict per numbered statement",
	Strict:      true,
	JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "verdicts": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "claim": {"type": "integer"},
          "label": {"type": "string", "enum": ["supported", "partial", "unsupported", "contradicted", "unknown"]},
          "strength": {"type": "number"},
          "evidence": {"type": "string"},
          "reason": {"type": "string"}
        },
        "required": ["claim", "label", "strength", "evidence", "reason"],
        "additionalProperties": false
      }
    }
  },
  "required": ["verdicts"],
  "additionalProperties": false
}`),
}

type verdictAnswer struct {
	Verdicts []claimVerdict `json:"verdicts"`
}

type claimVerdict struct {
	Claim    int     `json:"claim"`
	Label    string  `json:"label"`
	Strength float64 `json:"strength"`
	Evidence string  `json:"evidence"`
	Reason   string  `json:"reason"`
}

// judgeBatch is one call: claims idx (indices into the caller's claims)
// and the request asking about them.
type judgeBatch struct {
	idx []int
	req llm.Request
}

// plan splits the claims into batches and builds each first request.
// Claims with no text after cleaning get no call; their verdicts are
// filled in by JudgeSource.
func (j *LLMJudge) plan(source string, claims []string) ([]judgeBatch, []string, error) {
	clean := make([]string, len(claims))
	var live []int
	for i, c := range claims {
		clean[i] = ClaimText(c)
		if clean[i] != "" {
			live = append(live, i)
		}
	}
	if len(live) == 0 || strings.TrimSpace(source) == "" {
		return nil, clean, nil
	}
	n := (len(live) + j.opt.MaxClaims - 1) / j.opt.MaxClaims
	size := (len(live) + n - 1) / n
	budget := 4 * j.opt.PassageTokens
	var ix *passage.Index // only a source over the budget is ranked
	if len(source) > budget {
		ix = passage.NewIndex(source, passage.Options{Window: j.opt.Window})
	}
	var out []judgeBatch
	for start := 0; start < len(live); start += size {
		idx := live[start:min(start+size, len(live))]
		texts := make([]string, len(idx))
		for k, i := range idx {
			texts[k] = clean[i]
		}
		spans, whole := []passage.Span{{Start: 0, End: len(source)}}, true
		if ix != nil {
			spans, whole = selectExcerpts(ix, texts, j.opt.PassagesPerClaim, budget)
		}
		prompt, err := j.batch.Render(map[string]string{
			"Source": renderSource(source, spans, whole),
			"Claims": prompts.Numbered("statement", texts),
		})
		if err != nil {
			return nil, nil, err
		}
		out = append(out, judgeBatch{idx: idx, req: j.request(prompt)})
	}
	return out, clean, nil
}

func (j *LLMJudge) request(prompt string) llm.Request {
	t := *j.opt.Temperature
	return llm.Request{
		Stage:       StageJudge,
		Messages:    []llm.Message{llm.UserMessage(prompt)},
		Schema:      verdictSchema,
		Temperature: &t,
		MaxTokens:   j.opt.MaxTokens,
	}
}

// Requests returns the first-round requests JudgeSource would send for
// these claims, without sending anything: for cost estimates and dry runs
// (llm.Client.Estimate). Re-asks are not included.
func (j *LLMJudge) Requests(source string, claims []string) ([]llm.Request, error) {
	batches, _, err := j.plan(source, claims)
	if err != nil {
		return nil, err
	}
	out := make([]llm.Request, len(batches))
	for i, b := range batches {
		out[i] = b.req
	}
	return out, nil
}

// JudgeSource judges every claim citing source, in order. Verdict URLs are
// left to the caller; every Evidence is a verbatim substring of source.
func (j *LLMJudge) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	batches, clean, err := j.plan(source, claims)
	if err != nil {
		return nil, err
	}
	out := make([]claimtrace.Verdict, len(claims))
	for i := range out {
		out[i] = claimtrace.Verdict{Label: claimtrace.Unknown, Judge: j.name, Reason: "statement has no text to judge"}
		if clean[i] != "" {
			out[i].Reason = "source has no text"
		}
	}
	qi := newQuoteIndex(source)
	for _, b := range batches {
		if err := j.judgeBatch(ctx, source, qi, b, out); err != nil {
			return nil, fmt.Errorf("llm judge %s: claims %s: %w", j.c.Endpoint(), prompts.Range(b.idx), err)
		}
	}
	return out, nil
}

func (j *LLMJudge) judgeBatch(ctx context.Context, source string, qi *quoteIndex, b judgeBatch, out []claimtrace.Verdict) error {
	var ans verdictAnswer
	resp, err := j.c.GenerateJSON(ctx, b.req, &ans)
	if err != nil {
		return err
	}
	want := make([]int, len(b.idx)) // claim numbers in the prompt, 1-based
	for k := range want {
		want[k] = k + 1
	}
	got, problems := j.review(source, qi, ans, want)
	for n, v := range got {
		out[b.idx[n-1]] = v
	}
	if len(problems) == 0 {
		return nil
	}

	again := make([]int, 0, len(problems))
	for n := range problems {
		again = append(again, n)
	}
	slices.Sort(again)
	var lines, nums []string
	for _, n := range again {
		lines = append(lines, fmt.Sprintf("- statement %d: %s", n, problems[n]))
		nums = append(nums, strconv.Itoa(n))
	}
	text, err := j.reask.Render(map[string]string{"Problems": strings.Join(lines, "\n"), "Numbers": strings.Join(nums, ", ")})
	if err != nil {
		return err
	}
	req := b.req
	req.Messages = append(slices.Clip(b.req.Messages), llm.AssistantMessage(resp.Text), llm.UserMessage(text))
	var ans2 verdictAnswer
	if _, err := j.c.GenerateJSON(ctx, req, &ans2); err != nil {
		return fmt.Errorf("re-ask about statements %s: %w", strings.Join(nums, ", "), err)
	}
	got, problems2 := j.review(source, qi, ans2, again)
	for n, v := range got {
		out[b.idx[n-1]] = v
	}
	for n, p := range problems2 {
		out[b.idx[n-1]] = claimtrace.Verdict{Label: claimtrace.Unknown, Judge: j.name,
			Reason: "no verifiable verdict after a re-ask: " + p}
	}
	return nil
}

// review turns the answer's verdicts for the claim numbers in want into
// verdicts, and lists what is wrong with the others: no verdict, a
// supporting label without evidence, evidence not found in the source.
// The first verdict given for a number counts.
func (j *LLMJudge) review(source string, qi *quoteIndex, ans verdictAnswer, want []int) (map[int]claimtrace.Verdict, map[int]string) {
	wanted := make(map[int]bool, len(want))
	for _, n := range want {
		wanted[n] = true
	}
	got := make(map[int]claimtrace.Verdict)
	problems := make(map[int]string)
	seen := make(map[int]bool)
	for _, a := range ans.Verdicts {
		if !wanted[a.Claim] || seen[a.Claim] {
			continue
		}
		seen[a.Claim] = true
		v, problem := j.verdict(source, qi, a)
		if problem != "" {
			problems[a.Claim] = problem
			continue
		}
		got[a.Claim] = v
	}
	for _, n := range want {
		if !seen[n] {
			problems[n] = "no verdict was given"
		}
	}
	return got, problems
}

// verdict checks one answered verdict; problem is non-empty when it
// cannot be accepted.
func (j *LLMJudge) verdict(source string, qi *quoteIndex, a claimVerdict) (claimtrace.Verdict, string) {
	v := claimtrace.Verdict{Label: claimtrace.Label(a.Label), Strength: min(max(a.Strength, 0), 1), Reason: prompts.OneLine(a.Reason), Judge: j.name}
	switch v.Label {
	case claimtrace.Supported, claimtrace.Partial, claimtrace.Contradicted, claimtrace.Unsupported, claimtrace.Unknown:
	default:
		return v, fmt.Sprintf("label %q is not one of supported, partial, unsupported, contradicted, unknown", a.Label)
	}
	if v.Label == claimtrace.Unknown || v.Label == claimtrace.Contradicted {
		v.Strength = 0
	}
	quote := strings.TrimSpace(a.Evidence)
	if quote == "" || normalizeQuote(quote) == "" {
		if v.Label == claimtrace.Supported || v.Label == claimtrace.Partial || v.Label == claimtrace.Contradicted {
			return v, fmt.Sprintf("the label %q needs an evidence passage copied from the source, and none was given", a.Label)
		}
		return v, ""
	}
	start, end, ok := qi.find(quote)
	if !ok {
		return v, fmt.Sprintf("the evidence %q does not occur in the source", truncateQuote(quote, 300))
	}
	v.Evidence = source[start:end]
	return v, ""
}

// truncateQuote shortens a quote for a message, on a rune boundary.
func truncateQuote(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncateBytes(s, n) + "…"
}
