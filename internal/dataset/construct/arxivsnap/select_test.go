package arxivsnap_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

func mustFilter(t testing.TB, spec arxivsnap.FilterSpec) *arxivsnap.Filter {
	t.Helper()
	f, err := spec.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFilterKeep(t *testing.T) {
	f := mustFilter(t, arxivsnap.DefaultSpec())
	ok := arxivsnap.Fields{ID: "2101.00001", Title: "Graph Neural Networks: A Review", Comments: "Accepted to TKDE",
		License: "https://www.creativecommons.org/licenses/by/4.0", FirstCreated: "Fri, 1 Jan 2021 00:00:00 GMT"}
	tests := []struct {
		name   string
		edit   func(*arxivsnap.Fields)
		reason arxivsnap.Reason
	}{
		{"passes", func(*arxivsnap.Fields) {}, ""},
		{"before 2020", func(r *arxivsnap.Fields) { r.FirstCreated = "Tue, 31 Dec 2019 23:59:59 GMT" }, arxivsnap.ReasonDate},
		{"first day counts", func(r *arxivsnap.Fields) { r.FirstCreated = "Wed, 1 Jan 2020 00:00:00 GMT" }, ""},
		{"no date falls back on the id", func(r *arxivsnap.Fields) { r.FirstCreated = "" }, ""},
		{"no date and an old id", func(r *arxivsnap.Fields) { r.FirstCreated, r.ID = "", "1912.00001" }, arxivsnap.ReasonDate},
		{"no date at all", func(r *arxivsnap.Fields) { r.FirstCreated, r.ID = "", "hep-th/9901001" }, arxivsnap.ReasonDate},
		{"non-commercial licence", func(r *arxivsnap.Fields) { r.License = "http://creativecommons.org/licenses/by-nc-sa/4.0/" }, arxivsnap.ReasonLicense},
		{"no licence", func(r *arxivsnap.Fields) { r.License = "" }, arxivsnap.ReasonLicense},
		{"title without survey or review", func(r *arxivsnap.Fields) { r.Title = "Graph Neural Networks" }, arxivsnap.ReasonTitle},
		{"preview is not review", func(r *arxivsnap.Fields) { r.Title = "A Preview of X" }, arxivsnap.ReasonTitle},
		{"surveys", func(r *arxivsnap.Fields) { r.Title = "Two SURVEYS of X" }, ""},
		{"comments without publication", func(r *arxivsnap.Fields) { r.Comments = "12 pages" }, arxivsnap.ReasonComments},
		{"acceptance counts", func(r *arxivsnap.Fields) { r.Comments = "recommended for acceptance by CSCW" }, ""},
		{"date fails first", func(r *arxivsnap.Fields) { r.FirstCreated, r.Title = "Mon, 2 Apr 2007 19:18:42 GMT", "x" }, arxivsnap.ReasonDate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			tt.edit(&r)
			keep, why := f.Keep(&r)
			if keep != (tt.reason == "") || why != tt.reason {
				t.Errorf("Keep = %v, %q; want reason %q", keep, why, tt.reason)
			}
		})
	}
}

func TestFilterSpec(t *testing.T) {
	spec := arxivsnap.FilterSpec{Since: "2021-06-01", Until: "2022-01-01", Categories: []string{"cs", "astro-ph.GA"}}
	f := mustFilter(t, spec)
	for _, tt := range []struct {
		created, cats string
		want          []arxivsnap.Reason
	}{
		{"Tue, 1 Jun 2021 00:00:00 GMT", "cs.CL", nil},
		{"Fri, 31 Dec 2021 00:00:00 GMT", "math.CO astro-ph.GA", nil},
		{"Sat, 1 Jan 2022 00:00:00 GMT", "cs.CL", []arxivsnap.Reason{arxivsnap.ReasonDate}},
		{"Mon, 31 May 2021 00:00:00 GMT", "astro-ph.CO", []arxivsnap.Reason{arxivsnap.ReasonDate, arxivsnap.ReasonCategory}},
		{"Tue, 1 Jun 2021 00:00:00 GMT", "csx.AB", []arxivsnap.Reason{arxivsnap.ReasonCategory}},
	} {
		r := arxivsnap.Fields{FirstCreated: tt.created, Categories: tt.cats}
		if got := f.Explain(&r); !cmp.Equal(got, tt.want) {
			t.Errorf("Explain(%s, %s) = %v, want %v", tt.created, tt.cats, got, tt.want)
		}
	}
	for _, bad := range []arxivsnap.FilterSpec{{Since: "2020/01/01"}, {Until: "tomorrow"}, {Title: "(unclosed"}, {Comments: "*"}} {
		if _, err := bad.Compile(); err == nil {
			t.Errorf("Compile(%+v) should fail", bad)
		}
	}
}

func TestParseCreated(t *testing.T) {
	for in, want := range map[string]int{
		"Mon, 2 Apr 2007 19:18:42 GMT":  20070402,
		"Fri, 19 Apr 2024 08:55:34 GMT": 20240419,
		"2 April 2007":                  20070402,
		"":                              0,
		"Mon, 32 Apr 2007":              0,
		"Mon, 2 Foo 2007":               0,
		"Mon, 2 Apr":                    0,
	} {
		if got := arxivsnap.ParseCreated(in); got != want {
			t.Errorf("ParseCreated(%q) = %d, want %d", in, got, want)
		}
	}
}

// joinLines renders lines as a snapshot file.
func joinLines(lines [][]byte) []byte {
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

func TestSelectGenerated(t *testing.T) {
	lines, kept := genSnapshot(5000, 11)
	var want bytes.Buffer
	for _, i := range kept {
		want.Write(lines[i])
		want.WriteByte('\n')
	}
	input := joinLines(lines)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(input)
	zw.Close()
	f := mustFilter(t, arxivsnap.DefaultSpec())
	for _, tt := range []struct {
		name string
		data []byte
		opt  arxivsnap.Options
	}{
		{"defaults", input, arxivsnap.Options{}},
		{"tiny blocks, many workers", input, arxivsnap.Options{BlockSize: 1000, Workers: 7}},
		{"one worker", input, arxivsnap.Options{Workers: 1, BlockSize: 4096}},
		{"gzip", gz.Bytes(), arxivsnap.Options{BlockSize: 10000}},
		{"no final newline", bytes.TrimSuffix(input, []byte("\n")), arxivsnap.Options{BlockSize: 3000}},
		{"CRLF and blank lines", bytes.ReplaceAll(input, []byte("\n"), []byte("\r\n\n")), arxivsnap.Options{BlockSize: 5000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := arxivsnap.NewReader(bytes.NewReader(tt.data), tt.name)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			st, err := arxivsnap.Select(context.Background(), r, &out, f, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			wantStr := want.String()
			if strings.Contains(tt.name, "CRLF") {
				wantStr = strings.ReplaceAll(wantStr, "\n", "\r\n")
			}
			if got != wantStr {
				t.Fatalf("output differs: got %d lines, want %d", strings.Count(got, "\n"), len(kept))
			}
			if st.Records != 5000 || st.Kept != int64(len(kept)) {
				t.Errorf("stats %+v: want 5000 records, %d kept", st, len(kept))
			}
			var dropped int64
			for _, n := range st.Dropped {
				dropped += n
			}
			if dropped+st.Kept != st.Records {
				t.Errorf("dropped %d + kept %d != records %d", dropped, st.Kept, st.Records)
			}
		})
	}
}

func TestSelectMalformed(t *testing.T) {
	lines, _ := genSnapshot(300, 5)
	lines[217] = []byte(`{"id": "broken"`)
	input := joinLines(lines)
	f := mustFilter(t, arxivsnap.FilterSpec{})
	_, err := arxivsnap.Select(context.Background(), bytes.NewReader(input), &bytes.Buffer{}, f,
		arxivsnap.Options{Name: "snap.json", BlockSize: 2000, Workers: 3})
	if err == nil || !strings.Contains(err.Error(), "snap.json line 218:") {
		t.Fatalf("Select = %v, want an error naming snap.json line 218", err)
	}
	var out bytes.Buffer
	st, err := arxivsnap.Select(context.Background(), bytes.NewReader(input), &out, f,
		arxivsnap.Options{SkipMalformed: true, BlockSize: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if st.Malformed != 1 || st.Kept != 299 || bytes.Contains(out.Bytes(), []byte("broken")) {
		t.Errorf("skip malformed: %+v", st)
	}
}

func TestSelectLongLine(t *testing.T) {
	long := fmt.Sprintf(`{"id":"2101.00001","title":"A Survey","comments":"accepted","license":"http://arxiv.org/licenses/nonexclusive-distrib/1.0/","versions":[{"created":"Fri, 1 Jan 2021 00:00:00 GMT"}],"abstract":"%s"}`,
		strings.Repeat("x", 200000))
	input := []byte("{}\n" + long + "\n{}\n")
	var out bytes.Buffer
	st, err := arxivsnap.Select(context.Background(), bytes.NewReader(input), &out, mustFilter(t, arxivsnap.DefaultSpec()),
		arxivsnap.Options{BlockSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if st.Kept != 1 || out.String() != long+"\n" {
		t.Errorf("kept %d, output %d bytes; want the long line", st.Kept, out.Len())
	}
}

func TestSelectCancel(t *testing.T) {
	lines, _ := genSnapshot(2000, 9)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := arxivsnap.Select(ctx, bytes.NewReader(joinLines(lines)), &bytes.Buffer{},
		mustFilter(t, arxivsnap.DefaultSpec()), arxivsnap.Options{BlockSize: 512})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Select on a cancelled context = %v", err)
	}
}

func TestNewReaderBadGzip(t *testing.T) {
	r, err := arxivsnap.NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}), "bad.gz")
	if err == nil {
		_, err = arxivsnap.Select(context.Background(), r, &bytes.Buffer{}, mustFilter(t, arxivsnap.FilterSpec{}), arxivsnap.Options{Name: "bad.gz"})
	}
	if err == nil || !strings.Contains(err.Error(), "bad.gz") {
		t.Errorf("corrupt gzip: %v, want an error naming bad.gz", err)
	}
}

// TestReleasedTasks runs select over the 100 released tasks (their records
// are in snapshot format). The default keeps all of them; the literal
// reading of the paper, "published|accepted" as whole words, drops four
// whose comments say "Accept by", "acceptance", "publishing" and
// "republishing".
func TestReleasedTasks(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t, "reportbench-v1.1"), "ReportBench_v1.1.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	run := func(spec arxivsnap.FilterSpec) (arxivsnap.Stats, []string) {
		var out bytes.Buffer
		st, err := arxivsnap.Select(context.Background(), bytes.NewReader(data), &out, mustFilter(t, spec), arxivsnap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		keptIDs := map[string]bool{}
		for line := range bytes.SplitSeq(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			f, err := arxivsnap.Scan(line, false)
			if err != nil {
				t.Fatal(err)
			}
			keptIDs[f.ID] = true
		}
		var dropped []string
		for line := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
			f, _ := arxivsnap.Scan(line, false)
			if !keptIDs[f.ID] {
				dropped = append(dropped, f.ID)
			}
		}
		return st, dropped
	}
	st, dropped := run(arxivsnap.DefaultSpec())
	if st.Kept != 100 || len(dropped) != 0 {
		t.Errorf("default filter kept %d, dropped %v; want all 100", st.Kept, dropped)
	}
	literal := arxivsnap.DefaultSpec()
	literal.Comments = `(?i)\b(published|accepted)\b`
	st, dropped = run(literal)
	want := []string{"2108.09522", "2204.08461", "2307.11556", "2411.15583"}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(dropped))); diff != "" || st.Dropped[arxivsnap.ReasonComments] != 4 {
		t.Errorf("literal filter dropped (-want +got):\n%s\nstats %+v", diff, st)
	}
}
