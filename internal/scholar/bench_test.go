package scholar_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// realArXiv reads the arXiv metadata-snapshot sample (../shared/data) as
// records: real titles with TeX, line breaks and accents, real DOIs and
// journal references.
func realArXiv(tb testing.TB) []scholar.Record {
	tb.Helper()
	dir := sharedtest.Dir(tb, "arxiv/snapshot-sample")
	f, err := os.Open(filepath.Join(dir, "arxiv-metadata-oai-snapshot.json"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []scholar.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			ID, Title, Authors, DOI string
			JournalRef              string `json:"journal-ref"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			tb.Fatal(err)
		}
		var authors []string
		for _, a := range strings.Split(strings.ReplaceAll(m.Authors, " and ", ", "), ", ") {
			if a = strings.Join(strings.Fields(a), " "); a != "" {
				authors = append(authors, a)
			}
		}
		out = append(out, scholar.Record{ArXivID: m.ID, Title: m.Title, Authors: authors, DOI: m.DOI, Venue: m.JournalRef})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestArXivRealRecords round-trips the 200 real records through the fake's
// Atom feed and the client's parser, in batches.
func TestArXivRealRecords(t *testing.T) {
	recs := realArXiv(t)
	srv := scholartest.NewServer(t, recs...)
	c := scholar.New(srv.Options())
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ArXivID)
	}
	got, err := c.ArXiv(context.Background(), ids...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("resolved %d of %d ids", len(got), len(recs))
	}
	for _, want := range recs {
		g := got[want.ArXivID]
		if g.Title != strings.Join(strings.Fields(want.Title), " ") || g.DOI != want.DOI || len(g.Authors) != len(want.Authors) ||
			g.Venue != strings.Join(strings.Fields(want.Venue), " ") {
			t.Errorf("%s: got %+v\nwant %+v", want.ArXivID, g, want)
		}
	}
	t.Logf("%d real arXiv records in %d requests", len(recs), len(srv.Requests(scholartest.ArXiv)))
}

// BenchmarkArXivBatch resolves the 200 real ids against the fake: four
// id_list requests of 50, Atom parsing included.
func BenchmarkArXivBatch(b *testing.B) {
	recs := realArXiv(b)
	srv := scholartest.NewServer(b, recs...)
	c := scholar.New(srv.Options())
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ArXivID)
	}
	b.ReportMetric(float64(len(ids)), "ids/op")
	for b.Loop() {
		if _, err := c.ArXiv(context.Background(), ids...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseAtom parses one real 50-entry feed as served by the fake.
func BenchmarkParseAtom(b *testing.B) {
	recs := realArXiv(b)[:50]
	srv := scholartest.NewServer(b, recs...)
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ArXivID)
	}
	resp, err := http.Get(srv.URL + "/arxiv/api/query?id_list=" + strings.Join(ids, ",") + "&max_results=50")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if n, err := scholar.ParseAtomForBench(body); err != nil || n != 50 {
			b.Fatalf("parsed %d, %v", n, err)
		}
	}
}
