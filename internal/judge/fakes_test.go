package judge

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// fakeEndpoint is an endpoint of the fake server speaking protocol p.
func fakeEndpoint(srv *llmtest.Server, p llm.Provider, model string) llm.Endpoint {
	ep := llm.Endpoint{Name: string(p) + ":" + model, Provider: p, Model: model, BaseURL: srv.URL, APIKey: "test-key", Timeout: 5 * time.Second}
	if p == llm.OpenAI {
		ep.BaseURL, ep.API = srv.OpenAIBaseURL(), llm.APIChat
	}
	return ep
}

// fakeClient returns a client of the fake server that retries without
// waiting.
func fakeClient(t testing.TB, srv *llmtest.Server, p llm.Provider, model string, opts llm.Options) *llm.Client {
	t.Helper()
	opts.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	if opts.Retry.MaxAttempts == 0 {
		opts.Retry.MaxAttempts = 2
	}
	c, err := llm.Open(context.Background(), fakeEndpoint(srv, p, model), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// chatBody is the part of an OpenAI chat request the tests read.
type chatBody struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Temperature    *float64        `json:"temperature"`
	MaxTokens      *int            `json:"max_tokens"`
	ResponseFormat json.RawMessage `json:"response_format"`
}

func decodeChat(t testing.TB, c llmtest.Call) chatBody {
	t.Helper()
	var b chatBody
	if err := json.Unmarshal(c.Body, &b); err != nil {
		t.Fatalf("request body: %v\n%s", err, c.Body)
	}
	return b
}

var (
	statementRE = regexp.MustCompile(`<statement n="(\d+)">(.*)</statement>`)
	sourceRE    = regexp.MustCompile(`(?s)(?:<source>\n(.*?)\n</source>|<excerpt n="\d+">\n(.*?)\n</excerpt>)`)
)

// statements returns the numbered statements of a prompt, in order.
func statements(prompt string) []string {
	var out []string
	for _, m := range statementRE.FindAllStringSubmatch(prompt, -1) {
		out = append(out, m[2])
	}
	return out
}

// shownSource returns the source text shown in a judge prompt.
func shownSource(prompt string) string {
	var parts []string
	for _, m := range sourceRE.FindAllStringSubmatch(prompt, -1) {
		parts = append(parts, m[1]+m[2])
	}
	return strings.Join(parts, "\n")
}

// verdictJSON renders a judge answer.
func verdictJSON(vs ...claimVerdict) string {
	b, _ := json.Marshal(verdictAnswer{Verdicts: vs})
	return string(b)
}

// oracleJudge answers judge prompts like a careful model would on easy
// cases: a statement whose content words all occur in one sentence of the
// shown source is supported, quoting that sentence with its white space
// re-flowed; one with a word marked as contradicting (contra) is
// contradicted; else unsupported. Other prompts get "ok".
func oracleJudge(contra map[string]string) func(ctx context.Context, c llmtest.Call) llmtest.Reply {
	return func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		src := shownSource(c.Prompt)
		var vs []claimVerdict
		for i, st := range statements(c.Prompt) {
			v := claimVerdict{Claim: i + 1, Label: "unsupported", Strength: 0.1, Reason: "not in the source"}
			for _, sent := range splitSentences(src) {
				if covers(sent, st) {
					v = claimVerdict{Claim: i + 1, Label: "supported", Strength: 0.9, Evidence: strings.Join(strings.Fields(sent), " "), Reason: "stated"}
					break
				}
				for w, anti := range contra {
					if strings.Contains(st, w) && strings.Contains(sent, anti) {
						v = claimVerdict{Claim: i + 1, Label: "contradicted", Strength: 0, Evidence: sent, Reason: "the source says " + anti}
					}
				}
			}
			vs = append(vs, v)
		}
		if vs == nil {
			return llmtest.Text("ok")
		}
		return llmtest.Text(verdictJSON(vs...))
	}
}

func splitSentences(s string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`(?s).*?(?:[.!?](?:\s+|$)|$)`).FindAllString(s, -1) {
		if strings.TrimSpace(p) != "" {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// covers reports whether every word of four letters or more of claim
// occurs in sent.
func covers(sent, claim string) bool {
	lower := strings.ToLower(sent)
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(claim), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		if len(w) < 4 {
			continue
		}
		n++
		if !strings.Contains(lower, w) {
			return false
		}
	}
	return n > 0
}

// scriptedChecker is a FactChecker answering from a list, one answer per
// vote number; an entry with Err set fails.
type scriptedChecker struct {
	name  string
	votes map[int]claimtrace.Vote // by vote number
	mu    sync.Mutex
	asked []int
}

func (s *scriptedChecker) Check(ctx context.Context, q FactQuery) (claimtrace.Vote, error) {
	s.mu.Lock()
	s.asked = append(s.asked, q.Vote)
	s.mu.Unlock()
	v, ok := s.votes[q.Vote]
	if !ok {
		return claimtrace.Vote{Checker: s.name}, context.DeadlineExceeded
	}
	if v.Err != "" {
		return claimtrace.Vote{Checker: s.name}, errString(v.Err)
	}
	v.Checker = s.name
	return v, nil
}

func (s *scriptedChecker) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.asked)
}

type errString string

func (e errString) Error() string { return string(e) }
