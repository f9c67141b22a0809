package construct_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/bibtex"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func TestRefFromEntry(t *testing.T) {
	db, err := bibtex.Parse("t.bib", []byte(`@inproceedings{k,
  title = {Time in {{Blockchain-Based Process Execution}}},
  booktitle = {2020 {{IEEE}} 24th {{EDOC}}},
  author = {Ladleif, Jan and Weske, Mathias and others},
  year = {2020},
  month = oct,
  pages = {217--226},
  publisher = {{IEEE}},
  doi = {10.1109/EDOC49727.2020.00034},
  FILE = {/Users/x/Zotero/storage/A B - 2020 - T.pdf},
  cpages = {127\textendash 141}
}`))
	if err != nil {
		t.Fatal(err)
	}
	got := construct.RefFromEntry(db.Lookup("k"))
	want := construct.Ref{
		BibID:  "k",
		Title:  "Time in Blockchain-Based Process Execution",
		Author: "Ladleif, Jan and Weske, Mathias and others",
		// Reverse source order, as in the released ground truth; pages keep
		// "--"; identifiers are verbatim.
		Meta: []construct.MetaField{
			{Name: "cpages", Value: "127–141"},
			{Name: "file", Value: "/Users/x/Zotero/storage/A B - 2020 - T.pdf"},
			{Name: "doi", Value: "10.1109/EDOC49727.2020.00034"},
			{Name: "publisher", Value: "IEEE"},
			{Name: "pages", Value: "217--226"},
			{Name: "month", Value: "October"},
			{Name: "year", Value: "2020"},
			{Name: "booktitle", Value: "2020 IEEE 24th EDOC"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RefFromEntry (-want +got):\n%s", diff)
	}
	var line bytes.Buffer
	construct.WriteRefs(&line, []construct.Ref{got})
	wantLine := `{"bib_id":"k","title":"Time in Blockchain-Based Process Execution","author":"Ladleif, Jan and Weske, Mathias and others","meta_info":{"cpages":"127–141","file":"\/Users\/x\/Zotero\/storage\/A B - 2020 - T.pdf","doi":"10.1109\/EDOC49727.2020.00034","publisher":"IEEE","pages":"217--226","month":"October","year":"2020","booktitle":"2020 IEEE 24th EDOC"}}` + "\n"
	if line.String() != wantLine {
		t.Errorf("released line:\n got %s\nwant %s", line.String(), wantLine)
	}
}

// TestExtractRefsFixture runs the extractor on the hand-made survey in
// testdata/survey: inclusions with and without .tex, every cite form,
// comments, \iffalse, comment environment and \nocite excluded, two
// databases (the later wins), @string, crossref, duplicate keys (last
// wins) and a key found only in the .bbl.
func TestExtractRefsFixture(t *testing.T) {
	res, err := construct.ExtractRefs(context.Background(), "testdata/survey", construct.RefsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res.Refs {
		ids = append(ids, r.BibID)
	}
	wantIDs := []string{"smith2020", "doe2021", "garcia2019", "chen2022inproc", "lee2018", "dup2020", "overridden", "fromBBL", "knuth84"}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("references in citation order (-want +got):\n%s", diff)
	}
	if res.Main != "main.tex" || res.Cited != 9 || len(res.Missing) != 0 || res.Source != "bib+bbl" {
		t.Errorf("result: main %q, cited %d, missing %v, source %q", res.Main, res.Cited, res.Missing, res.Source)
	}
	if diff := cmp.Diff([]string{"refs.bib", "more/extra.bib"}, res.BibFiles); diff != "" {
		t.Errorf("databases (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := construct.WriteRefs(&out, res.Refs); err != nil {
		t.Fatal(err)
	}
	golden(t, "survey.golden.jsonl", out.Bytes())

	res2, err := construct.ExtractRefs(context.Background(), "testdata/survey", construct.RefsOptions{Main: "sections/intro.tex"})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Cited != 5 {
		t.Errorf("with --main sections/intro.tex: %d cited keys, want 5", res2.Cited)
	}
}

// TestGroundTruth2206 converts the authors' .bib of ReportBench survey
// 2206.03237 and compares title and author with the released ground truth.
//
// 49 of 54 match. The five others differ because the .bib at the shared
// commit is not the version ReportBench read: the release has "and others"
// after three authors for breu…2013 and mendling…2018a where this .bib
// lists 14 and 32 authors; weberProgrammableMoney2021 has another title
// capitalisation and author form; luIntegratedModelDriven2021a matches the
// first of its two definitions ("Model-driven"), while the last wins as the
// issue asks (and as in 34 of the other 35 duplicates); and the release
// writes "Martín-Mart\ń", a conversion bug for {Mart{\'i}n-Mart{\'i}n},
// where we write "Martín-Martín".
func TestGroundTruth2206(t *testing.T) {
	root := sharedtest.Root()
	if root == "" {
		t.Skip("shared data not found")
	}
	src, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "latex"), "reportbench-2206.03237-bib/bibliography.bib"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := bibtex.Parse("bibliography.bib", src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(sharedtest.Dir(t, "reportbench-v1.1"), "ReportBench_v1.1_GT/2206.03237.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	released, err := construct.ReadRefs(f, "2206.03237.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var differ []string
	same, sameMeta, metaFields, metaEqual := 0, 0, 0, 0
	for _, want := range released {
		e := db.Lookup(want.BibID)
		if e == nil {
			t.Errorf("%s: not in the .bib", want.BibID)
			continue
		}
		got := construct.RefFromEntry(e)
		if got.Title == want.Title && got.Author == want.Author {
			same++
		} else {
			differ = append(differ, want.BibID)
		}
		if cmp.Equal(got.Meta, want.Meta) {
			sameMeta++
		}
		gotMeta := map[string]string{}
		for _, m := range got.Meta {
			gotMeta[m.Name] = m.Value
		}
		for _, m := range want.Meta {
			metaFields++
			if gotMeta[m.Name] == m.Value {
				metaEqual++
			}
		}
	}
	t.Logf("title and author identical: %d of %d; meta_info identical: %d; meta fields equal: %d of %d",
		same, len(released), sameMeta, metaEqual, metaFields)
	wantDiffer := []string{"breuLivingInterorganizationalProcesses2013", "mendlingBlockchainsBusinessProcess2018a",
		"martin-martinGoogleScholarWeb2018", "luIntegratedModelDriven2021a", "weberProgrammableMoney2021"}
	if diff := cmp.Diff(wantDiffer, differ); diff != "" || len(released) != 54 {
		t.Errorf("entries differing in title or author (-want +got):\n%s", diff)
	}
	// The evidence that three of the five come from another version of the
	// .bib: their released records carry fields this .bib does not have
	// (cauthor, the full list the author moved aside when shortening
	// author to "… and others"; comment = "non-ref").
	for id, field := range map[string]string{"breuLivingInterorganizationalProcesses2013": "cauthor",
		"mendlingBlockchainsBusinessProcess2018a": "cauthor", "weberProgrammableMoney2021": "comment"} {
		var rel *construct.Ref
		for i := range released {
			if released[i].BibID == id {
				rel = &released[i]
			}
		}
		inRelease := false
		for _, m := range rel.Meta {
			inRelease = inRelease || m.Name == field
		}
		_, inBib := db.Lookup(id).Get(field)
		if !inRelease || inBib {
			t.Errorf("%s: field %s in the release %v, in the shared .bib %v; want only in the release", id, field, inRelease, inBib)
		}
	}
}

// TestExtractRefsShared runs the extractor on the two real surveys.
func TestExtractRefsShared(t *testing.T) {
	root := sharedtest.Dir(t, "latex")
	for _, tt := range []struct {
		dir           string
		refs          int
		missing       []string
		first, source string
	}{
		{"algorithmic-assurances-survey", 151, []string{"Morrison2016-fz"}, "Spectrum2016-jv", "bib"},
		{"vla-attack-survey", 203, nil, "driess2023palme", "bib"},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			res, err := construct.ExtractRefs(context.Background(), filepath.Join(root, tt.dir), construct.RefsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Refs) != tt.refs || !cmp.Equal(res.Missing, tt.missing) || res.Refs[0].BibID != tt.first || res.Source != tt.source {
				t.Errorf("%d refs (missing %v, first %s, source %s), want %d (missing %v, first %s, source %s)",
					len(res.Refs), res.Missing, res.Refs[0].BibID, res.Source, tt.refs, tt.missing, tt.first, tt.source)
			}
			for _, r := range res.Refs {
				if r.Title == "" {
					t.Errorf("%s has no title", r.BibID)
				}
			}
		})
	}
}

// TestReleasedRoundTrip reads every released file and writes it back: the
// writers must reproduce the release byte for byte.
func TestReleasedRoundTrip(t *testing.T) {
	dir := sharedtest.Dir(t, "reportbench-v1.1")
	data, err := os.ReadFile(filepath.Join(dir, construct.TaskFile))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	var tasks []byte
	for sc.Scan() {
		var x struct {
			Domain string `json:"application_domain"`
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatal(err)
		}
		if tasks, err = construct.AppendTask(tasks, sc.Bytes(), x.Domain, x.Prompt); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(tasks, data) {
		t.Error("task file does not round-trip byte for byte")
	}
	files, err := filepath.Glob(filepath.Join(dir, construct.GTDir, "*.jsonl"))
	if err != nil || len(files) != 100 {
		t.Fatalf("%d ground-truth files, %v", len(files), err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := construct.ReadRefs(bytes.NewReader(data), p)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		construct.WriteRefs(&out, refs)
		if !bytes.Equal(out.Bytes(), data) {
			t.Errorf("%s does not round-trip byte for byte", filepath.Base(p))
		}
	}
}

func TestAppendTaskFromSnapshot(t *testing.T) {
	line := []byte(`{"id":"2101.00001","title":"Caf\u00e9 \ud83d\ude00 / Survey","n":1.5e3,"x":null,"ok":true,"versions":[{"version":"v1","created":"Fri, 1 Jan 2021"}],"prompt":"old","application_domain":"old"}`)
	got, err := construct.AppendTask(nil, line, "Healthcare and Biomedicine", "Prompt with é and \"quotes\"\nline")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"arxiv_id":"2101.00001","title":"Caf\u00e9 \ud83d\ude00 \/ Survey","n":1.5e3,"x":null,"ok":true,"versions":[{"version":"v1","created":"Fri, 1 Jan 2021"}],"application_domain":"Healthcare and Biomedicine","prompt":"Prompt with \u00e9 and \"quotes\"\nline"}` + "\n"
	if string(got) != want {
		t.Errorf("AppendTask:\n got %s\nwant %s", got, want)
	}
	if _, err := construct.AppendTask(nil, []byte(`[1,2]`), "d", "p"); err == nil {
		t.Error("AppendTask of a non-object should fail")
	}
}

// BenchmarkExtractRefs extracts the ground truth of the real VLA survey
// (15 .tex files, 203 references).
func BenchmarkExtractRefs(b *testing.B) {
	dir := filepath.Join(sharedtest.Dir(b, "latex"), "vla-attack-survey")
	for b.Loop() {
		res, err := construct.ExtractRefs(context.Background(), dir, construct.RefsOptions{})
		if err != nil || len(res.Refs) != 203 {
			b.Fatalf("%v, %d refs", err, len(res.Refs))
		}
	}
}
