package biblio

import (
	"strings"
	"testing"
	"unicode"

	"github.com/claimtrace/claimtrace"
)

func TestCompactIdentifier(t *testing.T) {
	tests := map[string]string{
		"https://doi.org/10.1016/j              .conengprac.2012.05.002 ":      "https://doi.org/10.1016/j.conengprac.2012.05.002",
		" \n\nhttps://doi.org/10.1089/soro.2021.0080\n\n\n":                    "https://doi.org/10.1089/soro.2021.0080",
		"https://www.sciencedirect.com/science/article/pii/S012345678 9012345": "https://www.sciencedirect.com/science/article/pii/S0123456789012345",
		"https://widgets. example/paper":                                       "https://widgets.example/paper",
		"10.5555/ widget.2020.7":                                               "10.5555/widget.2020.7",
		"arXiv: 2101.00001":                                                    "arXiv:2101.00001",
		// Two identifiers in one field stay two.
		"doi: https://doi.org/10.5555/a.1":         "doi: https://doi.org/10.5555/a.1",
		"10.5555/first.1 10.5556/second.2":         "10.5555/first.1 10.5556/second.2",
		"https://a.example/x\thttps://b.example/y": "https://a.example/x https://b.example/y",
		"":      "",
		" \t\n": "",
	}
	for in, want := range tests {
		if got := CompactIdentifier(in); got != want {
			t.Errorf("CompactIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSplitDOIsAreTwoWorks: two Elsevier papers whose DOIs a wrapped field
// splits after the journal stem ("10.1016/j …") are two works, each found
// by its own whole DOI, and the stem alone identifies nothing.
func TestSplitDOIsAreTwoWorks(t *testing.T) {
	refs := []claimtrace.Reference{
		{BibID: "valve13", Title: "Timed models of valve controllers", Meta: map[string]string{"doi": "https://doi.org/10.1016/j        .valvejour.2013.04.007 "}},
		{BibID: "pump19", Title: "Generating pump code from charts", Meta: map[string]string{"DOI": "https://doi.org/10.1016/j    \n .pumpcon.2019.11.101"}},
		{BibID: "gear20", Title: "Gear trains, formally", Meta: map[string]string{"doi": "10.1016/j"}},
	}
	ix := NewIndex(refs)
	if ix.Distinct() != 3 {
		t.Fatalf("distinct = %d, want 3: a DOI stem joined different papers", ix.Distinct())
	}
	for _, c := range []struct{ doi, bib string }{{"10.1016/j.valvejour.2013.04.007", "valve13"}, {"10.1016/j.pumpcon.2019.11.101", "pump19"}} {
		m, ok := ix.Match(claimtrace.Work{DOI: c.doi})
		if !ok || m.BibID != c.bib || m.Method != MethodDOI {
			t.Errorf("DOI %s matched %+v (%v), want %s by doi", c.doi, m, ok, c.bib)
		}
	}
	if m, ok := ix.Match(claimtrace.Work{DOI: "10.1016/j", URL: "https://doi.org/10.1016/j"}); ok {
		t.Errorf("the DOI stem 10.1016/j matched %+v", m)
	}
	if refs[0].Meta["doi"] != "https://doi.org/10.1016/j        .valvejour.2013.04.007 " {
		t.Errorf("NewIndex changed the caller's meta_info: %q", refs[0].Meta["doi"])
	}
}

func TestCompactReference(t *testing.T) {
	r := claimtrace.Reference{Title: "A  spaced   title", Meta: map[string]string{
		"DOI": "10.5555/ab .cd", "journal": "Journal of  Widgets", "url": " https://x.example/a b ",
	}}
	got := CompactReference(r)
	want := map[string]string{"DOI": "10.5555/ab.cd", "journal": "Journal of  Widgets", "url": "https://x.example/ab"}
	for k, v := range want {
		if got.Meta[k] != v {
			t.Errorf("meta %s = %q, want %q", k, got.Meta[k], v)
		}
	}
	if got.Title != r.Title || r.Meta["DOI"] != "10.5555/ab .cd" {
		t.Errorf("CompactReference changed the title or the input: %+v / %+v", got, r)
	}
}

// FuzzCompactIdentifier: the non-space characters come out unchanged and in
// order, the only whitespace left is one space before a new identifier, and
// compacting twice changes nothing.
func FuzzCompactIdentifier(f *testing.F) {
	for _, s := range []string{"https://doi.org/10.1016/j   .x.2012.05.002 ", "doi: https://doi.org/10.1/a", "10.1234/a 10.5678/b", " \n", "a\u00a0b\u3000c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := CompactIdentifier(s)
		strip := func(x string) string { return strings.Join(strings.FieldsFunc(x, unicode.IsSpace), "") }
		if strip(got) != strip(s) {
			t.Fatalf("CompactIdentifier(%q) = %q: characters changed", s, got)
		}
		if got == "" {
			return
		}
		for i, f := range strings.Split(got, " ") {
			if f == "" || strings.IndexFunc(f, unicode.IsSpace) >= 0 {
				t.Fatalf("CompactIdentifier(%q) = %q: stray whitespace", s, got)
			}
			if i > 0 && !startsIdentifier(f) {
				t.Fatalf("CompactIdentifier(%q) = %q: a space before %q, which starts no identifier", s, got, f)
			}
		}
		if again := CompactIdentifier(got); again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, got, again)
		}
	})
}
