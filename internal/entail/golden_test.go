package entail

import (
	"flag"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden request files in testdata/requests")

// TestRequestGolden pins the exact request the entailer builds for a
// sentence pair: prompt text, schema and temperature.
func TestRequestGolden(t *testing.T) {
	e, err := NewLLM(llmtest.OfflineClient(llm.OpenAI, "gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Request("GPT-4 was released in March 2023.", "GPT-4 was released in 2022.")
	if err != nil {
		t.Fatal(err)
	}
	llmtest.CheckRequests(t, "entail", *update, []llm.Request{r})
}
