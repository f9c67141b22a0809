package identify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

const dprPage = "Dense Passage Retrieval for Open-Domain Question Answering\n" +
	"Vladimir Karpukhin, Barlas Oğuz, Sewon Min\nFacebook AI\narXiv:2004.04906v3 [cs.CL]\n" +
	"Abstract\nOpen-domain question answering relies on efficient passage retrieval. doi: 10.18653/v1/2020.emnlp-main.550"

func TestCheckGuess(t *testing.T) {
	tests := []struct {
		name              string
		scholarly         bool
		title, doi, arxiv string
		authors           []string
		want              Guess
		noteHas           string
	}{
		{name: "confirmed", scholarly: true, title: "Dense passage retrieval for open-domain question answering",
			doi: "https://doi.org/10.18653/V1/2020.EMNLP-MAIN.550", arxiv: "2004.04906", authors: []string{"Vladimir Karpukhin", "Oğuz, Barlas", "Invented Person"},
			want: Guess{Scholarly: true, Title: "Dense passage retrieval for open-domain question answering", DOI: "10.18653/v1/2020.emnlp-main.550",
				ArXivID: "2004.04906", Authors: []string{"Vladimir Karpukhin", "Oğuz, Barlas"}}},
		{name: "made-up title", scholarly: true, title: "Dense Retrieval at Scale: A Study", noteHas: "not in the page"},
		{name: "made-up ids are dropped, a real title kept", scholarly: true, title: "Dense Passage Retrieval for Open-Domain Question Answering",
			doi: "10.1000/invented", arxiv: "2101.00001",
			want: Guess{Scholarly: true, Title: "Dense Passage Retrieval for Open-Domain Question Answering"}},
		{name: "identifier without a title", scholarly: true, title: "Something else entirely", arxiv: "arXiv:2004.04906",
			want: Guess{Scholarly: true, ArXivID: "2004.04906"}, noteHas: "identified by its identifier"},
		{name: "too short to name a work", scholarly: true, title: "Abstract", noteHas: "not in the page"},
		{name: "not scholarly", scholarly: false, title: "Dense Passage Retrieval for Open-Domain Question Answering", noteHas: "not scholarly: a blog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckGuess(dprPage, tt.scholarly, tt.title, tt.authors, tt.doi, tt.arxiv, "a blog")
			note := got.Note
			got.Note = ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("guess (-want +got):\n%s", diff)
			}
			if !strings.Contains(note, tt.noteHas) {
				t.Errorf("note %q, want it to say %q", note, tt.noteHas)
			}
		})
	}
}

func TestLLMIdentify(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		if !strings.Contains(c.Prompt, "Dense Passage Retrieval") || !strings.Contains(c.Prompt, "https://lab.example.edu/dpr.pdf") {
			return llmtest.Fail(llmtest.BadRequest)
		}
		return llmtest.Text(`{"scholarly": true, "title": "Dense Passage Retrieval for Open-Domain Question Answering", "authors": ["Vladimir Karpukhin"], "doi": "", "arxiv_id": "2004.04906", "reason": "paper PDF"}`)
	})
	m, err := NewLLM(srv.Client(t, llm.OpenAI, "gpt-4o-mini", llm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	// The title is only in the page title (a reader moved the heading
	// there): it is still the page's.
	text := strings.SplitN(dprPage, "\n", 2)[1]
	g, err := m.Identify(t.Context(), Page{URL: "https://lab.example.edu/dpr.pdf", PageTitle: "Dense Passage Retrieval for Open-Domain Question Answering", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	want := Guess{Scholarly: true, Title: "Dense Passage Retrieval for Open-Domain Question Answering", ArXivID: "2004.04906", Authors: []string{"Vladimir Karpukhin"}}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("guess (-want +got):\n%s", diff)
	}
	c := srv.Calls()[0]
	if b := c.Chat(t); b.Temperature == nil || *b.Temperature != 0 {
		t.Errorf("temperature %v, want 0", b.Temperature)
	}
	if !strings.Contains(string(c.Body), "work_metadata") {
		t.Errorf("no structured-output schema in the request: %s", c.Body)
	}
	// A model error is an error, never a guess.
	if _, err := m.Identify(t.Context(), Page{URL: "https://x.example/other", Text: "Abstract"}); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("model failure: err = %v", err)
	}
	// Only the start of a long page is sent.
	long := strings.Repeat("word ", 10*MetadataChars)
	req, err := m.Request(Page{URL: "u", Text: long})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(req.Messages[0].Content); n > MetadataChars+3000 {
		t.Errorf("prompt of %d bytes for a %d-byte page", n, len(long))
	}
}
