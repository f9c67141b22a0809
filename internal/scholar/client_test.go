package scholar_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

var (
	attention = scholar.Record{
		ArXivID: "1706.03762", Title: "Attention Is All You Need",
		Authors:   []string{"Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit"},
		Published: day(2017, 6, 12),
	}
	parrots = scholar.Record{
		DOI:     "10.1145/3442188.3445922",
		Title:   "On the Dangers of Stochastic Parrots: Can Language Models Be Too Big?",
		Authors: []string{"Emily M. Bender", "Timnit Gebru", "Angelina McMillan-Major", "Shmargaret Shmitchell"},
		Venue:   "Proceedings of the 2021 ACM Conference on Fairness, Accountability, and Transparency",
		Type:    "proceedings-article", Published: day(2021, 3, 3),
	}
	resnet = scholar.Record{
		ArXivID: "1512.03385", DOI: "10.1109/CVPR.2016.90", Title: "Deep Residual Learning for Image Recognition",
		Authors: []string{"Kaiming He", "Xiangyu Zhang", "Shaoqing Ren", "Jian Sun"},
		Venue:   "2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)", Type: "proceedings-article",
		Published: day(2016, 6, 27),
	}
	oldStyle = scholar.Record{
		ArXivID: "hep-th/9711200", Title: "The Large N Limit of Superconformal Field Theories and Supergravity",
		Authors: []string{"Juan M. Maldacena"}, Published: day(1997, 11, 27),
		Venue: "Adv.Theor.Math.Phys.2:231-252,1998",
	}
	odd = scholar.Record{
		DOI:     "10.1002/(SICI)1097-4636(199706)35:4<449::AID-JBM5>3.0.CO;2-O",
		Title:   "Surface characterization of <i>in vitro</i> implants",
		Authors: []string{"Ana Silva"}, Published: day(1997, 6, 1), Venue: "Journal of Biomedical Materials Research",
	}
)

func newClient(t *testing.T, records ...scholar.Record) (*scholar.Client, *scholartest.Server) {
	t.Helper()
	srv := scholartest.NewServer(t, records...)
	opts := srv.Options()
	opts.Mailto = "ops@claimtrace.example"
	opts.OpenAlexKey = "test-key"
	return scholar.New(opts), srv
}

func TestArXiv(t *testing.T) {
	var many []scholar.Record
	for i := range 120 {
		many = append(many, scholar.Record{ArXivID: fmt.Sprintf("2401.%05d", i), Title: fmt.Sprintf("Paper number %d on scaling", i)})
	}
	c, srv := newClient(t, append(many, attention, resnet, oldStyle)...)
	ctx := context.Background()

	got, err := c.ArXiv(ctx, "1706.03762", "arXiv:1706.03762v5", "hep-th/9711200v3", "1512.03385", "2501.99999")
	if err != nil {
		t.Fatalf("ArXiv: %v", err)
	}
	wantAttention := scholar.Record{
		Source: "arxiv", ArXivID: "1706.03762", Title: "Attention Is All You Need",
		Authors: attention.Authors, Published: day(2017, 6, 12), URL: "https://arxiv.org/abs/1706.03762", Type: "preprint",
	}
	want := map[string]scholar.Record{
		"1706.03762":         wantAttention,
		"arXiv:1706.03762v5": wantAttention,
		"hep-th/9711200v3": {Source: "arxiv", ArXivID: "hep-th/9711200", Title: oldStyle.Title, Authors: oldStyle.Authors,
			Published: oldStyle.Published, Venue: oldStyle.Venue, URL: "https://arxiv.org/abs/hep-th/9711200", Type: "preprint"},
		"1512.03385": {Source: "arxiv", ArXivID: "1512.03385", DOI: "10.1109/CVPR.2016.90", Title: resnet.Title,
			Authors: resnet.Authors, Published: resnet.Published, Venue: resnet.Venue, URL: "https://arxiv.org/abs/1512.03385", Type: "preprint"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ArXiv (-want +got):\n%s", diff)
	}
	reqs := srv.Requests(scholartest.ArXiv)
	if len(reqs) != 1 || reqs[0].Query.Get("id_list") != "1706.03762,hep-th/9711200,1512.03385,2501.99999" || reqs[0].Query.Get("max_results") != "4" {
		t.Errorf("requests = %+v, want one id_list request with 4 distinct ids", reqs)
	}

	// 120 ids go in batches of 50.
	var ids []string
	for _, r := range many {
		ids = append(ids, r.ArXivID)
	}
	got, err = c.ArXiv(ctx, ids...)
	if err != nil || len(got) != 120 {
		t.Fatalf("ArXiv(120 ids) = %d records, %v", len(got), err)
	}
	if n := len(srv.Requests(scholartest.ArXiv)); n != 1+3 {
		t.Errorf("arXiv requests = %d, want 4 (1 + 3 batches)", n)
	}

	if _, err := c.ArXiv(ctx, "1706.03762", "not-an-id"); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "not-an-id") {
		t.Errorf("bad id: error = %v, want ErrInvalid naming it", err)
	}
	if n := len(srv.Requests(scholartest.ArXiv)); n != 4 {
		t.Errorf("a bad id sent a request")
	}
}

func TestArXivSearch(t *testing.T) {
	c, srv := newClient(t, attention, resnet, oldStyle)
	got, err := c.ArXivSearch(context.Background(), `"Attention is all you need"`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].ArXivID != "1706.03762" {
		t.Fatalf("ArXivSearch = %+v, want attention first", got)
	}
	q := srv.Requests(scholartest.ArXiv)[0].Query
	if q.Get("search_query") != `ti:"Attention is all you need"` || q.Get("max_results") != "5" {
		t.Errorf("query = %v", q)
	}
}

func TestCrossrefDOI(t *testing.T) {
	c, srv := newClient(t, parrots, resnet, odd, attention)
	ctx := context.Background()
	got, err := c.CrossrefDOI(ctx, "https://doi.org/10.1145/3442188.3445922")
	if err != nil {
		t.Fatal(err)
	}
	want := scholar.Record{
		Source: "crossref", DOI: parrots.DOI, Title: parrots.Title, Authors: parrots.Authors, Venue: parrots.Venue,
		Published: parrots.Published, URL: "https://doi.org/" + parrots.DOI, Type: "proceedings-article",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CrossrefDOI (-want +got):\n%s", diff)
	}
	req := srv.Requests(scholartest.Crossref)[0]
	if req.Query.Get("mailto") != "ops@claimtrace.example" || !strings.Contains(req.UserAgent, "mailto:ops@claimtrace.example") {
		t.Errorf("request %+v lacks the polite-pool mailto", req)
	}

	// Markup in titles is stripped; a DOI with <, >, ; and ( survives the path.
	got, err = c.CrossrefDOI(ctx, odd.DOI)
	if err != nil {
		t.Fatal(err)
	}
	if got.DOI != odd.DOI || got.Title != "Surface characterization of in vitro implants" {
		t.Errorf("odd DOI record = %+v", got)
	}

	for _, doi := range []string{"10.9999/unknown", "10.48550/arXiv.1706.03762"} {
		if _, err := c.CrossrefDOI(ctx, doi); !errors.Is(err, claimtrace.ErrNotFound) {
			t.Errorf("CrossrefDOI(%s) error = %v, want ErrNotFound", doi, err)
		}
	}
	if _, err := c.CrossrefDOI(ctx, "not a doi"); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("bad DOI: error = %v, want ErrInvalid", err)
	}
}

func TestCrossrefSearch(t *testing.T) {
	c, srv := newClient(t, parrots, resnet, odd)
	got, err := c.CrossrefSearch(context.Background(), "Deep residual learning for image recognition")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].DOI != resnet.DOI || got[0].ArXivID != "" {
		t.Fatalf("CrossrefSearch = %+v, want resnet first", got)
	}
	q := srv.Requests(scholartest.Crossref)[0].Query
	if q.Get("rows") != "5" || !strings.Contains(q.Get("select"), "DOI") || q.Get("query.bibliographic") == "" {
		t.Errorf("query = %v", q)
	}
}

func TestOpenAlex(t *testing.T) {
	c, srv := newClient(t, attention, parrots, resnet)
	ctx := context.Background()
	got, err := c.OpenAlexArXiv(ctx, "arXiv:1706.03762v7")
	if err != nil {
		t.Fatal(err)
	}
	want := scholar.Record{
		Source: "openalex", ArXivID: "1706.03762", DOI: "10.48550/arxiv.1706.03762", Title: attention.Title,
		Authors: attention.Authors, Published: attention.Published, Venue: "arXiv (Cornell University)",
		URL: "https://doi.org/10.48550/arxiv.1706.03762", Type: "preprint",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OpenAlexArXiv (-want +got):\n%s", diff)
	}
	got, err = c.OpenAlexDOI(ctx, "10.1109/CVPR.2016.90")
	if err != nil {
		t.Fatal(err)
	}
	if got.DOI != "10.1109/cvpr.2016.90" || got.ArXivID != "1512.03385" || got.Venue != resnet.Venue {
		t.Errorf("OpenAlexDOI = %+v, want the DOI, the arXiv id from its arXiv location and the venue", got)
	}
	if _, err := c.OpenAlexDOI(ctx, "10.9999/none"); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("unknown DOI: error = %v, want ErrNotFound", err)
	}
	recs, err := c.OpenAlexSearch(ctx, "On the dangers of stochastic parrots: can language models be too big?")
	if err != nil || len(recs) == 0 || recs[0].DOI != parrots.DOI {
		t.Errorf("OpenAlexSearch = %+v, %v", recs, err)
	}
	for _, r := range srv.Requests(scholartest.OpenAlex) {
		if r.Query.Get("api_key") != "test-key" || r.Query.Get("mailto") == "" {
			t.Errorf("OpenAlex request %s %v lacks api_key or mailto", r.Path, r.Query)
		}
	}
	last := srv.Requests(scholartest.OpenAlex)
	if f := last[len(last)-1].Query.Get("filter"); strings.ContainsAny(f, ",?|") || !strings.HasPrefix(f, "title.search:") {
		t.Errorf("filter %q carries operator characters", f)
	}
}

func TestSearchTitle(t *testing.T) {
	c, srv := newClient(t, attention, parrots, resnet)
	recs, err := c.SearchTitle(context.Background(), "Deep Residual Learning for Image Recognition")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, r := range recs {
		if r.Title == resnet.Title {
			sources = append(sources, r.Source)
		}
	}
	if diff := cmp.Diff([]string{"openalex", "crossref", "arxiv"}, sources); diff != "" {
		t.Errorf("sources of the match (-want +got):\n%s", diff)
	}

	// One API down: the others' records come back with the error.
	srv.Fail(scholartest.Crossref, scholartest.Fault{Status: 500}, scholartest.Fault{Status: 500},
		scholartest.Fault{Status: 500}, scholartest.Fault{Status: 500})
	recs, err = c.SearchTitle(context.Background(), "Deep Residual Learning for Image Recognition")
	if !errors.Is(err, claimtrace.ErrUnreachable) || !strings.Contains(err.Error(), "crossref") {
		t.Errorf("error = %v, want crossref ErrUnreachable", err)
	}
	for _, r := range recs {
		if r.Source == "crossref" {
			t.Errorf("record from the failed API: %+v", r)
		}
	}
	if len(recs) < 2 {
		t.Errorf("got %d records, want the openalex and arxiv ones", len(recs))
	}
	if _, err := c.SearchTitle(context.Background(), "  "); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("empty title: error = %v", err)
	}
}

func TestRetriesAndFaults(t *testing.T) {
	ctx := context.Background()
	t.Run("429 with Retry-After", func(t *testing.T) {
		c, srv := newClient(t, parrots)
		srv.Fail(scholartest.Crossref, scholartest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"})
		if _, err := c.CrossrefDOI(ctx, parrots.DOI); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests(scholartest.Crossref)
		if len(reqs) != 2 {
			t.Fatalf("requests = %d, want 2", len(reqs))
		}
		if gap := reqs[1].At.Sub(reqs[0].At); gap < 900*time.Millisecond {
			t.Errorf("retried after %v, want >= 1s", gap)
		}
	})
	t.Run("5xx then success", func(t *testing.T) {
		c, srv := newClient(t, attention)
		srv.Fail(scholartest.ArXiv, scholartest.Fault{Status: 503, Body: "Rate exceeded."}, scholartest.Fault{Status: 502})
		got, err := c.ArXiv(ctx, "1706.03762")
		if err != nil || got["1706.03762"].Title == "" {
			t.Fatalf("ArXiv = %v, %v", got, err)
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		srv := scholartest.NewServer(t, parrots)
		opts := srv.Options()
		opts.Retries = 2
		c := scholar.New(opts)
		srv.Fail(scholartest.OpenAlex, scholartest.Fault{Status: 500}, scholartest.Fault{Status: 500}, scholartest.Fault{Status: 500})
		_, err := c.OpenAlexDOI(ctx, parrots.DOI)
		if !errors.Is(err, claimtrace.ErrUnreachable) {
			t.Fatalf("error = %v, want ErrUnreachable", err)
		}
		if n := len(srv.Requests(scholartest.OpenAlex)); n != 3 {
			t.Errorf("requests = %d, want 3", n)
		}
	})
	t.Run("400 is not retried", func(t *testing.T) {
		c, srv := newClient(t, parrots)
		srv.Fail(scholartest.Crossref, scholartest.Fault{Status: 400, Body: "Invalid DOI"})
		if _, err := c.CrossrefDOI(ctx, parrots.DOI); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Fatalf("error = %v, want ErrInvalid", err)
		}
		if n := len(srv.Requests(scholartest.Crossref)); n != 1 {
			t.Errorf("requests = %d, want 1", n)
		}
	})
	t.Run("slow answers time out", func(t *testing.T) {
		srv := scholartest.NewServer(t, parrots)
		opts := srv.Options()
		opts.HTTPClient = &http.Client{Timeout: 50 * time.Millisecond}
		opts.Retries = 1
		c := scholar.New(opts)
		srv.SetDelay(scholartest.Crossref, 2*time.Second)
		start := time.Now()
		if _, err := c.CrossrefDOI(ctx, parrots.DOI); !errors.Is(err, claimtrace.ErrUnreachable) {
			t.Fatalf("error = %v, want ErrUnreachable", err)
		}
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Errorf("took %v", d)
		}
	})
	t.Run("one slow answer is waited for", func(t *testing.T) {
		c, srv := newClient(t, parrots)
		srv.Fail(scholartest.Crossref, scholartest.Fault{Delay: 100 * time.Millisecond})
		if _, err := c.CrossrefDOI(ctx, parrots.DOI); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		c, srv := newClient(t, parrots)
		srv.SetDelay(scholartest.Crossref, time.Second)
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := c.CrossrefDOI(cctx, parrots.DOI); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want the context's", err)
		}
	})
}

func TestMalformedBodies(t *testing.T) {
	ctx := context.Background()
	errorFeed := `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><entry>` +
		`<id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.1</id><title>Error</title>` +
		`<summary>incorrect id format for 1234.1</summary></entry></feed>`
	tests := []struct {
		name string
		api  string
		body string
		call func(*scholar.Client) error
	}{
		{"arxiv throttle text", scholartest.ArXiv, "Rate exceeded.", func(c *scholar.Client) error { _, err := c.ArXiv(ctx, "1706.03762"); return err }},
		{"arxiv error entry", scholartest.ArXiv, errorFeed, func(c *scholar.Client) error { _, err := c.ArXiv(ctx, "1706.03762"); return err }},
		{"arxiv html", scholartest.ArXiv, "<html><body>maintenance</body></html>", func(c *scholar.Client) error { _, err := c.ArXivSearch(ctx, "x y"); return err }},
		{"crossref not json", scholartest.Crossref, "Resource not found.", func(c *scholar.Client) error { _, err := c.CrossrefDOI(ctx, parrots.DOI); return err }},
		{"crossref failed status", scholartest.Crossref, `{"status":"failed","message-type":"validation-failure","message":[{"type":"parameter-not-allowed"}]}`,
			func(c *scholar.Client) error { _, err := c.CrossrefSearch(ctx, "parrots"); return err }},
		{"crossref wrong shape", scholartest.Crossref, `{"status":"ok","message-type":"work","message":{"title":"not an array"}}`,
			func(c *scholar.Client) error { _, err := c.CrossrefDOI(ctx, parrots.DOI); return err }},
		{"openalex not json", scholartest.OpenAlex, "<html>", func(c *scholar.Client) error { _, err := c.OpenAlexDOI(ctx, parrots.DOI); return err }},
		{"openalex not a work", scholartest.OpenAlex, `{"meta":{"count":0}}`, func(c *scholar.Client) error { _, err := c.OpenAlexDOI(ctx, parrots.DOI); return err }},
		{"openalex list without meta", scholartest.OpenAlex, `{"results":[]}`, func(c *scholar.Client) error { _, err := c.OpenAlexSearch(ctx, "parrots"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv := newClient(t, parrots, attention)
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

func TestArXivRateLimit(t *testing.T) {
	srv := scholartest.NewServer(t, attention, resnet, oldStyle)
	opts := srv.Options()
	opts.ArXivInterval = 100 * time.Millisecond
	c := scholar.New(opts)
	ids := []string{"1706.03762", "1512.03385", "hep-th/9711200"}
	// The limiter must hold each request back until the interval has
	// passed since the one before, so the calls cannot take less than
	// (n-1) intervals however loaded the machine is. Arrival times at the
	// server are not compared: a busy scheduler can delay one request more
	// than the next and bring their arrivals closer than the sends were.
	start := time.Now()
	for _, id := range ids {
		if _, err := c.ArXiv(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	want := time.Duration(len(ids)-1) * opts.ArXivInterval
	if elapsed := time.Since(start); elapsed < want {
		t.Errorf("%d arXiv requests took %v, want >= %v (one every %v)", len(ids), elapsed, want, opts.ArXivInterval)
	}
	if got := len(srv.Requests(scholartest.ArXiv)); got != len(ids) {
		t.Errorf("the server saw %d arXiv requests, want %d", got, len(ids))
	}
}

// TestOpenAlexKeyNeverInErrors checks that the OpenAlex key, which travels
// in the URL, is scrubbed from error messages while errors.Is still works.
func TestOpenAlexKeyNeverInErrors(t *testing.T) {
	srv := scholartest.NewServer(t)
	opts := srv.Options()
	opts.OpenAlexKey = "oa-secret-key-123"
	opts.Retries = 0
	c := scholar.New(opts)
	_, err := c.OpenAlexDOI(context.Background(), "10.9999/does.not.exist")
	if err == nil {
		t.Fatal("want an error for an unknown DOI")
	}
	if strings.Contains(err.Error(), "oa-secret-key-123") {
		t.Errorf("the key leaked: %v", err)
	}
	if !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("errors.Is(ErrNotFound) lost: %v", err)
	}
}
