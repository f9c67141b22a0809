package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/identify"
	"github.com/claimtrace/claimtrace/internal/store"
)

// pageFetcher serves fixed pages.
type pageFetcher map[string]string

func (p pageFetcher) Fetch(_ context.Context, u string) (*fetch.Page, error) {
	body, ok := p[u]
	if !ok {
		return &fetch.Page{URL: u, Status: 404}, nil
	}
	return &fetch.Page{URL: u, Status: 200, ContentType: "text/html; charset=utf-8", Body: []byte(body)}, nil
}

// scriptedMetadata answers the model rung from a script by URL, through
// the same page check as the real reader, and counts its calls.
type scriptedMetadata struct {
	mu     sync.Mutex
	calls  map[string]int
	titles map[string]string
	fail   map[string]bool
}

func (s *scriptedMetadata) identify(_ context.Context, p MetadataPage) (MetadataGuess, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[p.URL]++
	if s.fail[p.URL] {
		return MetadataGuess{}, errors.New("503 from the model")
	}
	title, ok := s.titles[p.URL]
	g := identify.CheckGuess(p.PageTitle+"\n"+p.Text, ok, title, []string{"Vladimir Karpukhin", "Nobody Imaginary"}, "", "", "a blog")
	return MetadataGuess{Scholarly: g.Scholarly, Title: g.Title, Authors: g.Authors, DOI: g.DOI, ArXivID: g.ArXivID, Note: g.Note}, nil
}

// TestMetadataRung: a lab page with no identifier and no citation meta tag
// is identified by the model rung and matched to the ground truth by its
// title; a title the page does not contain is not taken; a page that does
// not look scholarly costs no call; a model failure marks the source
// failed and --retry-failed asks again; a rerun asks nothing.
func TestMetadataRung(t *testing.T) {
	dir := t.TempDir()
	const task = "2101.00001"
	gt := filepath.Join(dir, "ds", "ReportBench_v1.1_GT")
	os.MkdirAll(gt, 0o755)
	os.WriteFile(filepath.Join(dir, "ds", "ReportBench_v1.1.jsonl"), []byte(`{"arxiv_id":"`+task+`","title":"A Survey","prompt":"Survey dense retrieval; only papers before January 2022.","application_domain":"D"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(gt, task+".jsonl"), []byte(`{"bib_id":"dpr","title":"Dense Passage Retrieval for Open-Domain Question Answering","author":"Karpukhin, Vladimir","meta_info":{"year":"2020"}}`+"\n"), 0o644)
	reports := filepath.Join(dir, "reports")
	os.MkdirAll(reports, 0o755)
	const (
		dpr   = "https://lab.example.edu/papers/dpr.html"
		other = "https://lab.example.edu/papers/other.html"
		blog  = "https://blog.example.com/post"
		flaky = "https://lab.example.edu/papers/flaky.html"
	)
	os.WriteFile(filepath.Join(reports, task+".md"), []byte(fmt.Sprintf(
		"# Dense retrieval\n\nDense retrievers beat BM25 on open-domain QA [1](%s).\n\nSparse retrieval remains strong on entity queries [2](%s).\n\nPeople like dense retrieval [3](%s).\n\nHybrid retrieval helps too [4](%s).\n",
		dpr, other, blog, flaky)), 0o644)
	paper := func(h1, body string) string {
		return "<html><head><title>" + filepath.Base(h1) + "</title></head><body><main><h1>" + h1 + "</h1><p>Vladimir Karpukhin, University of Somewhere</p><h2>Abstract</h2><p>" + body + "</p></main></body></html>"
	}
	pages := pageFetcher{
		dpr:   paper("Dense Passage Retrieval for Open-Domain Question Answering", "Open-domain question answering relies on efficient passage retrieval. Dense retrievers beat BM25 by 9 to 19 points."),
		other: paper("Sparse Retrieval Revisited", "Sparse retrieval remains strong on entity queries, we find in experiments on four datasets."),
		blog:  "<html><head><title>My blog</title></head><body><main><p>People like dense retrieval a lot these days, and so do I. It is fast and it works well for my side projects.</p></main></body></html>",
		flaky: paper("Hybrid Retrieval for Question Answering Systems", "Hybrid retrieval helps too, combining sparse and dense signals."),
	}
	md := &scriptedMetadata{calls: map[string]int{}, fail: map[string]bool{flaky: true}, titles: map[string]string{
		dpr:   "Dense Passage Retrieval for Open-Domain Question Answering",
		other: "Sparse Retrieval Revisited: A Large-Scale Study", // not what the page says
		flaky: "Hybrid Retrieval for Question Answering Systems",
	}}
	ds, err := dataset.LoadDataset(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := Options{Dataset: ds, ReportsDir: reports, OutDir: filepath.Join(dir, "out"), Mode: "live", Store: st,
		Fetcher: pages, Metadata: md.identify, MetadataName: "scripted"}
	run := func(retry bool) *Result {
		t.Helper()
		o := opts
		o.RetryFailed = retry
		ev, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		r, err := ReadResult(filepath.Join(opts.OutDir, "reports", task+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	source := func(r *Result, u string) SourceResult {
		for _, s := range r.Sources {
			if s.Work.URL == u {
				return s
			}
		}
		t.Fatalf("no source %s", u)
		return SourceResult{}
	}

	r := run(false)
	if s := source(r, dpr); s.Work.Kind != claimtrace.WorkPaper || s.Work.Via != "llm" || s.Work.Title != "Dense Passage Retrieval for Open-Domain Question Answering" ||
		len(s.Work.Authors) != 1 || s.Work.Authors[0] != "Vladimir Karpukhin" {
		t.Errorf("dpr source = %+v", s.Work)
	}
	if r.Citation.Papers != 1 || r.Citation.Web != 3 {
		t.Errorf("papers %d, web %d; want the dpr page counted as a paper, the three others as web pages", r.Citation.Papers, r.Citation.Web)
	}
	if len(r.Citation.Matched) != 1 || r.Citation.Matched[0].BibID != "dpr" {
		t.Errorf("matched = %+v, want the dpr page matched to bib_id dpr", r.Citation.Matched)
	}
	if s := source(r, other); s.Work.Via == "llm" || s.Work.Title == "Sparse Retrieval Revisited: A Large-Scale Study" || !strings.Contains(s.Ladder, "not in the page") {
		t.Errorf("a title the page does not hold was taken: %+v (ladder %q)", s.Work, s.Ladder)
	}
	if md.calls[blog] != 0 {
		t.Errorf("a page that does not look scholarly cost %d model calls", md.calls[blog])
	}
	if len(r.FailedSources) != 1 || !strings.Contains(r.FailedSources[0], "flaky") {
		t.Errorf("failed sources = %v, want the flaky page", r.FailedSources)
	}

	// A plain rerun asks the model nothing; --retry-failed asks for the
	// failed page only.
	before := fmt.Sprint(md.calls)
	run(false)
	if after := fmt.Sprint(md.calls); after != before {
		t.Errorf("rerun calls %s, want %s", after, before)
	}
	md.fail[flaky] = false
	r = run(true)
	if md.calls[flaky] != 2 || md.calls[dpr] != 1 || md.calls[other] != 1 {
		t.Errorf("calls after --retry-failed = %v", md.calls)
	}
	if s := source(r, flaky); s.Work.Via != "llm" || len(r.FailedSources) != 0 || r.Citation.Papers != 2 {
		t.Errorf("retried source = %+v, failed %v", s.Work, r.FailedSources)
	}
}
