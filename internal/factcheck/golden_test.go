package factcheck

import (
	"flag"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden request files in testdata/requests")

// TestRequestGolden pins the exact requests the check-worthiness
// classifier and the fact-checkers build from fixed data: prompt text,
// schema, temperature, web search and cache tag.
func TestRequestGolden(t *testing.T) {
	gpt := llmtest.OfflineClient(llm.OpenAI, "gpt-4o")
	gemini := llmtest.OfflineClient(llm.Gemini, "gemini-2.5-pro")
	cutoff := time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)
	para := "## Retrieval-augmented generation\n\nRAG couples a retriever with a generator. The first RAG model used a BART-large generator."
	build := map[string]func() ([]llm.Request, error){
		"check_worthy": func() ([]llm.Request, error) {
			w, err := NewLLMCheckWorthy(gpt, CheckWorthyOptions{})
			if err != nil {
				return nil, err
			}
			return w.Requests([]string{"The first RAG model used a BART-large generator.", "Retrieval is an exciting research direction."})
		},
		"fact_check_web": func() ([]llm.Request, error) {
			w, err := NewWebChecker(gemini, Options{})
			if err != nil {
				return nil, err
			}
			r, err := w.Request(Query{Claim: "The first RAG model used a BART-large generator.", Context: para, Cutoff: cutoff, Vote: 3})
			return []llm.Request{r}, err
		},
		"fact_check_web_reportbench": func() ([]llm.Request, error) {
			w, err := NewWebChecker(gemini, Options{Prompts: judge.PromptsReportBench})
			if err != nil {
				return nil, err
			}
			r, err := w.Request(Query{Claim: "The first RAG model used a BART-large generator.", Context: para, Cutoff: cutoff, Vote: 1})
			return []llm.Request{r}, err
		},
		"fact_check_search": func() ([]llm.Request, error) {
			sc, err := NewSearchChecker(gpt, &fakeSearch{}, "brave", 5, Options{})
			if err != nil {
				return nil, err
			}
			r, err := sc.Request(Query{Claim: "The first RAG model used a BART-large generator.", Context: para, Vote: 2},
				[]SearchResult{{Title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", URL: "https://arxiv.org/abs/2005.11401", Snippet: "We use BART-large as the generator."}})
			return []llm.Request{r}, err
		},
		"fact_check_web_batch": func() ([]llm.Request, error) {
			w, err := NewWebChecker(gemini, Options{})
			if err != nil {
				return nil, err
			}
			r, err := w.RequestBatch([]Query{
				{Claim: "The first RAG model used a BART-large generator.", Context: para, Cutoff: cutoff, Vote: 2},
				{Claim: "RAG couples a retriever with a generator.", Context: para, Cutoff: cutoff, Vote: 2},
			})
			return []llm.Request{r}, err
		},
		"fact_check_search_batch": func() ([]llm.Request, error) {
			sc, err := NewSearchChecker(gpt, &fakeSearch{}, "searxng", 5, Options{})
			if err != nil {
				return nil, err
			}
			r, err := sc.RequestBatch([]Query{
				{Claim: "The first RAG model used a BART-large generator.", Context: para, Cutoff: cutoff, Vote: 1},
				{Claim: "Dense passage retrieval was introduced in 2020.", Vote: 1},
			}, [][]SearchResult{
				{{Title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", URL: "https://arxiv.org/abs/2005.11401", Snippet: "We use BART-large as the generator."}},
				{{Title: "Dense Passage Retrieval for Open-Domain Question Answering", URL: "https://arxiv.org/abs/2004.04906", Snippet: "EMNLP 2020."}},
			})
			return []llm.Request{r}, err
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
