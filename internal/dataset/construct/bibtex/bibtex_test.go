package bibtex_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/bibtex"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []*bibtex.Entry
	}{
		{
			name: "braced and quoted values, numbers, lowercased names and types",
			src: `@Article{Key1,
  TITLE = {A {Nested {Deep}} Title},
  Author = "Doe, Jane and {Smith}, J.",
  year = 2020,
}`,
			want: []*bibtex.Entry{{Type: "article", Key: "Key1", Line: 1, Fields: []bibtex.Field{
				{"title", "A {Nested {Deep}} Title"}, {"author", "Doe, Jane and {Smith}, J."}, {"year", "2020"},
			}}},
		},
		{
			name: "string macros, concatenation and month macros",
			src: `@string{ieee = "IEEE"}
@STRING(conf = ieee # " Conference")
@inproceedings{k, booktitle = conf # { on } # "Things", month = oct, note = "x" # jan}`,
			want: []*bibtex.Entry{{Type: "inproceedings", Key: "k", Line: 3, Fields: []bibtex.Field{
				{"booktitle", "IEEE Conference on Things"}, {"month", "October"}, {"note", "xJanuary"},
			}}},
		},
		{
			name: "user macro overrides month",
			src:  "@string{jan = {Jan.}}\n@misc{k, month = jan}",
			want: []*bibtex.Entry{{Type: "misc", Key: "k", Line: 2, Fields: []bibtex.Field{{"month", "Jan."}}}},
		},
		{
			name: "quote inside braces does not end a quoted value",
			src:  `@misc{k, title = "The {"}Quote{"} Paper"}`,
			want: []*bibtex.Entry{{Type: "misc", Key: "k", Line: 1, Fields: []bibtex.Field{{"title", `The {"}Quote{"} Paper`}}}},
		},
		{
			name: "white space collapsed",
			src:  "@misc{k, title = {A\n\t  long\n   title  }}",
			want: []*bibtex.Entry{{Type: "misc", Key: "k", Line: 1, Fields: []bibtex.Field{{"title", "A long title"}}}},
		},
		{
			name: "comments, preamble, free text and e-mail addresses are not entries",
			src: `This file by jane@example.org.
@comment{ @article{hidden, title={no}} }
@preamble{ "\newcommand{\noop}[1]{}" }
% @misc{notcomment, title={BibTeX reads this one}}
@misc{k, title={Kept}}`,
			want: []*bibtex.Entry{
				{Type: "misc", Key: "notcomment", Line: 4, Fields: []bibtex.Field{{"title", "BibTeX reads this one"}}},
				{Type: "misc", Key: "k", Line: 5, Fields: []bibtex.Field{{"title", "Kept"}}},
			},
		},
		{
			name: "parentheses as delimiters and a key without fields",
			src:  "@book(b1, title = {Paren (Book)})\n@misc{empty}",
			want: []*bibtex.Entry{
				{Type: "book", Key: "b1", Line: 1, Fields: []bibtex.Field{{"title", "Paren (Book)"}}},
				{Type: "misc", Key: "empty", Line: 2},
			},
		},
		{
			name: "duplicate key: first position, last content",
			src:  "@misc{a, title={First}}\n@misc{b, title={B}}\n@article{a, title={Second}}",
			want: []*bibtex.Entry{
				{Type: "article", Key: "a", Line: 3, Fields: []bibtex.Field{{"title", "Second"}}},
				{Type: "misc", Key: "b", Line: 2, Fields: []bibtex.Field{{"title", "B"}}},
			},
		},
		{
			name: "repeated field keeps its last value",
			src:  "@misc{k, title={One}, year=1, title={Two}}",
			want: []*bibtex.Entry{{Type: "misc", Key: "k", Line: 1, Fields: []bibtex.Field{{"title", "Two"}, {"year", "1"}}}},
		},
		{
			name: "backslashes do not escape braces, as in BibTeX",
			src:  `@misc{k, title={50\% of \{x\}}}`,
			want: []*bibtex.Entry{{Type: "misc", Key: "k", Line: 1, Fields: []bibtex.Field{{"title", `50\% of \{x\}`}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := bibtex.Parse("test.bib", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, db.Entries, cmp.AllowUnexported()); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrorsRecover(t *testing.T) {
	src := `@misc{good1, title={One}}
@article{broken, title = {unterminated
@misc{good2, title={Two}}
@misc{nocomma title={x}}
@misc{good3, title = undefinedmacro}
@misc{, title={no key}}
@misc{good4, title={Four}}`
	db, err := bibtex.Parse("bad.bib", []byte(src))
	var list bibtex.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want an ErrorList, got %v", err)
	}
	var keys []string
	for _, e := range db.Entries {
		keys = append(keys, e.Key)
	}
	if diff := cmp.Diff([]string{"good1", "good2", "good3", "good4"}, keys); diff != "" {
		t.Errorf("recovered keys (-want +got):\n%s", diff)
	}
	var lines []int
	for _, e := range list {
		lines = append(lines, e.Line)
		if e.File != "bad.bib" {
			t.Errorf("error %v does not name the file", e)
		}
	}
	if diff := cmp.Diff([]int{2, 4, 5, 6}, lines); diff != "" {
		t.Errorf("error lines (-want +got):\n%s\nerrors: %v", diff, list)
	}
	if v, _ := db.Lookup("good3").Get("title"); v != "" {
		t.Errorf("undefined macro should expand to the empty string, got %q", v)
	}
}

func TestLookupAndCrossref(t *testing.T) {
	src := `@inproceedings{child, author={A. Author}, title={Child Paper}, crossref={Proc2020}}
@inproceedings{override, title={Own}, booktitle={Own Book}, crossref={proc2020}}
@proceedings{Proc2020, title={Proceedings of Things}, year={2020}, publisher={ACM}}
@misc{dangling, crossref={nowhere}}`
	db, err := bibtex.Parse("x.bib", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if db.Lookup("PROC2020") == nil || db.Lookup("Proc2020") == nil {
		t.Fatal("Lookup should match keys exactly and case-insensitively")
	}
	if db.Lookup("missing") != nil {
		t.Fatal("Lookup of a missing key should be nil")
	}
	db.ResolveCrossrefs()
	get := func(key, field string) string {
		v, _ := db.Lookup(key).Get(field)
		return v
	}
	for _, tt := range []struct{ key, field, want string }{
		{"child", "year", "2020"},
		{"child", "publisher", "ACM"},
		{"child", "title", "Child Paper"},
		{"child", "booktitle", "Proceedings of Things"},
		{"override", "booktitle", "Own Book"},
		{"override", "year", "2020"},
		{"dangling", "crossref", "nowhere"},
	} {
		if got := get(tt.key, tt.field); got != tt.want {
			t.Errorf("%s.%s = %q, want %q", tt.key, tt.field, got, tt.want)
		}
	}
}

func TestMerge(t *testing.T) {
	a, _ := bibtex.Parse("a.bib", []byte("@misc{x, title={A}}\n@misc{y, title={Y}}"))
	b, _ := bibtex.Parse("b.bib", []byte("@misc{x, title={B}}"))
	a.Merge(b)
	if v, _ := a.Lookup("x").Get("title"); v != "B" {
		t.Errorf("later file should win: title = %q", v)
	}
	if len(a.Entries) != 2 || a.Duplicates != 1 {
		t.Errorf("entries = %d, duplicates = %d; want 2 and 1", len(a.Entries), a.Duplicates)
	}
}

// TestSharedBib parses the authors' .bib of ReportBench survey 2206.03237:
// SOURCES.md says 35 keys appear twice.
func TestSharedBib(t *testing.T) {
	dir := sharedtest.Dir(t, "latex")
	for _, tt := range []struct {
		file             string
		entries, doubles int
	}{
		{"reportbench-2206.03237-bib/bibliography.bib", 243, 35},
		{"vla-attack-survey/main.bib", 203, 0},
	} {
		src, err := os.ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		db, err := bibtex.Parse(tt.file, src)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
		}
		if len(db.Entries) != tt.entries || db.Duplicates != tt.doubles {
			t.Errorf("%s: %d entries, %d duplicates; want %d and %d", tt.file, len(db.Entries), db.Duplicates, tt.entries, tt.doubles)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	dir := sharedtest.Dir(b, "latex")
	src, err := os.ReadFile(filepath.Join(dir, "algorithmic-assurances-survey/References.bib"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := bibtex.Parse("References.bib", src); err != nil {
			b.Fatal(err)
		}
	}
}
