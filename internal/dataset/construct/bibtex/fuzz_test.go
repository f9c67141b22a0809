package bibtex_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/bibtex"
)

// FuzzBibTeX checks that Parse never panics, never loses a key it
// reports, and is deterministic.
func FuzzBibTeX(f *testing.F) {
	for _, seed := range []string{
		"@article{k, title={A {B} C}, author = \"D and E\", year = 2020}",
		"@string{x = {X}} @misc{k, note = x # \" y\" # {z}, month = sep}",
		"@comment{ignored} @preamble{\"p\"} @misc(k, title = {paren})",
		"@misc{k, title = {unterminated",
		"@misc{k title}",
		"@@@{{{}}}\"\"##==,,",
		"@misc{a, crossref = {b}} @proceedings{b, title={T}}",
		"@misc{dup, title={1}} @misc{dup, title={2}} @misc{DUP, title={3}}",
		"@misc{k, title = \"{\"}\"}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		db, _ := bibtex.Parse("fuzz.bib", []byte(src))
		if db == nil {
			t.Fatal("nil database")
		}
		for _, e := range db.Entries {
			if e.Key == "" || strings.ContainsAny(e.Key, ", \t\n{}") {
				t.Fatalf("bad key %q", e.Key)
			}
			if db.Lookup(e.Key) != e {
				t.Fatalf("Lookup(%q) does not return its entry", e.Key)
			}
			if e.Line < 1 || e.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("line %d out of range", e.Line)
			}
			for _, fl := range e.Fields {
				if fl.Name != strings.ToLower(fl.Name) {
					t.Fatalf("field name %q not lowercased", fl.Name)
				}
			}
		}
		again, _ := bibtex.Parse("fuzz.bib", []byte(src))
		if diff := cmp.Diff(db.Entries, again.Entries); diff != "" {
			t.Fatalf("Parse is not deterministic:\n%s", diff)
		}
		db.ResolveCrossrefs()
	})
}
