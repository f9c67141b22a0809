package judge

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

// StageMiniCheck is the ledger stage of MiniCheck's calls.
const StageMiniCheck = "judge_minicheck"

// MiniCheckOptions tune a MiniCheck judge. The zero value means the
// defaults.
type MiniCheckOptions struct {
	// ChunkTokens caps the document sent in one call, in tokens estimated
	// as bytes/4 (default 3000, which with the prompt and a claim fits a
	// 4,096-token context: Ollama's default; vLLM serves the model's 32k,
	// where larger chunks mean fewer calls). A longer source is cut into
	// chunks at sentence ends and the claim's probability is the largest
	// over them, as MiniCheck's own code does.
	ChunkTokens int
	// MaxChunks caps the chunks a claim is checked against (default 4):
	// those of a longer source holding the passages BM25 ranks best for
	// the claim.
	MaxChunks int
	// Threshold is the probability of "Yes" above which a claim is
	// supported (default 0.5, MiniCheck's).
	Threshold float64
}

func (o MiniCheckOptions) withDefaults() MiniCheckOptions {
	o.ChunkTokens = cmp.Or(o.ChunkTokens, 3000)
	o.MaxChunks = cmp.Or(o.MaxChunks, 4)
	if o.Threshold <= 0 || o.Threshold >= 1 {
		o.Threshold = 0.5
	}
	return o
}

// minicheckLogprobs is how many alternatives MiniCheck reads at the
// answer's first token (its reference code asks vLLM for 5).
const minicheckLogprobs = 5

// MiniCheck judges cited claims with Bespoke-MiniCheck-7B (Tang, Laban
// and Durrett, EMNLP 2024; bespokelabs/Bespoke-MiniCheck-7B), a grounded
// fact-checking model users serve locally through an OpenAI-compatible
// server (vLLM, Ollama). It sends the model its own training prompt — its
// system prompt, then "Document: …\nClaim: …" — one claim per call, every
// claim about a document right after the other so that the server's prefix
// cache holds the document; the answer is one token, "Yes" or "No". The
// claim's probability of support is the probability mass of "Yes" among
// the first token's likeliest alternatives when the server returns
// logprobs (vLLM; recent Ollama), else 1 for "Yes" and 0 for "No". Above
// Threshold the verdict is supported, else unsupported, with the
// probability as its strength: MiniCheck tells support from its absence,
// never contradiction. The model quotes nothing; a supported verdict's
// evidence is the passage of its best chunk that BM25 ranks first for the
// claim, said so in the reason. An answer that is neither Yes nor No
// makes the claim unknown; model errors are returned. It is safe for
// concurrent use.
type MiniCheck struct {
	c      *llm.Client
	opt    MiniCheckOptions
	name   string
	system string
	user   *prompts.Prompt
}

// NewMiniCheck returns a MiniCheck judge calling c.
func NewMiniCheck(c *llm.Client, opt MiniCheckOptions) (*MiniCheck, error) {
	if c == nil {
		return nil, fmt.Errorf("minicheck judge: no model client: %w", claimtrace.ErrInvalid)
	}
	sys, err := prompts.Get("judge/minicheck_system")
	if err != nil {
		return nil, err
	}
	system, err := sys.Render(nil)
	if err != nil {
		return nil, err
	}
	user, err := prompts.Get("judge/minicheck")
	if err != nil {
		return nil, err
	}
	return &MiniCheck{c: c, opt: opt.withDefaults(), name: "minicheck:" + c.Endpoint().String(),
		system: strings.TrimSuffix(system, "\n"), user: user}, nil
}

// Name is the Judge field of the verdicts: "minicheck:" and the endpoint
// ("minicheck:openai:bespoke-minicheck").
func (j *MiniCheck) Name() string { return j.name }

// minicheckCall is one (chunk, claim) call of a plan.
type minicheckCall struct {
	chunk, claim int
	req          llm.Request
}

// minicheckPlan is what JudgeSource sends for one source.
type minicheckPlan struct {
	chunks []passage.Span
	calls  []minicheckCall
	clean  []string
	ix     *passage.Index
}

// plan cuts the source into chunks, chooses each claim's chunks and builds
// the calls, chunk by chunk so that a document's calls follow each other.
func (j *MiniCheck) plan(source string, claims []string) (minicheckPlan, error) {
	p := minicheckPlan{clean: make([]string, len(claims))}
	live := false
	for i, c := range claims {
		p.clean[i] = ClaimText(c)
		live = live || p.clean[i] != ""
	}
	if !live || strings.TrimSpace(source) == "" {
		return p, nil
	}
	p.ix = passage.NewIndex(source, passage.Options{})
	p.chunks = chunkSentences(p.ix.Sentences(), 4*j.opt.ChunkTokens)
	if len(p.chunks) == 0 {
		return p, nil
	}
	wanted := make([][]bool, len(p.chunks)) // wanted[chunk][claim]
	for k := range wanted {
		wanted[k] = make([]bool, len(claims))
	}
	for i, c := range p.clean {
		if c == "" {
			continue
		}
		for _, k := range j.chunksFor(p, c) {
			wanted[k][i] = true
		}
	}
	for k, ch := range p.chunks {
		for i, want := range wanted[k] {
			if !want {
				continue
			}
			text, err := j.user.Render(map[string]string{"Document": source[ch.Start:ch.End], "Claim": p.clean[i]})
			if err != nil {
				return p, err
			}
			zero := 0.0
			req := llm.Request{
				Stage: StageMiniCheck, System: j.system, Messages: []llm.Message{llm.UserMessage(strings.TrimSuffix(text, "\n"))},
				Temperature: &zero, MaxTokens: 1, TopLogprobs: minicheckLogprobs,
			}
			p.calls = append(p.calls, minicheckCall{chunk: k, claim: i, req: req})
		}
	}
	return p, nil
}

// chunksFor lists the chunks a claim is checked against: all of them, or
// for a source of more than MaxChunks, those holding the passages ranked
// best for the claim, in document order.
func (j *MiniCheck) chunksFor(p minicheckPlan, claim string) []int {
	if len(p.chunks) <= j.opt.MaxChunks {
		out := make([]int, len(p.chunks))
		for k := range out {
			out[k] = k
		}
		return out
	}
	var out []int
	for _, ps := range p.ix.Rank(claim, 4*j.opt.MaxChunks) {
		k := chunkOf(p.chunks, ps.Start)
		if k >= 0 && !slices.Contains(out, k) {
			out = append(out, k)
		}
		if len(out) == j.opt.MaxChunks {
			break
		}
	}
	if len(out) == 0 { // nothing shares a word with the claim: the opening
		out = append(out, 0)
	}
	slices.Sort(out)
	return out
}

// chunkSentences groups consecutive sentences into chunks of at most
// budget bytes each (a longer sentence is a chunk of its own).
func chunkSentences(sents []passage.Span, budget int) []passage.Span {
	var out []passage.Span
	for _, s := range sents {
		if n := len(out); n > 0 && s.End-out[n-1].Start <= budget {
			out[n-1].End = s.End
			continue
		}
		out = append(out, s)
	}
	return out
}

// chunkOf returns the index of the chunk holding byte offset at, or -1.
func chunkOf(chunks []passage.Span, at int) int {
	for k, c := range chunks {
		if c.Start <= at && at < c.End {
			return k
		}
	}
	return -1
}

// Requests returns the requests JudgeSource would send for these claims,
// without sending anything (dry runs, cost estimates).
func (j *MiniCheck) Requests(source string, claims []string) ([]llm.Request, error) {
	p, err := j.plan(source, claims)
	if err != nil {
		return nil, err
	}
	out := make([]llm.Request, len(p.calls))
	for i, c := range p.calls {
		out[i] = c.req
	}
	return out, nil
}

// minicheckScore is one claim's best answer so far.
type minicheckScore struct {
	prob     float64
	chunk    int
	answered bool
	logprobs bool
	odd      string // an answer that was neither Yes nor No
}

// JudgeSource judges every claim citing source, in order. Every Evidence
// is a verbatim substring of source.
func (j *MiniCheck) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	p, err := j.plan(source, claims)
	if err != nil {
		return nil, err
	}
	scores := make([]minicheckScore, len(claims))
	for _, c := range p.calls {
		resp, err := j.c.Generate(ctx, c.req)
		if err != nil {
			return nil, fmt.Errorf("minicheck judge %s: claim %d, chunk %d of %d: %w", j.c.Endpoint(), c.claim+1, c.chunk+1, len(p.chunks), err)
		}
		prob, fromLogprobs, ok := supportProbability(resp)
		s := &scores[c.claim]
		if !ok {
			if s.odd == "" {
				s.odd = resp.Text
			}
			continue
		}
		if !s.answered || prob > s.prob {
			s.prob, s.chunk = prob, c.chunk
		}
		s.answered = true
		s.logprobs = s.logprobs || fromLogprobs
	}
	out := make([]claimtrace.Verdict, len(claims))
	for i := range claims {
		out[i] = j.verdict(p, i, scores[i])
	}
	return out, nil
}

// verdict turns a claim's best answer into its verdict.
func (j *MiniCheck) verdict(p minicheckPlan, i int, s minicheckScore) claimtrace.Verdict {
	v := claimtrace.Verdict{Label: claimtrace.Unknown, Judge: j.name}
	switch {
	case p.clean[i] == "":
		v.Reason = "statement has no text to judge"
		return v
	case len(p.chunks) == 0:
		v.Reason = "source has no text"
		return v
	case !s.answered:
		v.Reason = fmt.Sprintf("MiniCheck answered %q, neither Yes nor No", truncateQuote(strings.TrimSpace(s.odd), 80))
		return v
	}
	how := "P(Yes) from the server's logprobs"
	if !s.logprobs {
		how = "the answer alone (the server gave no logprobs: 1 for Yes, 0 for No)"
	}
	where := ""
	if len(p.chunks) > 1 {
		where = fmt.Sprintf(", best of %d chunks (chunk %d)", len(p.chunks), s.chunk+1)
	}
	v.Strength = s.prob
	if s.prob <= j.opt.Threshold {
		v.Label = claimtrace.Unsupported
		v.Reason = fmt.Sprintf("MiniCheck: the document does not substantiate the claim (%.3f by %s%s)", s.prob, how, where)
		return v
	}
	v.Label = claimtrace.Supported
	v.Reason = fmt.Sprintf("MiniCheck: the document substantiates the claim (%.3f by %s%s); the quote is the passage BM25 ranks first for the claim, not the model's", s.prob, how, where)
	ch := p.chunks[s.chunk]
	for _, ps := range p.ix.Rank(p.clean[i], 8) {
		if ps.Start >= ch.Start && ps.End <= ch.End {
			v.Evidence = p.ix.Text()[ps.Start:ps.End]
			break
		}
	}
	return v
}

// supportProbability reads MiniCheck's answer: the probability mass of
// "Yes" (any case, spaces trimmed) among the first token's alternatives
// when the answer has logprobs; without alternatives, the first token's
// own probability (its complement for "No"); without logprobs, 1 for an
// answer whose first word is Yes and 0 for No. ok is false
// for anything else.
func supportProbability(r llm.Response) (prob float64, fromLogprobs, ok bool) {
	if len(r.Logprobs) > 0 {
		first := r.Logprobs[0]
		if len(first.Top) > 0 {
			for _, t := range first.Top {
				if isWord(t.Token, "yes") {
					prob += math.Exp(t.Logprob)
				}
			}
			return min(prob, 1), true, true
		}
		switch {
		case isWord(first.Token, "yes"):
			return math.Exp(first.Logprob), true, true
		case isWord(first.Token, "no"):
			return 1 - math.Exp(first.Logprob), true, true
		}
	}
	words := strings.FieldsFunc(r.Text, func(c rune) bool { return !unicode.IsLetter(c) })
	switch {
	case len(words) == 0:
	case isWord(words[0], "yes"):
		return 1, false, true
	case isWord(words[0], "no"):
		return 0, false, true
	}
	return 0, false, false
}

// isWord reports whether a token is the word w, ignoring case and spaces.
func isWord(token, w string) bool { return strings.EqualFold(strings.TrimSpace(token), w) }
