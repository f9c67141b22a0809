package search_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/search/searchtest"
)

const articleHTML = `<!DOCTYPE html><html><head><title>Radar Point Clouds for Driving | Example Lab</title>
<meta name="citation_title" content="Radar Point Clouds for Autonomous Driving"></head>
<body><nav>Home · Papers · About</nav><main><article><h1>Radar Point Clouds for Autonomous Driving</h1>
<p>Automotive radar measures range, azimuth and Doppler velocity of reflecting objects, and keeps working in fog, rain and darkness where cameras and lidar degrade.</p>
<p>This paper compares point-cloud, radar-tensor and grid-map representations on three public datasets and finds that point clouds trade resolution for a far smaller memory footprint.</p>
</article></main><footer>© Example Lab</footer></body></html>`

// pageServer serves an article, a dead link and a bot wall.
func pageServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/article":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, articleHTML)
		case "/wall":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Just a moment...</title></head><body>Checking your browser before accessing. Enable JavaScript and cookies to continue. cf-chl</body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBuiltinReader(t *testing.T) {
	pages := pageServer(t)
	f := fetch.New(fetch.Options{AllowHosts: []string{"127.0.0.1"}, PerHostRPS: -1, Retries: -1, Timeout: 5 * time.Second})
	r := search.NewBuiltin(f)

	title, text, err := r.Read(t.Context(), pages.URL+"/article")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if title != "Radar Point Clouds for Autonomous Driving" {
		t.Errorf("title = %q", title)
	}
	if !strings.Contains(text, "keeps working in fog, rain and darkness") || strings.Contains(text, "Home · Papers") {
		t.Errorf("text is not the article's main text:\n%s", text)
	}

	tests := []struct {
		url  string
		kind error
	}{
		{pages.URL + "/gone", claimtrace.ErrUnreachable},
		{pages.URL + "/wall", claimtrace.ErrUnreachable}, // a challenge page served as 200
		{"file:///etc/passwd", claimtrace.ErrInvalid},
		{"javascript:alert(1)", claimtrace.ErrInvalid},
		{"/relative/path", claimtrace.ErrInvalid},
	}
	for _, tt := range tests {
		_, _, err := r.Read(t.Context(), tt.url)
		if !errors.Is(err, tt.kind) {
			t.Errorf("Read(%s) = %v, want %v", tt.url, err, tt.kind)
		}
	}
}

// TestBuiltinReaderIsSSRFSafe: URLs come from search results and the
// model; without an explicit allowance a loopback address is refused.
func TestBuiltinReaderIsSSRFSafe(t *testing.T) {
	pages := pageServer(t)
	r := search.NewBuiltin(fetch.New(fetch.Options{PerHostRPS: -1, Retries: -1}))
	for _, u := range []string{pages.URL + "/article", "http://169.254.169.254/latest/meta-data/", "http://[::1]:1/"} {
		_, _, err := r.Read(t.Context(), u)
		if !errors.Is(err, claimtrace.ErrBlocked) {
			t.Errorf("Read(%s) = %v, want ErrBlocked", u, err)
		}
	}
}

func newReader(t *testing.T, srv *searchtest.Server) search.Reader {
	t.Helper()
	r, err := search.NewReader(string(srv.Kind), search.Options{BaseURL: srv.URL, APIKey: testKey, Timeout: 5 * time.Second, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRemoteReaders(t *testing.T) {
	const target = "https://arxiv.org/abs/2312.04861?context=cs"
	page := searchtest.Page{Title: "Exploring Radar Data Representations", Text: "# Exploring Radar Data Representations\n\nWith the rapid advancements of sensor technology…"}
	for _, kind := range []searchtest.Kind{searchtest.Firecrawl, searchtest.Jina} {
		t.Run(string(kind), func(t *testing.T) {
			srv := searchtest.NewServer(t, kind)
			srv.RequireKey(testKey)
			srv.SetPage(target, page)
			r := newReader(t, srv)
			title, text, err := r.Read(t.Context(), target)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if diff := cmp.Diff([]string{page.Title, page.Text}, []string{title, text}); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Q != target || reqs[0].Key != testKey {
				t.Errorf("requests = %+v, want one for %s with the key", reqs, target)
			}

			srv.SetPage("https://example.org/gone", searchtest.Page{Status: 404, Title: "Not Found"})
			for _, u := range []string{"https://example.org/gone", "https://example.org/never-set"} {
				if _, _, err := r.Read(t.Context(), u); !errors.Is(err, claimtrace.ErrUnreachable) && !errors.Is(err, search.ErrBadRequest) {
					t.Errorf("Read(%s) = %v, want a page failure", u, err)
				}
			}
			srv.Enqueue(searchtest.Fail(searchtest.Unauthorized))
			if _, _, err := r.Read(t.Context(), target); !errors.Is(err, search.ErrAuth) || strings.Contains(err.Error(), testKey) {
				t.Errorf("bad key = %v, want ErrAuth without the key", err)
			}
			srv.Enqueue(searchtest.Fail(searchtest.RateLimit), searchtest.Fail(searchtest.ServerError))
			if _, _, err := r.Read(t.Context(), target); err != nil {
				t.Errorf("Read after a 429 and a 500: %v", err)
			}
		})
	}
}

func TestFirecrawlQuota(t *testing.T) {
	srv := searchtest.NewServer(t, searchtest.Firecrawl)
	srv.Enqueue(searchtest.Fail(searchtest.Quota))
	_, _, err := newReader(t, srv).Read(t.Context(), "https://example.org/")
	if !errors.Is(err, search.ErrQuota) || !search.Fatal(err) {
		t.Errorf("firecrawl 402 = %v, want fatal ErrQuota", err)
	}
}

func TestParseJinaText(t *testing.T) {
	tests := []struct {
		in, title, text string
	}{
		{"Title: Radar Review\n\nURL Source: https://arxiv.org/abs/2312.04861\n\nPublished Time: 2023-12-08\n\nMarkdown Content:\n# Radar\n\nBody text.", "Radar Review", "# Radar\n\nBody text."},
		{"Title: Only a title line\nthe rest is text", "Only a title line", "the rest is text"},
		{"No header at all.\nJust text.", "", "No header at all.\nJust text."},
		{"Markdown Content:\nbody", "", "body"},
	}
	for _, tt := range tests {
		title, text := search.ParseJinaText(tt.in)
		if title != tt.title || text != tt.text {
			t.Errorf("ParseJinaText(%q) = %q, %q; want %q, %q", tt.in, title, text, tt.title, tt.text)
		}
	}
}
