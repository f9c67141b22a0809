package judge

import (
	"flag"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden request files in testdata/requests")

// TestRequestGolden pins the exact requests the LLM judge builds from
// fixed data: prompt text, order of source and claims, schema and
// temperature.
func TestRequestGolden(t *testing.T) {
	gpt := llmtest.OfflineClient(llm.OpenAI, "gpt-4o")
	build := map[string]func() ([]llm.Request, error){
		"judge_whole_source": func() ([]llm.Request, error) {
			j, err := NewLLMJudge(gpt, LLMJudgeOptions{})
			if err != nil {
				return nil, err
			}
			return j.Requests(transformerAbstract, transformerClaims)
		},
		"judge_excerpts": func() ([]llm.Request, error) {
			j, err := NewLLMJudge(gpt, LLMJudgeOptions{PassageTokens: 400})
			if err != nil {
				return nil, err
			}
			return j.Requests(longSource(), []string{"Worldwide semiconductor revenue reached 527 billion dollars in 2023 [[2]](https://www.semiconductors.org/x).", "Memory chip sales fell 37 percent."})
		},
	}
	for name, f := range build {
		t.Run(name, func(t *testing.T) {
			reqs, err := f()
			if err != nil {
				t.Fatal(err)
			}
			llmtest.CheckRequests(t, name, *update, reqs)
		})
	}
}
