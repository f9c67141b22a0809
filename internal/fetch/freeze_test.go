package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

func TestCitedURLs(t *testing.T) {
	cites := []claimtrace.Citation{
		{URL: "https://b.example/x"},
		{ArXivID: "1706.03762"},
		{DOI: "10.1145/1234.5678"},
		{URL: "https://a.example/", ArXivID: "2101.00001", DOI: "10.1/x"}, // the link wins
		{ArXivID: "2005.11401", DOI: "10.1/y"},                            // then the arXiv id
		{Title: "A title-only reference"},                                 // nothing to fetch
		{URL: "https://b.example/x"},                                      // repeated
		{ArXivID: "1706.03762"},
	}
	want := []string{
		"https://a.example/",
		"https://arxiv.org/abs/1706.03762",
		"https://arxiv.org/abs/2005.11401",
		"https://b.example/x",
		"https://doi.org/10.1145/1234.5678",
	}
	if diff := cmp.Diff(want, CitedURLs(cites)); diff != "" {
		t.Errorf("CitedURLs (-want +got):\n%s", diff)
	}
	if got := CitedURLs(nil); len(got) != 0 {
		t.Errorf("CitedURLs(nil) = %v", got)
	}
}

// fakeFetcher answers from a table of outcomes per URL and counts calls.
type fakeFetcher struct {
	mu    sync.Mutex
	calls map[string]int
	pages map[string]*Page
	errs  map[string]error
}

func (f *fakeFetcher) Fetch(_ context.Context, u string) (*Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[u]++
	if err := f.errs[u]; err != nil {
		return nil, err
	}
	p := *f.pages[u]
	return &p, nil
}

// TestFreeze freezes a page, a dead link, a URL the policy blocks and one
// that fails on the network into a snapshot already holding a page: all
// but the failure are recorded, and a rerun fetches only the failure.
func TestFreeze(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2025, 7, 1, 8, 0, 0, 0, time.UTC)
	w, err := CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(&Page{URL: "https://old.example/", Status: 200, ContentType: "text/plain", Body: []byte("old"), FetchedAt: at}); err != nil {
		t.Fatal(err)
	}
	f := &fakeFetcher{
		calls: map[string]int{},
		pages: map[string]*Page{
			// The fetcher reports the URL redirected to; the snapshot keeps
			// the URL as cited.
			"https://ok.example/a":   {URL: "https://ok.example/a/", FinalURL: "https://ok.example/a/", Status: 200, ContentType: "text/plain", Body: []byte("page a"), FetchedAt: at},
			"https://dead.example/":  {URL: "https://dead.example/", Status: 404, FetchedAt: at},
			"https://flaky.example/": {URL: "https://flaky.example/", Status: 200, ContentType: "text/plain", Body: []byte("back"), FetchedAt: at},
		},
		errs: map[string]error{
			"https://10.0.0.1/":      fmt.Errorf("fetch https://10.0.0.1/: private address: %w", claimtrace.ErrBlocked),
			"https://flaky.example/": errors.New("dial tcp: i/o timeout"),
		},
	}
	urls := []string{"https://10.0.0.1/", "https://dead.example/", "https://flaky.example/", "https://ok.example/a", "https://old.example/"}
	var progress atomic.Int64
	res, err := w.Freeze(t.Context(), f, urls, FreezeOptions{Concurrency: 3, Progress: func() { progress.Add(1) }})
	if err != nil {
		t.Fatalf("Freeze: %v", err)
	}
	want := FreezeResult{Already: 1, Fetched: 1, Dead: 1, Blocked: 1, Failed: map[string]string{"https://flaky.example/": "dial tcp: i/o timeout"}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if n := progress.Load(); n != int64(len(urls)) {
		t.Errorf("progress called %d times, want %d", n, len(urls))
	}
	if f.calls["https://old.example/"] != 0 {
		t.Error("a URL already in the snapshot was fetched")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, e := range s.Entries() {
		got[e.URL] = e.Status
	}
	wantIndex := map[string]int{"https://old.example/": 200, "https://ok.example/a": 200, "https://dead.example/": 404, "https://10.0.0.1/": 0}
	if diff := cmp.Diff(wantIndex, got); diff != "" {
		t.Errorf("index URL → status (-want +got):\n%s", diff)
	}
	if e, _ := s.Lookup("https://10.0.0.1/"); e.Err != "blocked by fetch policy" || e.File != "" {
		t.Errorf("blocked entry = %+v", e)
	}

	// Rerun: only the network failure is fetched again, and now it works.
	delete(f.errs, "https://flaky.example/")
	w, err = CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err = w.Freeze(t.Context(), f, urls, FreezeOptions{})
	if err != nil {
		t.Fatalf("second Freeze: %v", err)
	}
	want = FreezeResult{Already: 4, Fetched: 1, Failed: map[string]string{}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("second result (-want +got):\n%s", diff)
	}
	for u, n := range f.calls {
		if wantN := map[bool]int{true: 2, false: 1}[u == "https://flaky.example/"]; n != wantN {
			t.Errorf("%s fetched %d times, want %d", u, n, wantN)
		}
	}
}

// TestFreezeStopsWithContext: a cancelled context stops the freeze with
// its error, and what was in flight is not recorded.
func TestFreezeStopsWithContext(t *testing.T) {
	w, err := CreateSnapshot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	f := &fakeFetcher{calls: map[string]int{}, pages: map[string]*Page{"https://a.example/": {Status: 200}}}
	if _, err := w.Freeze(ctx, f, []string{"https://a.example/"}, FreezeOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Freeze: %v, want context.Canceled", err)
	}
	if w.Has("https://a.example/") {
		t.Error("a page fetched after cancellation was recorded")
	}
}

// TestFreezeWithClient freezes through the real client: a page and a dead
// link from an httptest server, a private address refused by the policy.
func TestFreezeWithClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/page" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "a page")
	}))
	defer srv.Close()
	c := New(Options{AllowHosts: []string{"127.0.0.1"}, PerHostRPS: -1, Retries: -1, Timeout: 5 * time.Second})
	w, err := CreateSnapshot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err := w.Freeze(t.Context(), c, []string{srv.URL + "/page", srv.URL + "/gone", "http://10.1.2.3/x"}, FreezeOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := FreezeResult{Fetched: 1, Dead: 1, Blocked: 1, Failed: map[string]string{}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}
