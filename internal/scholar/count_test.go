package scholar_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
)

func TestOpenAlexCounts(t *testing.T) {
	var many []scholar.Record
	for i := range 70 {
		many = append(many, scholar.Record{DOI: fmt.Sprintf("10.5555/batch.%03d", i), Title: fmt.Sprintf("Batched paper %d on counting", i)})
	}
	comma := scholar.Record{DOI: "10.1002/(SICI)1097,4636|x", Title: "A DOI with filter syntax in it"}
	c, srv := newClient(t, append(many, attention, parrots, resnet, comma)...)
	srv.SetCitedBy(scholartest.OpenAlex, attention.Title, 150000)
	srv.SetCitedBy(scholartest.OpenAlex, parrots.Title, 4200)
	srv.SetCitedBy(scholartest.OpenAlex, comma.Title, 3)
	ctx := context.Background()

	dois := []string{"https://doi.org/10.1145/3442188.3445922", "10.48550/arXiv.1706.03762", "10.1109/CVPR.2016.90", "10.9999/unknown", comma.DOI}
	got, err := c.OpenAlexCounts(ctx, dois)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]scholar.Count{
		"10.1145/3442188.3445922": {Source: "openalex", ID: got["10.1145/3442188.3445922"].ID, DOI: "10.1145/3442188.3445922", Title: parrots.Title, Year: 2021, CitedBy: 4200},
		"10.48550/arxiv.1706.03762": {Source: "openalex", ID: got["10.48550/arxiv.1706.03762"].ID, DOI: "10.48550/arxiv.1706.03762", ArXivID: "1706.03762",
			Title: attention.Title, Year: 2017, CitedBy: 150000},
		"10.1109/cvpr.2016.90":                       {Source: "openalex", ID: got["10.1109/cvpr.2016.90"].ID, DOI: "10.1109/cvpr.2016.90", Title: resnet.Title, Year: 2016, CitedBy: scholartest.DefaultOpenAlexCitedBy},
		strings.ToLower("10.1002/(SICI)1097,4636|x"): {Source: "openalex", ID: got[strings.ToLower(comma.DOI)].ID, DOI: strings.ToLower(comma.DOI), Title: comma.Title, CitedBy: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OpenAlexCounts (-want +got):\n%s", diff)
	}
	for k, n := range got {
		if !strings.HasPrefix(n.ID, "W") {
			t.Errorf("%s: id %q is not an OpenAlex work id", k, n.ID)
		}
	}
	reqs := srv.Requests(scholartest.OpenAlex)
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want one batch and one single lookup", len(reqs))
	}
	if f := reqs[0].Query.Get("filter"); strings.Count(f, "|") != 3 || !strings.HasPrefix(f, "doi:") {
		t.Errorf("batch filter = %q, want doi: with four values", f)
	}
	if sel := reqs[0].Query.Get("select"); !strings.Contains(sel, "cited_by_count") {
		t.Errorf("select = %q lacks cited_by_count", sel)
	}
	if !strings.HasPrefix(reqs[1].Path, "/works/doi:") {
		t.Errorf("the DOI with , and | went %s, want a single /works/doi: lookup", reqs[1].Path)
	}

	// 70 DOIs and a duplicate go in two batches of at most 50.
	var ds []string
	for _, r := range many {
		ds = append(ds, r.DOI)
	}
	got, err = c.OpenAlexCounts(ctx, append(ds, strings.ToUpper(ds[0])))
	if err != nil || len(got) != 70 {
		t.Fatalf("OpenAlexCounts(70) = %d counts, %v", len(got), err)
	}
	if n := len(srv.Requests(scholartest.OpenAlex)); n != 2+2 {
		t.Errorf("requests = %d, want 4 (2 + 2 batches)", n)
	}

	// A malformed DOI sends nothing.
	if _, err := c.OpenAlexCounts(ctx, []string{parrots.DOI, "not-a-doi"}); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "not-a-doi") {
		t.Errorf("bad DOI: error = %v, want ErrInvalid naming it", err)
	}
	if n := len(srv.Requests(scholartest.OpenAlex)); n != 4 {
		t.Errorf("a bad DOI sent a request")
	}
}

func TestOpenAlexCountsPartialFailure(t *testing.T) {
	var many []scholar.Record
	for i := range 60 {
		many = append(many, scholar.Record{DOI: fmt.Sprintf("10.5555/p.%03d", i), Title: fmt.Sprintf("Paper %d", i)})
	}
	srv := scholartest.NewServer(t, many...)
	opts := srv.Options()
	opts.Retries = -1
	c := scholar.New(opts)
	srv.Fail(scholartest.OpenAlex, scholartest.Fault{Status: 500})
	var ds []string
	for _, r := range many {
		ds = append(ds, r.DOI)
	}
	got, err := c.OpenAlexCounts(context.Background(), ds)
	if !errors.Is(err, claimtrace.ErrUnreachable) {
		t.Errorf("error = %v, want the failed batch's ErrUnreachable", err)
	}
	if len(got) != 10 {
		t.Errorf("got %d counts, want the 10 of the batch that answered", len(got))
	}
}

func TestOpenAlexCountSearch(t *testing.T) {
	c, srv := newClient(t, attention, parrots, resnet)
	srv.SetCitedBy(scholartest.OpenAlex, resnet.Title, 200000)
	got, err := c.OpenAlexCountSearch(context.Background(), "Deep Residual Learning for Image Recognition")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Title != resnet.Title || got[0].CitedBy != 200000 || got[0].ArXivID != "" {
		t.Fatalf("OpenAlexCountSearch = %+v, want resnet first with 200000", got)
	}
	if _, err := c.OpenAlexCountSearch(context.Background(), "?!"); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("no words: error = %v", err)
	}
}

func TestCrossrefCount(t *testing.T) {
	c, srv := newClient(t, parrots, resnet, attention)
	srv.SetCitedBy(scholartest.Crossref, parrots.Title, 2500)
	ctx := context.Background()
	got, err := c.CrossrefCount(ctx, "doi:10.1145/3442188.3445922")
	if err != nil {
		t.Fatal(err)
	}
	want := scholar.Count{Source: "crossref", ID: parrots.DOI, DOI: parrots.DOI, Title: parrots.Title, Year: 2021, CitedBy: 2500}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CrossrefCount (-want +got):\n%s", diff)
	}
	if _, err := c.CrossrefCount(ctx, "10.9999/none"); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("unknown DOI: error = %v, want ErrNotFound", err)
	}
	recs, err := c.CrossrefCountSearch(ctx, "deep residual learning image recognition")
	if err != nil || len(recs) == 0 || recs[0].DOI != resnet.DOI || recs[0].CitedBy != scholartest.DefaultCrossrefCitedBy {
		t.Errorf("CrossrefCountSearch = %+v, %v", recs, err)
	}
	q := srv.Requests(scholartest.Crossref)
	if sel := q[len(q)-1].Query.Get("select"); !strings.Contains(sel, "is-referenced-by-count") {
		t.Errorf("select = %q lacks is-referenced-by-count", sel)
	}
}

func TestSemanticScholar(t *testing.T) {
	srv := scholartest.NewServer(t, attention, parrots, resnet, oldStyle)
	opts := srv.Options()
	opts.SemanticScholarKey = "s2-test-key"
	c := scholar.New(opts)
	srv.SetCitedBy(scholartest.SemanticScholar, attention.Title, 170000)
	ctx := context.Background()

	got, err := c.SemanticScholarCount(ctx, "ARXIV:1706.03762")
	if err != nil {
		t.Fatal(err)
	}
	want := scholar.Count{Source: "semanticscholar", ID: got.ID, ArXivID: "1706.03762", Title: attention.Title, Year: 2017, CitedBy: 170000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SemanticScholarCount (-want +got):\n%s", diff)
	}
	if len(got.ID) != 40 {
		t.Errorf("paperId %q, want 40 hex digits", got.ID)
	}
	byDOI, err := c.SemanticScholarCount(ctx, "DOI:10.1109/CVPR.2016.90")
	if err != nil || byDOI.Title != resnet.Title || byDOI.ArXivID != "1512.03385" || byDOI.CitedBy != scholartest.DefaultSemanticScholarCitedBy {
		t.Errorf("by DOI = %+v, %v", byDOI, err)
	}
	byID, err := c.SemanticScholarCount(ctx, got.ID)
	if err != nil || byID.Title != attention.Title {
		t.Errorf("by paperId = %+v, %v", byID, err)
	}
	old, err := c.SemanticScholarCount(ctx, "ARXIV:hep-th/9711200")
	if err != nil || old.ArXivID != "hep-th/9711200" {
		t.Errorf("old-style id = %+v, %v", old, err)
	}
	if _, err := c.SemanticScholarCount(ctx, "DOI:10.9999/none"); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("unknown paper: error = %v, want ErrNotFound", err)
	}
	if _, err := c.SemanticScholarCount(ctx, "DOI:10.1/a b"); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("id with a space: error = %v, want ErrInvalid", err)
	}

	m, err := c.SemanticScholarMatch(ctx, "On the Dangers of Stochastic Parrots: Can Language Models Be Too Big?")
	if err != nil || m.DOI != parrots.DOI || m.Title != parrots.Title {
		t.Errorf("SemanticScholarMatch = %+v, %v", m, err)
	}
	if _, err := c.SemanticScholarMatch(ctx, "zzzz qqqq xxxx"); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("no match: error = %v, want ErrNotFound", err)
	}
	for _, r := range srv.Requests(scholartest.SemanticScholar) {
		if r.APIKey != "s2-test-key" {
			t.Errorf("request %s without the x-api-key header", r.Path)
		}
		if f := r.Query.Get("fields"); !strings.Contains(f, "citationCount") {
			t.Errorf("request %s asks fields %q", r.Path, f)
		}
	}
}

func TestCountMalformedBodies(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		api  string
		body string
		call func(*scholar.Client) error
	}{
		{"openalex batch not json", scholartest.OpenAlex, "<html>", func(c *scholar.Client) error {
			_, err := c.OpenAlexCounts(ctx, []string{parrots.DOI})
			return err
		}},
		{"openalex work without count", scholartest.OpenAlex, `{"id":"https://openalex.org/W1","display_name":"T"}`, func(c *scholar.Client) error {
			_, err := c.OpenAlexCounts(ctx, []string{"10.1/a,b"})
			return err
		}},
		{"crossref work without count", scholartest.Crossref, `{"status":"ok","message-type":"work","message":{"DOI":"10.1/x","title":["T"]}}`, func(c *scholar.Client) error {
			_, err := c.CrossrefCount(ctx, parrots.DOI)
			return err
		}},
		{"crossref list failed", scholartest.Crossref, `{"status":"failed","message-type":"validation-failure","message":[]}`, func(c *scholar.Client) error {
			_, err := c.CrossrefCountSearch(ctx, "parrots")
			return err
		}},
		{"semanticscholar not json", scholartest.SemanticScholar, "Too Many Requests", func(c *scholar.Client) error {
			_, err := c.SemanticScholarCount(ctx, "DOI:"+parrots.DOI)
			return err
		}},
		{"semanticscholar not a paper", scholartest.SemanticScholar, `{"message":"Internal Server Error"}`, func(c *scholar.Client) error {
			_, err := c.SemanticScholarCount(ctx, "DOI:"+parrots.DOI)
			return err
		}},
		{"semanticscholar match wrong shape", scholartest.SemanticScholar, `{"data":{"paperId":"x"}}`, func(c *scholar.Client) error {
			_, err := c.SemanticScholarMatch(ctx, "parrots")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv := newClient(t, parrots)
			srv.Fail(tt.api, scholartest.Fault{Status: 200, Body: tt.body})
			err := tt.call(c)
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.api) {
				t.Errorf("error %q does not name the API", err)
			}
		})
	}
}
