package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// badURLs are reference URLs that once stopped a whole batch (issue 14):
// malformed ones, and IPv6 literals, which are valid.
var badURLs = []string{
	"https://",
	"http://#frag",
	"https:///path",
	"http://:80/",
	"http://127.0.0.1%2e/",
	"https://[2606:4700:4700::1111]/x",
	"https://[::1]/admin",
}

// TestMalformedURLFailsOnlyItsCitation puts each bad URL in a report of a
// batch of several: every report is scored, the summary is written, and the
// bad URL is an unresolvable citation of its report, not the end of the
// run.
func TestMalformedURLFailsOnlyItsCitation(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ds", dataset.GTDir), 0o755)
	reports := filepath.Join(dir, "reports")
	os.MkdirAll(reports, 0o755)
	var tasks strings.Builder
	ids := []string{"2101.00100"}
	os.WriteFile(filepath.Join(reports, "2101.00100.md"), []byte("# Good\n\nA claim cites a paper (arXiv:2001.00001).\n"), 0o644)
	for i, u := range badURLs {
		id := "2101.0" + string(rune('2'+i/10)) + string(rune('0'+i%10)) + "1"
		ids = append(ids, id)
		// Inline links: the parser reads a bare IPv6 URL only up to its "[".
		text := "# R\n\nA claim cites a paper [1](https://arxiv.org/abs/2001.00001). Another claim cites the bad link [2](" + u + ").\n"
		os.WriteFile(filepath.Join(reports, id+".md"), []byte(text), 0o644)
	}
	for _, id := range ids {
		tasks.WriteString(`{"arxiv_id":"` + id + `","title":"T","prompt":"p"}` + "\n")
		os.WriteFile(filepath.Join(dir, "ds", dataset.GTDir, id+".jsonl"), []byte(`{"bib_id":"a","title":"A Paper","author":"X","meta_info":{"eprint":"2001.00001"}}`+"\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "ds", dataset.TasksFile), []byte(tasks.String()), 0o644)
	ds, err := dataset.LoadDataset(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := filepath.Join(dir, "out")
	ev, err := New(Options{Dataset: ds, ReportsDir: reports, OutDir: out, Mode: "offline", Store: st,
		Fetcher: fetch.New(fetch.Options{Offline: true}), Judge: &scriptedJudge{fn: func(string, []string) ([]claimtrace.Verdict, error) { return nil, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Run(context.Background())
	if err != nil {
		t.Fatalf("the batch stopped: %v", err)
	}
	if sum.Reports != len(ids) || sum.ReportsFailed != 0 {
		t.Errorf("scored %d of %d reports, %d failed: %+v", sum.Reports, len(ids), sum.ReportsFailed, sum.Failures)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Errorf("no summary: %v", err)
	}
	for i, u := range badURLs {
		id := ids[i+1]
		res, err := ReadResult(filepath.Join(out, "reports", id+".json"))
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if res.Citation == nil || res.Citation.Hits != 1 {
			t.Errorf("%s: citation score %+v, want the good citation matched", u, res.Citation)
			continue
		}
		found := false
		for _, m := range res.Citation.Unmatched {
			if m.Reason == score.ReasonUnresolvable {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: unmatched %+v, want the bad link unresolvable", u, res.Citation.Unmatched)
		}
	}
}

// TestAuditMalformedURL audits a report citing every bad URL: the audit
// gives a graph in which each bad URL is one unresolved source.
func TestAuditMalformedURL(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	text.WriteString("# R\n\n")
	for i, u := range badURLs {
		text.WriteString("Claim number " + string(rune('a'+i)) + " cites a bad link [" + string(rune('1'+i)) + "](" + u + ").\n\n")
	}
	path := filepath.Join(dir, "report.md")
	os.WriteFile(path, []byte(text.String()), 0o644)
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev, err := New(Options{Mode: "offline", Store: st, Fetcher: fetch.New(fetch.Options{Offline: true}),
		Judge: &scriptedJudge{fn: func(string, []string) ([]claimtrace.Verdict, error) { return nil, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	res, g, err := ev.Audit(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Sources) != len(badURLs) {
		t.Errorf("graph has %d sources, want one a bad URL (%d)", len(g.Sources), len(badURLs))
	}
	for _, s := range g.Sources {
		if s.Resolved {
			t.Errorf("source %s (%s) resolved", s.ID, s.URL)
		}
	}
	if res.AAR == nil || res.AAR.PCov == nil || *res.AAR.PCov != 0 {
		t.Errorf("aar = %+v, want PCov 0", res.AAR)
	}
}

// TestPrivateIPv6LiteralIsRefused checks that IPv6 literals are URLs like
// any other: a private one is refused by the fetcher's address policy
// (blocked, a dead citation, not a transient failure).
func TestPrivateIPv6LiteralIsRefused(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev, err := New(Options{Mode: "live", Store: st, Fetcher: fetch.New(fetch.Options{Resolver: noDNS{}, Retries: -1})})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://[::1]:1/x", "https://[fd00::1]/x", "http://[::ffff:127.0.0.1]/"} {
		r := ev.resolve(context.Background(), targetOf(claimtrace.Citation{URL: u}))
		if r.Work.Status != "blocked" || r.Failed || r.Work.Kind != claimtrace.WorkUnknown || r.Work.Key == "" {
			t.Errorf("%s: status %q failed %v kind %q key %q, want blocked, an unknown work with a key", u, r.Work.Status, r.Failed, r.Work.Kind, r.Work.Key)
		}
	}
}

// FuzzResolveURL: whatever a report writes as a URL, resolving it gives a
// work with a key and a kind (a bad URL is one unresolvable citation, never
// a hole in the graph), and the page a snapshot holds for it, whatever its
// status and body, classifies without panic.
func FuzzResolveURL(f *testing.F) {
	for _, u := range badURLs {
		f.Add(u, 200, "<html><title>x</title></html>")
	}
	f.Add("https://www.sciencedirect.com/science/article/pii/S1", 403, "<title>Just a moment...</title>")
	f.Add("https://doi.org/10.9999/x", 404, "")
	f.Add("https://journals.example.org/a", 200, `<meta name="citation_title" content="T"><p>Subscribe to read</p>`)
	st, err := store.Open(context.Background(), filepath.Join(f.TempDir(), "t.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	f.Fuzz(func(t *testing.T, raw string, status int, body string) {
		if status < 0 || status > 999 {
			return
		}
		page := &fetch.Page{URL: raw, Status: status, ContentType: "text/html", Body: []byte(body)}
		ev, err := New(Options{Mode: "offline", Store: st, Fetcher: onePage{page}})
		if err != nil {
			t.Fatal(err)
		}
		tgt := targetOf(claimtrace.Citation{URL: raw})
		if tgt.Key == "" {
			// A blank URL has nothing to resolve: the pipeline never
			// resolves it (citedSource.resolvable).
			return
		}
		r := ev.resolve(context.Background(), tgt)
		w := r.Work
		if w.Key == "" || w.Kind == "" {
			t.Errorf("%q (status %d): key %q kind %q", raw, status, w.Key, w.Kind)
		}
		if w.Kind == claimtrace.WorkUnverifiable && (w.ArXivID != "" || w.DOI != "") {
			t.Errorf("%q: unverifiable with an identifier: %+v", raw, w)
		}
	})
}

// onePage answers every URL with one page (status 0: unreachable).
type onePage struct{ p *fetch.Page }

func (f onePage) Fetch(ctx context.Context, raw string) (*fetch.Page, error) {
	p := *f.p
	if p.Status == 0 {
		return &p, fmt.Errorf("fetch %s: %w", raw, claimtrace.ErrUnreachable)
	}
	return &p, nil
}
