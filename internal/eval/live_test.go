package eval

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// noDNS resolves nothing: the test never leaves the machine.
type noDNS struct{}

func (noDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestLiveResolution runs the pipeline against a fake publisher site and
// fake arXiv, Crossref and OpenAlex APIs: identifiers are verified, titles
// are looked up, and fabricated identifiers count against precision.
func TestLiveResolution(t *testing.T) {
	var healed atomic.Bool
	publisher := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/article/42":
			fmt.Fprint(w, `<html><head><title>Deep Widgets | Journal of Widgets</title>
<meta name="citation_title" content="Deep Widgets for Everyone"><meta name="citation_doi" content="10.5555/widgets.42">
<meta name="citation_publication_date" content="2021/06/01"></head><body><p>We study widgets.</p></body></html>`)
		case "/blog/post":
			fmt.Fprint(w, `<html><head><title>My thoughts on widgets</title><meta property="og:type" content="article"></head><body><article><h1>My thoughts on widgets</h1><p>Widgets are great and everyone should use them, in my opinion, for years to come. I have been building with widgets since my first job, and every team I joined ended up adopting them sooner or later.</p><p>In this post I explain why, with a few stories from the trenches and some advice for getting started.</p></article></body></html>`)
		case "/flaky":
			if !healed.Load() {
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, `<html><head><meta name="citation_title" content="Something Else Entirely"></head><body><p>Back online.</p></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer publisher.Close()
	apis := scholartest.NewServer(t,
		scholar.Record{ArXivID: "2002.08909", Title: "REALM: Retrieval-Augmented Language Model Pre-Training", Published: time.Date(2020, 2, 10, 0, 0, 0, 0, time.UTC)},
		scholar.Record{DOI: "10.5555/widgets.42", Title: "Deep Widgets for Everyone", Published: time.Date(2021, 6, 1, 0, 0, 0, 0, time.UTC)},
		scholar.Record{DOI: "10.1162/tacl_a_00276", Title: "Natural Questions: A Benchmark for Question Answering Research", Published: time.Date(2019, 8, 1, 0, 0, 0, 0, time.UTC)},
	)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ds", dataset.GTDir), 0o755)
	os.MkdirAll(filepath.Join(dir, "reports"), 0o755)
	os.WriteFile(filepath.Join(dir, "ds", dataset.TasksFile), []byte(`{"arxiv_id":"2201.00001","title":"Widgets: A Survey","prompt":"Survey widgets before January 2022."}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ds", dataset.GTDir, "2201.00001.jsonl"), []byte(strings.Join([]string{
		`{"bib_id":"realm","title":"REALM: Retrieval-Augmented Language Model Pre-Training","author":"Guu","meta_info":{}}`,
		`{"bib_id":"widgets","title":"Deep widgets for everyone","author":"W","meta_info":{"doi":"10.5555/widgets.42"}}`,
		`{"bib_id":"nq","title":"Natural Questions: A Benchmark for Question Answering Research","author":"K","meta_info":{}}`,
		`{"bib_id":"other","title":"Something Else Entirely","author":"O","meta_info":{}}`,
	}, "\n")+"\n"), 0o644)
	report := fmt.Sprintf(`# Widgets

Widgets were first studied at scale in a journal article [1].
REALM retrieves documents during pre-training (arXiv:2002.08909).
A result that does not exist is reported here (arXiv:2312.99999).
A DOI that was never registered is cited too (doi:10.9999/made.up.1).
Natural Questions is a standard benchmark [2].
Some people like widgets a lot [3].
A flaky server holds this one [4].

## References
[1] %[1]s/article/42
[2] Kwiatkowski, T., Palomaki, J., et al. (2019). Natural Questions: A Benchmark for Question Answering Research. Transactions of the ACL.
[3] %[1]s/blog/post
[4] %[1]s/flaky
`, publisher.URL)
	os.WriteFile(filepath.Join(dir, "reports", "2201.00001.md"), []byte(report), 0o644)
	ds, err := dataset.LoadDataset(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := Options{
		Dataset: ds, ReportsDir: filepath.Join(dir, "reports"), OutDir: filepath.Join(dir, "out"), Mode: "live", Store: st,
		Fetcher: fetch.New(fetch.Options{AllowHosts: []string{"127.0.0.1"}, Resolver: noDNS{}, Retries: -1, PerHostRPS: -1}),
		Scholar: scholar.New(apis.Options()),
	}
	ev, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := ReadResult(filepath.Join(dir, "out", "reports", "2201.00001.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range res.Citation.Matched {
		got[m.BibID] = m.Method
	}
	want := map[string]string{"realm": "arxiv_id", "widgets": "doi", "nq": "title"}
	// REALM has no arXiv id in the ground truth: it matches by the title the
	// arXiv API returned.
	want["realm"] = "title"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	reasons := map[string]string{}
	for _, u := range res.Citation.Unmatched {
		reasons[u.URL] = u.Reason
	}
	wantReasons := map[string]string{
		"https://arxiv.org/abs/2312.99999":  score.ReasonUnresolvable,
		"https://doi.org/10.9999/made.up.1": score.ReasonUnresolvable,
		publisher.URL + "/blog/post":        score.ReasonNotAPaper,
		// The server answered 503 to every try: alive, not fabricated.
		publisher.URL + "/flaky": score.ReasonUnverifiable,
	}
	if diff := cmp.Diff(wantReasons, reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	// Strict: 3 hits of 4 papers, the 2 fabricated identifiers and the
	// unreadable 503; the verifiable-only bound leaves the 503 out.
	if *res.Citation.Precision != 3.0/6 || *res.Citation.PrecisionVerifiable != 3.0/5 || *res.Citation.CompatPrecision != 1 || res.Citation.Unverifiable != 1 {
		t.Errorf("precision %v verifiable %v compat %v: fabricated identifiers and the unreadable page must count against the report in strict precision",
			*res.Citation.Precision, *res.Citation.PrecisionVerifiable, *res.Citation.CompatPrecision)
	}
	// The 503 is a transient failure: recorded, and retried on request.
	if len(res.FailedSources) == 0 {
		t.Fatalf("the 503 source is not recorded as failed: %+v", res.Sources)
	}

	// A plain rerun keeps the failure; --retry-failed fetches it again.
	healed.Store(true)
	ev, _ = New(opts)
	if _, err := ev.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res, _ = ReadResult(filepath.Join(dir, "out", "reports", "2201.00001.json")); len(res.FailedSources) == 0 {
		t.Errorf("a plain rerun retried a failed unit")
	}
	opts.RetryFailed = true
	ev, _ = New(opts)
	if _, err := ev.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, _ = ReadResult(filepath.Join(dir, "out", "reports", "2201.00001.json"))
	if len(res.FailedSources) != 0 || res.Citation.Hits != 4 {
		t.Errorf("after --retry-failed: failed %v, hits %d (want 0 and 4)", res.FailedSources, res.Citation.Hits)
	}
}
