package judge

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/llm"
)

var update = flag.Bool("update", false, "rewrite the golden request files in testdata/requests")

// offlineClient is a client that is never called: requests are only built.
func offlineClient(p llm.Provider, model string) *llm.Client {
	return llm.NewClient(llm.Endpoint{Provider: p, Model: model}, nil, llm.Options{})
}

// dumpRequest renders a request for a golden file.
func dumpRequest(r llm.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "stage: %s\n", r.Stage)
	if r.Temperature != nil {
		fmt.Fprintf(&b, "temperature: %g\n", *r.Temperature)
	}
	if r.MaxTokens > 0 {
		fmt.Fprintf(&b, "max_tokens: %d\n", r.MaxTokens)
	}
	if r.WebSearch {
		b.WriteString("web_search: true\n")
	}
	if r.CacheTag != "" {
		fmt.Fprintf(&b, "cache_tag: %s\n", r.CacheTag)
	}
	if r.Schema != nil {
		fmt.Fprintf(&b, "schema: %s (strict %v) %s\n", r.Schema.Name, r.Schema.Strict, strings.Join(strings.Fields(string(r.Schema.JSON)), " "))
	}
	if r.System != "" {
		fmt.Fprintf(&b, "--- system\n%s\n", r.System)
	}
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "--- %s\n%s\n", m.Role, m.Content)
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "requests", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// TestRequestGolden pins the exact requests each component builds from
// fixed data: prompt text, order of source and claims, schema,
// temperature, web search and cache tag.
func TestRequestGolden(t *testing.T) {
	gpt := offlineClient(llm.OpenAI, "gpt-4o")
	gemini := offlineClient(llm.Gemini, "gemini-2.5-pro")
	cutoff := time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)
	para := "## Retrieval-augmented generation\n\nRAG couples a retriever with a generator. The first RAG model used a BART-large generator."
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
		"check_worthy": func() ([]llm.Request, error) {
			w, err := NewLLMCheckWorthy(gpt, CheckWorthyOptions{})
			if err != nil {
				return nil, err
			}
			return w.Requests([]string{"The first RAG model used a BART-large generator.", "Retrieval is an exciting research direction."})
		},
		"fact_check_web": func() ([]llm.Request, error) {
			w, err := NewWebChecker(gemini, FactCheckOptions{})
			if err != nil {
				return nil, err
			}
			r, err := w.Request(FactQuery{Claim: "The first RAG model used a BART-large generator.", Context: para, Cutoff: cutoff, Vote: 3})
			return []llm.Request{r}, err
		},
		"fact_check_web_reportbench": func() ([]llm.Request, error) {
			w, err := NewWebChecker(gemini, FactCheckOptions{Prompts: PromptsReportBench})
			if err != nil {
				return nil, err
			}
			r, err := w.Request(FactQuery{Claim: "The first RAG model used a BART-large generator.", Context: para, Cutoff: cutoff, Vote: 1})
			return []llm.Request{r}, err
		},
		"fact_check_search": func() ([]llm.Request, error) {
			sc, err := NewSearchChecker(gpt, &fakeSearch{}, "brave", 5, FactCheckOptions{})
			if err != nil {
				return nil, err
			}
			r, err := sc.Request(FactQuery{Claim: "The first RAG model used a BART-large generator.", Context: para, Vote: 2},
				[]SearchResult{{Title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", URL: "https://arxiv.org/abs/2005.11401", Snippet: "We use BART-large as the generator."}})
			return []llm.Request{r}, err
		},
		"entail": func() ([]llm.Request, error) {
			e, err := NewLLMEntailer(gpt)
			if err != nil {
				return nil, err
			}
			r, err := e.Request("GPT-4 was released in March 2023.", "GPT-4 was released in 2022.")
			return []llm.Request{r}, err
		},
	}
	for name, f := range build {
		t.Run(name, func(t *testing.T) {
			reqs, err := f()
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, r := range reqs {
				fmt.Fprintf(&b, "=== request %d\n%s", i+1, dumpRequest(r))
			}
			checkGolden(t, name, b.String())
		})
	}
}
