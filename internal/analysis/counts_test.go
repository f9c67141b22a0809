package analysis_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
)

var (
	recAttention = scholar.Record{ArXivID: "1706.03762", Title: "Attention Is All You Need", Published: time.Date(2017, 6, 12, 0, 0, 0, 0, time.UTC)}
	// The published version of an arXiv preprint, a separate work in the
	// index with most of the citations.
	recBERTPreprint  = scholar.Record{ArXivID: "1810.04805", Title: "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"}
	recBERTPublished = scholar.Record{DOI: "10.18653/v1/N19-1423", Title: "BERT: Pre-Training of Deep Bidirectional Transformers for Language Understanding"}
	recResNet        = scholar.Record{DOI: "10.1109/CVPR.2016.90", Title: "Deep Residual Learning for Image Recognition"}
	recWorkshop      = scholar.Record{DOI: "10.5555/workshop.2019.7", Title: "A Workshop Note on Sparse Retrieval"}
	// Only Crossref knows it (a DOI OpenAlex has not indexed).
	recCrossrefOnly = scholar.Record{DOI: "10.1000/crossref.only", Title: "A Paper Only Crossref Indexes"}
	// A near-miss title: a different paper the search returns.
	recNearMiss = scholar.Record{DOI: "10.5555/near", Title: "Another Small Study of Sparse Retrievers: Part II"}
)

func counterFixture(t *testing.T) (*scholartest.Server, *scholar.Client) {
	t.Helper()
	srv := scholartest.NewServer(t, recAttention, recBERTPreprint, recBERTPublished, recResNet, recWorkshop, recCrossrefOnly, recNearMiss)
	srv.SetCitedBy(scholartest.OpenAlex, recAttention.Title, 150000)
	srv.SetCitedBy(scholartest.OpenAlex, recResNet.Title, 200000)
	srv.SetCitedBy(scholartest.OpenAlex, recWorkshop.Title, 3)
	srv.SetCitedBy(scholartest.OpenAlex, recBERTPreprint.Title, 900)
	srv.SetCitedBy(scholartest.OpenAlex, recBERTPublished.Title, 90000)
	srv.SetCitedBy(scholartest.Crossref, recCrossrefOnly.Title, 41)
	srv.Hide(scholartest.OpenAlex, recCrossrefOnly.Title)
	srv.SetCitedBy(scholartest.Crossref, recResNet.Title, 180000)
	srv.SetCitedBy(scholartest.SemanticScholar, recBERTPublished.Title, 95000)
	return srv, scholar.New(srv.Options())
}

func TestCounter(t *testing.T) {
	srv, sc := counterFixture(t)
	cache, err := analysis.LoadCountCache(filepath.Join(t.TempDir(), "counts", "citation-counts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var progress []int
	c := &analysis.Counter{Scholar: sc, Cache: cache, Now: func() time.Time { return now }, Progress: func(done, total int) { progress = append(progress, total) }}
	queries := []analysis.RefQuery{
		{ArXivID: "1706.03762", Title: "Attention Is All You Need"},
		{DOI: "10.1109/cvpr.2016.90", Title: "Deep residual learning for image recognition"},
		{ArXivID: "1810.04805", Title: "{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding"},
		{Title: "A Workshop Note on Sparse Retrieval"},
		{DOI: "10.1000/crossref.only", Title: "A Paper Only Crossref Indexes"},
		{Title: "Another Small Study of Sparse Retrievers"},
		{DOI: "10.1109/cvpr.2016.90", Title: "duplicate query"},
		{},
	}
	got, st, err := c.Counts(context.Background(), queries)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]analysis.CountEntry{
		"arxiv:1706.03762": {Key: "arxiv:1706.03762", Status: "found", CitedBy: 150000, Source: "openalex", Via: "arxiv", Title: recAttention.Title, At: now},
		"doi:10.1109/cvpr.2016.90": {Key: "doi:10.1109/cvpr.2016.90", Status: "found", CitedBy: 200000, Source: "openalex", Via: "doi",
			Title: recResNet.Title, At: now},
		// The preprint's DataCite DOI finds the preprint (900), the title
		// search also the published version (90000), which counts.
		"arxiv:1810.04805": {Key: "arxiv:1810.04805", Status: "found", CitedBy: 90000, Source: "openalex", Via: "title",
			Title: recBERTPublished.Title, At: now},
		"title:aworkshopnoteonsparseretrieval": {Key: "title:aworkshopnoteonsparseretrieval", Status: "found", CitedBy: 3, Source: "openalex", Via: "title",
			Title: recWorkshop.Title, At: now},
		"doi:10.1000/crossref.only": {Key: "doi:10.1000/crossref.only", Status: "found", CitedBy: 41, Source: "crossref", Via: "doi",
			Title: recCrossrefOnly.Title, At: now},
		// Searches return "…: Part II", a different paper: not found.
		"title:anothersmallstudyofsparseretrievers": {Key: "title:anothersmallstudyofsparseretrievers", Status: "not_found", At: now},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(analysis.LookupStats{Queries: 6, Found: 5, NotFound: 1}, st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if len(progress) != 6 || progress[0] != 6 {
		t.Errorf("progress calls = %v", progress)
	}
	// All DOIs and arXiv DOIs went in one OpenAlex batch.
	var batches int
	for _, r := range srv.Requests(scholartest.OpenAlex) {
		if strings.HasPrefix(r.Query.Get("filter"), "doi:") {
			batches++
			if n := strings.Count(r.Query.Get("filter"), "|") + 1; n != 4 {
				t.Errorf("batch of %d DOIs, want 4", n)
			}
		}
	}
	if batches != 1 {
		t.Errorf("%d OpenAlex DOI batches, want 1", batches)
	}
	if n := len(srv.Requests(scholartest.SemanticScholar)); n != 0 {
		t.Errorf("%d Semantic Scholar requests without it among the sources", n)
	}

	// A rerun answers from the cache file alone.
	cache.Close()
	before := len(srv.Requests(""))
	cache2, err := analysis.LoadCountCache(cache.Path())
	if err != nil {
		t.Fatal(err)
	}
	c2 := &analysis.Counter{Scholar: sc, Cache: cache2}
	again, st2, err := c2.Counts(context.Background(), queries)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("rerun (-first +rerun):\n%s", diff)
	}
	if st2.Cached != 6 || len(srv.Requests("")) != before {
		t.Errorf("rerun: %+v, %d new requests", st2, len(srv.Requests(""))-before)
	}

	// Asking again for what was not found.
	c3 := &analysis.Counter{Scholar: sc, Cache: cache2, RetryNotFound: true}
	_, st3, err := c3.Counts(context.Background(), queries)
	if err != nil || st3.Cached != 5 || st3.NotFound != 1 {
		t.Errorf("retry not found: %+v, %v", st3, err)
	}
	cache2.Close()
}

func TestCounterSemanticScholar(t *testing.T) {
	srv, sc := counterFixture(t)
	cache, _ := analysis.LoadCountCache(filepath.Join(t.TempDir(), "c.jsonl"))
	c := &analysis.Counter{Scholar: sc, Cache: cache, Sources: []string{analysis.SourceSemanticScholar, analysis.SourceOpenAlex}}
	got, _, err := c.Counts(context.Background(), []analysis.RefQuery{
		{DOI: "10.18653/v1/n19-1423", Title: "BERT"},
		{ArXivID: "1706.03762"},
		{Title: "A Workshop Note on Sparse Retrieval"},
		{Title: "Another Small Study of Sparse Retrievers"},
	})
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Status, Source, Via string
		CitedBy             int
	}
	simple := map[string]entry{}
	for k, e := range got {
		simple[k] = entry{e.Status, e.Source, e.Via, e.CitedBy}
	}
	want := map[string]entry{
		"doi:10.18653/v1/n19-1423":                  {"found", "semanticscholar", "doi", 95000},
		"arxiv:1706.03762":                          {"found", "semanticscholar", "arxiv", scholartest.DefaultSemanticScholarCitedBy},
		"title:aworkshopnoteonsparseretrieval":      {"found", "semanticscholar", "title", scholartest.DefaultSemanticScholarCitedBy},
		"title:anothersmallstudyofsparseretrievers": {Status: "not_found"},
	}
	if diff := cmp.Diff(want, simple); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// Semantic Scholar matched a near-miss title; OpenAlex was asked next.
	if len(srv.Requests(scholartest.OpenAlex)) == 0 {
		t.Errorf("OpenAlex was not tried after Semantic Scholar's near miss")
	}
	if _, _, err := (&analysis.Counter{Scholar: sc, Cache: cache, Sources: []string{"scholar.google"}}).Counts(context.Background(), nil); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("unknown source: %v", err)
	}
}

// TestCounterFailures: an unreachable API fails the lookup (never "not
// found", never cached), and a rerun asks again.
func TestCounterFailures(t *testing.T) {
	srv := scholartest.NewServer(t, recResNet, recWorkshop)
	opts := srv.Options()
	opts.Retries = -1
	sc := scholar.New(opts)
	srv.Fail(scholartest.OpenAlex, scholartest.Fault{Status: 503}, scholartest.Fault{Status: 503}, scholartest.Fault{Status: 503})
	srv.Fail(scholartest.Crossref, scholartest.Fault{Status: 500}, scholartest.Fault{Status: 500})
	path := filepath.Join(t.TempDir(), "c.jsonl")
	cache, _ := analysis.LoadCountCache(path)
	c := &analysis.Counter{Scholar: sc, Cache: cache, Concurrency: 1}
	queries := []analysis.RefQuery{{DOI: "10.1109/CVPR.2016.90", Title: recResNet.Title}, {Title: recWorkshop.Title}}
	got, st, err := c.Counts(context.Background(), queries)
	if err != nil {
		t.Fatal(err)
	}
	if st.Failed != 2 || st.Found != 0 {
		t.Fatalf("stats = %+v, want both lookups failed", st)
	}
	for k, e := range got {
		if e.Status != analysis.CountFailed || !strings.Contains(e.Err, "unreachable") {
			t.Errorf("%s = %+v, want failed with the cause", k, e)
		}
	}
	if cache.Len() != 0 {
		t.Errorf("failures were cached")
	}
	got, st, err = c.Counts(context.Background(), queries)
	if err != nil || st.Found != 2 || got["doi:10.1109/cvpr.2016.90"].CitedBy != scholartest.DefaultOpenAlexCitedBy {
		t.Errorf("rerun after the outage: %+v, %+v, %v", st, got, err)
	}

	// Offline: the cache alone; what it lacks is missing.
	off := &analysis.Counter{Cache: cache, Offline: true}
	got, st, err = off.Counts(context.Background(), append(queries, analysis.RefQuery{Title: "Never Looked Up"}))
	if err != nil || st.Cached != 2 || st.Missing != 1 || len(got) != 2 {
		t.Errorf("offline: %+v, %d entries, %v", st, len(got), err)
	}

	// A canceled context stops the run with its error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c4 := &analysis.Counter{Scholar: sc, Cache: cache, RetryNotFound: true}
	if _, _, err := c4.Counts(ctx, []analysis.RefQuery{{Title: "Something New Entirely"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

func TestCountCacheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	lines := `{"key":"doi:10.1/a","status":"found","cited_by":5,"source":"openalex","at":"2026-01-01T00:00:00Z"}
not json
{"key":"doi:10.1/b","status":"not_found"}
{"key":"doi:10.1/c","status":"failed","error":"boom"}
{"key":"doi:10.1/d","status":"found","cited_by":-3,"source":"openalex"}
{"key":"","status":"found","cited_by":1,"source":"openalex"}
{"key":"doi:10.1/a","status":"found","cited_by":9,"source":"crossref"}
{"key":"doi:10.1/e","status":"fou`
	os.WriteFile(path, []byte(lines), 0o644)
	c, err := analysis.LoadCountCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 2 || c.Skipped() != 5 {
		t.Errorf("len %d, skipped %d; want 2 entries (a later line wins) and 5 bad lines", c.Len(), c.Skipped())
	}
	if e, _ := c.Get("doi:10.1/a"); e.CitedBy != 9 || e.Source != "crossref" {
		t.Errorf("doi:10.1/a = %+v, want the later line", e)
	}
	// The crash-cut last line is ended before the next entry is appended.
	if err := c.Put(analysis.CountEntry{Key: "doi:10.1/f", Status: analysis.CountFound, CitedBy: 1, Source: "openalex"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(analysis.CountEntry{Key: "doi:10.1/g", Status: analysis.CountFailed}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("a failed entry was cached: %v", err)
	}
	c.Close()
	re, err := analysis.LoadCountCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := re.Get("doi:10.1/f"); !ok || re.Len() != 3 || re.Skipped() != 5 {
		t.Errorf("reloaded: len %d, skipped %d", re.Len(), re.Skipped())
	}
	missing, err := analysis.LoadCountCache(filepath.Join(t.TempDir(), "none", "c.jsonl"))
	if err != nil || missing.Len() != 0 {
		t.Errorf("missing file: %v", err)
	}
	if _, err := analysis.LoadCountCache(t.TempDir()); err == nil {
		t.Errorf("a directory as cache file: no error")
	}
}

func FuzzCountCache(f *testing.F) {
	f.Add([]byte(`{"key":"doi:10.1/a","status":"found","cited_by":5,"source":"openalex"}` + "\n" + `{"key":"t","status":"not_found"}`))
	f.Add([]byte("\n\n{\"key\":\"x\",\"status\":\"found\",\"cited_by\":1e400}\n{"))
	f.Add([]byte(`{"key":"k","status":"not_found","cited_by":3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := analysis.LoadCountCache(path)
		if err != nil {
			t.Fatal(err)
		}
		n := c.Len()
		// Whatever the file held, an appended entry reads back.
		e := analysis.CountEntry{Key: "doi:10.9/fuzz", Status: analysis.CountFound, CitedBy: 7, Source: "openalex", At: time.Unix(0, 0).UTC()}
		if err := c.Put(e); err != nil {
			t.Fatal(err)
		}
		c.Close()
		re, err := analysis.LoadCountCache(path)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := re.Get(e.Key)
		if !ok || !cmp.Equal(e, got, cmpopts.EquateEmpty()) {
			t.Fatalf("appended entry reads back as %+v, %v", got, ok)
		}
		if re.Len() < n {
			t.Fatalf("appending lost entries: %d before, %d after", n, re.Len())
		}
	})
}
