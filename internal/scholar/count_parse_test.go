package scholar

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

func TestParseCounts(t *testing.T) {
	oa := `{"meta":{"count":3},"results":[
	  {"id":"https://openalex.org/W2963403868","doi":"https://doi.org/10.48550/arxiv.1810.04805","display_name":"BERT","publication_year":2018,"cited_by_count":91000},
	  {"id":"https://openalex.org/W1","display_name":"No count"},
	  {"id":"https://openalex.org/W2","display_name":"Negative","cited_by_count":-4,"publication_year":99999}]}`
	got, err := parseOpenAlexCounts([]byte(oa))
	if err != nil {
		t.Fatal(err)
	}
	want := []Count{
		{Source: "openalex", ID: "W2963403868", DOI: "10.48550/arxiv.1810.04805", ArXivID: "1810.04805", Title: "BERT", Year: 2018, CitedBy: 91000},
		{Source: "openalex", ID: "W2", Title: "Negative"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseOpenAlexCounts (-want +got):\n%s", diff)
	}
	cr := `{"status":"ok","message-type":"work-list","message":{"items":[
	  {"DOI":"10.1109/CVPR.2016.90","title":["Deep Residual Learning"],"issued":{"date-parts":[[2016,6]]},"is-referenced-by-count":180000},
	  {"DOI":"10.1/none","title":["Uncounted"]}]}}`
	gotCR, err := parseCrossrefCounts([]byte(cr))
	if err != nil {
		t.Fatal(err)
	}
	wantCR := []Count{{Source: "crossref", ID: "10.1109/CVPR.2016.90", DOI: "10.1109/CVPR.2016.90", Title: "Deep Residual Learning", Year: 2016, CitedBy: 180000}}
	if diff := cmp.Diff(wantCR, gotCR); diff != "" {
		t.Errorf("parseCrossrefCounts (-want +got):\n%s", diff)
	}
	var p semanticScholarPaper
	if err := json.Unmarshal([]byte(`{"paperId":"abc","title":"T","year":null,"externalIds":{"CorpusId":5,"ArXiv":"1706.03762"},"citationCount":null}`), &p); err != nil {
		t.Fatal(err)
	}
	if _, err := p.count("u"); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("a paper without citationCount: error = %v, want ErrNotFound", err)
	}
}

func FuzzOpenAlexCounts(f *testing.F) {
	f.Add([]byte(`{"meta":{},"results":[{"id":"W1","display_name":"T","doi":"https://doi.org/10.48550/arxiv.1706.03762","cited_by_count":5}]}`))
	f.Add([]byte(`{"meta":{},"results":[{"id":"W1","title":"T","cited_by_count":-1,"publication_year":-5}]}`))
	f.Add([]byte(`{"results":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		counts, err := parseOpenAlexCounts(body)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		for _, n := range counts {
			checkCount(t, n, SourceOpenAlex)
		}
	})
}

func FuzzCrossrefCounts(f *testing.F) {
	f.Add([]byte(`{"status":"ok","message-type":"work-list","message":{"items":[{"DOI":"10.1/x","title":["A <i>b</i>"],"is-referenced-by-count":3}]}}`))
	f.Add([]byte(`{"status":"ok","message-type":"work-list","message":{"items":[{"title":["T"],"is-referenced-by-count":-9,"issued":{"date-parts":[[null]]}}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		counts, err := parseCrossrefCounts(body)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		for _, n := range counts {
			checkCount(t, n, SourceCrossref)
		}
	})
}

func FuzzSemanticScholarPaper(f *testing.F) {
	f.Add([]byte(`{"paperId":"649def34f8be52c8b66281af98ae884c09aef38b","title":"T","year":2018,"externalIds":{"DOI":"10.18653/v1/N18-3011","ArXiv":"1805.02262","CorpusId":1},"citationCount":12}`))
	f.Add([]byte(`{"paperId":"x","citationCount":-3,"year":12}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var p semanticScholarPaper
		if json.Unmarshal(body, &p) != nil {
			return
		}
		n, err := p.count("u")
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) && !errors.Is(err, claimtrace.ErrNotFound) {
				t.Fatalf("error %v is neither ErrInvalid nor ErrNotFound", err)
			}
			return
		}
		if n.ID == "" {
			t.Fatalf("count without id: %+v", n)
		}
		if n.CitedBy < 0 || n.Year != 0 && (n.Year < 1000 || n.Year > 3000) {
			t.Fatalf("count out of range: %+v", n)
		}
	})
}

func checkCount(t *testing.T, n Count, source string) {
	t.Helper()
	if n.Source != source || n.Title == "" {
		t.Fatalf("count without source or title: %+v", n)
	}
	if n.CitedBy < 0 {
		t.Fatalf("negative count: %+v", n)
	}
	if n.Year != 0 && (n.Year < 1000 || n.Year > 3000) {
		t.Fatalf("year out of range: %+v", n)
	}
	if n.ArXivID != "" {
		if id, ok := NormalizeArXivID(n.ArXivID); !ok || id != n.ArXivID {
			t.Fatalf("arXiv id %q is not normalized", n.ArXivID)
		}
	}
}
