package judge

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

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
