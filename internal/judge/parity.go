package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/report"
)

// Prompt families a judge can be built with.
const (
	// PromptsClaimtrace are our batched prompts (templates judge/…), the
	// default.
	PromptsClaimtrace = "claimtrace"
	// PromptsReportBench are the ReportBench paper's prompts (A.4,
	// templates reportbench/…) in the released code's flow, one call per
	// (statement, source) pair, for parity studies.
	PromptsReportBench = "reportbench"
)

// Limits of the released ReportBench code, mirrored in parity mode.
const (
	// ParitySourceBytes is how much of a source the released matcher
	// sends (match_text.py: the first 262,144 characters).
	ParitySourceBytes = 262144
	// ParityBlockBytes is the report block size of the released
	// extraction (split_text_by_headers, 16,384 characters).
	ParityBlockBytes = 16384
	// parityMaxTokens is the released judge's max_tokens (config.py).
	parityMaxTokens = 8192
)

// ReportBenchJudge runs the ReportBench paper's cited-statement prompts
// as the released code does, for parity studies: for each (statement,
// source) pair one call extracts the supporting passage from the source
// (A.4.3: statement first, then up to ParitySourceBytes of source), and a
// second call verifies the statement against that passage (A.4.4:
// {reason, match}). Nothing is batched and nothing is re-ranked. The
// statement is the claim without its citation markers, as the released
// LLM extraction (A.4.1) hands it on.
//
// What it does not copy: the answers are decoded strictly (the string
// "false" is not a match, unlike the released bool(data["match"])), a
// failed call is an error rather than a silently dropped row, and the
// extracted passage becomes the verdict's evidence only when it occurs
// verbatim in the source (the released code never checks; the reason says
// when it does not). Verdicts are binary, supported (strength 1) or
// unsupported (strength 0), and their Judge field starts with
// "reportbench:" to mark parity mode.
type ReportBenchJudge struct {
	c       *llm.Client
	name    string
	temp    float64
	match   *prompts.Prompt
	verify  *prompts.Prompt
	extract *prompts.Prompt
}

// NewReportBenchJudge returns a parity-mode judge calling c at temperature
// 0, the released code's setting.
func NewReportBenchJudge(c *llm.Client) (*ReportBenchJudge, error) {
	if c == nil {
		return nil, fmt.Errorf("reportbench judge: no model client: %w", claimtrace.ErrInvalid)
	}
	j := &ReportBenchJudge{c: c, name: "reportbench:" + c.Endpoint().String()}
	for _, p := range []struct {
		dst  **prompts.Prompt
		name string
	}{{&j.match, "reportbench/source_extraction"}, {&j.verify, "reportbench/consistency_verification"}, {&j.extract, "reportbench/noncited_extraction"}} {
		var err error
		if *p.dst, err = prompts.Get(p.name); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Name is the Judge field of the verdicts: "reportbench:" and the
// endpoint.
func (j *ReportBenchJudge) Name() string { return j.name }

func (j *ReportBenchJudge) request(stage, prompt string) llm.Request {
	t := j.temp
	return llm.Request{Stage: stage, Messages: []llm.Message{llm.UserMessage(prompt)}, Temperature: &t, MaxTokens: parityMaxTokens}
}

// consistency is the A.4.4 answer.
type consistency struct {
	Reason string `json:"reason"`
	Match  bool   `json:"match"`
}

// JudgeSource judges each claim against source with two calls per claim,
// in order.
func (j *ReportBenchJudge) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	src := truncateBytes(source, ParitySourceBytes)
	qi := newQuoteIndex(source)
	out := make([]claimtrace.Verdict, len(claims))
	for i, claim := range claims {
		statement := ClaimText(claim)
		p, err := j.match.Render(map[string]string{"Statement": statement, "SourceText": src})
		if err != nil {
			return nil, err
		}
		resp, err := j.c.Generate(ctx, j.request(StageMatch, p))
		if err != nil {
			return nil, fmt.Errorf("reportbench judge %s: claim %d: match: %w", j.c.Endpoint(), i+1, err)
		}
		extracted := strings.TrimSpace(resp.Text)
		p, err = j.verify.Render(map[string]string{"Statement": statement, "SourceSentence": extracted})
		if err != nil {
			return nil, err
		}
		var ans consistency
		if _, err := j.c.GenerateJSON(ctx, j.request(StageVerify, p), &ans); err != nil {
			return nil, fmt.Errorf("reportbench judge %s: claim %d: verify: %w", j.c.Endpoint(), i+1, err)
		}
		v := claimtrace.Verdict{Label: claimtrace.Unsupported, Reason: prompts.OneLine(ans.Reason), Judge: j.name}
		if ans.Match {
			v.Label, v.Strength = claimtrace.Supported, 1
		}
		switch start, end, ok := qi.find(extracted); {
		case strings.Trim(extracted, "`") == "NOT_FOUND":
			v.Reason += " [extraction: NOT_FOUND]"
		case ok:
			v.Evidence = source[start:end]
		default:
			v.Reason += " [the extracted passage does not occur verbatim in the source]"
		}
		out[i] = v
	}
	return out, nil
}

// CitedStatement is one (statement, URL) pair as the released extraction
// lists it, the input of non-cited extraction.
type CitedStatement struct {
	Statement string `json:"statement"`
	URL       string `json:"url"`
}

// ExtractNonCited runs the paper's non-cited statement extraction (A.4.2)
// as the released code does: the report in blocks of at most
// ParityBlockBytes cut at Markdown headings, one call per block, the full
// list of cited statements resent with each. Statements are returned in
// order, duplicates removed. Unlike the released splitter it cuts an
// oversized section at paragraph breaks instead of sending it whole, and
// never drops a block.
func (j *ReportBenchJudge) ExtractNonCited(ctx context.Context, report string, cited []CitedStatement) ([]string, error) {
	if cited == nil {
		cited = []CitedStatement{}
	}
	reqs, err := j.ExtractNonCitedRequests(report, cited)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := make(map[string]bool)
	for b, req := range reqs {
		var ans []struct {
			Statement string `json:"statement"`
		}
		if _, err := j.c.GenerateJSON(ctx, req, &ans); err != nil {
			return nil, fmt.Errorf("extract non-cited %s: block %d: %w", j.c.Endpoint(), b+1, err)
		}
		for _, a := range ans {
			s := strings.TrimSpace(a.Statement)
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// ExtractNonCitedRequests returns the requests ExtractNonCited sends for
// report, one a block, for estimates.
func (j *ReportBenchJudge) ExtractNonCitedRequests(report string, cited []CitedStatement) ([]llm.Request, error) {
	if cited == nil {
		cited = []CitedStatement{}
	}
	list, err := json.Marshal(cited)
	if err != nil {
		return nil, fmt.Errorf("extract non-cited: %w", err)
	}
	var reqs []llm.Request
	for _, block := range splitBlocks(report, ParityBlockBytes) {
		p, err := j.extract.Render(map[string]string{"Report": block, "CitedStatements": string(list)})
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, j.request(StageExtract, p))
	}
	return reqs, nil
}

// splitBlocks cuts text into blocks of at most limit bytes, at Markdown
// heading lines where possible, else at blank lines, else at line ends,
// else at a rune boundary. Blocks of only white space are dropped; the
// others concatenate to the text.
func splitBlocks(text string, limit int) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" {
			out = append(out, cur.String())
		}
		cur.Reset()
	}
	for _, sec := range cutBefore(text, report.IsHeading) {
		if cur.Len()+len(sec) > limit {
			flush()
		}
		if len(sec) <= limit {
			cur.WriteString(sec)
			continue
		}
		for _, piece := range splitOversized(sec, limit) {
			if cur.Len()+len(piece) > limit {
				flush()
			}
			cur.WriteString(piece)
		}
	}
	flush()
	return out
}

// splitOversized cuts a section longer than limit at paragraph breaks, line
// ends, then rune boundaries.
func splitOversized(sec string, limit int) []string {
	var out []string
	for _, para := range strings.SplitAfter(sec, "\n\n") {
		for len(para) > limit {
			cut := strings.LastIndexByte(para[:limit], '\n') + 1
			if cut <= 0 {
				cut = limit
				for cut > 0 && !utf8.RuneStart(para[cut]) {
					cut--
				}
				if cut == 0 {
					cut = limit
				}
			}
			out = append(out, para[:cut])
			para = para[cut:]
		}
		if para != "" {
			out = append(out, para)
		}
	}
	return out
}

// cutBefore splits text before every line for which start is true.
func cutBefore(text string, start func(line string) bool) []string {
	var out []string
	from := 0
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += i + 1
		}
		if i > from && start(text[i:end]) {
			out = append(out, text[from:i])
			from = i
		}
		i = end
	}
	if from < len(text) {
		out = append(out, text[from:])
	}
	return out
}

// truncateBytes cuts s to at most n bytes on a rune boundary.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
