package scholar

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

// A feed as the arXiv API returns it today: https ids with versions,
// hard-wrapped title, an author affiliation, a DOI given only as a link,
// an old-style id, and the empty entry arXiv sends for an unknown id.
const sampleFeed = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <id>https://arxiv.org/api/P8BvUKbG6Ad2Xi1cTDHwG4iGwuU</id>
  <title>arXiv Query: search_query=&amp;id_list=2005.14165,hep-th/9711200,2101.99999&amp;start=0&amp;max_results=3</title>
  <updated>2025-06-02T16:55:41Z</updated>
  <link href="https://arxiv.org/api/query?search_query=&amp;start=0&amp;max_results=3&amp;id_list=2005.14165,hep-th/9711200,2101.99999" type="application/atom+xml"/>
  <opensearch:itemsPerPage>3</opensearch:itemsPerPage>
  <opensearch:totalResults>3</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <entry>
    <id>https://arxiv.org/abs/2005.14165v4</id>
    <title>Language Models are Few-Shot
  Learners</title>
    <updated>2020-07-22T19:47:17Z</updated>
    <link href="https://arxiv.org/abs/2005.14165v4" rel="alternate" type="text/html"/>
    <link href="https://arxiv.org/pdf/2005.14165v4" rel="related" type="application/pdf" title="pdf"/>
    <summary>Recent work has demonstrated substantial gains on many NLP tasks.</summary>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <published>2020-05-28T17:29:03Z</published>
    <arxiv:comment>40+32 pages</arxiv:comment>
    <arxiv:primary_category term="cs.CL"/>
    <author>
      <name>Tom B. Brown</name>
    </author>
    <author>
      <name>Benjamin Mann</name>
      <arxiv:affiliation>OpenAI</arxiv:affiliation>
    </author>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/hep-th/9711200v3</id>
    <updated>1998-01-22T21:33:57Z</updated>
    <published>1997-11-27T22:04:36Z</published>
    <title>The Large N Limit of Superconformal Field Theories and Supergravity</title>
    <summary>We show that the large N limit of certain conformal field theories...</summary>
    <author><name>Juan M. Maldacena</name></author>
    <link title="doi" href="http://dx.doi.org/10.1023/A:1026654312961" rel="related"/>
    <arxiv:journal_ref xmlns:arxiv="http://arxiv.org/schemas/atom">Adv.Theor.Math.Phys.2:231-252,1998</arxiv:journal_ref>
    <link href="http://arxiv.org/abs/hep-th/9711200v3" rel="alternate" type="text/html"/>
  </entry>
  <entry>
    <id>http://arxiv.org/api/2101.99999</id>
    <title></title>
    <summary></summary>
  </entry>
</feed>`

func TestParseAtom(t *testing.T) {
	got, err := parseAtom([]byte(sampleFeed))
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{Source: "arxiv", ArXivID: "2005.14165", Title: "Language Models are Few-Shot Learners",
			Authors: []string{"Tom B. Brown", "Benjamin Mann"}, Published: time.Date(2020, 5, 28, 17, 29, 3, 0, time.UTC),
			URL: "https://arxiv.org/abs/2005.14165", Type: "preprint"},
		{Source: "arxiv", ArXivID: "hep-th/9711200", DOI: "10.1023/A:1026654312961",
			Title:   "The Large N Limit of Superconformal Field Theories and Supergravity",
			Authors: []string{"Juan M. Maldacena"}, Published: time.Date(1997, 11, 27, 22, 4, 36, 0, time.UTC),
			Venue: "Adv.Theor.Math.Phys.2:231-252,1998", URL: "https://arxiv.org/abs/hep-th/9711200", Type: "preprint"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseAtom (-want +got):\n%s", diff)
	}

	bad := []string{
		"Rate exceeded.",
		"",
		`<rss><channel></channel></rss>`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#max_results_must_be_an_integer</id><title>Error</title><summary>max_results must be an integer</summary></entry></feed>`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id>`,
	}
	for _, b := range bad {
		if _, err := parseAtom([]byte(b)); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("parseAtom(%.40q) error = %v, want ErrInvalid", b, err)
		}
	}
	empty, err := parseAtom([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:totalResults></feed>`))
	if err != nil || len(empty) != 0 {
		t.Errorf("empty feed = %v, %v", empty, err)
	}
}

func TestCrossrefDates(t *testing.T) {
	tests := []struct {
		json string
		want time.Time
		ok   bool
	}{
		{`{"issued":{"date-parts":[[2017,6,12]]}}`, time.Date(2017, 6, 12, 0, 0, 0, 0, time.UTC), true},
		{`{"issued":{"date-parts":[[2017]]}}`, time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{`{"issued":{"date-parts":[["2019","04"]]}}`, time.Date(2019, 4, 1, 0, 0, 0, 0, time.UTC), true},
		{`{"issued":{"date-parts":[[null]]},"published-online":{"date-parts":[[2020,2,3]]}}`, time.Date(2020, 2, 3, 0, 0, 0, 0, time.UTC), true},
		{`{"issued":{"date-parts":[[2017,13,1]]}}`, time.Time{}, false},
		{`{"x":1}`, time.Time{}, false},
	}
	for _, tt := range tests {
		recs, err := parseCrossrefList([]byte(`{"status":"ok","message-type":"work-list","message":{"items":[` +
			strings.Replace(tt.json, "{", `{"title":["T"],`, 1) + `]}}`))
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %v %v", tt.json, recs, err)
		}
		if !recs[0].Published.Equal(tt.want) {
			t.Errorf("%s: Published = %v, want %v", tt.json, recs[0].Published, tt.want)
		}
	}
}

func TestOpenAlexRecord(t *testing.T) {
	body := `{"meta":{"count":1,"db_response_time_ms":20,"page":1,"per_page":5,"groups_count":null},"results":[
	  {"id":"https://openalex.org/W2963403868","doi":null,"title":"BERT: Pre-training of Deep Bidirectional Transformers","display_name":"BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
	   "publication_year":2018,"publication_date":null,"type":"preprint","ids":{"openalex":"https://openalex.org/W2963403868","mag":2963403868},
	   "authorships":[{"author_position":"first","author":{"id":"https://openalex.org/A1","display_name":"Jacob Devlin","orcid":null},"raw_author_name":"J. Devlin"},
	                  {"author_position":"last","author":{"id":null,"display_name":null},"raw_author_name":"Kristina Toutanova"}],
	   "primary_location":{"landing_page_url":"https://www.aclweb.org/anthology/N19-1423","source":null},
	   "locations":[{"landing_page_url":"https://www.aclweb.org/anthology/N19-1423"},{"landing_page_url":"http://arxiv.org/abs/1810.04805","pdf_url":"http://arxiv.org/pdf/1810.04805"}]},
	  {"id":"https://openalex.org/W1","display_name":""}]}`
	got, err := parseOpenAlexList([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{{
		Source: "openalex", ArXivID: "1810.04805",
		Title:   "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
		Authors: []string{"Jacob Devlin", "Kristina Toutanova"}, Published: time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC),
		URL: "https://www.aclweb.org/anthology/N19-1423", Type: "preprint",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseOpenAlexList (-want +got):\n%s", diff)
	}
}

func TestHelpers(t *testing.T) {
	ids := map[string]string{
		"1706.03762": "1706.03762", "arXiv:1706.03762v7": "1706.03762", " ARXIV:2401.00001 ": "2401.00001",
		"hep-th/9711200v3": "hep-th/9711200", "math.GT/0309136": "math.GT/0309136",
		"1706.376": "", "17060.3762": "", "abc": "", "": "",
	}
	for in, want := range ids {
		got, ok := NormalizeArXivID(in)
		if got != want || ok != (want != "") {
			t.Errorf("NormalizeArXivID(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	dois := map[string]string{
		"10.1145/3442188.3445922": "10.1145/3442188.3445922", "https://doi.org/10.1/abc": "",
		"doi:10.1109/CVPR.2016.90": "10.1109/CVPR.2016.90", "http://dx.doi.org/10.1023/A:1026654312961": "10.1023/A:1026654312961",
		"10.1145": "", "11.1145/x": "", "10.1145/ spaced": "",
	}
	for in, want := range dois {
		got, err := cleanDOI(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("cleanDOI(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got := searchTerms(`"BERT: Pre-training (of) Deep, Bidirectional | Transformers?"`); got != "BERT Pre-training of Deep Bidirectional Transformers" {
		t.Errorf("searchTerms = %q", got)
	}
	if got := escapeDOI("10.1002/(SICI)1097-4636(199706)35:4<449::AID-JBM5>3.0.CO;2-O"); got != "10.1002/%28SICI%291097-4636%28199706%2935:4%3C449::AID-JBM5%3E3.0.CO%3B2-O" {
		t.Errorf("escapeDOI = %q", got)
	}
	if got := plain("Surface of <i>in vitro</i> &amp; <sub>2</sub>O   films"); got != "Surface of in vitro & 2O films" {
		t.Errorf("plain = %q", got)
	}
}

func FuzzAtom(f *testing.F) {
	f.Add([]byte(sampleFeed))
	f.Add([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#x</id><summary>bad</summary></entry></feed>`))
	f.Add([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>https://arxiv.org/abs/2101.00001v1</id><title>T</title><published>bad</published></entry></feed>`))
	f.Add([]byte("Rate exceeded."))
	f.Fuzz(func(t *testing.T, body []byte) {
		recs, err := parseAtom(body)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		for _, r := range recs {
			if r.Title == "" || r.Source != SourceArXiv {
				t.Fatalf("record without title or source: %+v", r)
			}
			if n, ok := NormalizeArXivID(r.ArXivID); !ok || n != r.ArXivID {
				t.Fatalf("record id %q is not a normalized arXiv id", r.ArXivID)
			}
		}
	})
}

func FuzzCrossrefList(f *testing.F) {
	f.Add([]byte(`{"status":"ok","message-type":"work-list","message":{"items":[{"DOI":"10.1/x","title":["A <i>b</i>"],"issued":{"date-parts":[[2017,6]]},"author":[{"given":"A","family":"B"}]}]}}`))
	f.Add([]byte(`{"status":"ok","message-type":"work-list","message":{"items":[{"issued":{"date-parts":[[null]]}}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		recs, err := parseCrossrefList(body)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Title == "" {
				t.Fatalf("record without title: %+v", r)
			}
		}
	})
}

func FuzzOpenAlexList(f *testing.F) {
	f.Add([]byte(`{"meta":{},"results":[{"id":"W1","display_name":"T","doi":"https://doi.org/10.48550/arxiv.1706.03762","publication_date":"2017-06-12"}]}`))
	f.Add([]byte(`{"meta":{},"results":[{"id":"W1","title":"T","locations":[{"landing_page_url":"https://arxiv.org/abs/1706.03762v2"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		recs, err := parseOpenAlexList(body)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Title == "" {
				t.Fatalf("record without title: %+v", r)
			}
		}
	})
}
