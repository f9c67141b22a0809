package live

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

// pageServer serves the hand-written article, a dead link and a bot wall.
func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	article, err := os.ReadFile("testdata/rag-study.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/article":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(article)
		case "/wall":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><title>Just a moment...</title></head><body><div id="cf-browser-verification">Checking your browser before accessing the site. Performance &amp; security by Cloudflare.</div></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func testFetcher() *fetch.Client {
	return fetch.New(fetch.Options{AllowHosts: []string{"127.0.0.1"}, PerHostRPS: -1, Retries: -1})
}

func TestFetchedSources(t *testing.T) {
	ctx := context.Background()
	srv := pageServer(t)
	svc := testService(t, Options{Fetcher: testFetcher()})
	sid := mustOpen(t, svc, "fetch")

	tests := []struct {
		name     string
		in       SourceInput
		resolved bool
		content  string
		status   int
		detail   string // in FetchInfo.Error or Wall
		note     string
	}{
		{"article", SourceInput{ID: "art", URL: srv.URL + "/article"}, true, ContentFetched, 200, "", ""},
		{"dead link", SourceInput{ID: "dead", URL: srv.URL + "/gone"}, false, ContentNone, 404, "", "HTTP 404"},
		{"bot wall", SourceInput{ID: "wall", URL: srv.URL + "/wall"}, false, ContentNone, 200, "bot_wall", "bot wall"},
		{"cloud metadata address", SourceInput{ID: "ssrf", URL: "http://169.254.169.254/latest/meta-data/"}, false, ContentNone, 0, "blocked", "fetching it failed"},
		{"excerpt given: not fetched", SourceInput{ID: "ex", URL: srv.URL + "/gone", Excerpt: excerptGain}, true, ContentExcerpt, -1, "", ""},
		{"title only: nothing to fetch", SourceInput{ID: "title", Title: "A book"}, false, ContentNone, -1, "", "fetching is disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustSource(t, svc, sid, tt.in)
			if res.Source.Resolved != tt.resolved || res.Source.Content != tt.content {
				t.Errorf("resolved %v content %q, want %v %q", res.Source.Resolved, res.Source.Content, tt.resolved, tt.content)
			}
			switch {
			case tt.status < 0 && res.Fetch != nil:
				t.Errorf("fetched %+v, want no fetch", res.Fetch)
			case tt.status >= 0 && (res.Fetch == nil || res.Fetch.Status != tt.status):
				t.Errorf("fetch %+v, want status %d", res.Fetch, tt.status)
			case tt.detail != "" && !strings.Contains(res.Fetch.Error+res.Fetch.Wall, tt.detail):
				t.Errorf("fetch %+v does not mention %q", res.Fetch, tt.detail)
			}
			if !strings.Contains(res.Note, tt.note) || (tt.note == "") != (res.Note == "") {
				t.Errorf("note %q, want one mentioning %q", res.Note, tt.note)
			}
			// Its words are those of the text claims are judged against:
			// the excerpt, or the page's text; none without either.
			text := svc.resident[sid].ss.sources[tt.in.ID].text
			if want := prov.CountWords(text); res.Source.Words != want || tt.resolved != (want > 0) {
				t.Errorf("%d words, want %d (of %q)", res.Source.Words, want, cutUTF8(text, 60))
			}
		})
	}

	// The fetched page gave the title and DOI, and claims are judged against its text.
	g, _ := svc.Graph(ctx, sid)
	art := g.Sources[0]
	if art.Title != "Retrieval helps long-form answers: a controlled study" || art.DOI != "10.5555/rag.2024.014" || !art.Resolved || art.RetrievedAt.IsZero() {
		t.Errorf("fetched source %+v: want the page's citation_title and DOI, resolved, with a retrieval time", art)
	}
	res := mustClaim(t, svc, sid, ClaimInput{Statement: claimGain, Supports: []string{"art"}})
	if res.Gated || len(res.Verdicts) != 1 || !strings.Contains(res.Verdicts[0].Evidence, "improved answer accuracy by 14-18%") {
		t.Errorf("claim against the fetched page: gated %v, verdicts %+v", res.Gated, res.Verdicts)
	}
	res = mustClaim(t, svc, sid, ClaimInput{Statement: claimGain, Supports: []string{"wall"}})
	if !res.Gated || codes(res.Reasons)[0] != "unresolved_source:wall" || !strings.Contains(res.Reasons[0].Detail, "bot wall") {
		t.Errorf("claim resting on a bot wall: %+v", res.Gate)
	}
}

func TestNoFetcherLeavesURLUnresolved(t *testing.T) {
	srv := pageServer(t)
	svc := testService(t, Options{})
	sid := mustOpen(t, svc, "nofetch")
	res := mustSource(t, svc, sid, SourceInput{URL: srv.URL + "/article"})
	if res.Source.Resolved || res.Fetch != nil || !strings.Contains(res.Note, "--allow-fetch") {
		t.Errorf("URL-only source without a fetcher: %+v", res)
	}
}

// TestConflictsAndCTran: a new source contradicting an earlier one is
// reported; CTran counts it unsurfaced until a contradicts edge records it.
func TestConflictsAndCTran(t *testing.T) {
	ctx := context.Background()
	svc := testService(t, Options{Detector: prov.Offline{}})
	sid := mustOpen(t, svc, "conflict")
	mustSource(t, svc, sid, SourceInput{ID: "bench", Title: "Sharding benchmark", Excerpt: "Median query latency fell by 38% after the index was sharded across four nodes."})
	if res := mustSource(t, svc, sid, SourceInput{ID: "tail", Title: "Tail latency", Excerpt: "Tail latency at the 99th percentile did not change."}); len(res.Conflicts) != 0 {
		t.Errorf("conflicts %+v: nothing disagrees with the tail-latency source", res.Conflicts)
	}
	res := mustSource(t, svc, sid, SourceInput{Title: "Field report", Excerpt: "After sharding the index across four nodes, median query latency rose by 12%."})
	var pairs []string
	for _, c := range res.Conflicts {
		pairs = append(pairs, c.A+"|"+c.B+"|"+string(c.Kind))
	}
	if diff := cmp.Diff([]string{"bench|s3|polarity"}, pairs); diff != "" {
		t.Fatalf("conflicts of the new source (-want +got):\n%s", diff)
	}
	mustClaim(t, svc, sid, ClaimInput{ID: "c1", Statement: "Sharding the index across four nodes cut median query latency by 38%.", Supports: []string{"bench"}})
	m, _ := svc.Metrics(ctx, sid)
	if m.CTran == nil || *m.CTran != 0 || m.Counts.Conflicts != 1 {
		t.Fatalf("before surfacing: ctran %v, counts %+v", m.CTran, m.Counts)
	}
	er, err := svc.AddEdge(ctx, sid, EdgeInput{From: "s3", To: "c1", Rel: "contradicts"})
	if err != nil {
		t.Fatal(err)
	}
	if er.Verdict != nil || er.Claim == nil || er.Claim.Gated {
		t.Errorf("contradicts edge: verdict %+v (want none), claim outcome %+v", er.Verdict, er.Claim)
	}
	m, _ = svc.Metrics(ctx, sid)
	if m.CTran == nil || *m.CTran != 1 || !m.Conflicts[0].Surfaced {
		t.Errorf("after the contradicts edge: ctran %v, conflicts %+v", m.CTran, m.Conflicts)
	}
}

// TestExport: the session exports as PROV-JSON that reads back into the
// same claims, sources and judged edges, and as PROV-JSONLD.
func TestExport(t *testing.T) {
	ctx := context.Background()
	svc := testService(t, Options{})
	sid := mustOpen(t, svc, "export")
	if _, err := svc.PROV(ctx, sid, ""); err != nil {
		t.Errorf("export of an empty session: %v", err)
	}
	seed(t, svc, sid)
	mustClaim(t, svc, sid, ClaimInput{ID: "c1", Statement: claimGain, Supports: []string{"s1", "r1"}, Start: 10, End: 149, Section: "Findings"})
	mustClaim(t, svc, sid, ClaimInput{ID: "c2", Statement: claimUnrelated, Supports: []string{"s3"}})
	data, err := svc.PROV(ctx, sid, FormatPROVJSON)
	if err != nil {
		t.Fatal(err)
	}
	back, err := provjson.Unmarshal(data)
	if err != nil {
		t.Fatalf("exported PROV-JSON does not read back: %v", err)
	}
	g, _ := svc.Graph(ctx, sid)
	if len(back.Claims) != len(g.Claims) || len(back.Sources) != len(g.Sources) || len(back.Reasoning) != len(g.Reasoning) {
		t.Errorf("read back %d claims, %d sources, %d steps; want %d, %d, %d", len(back.Claims), len(back.Sources), len(back.Reasoning), len(g.Claims), len(g.Sources), len(g.Reasoning))
	}
	want, _ := prov.Compute(g, DefaultTestTau)
	got, err := prov.Compute(back, DefaultTestTau)
	if err != nil {
		t.Fatal(err)
	}
	if want.PSnd != got.PSnd || want.PCov != got.PCov {
		t.Errorf("metrics of the read-back graph: psnd %v pcov %v, want %v %v", got.PSnd, got.PCov, want.PSnd, want.PCov)
	}
	ld, err := svc.PROV(ctx, sid, FormatPROVJSONLD)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(ld, &doc); err != nil || doc["@graph"] == nil {
		t.Errorf("PROV-JSONLD: %v, keys %v", err, doc)
	}
	if _, err := svc.PROV(ctx, "missing", ""); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("export of a missing session: %v", err)
	}
}

// DefaultTestTau is the τ the services of these tests use.
const DefaultTestTau = prov.DefaultTau
