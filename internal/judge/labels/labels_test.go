package labels

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

func TestReadFormats(t *testing.T) {
	tests := []struct {
		file string
		want []Pair
	}{
		{
			file: "plain.jsonl",
			want: []Pair{
				{ID: "p1", Dataset: "plain", Claim: "The Tozzer Library holds over 260,000 volumes.", Evidence: "Tozzer Library is the oldest anthropology library in the US. Its collection numbers about 260,000 volumes.", Label: claimtrace.Supported, Format: FormatPlain, Line: 1},
				{ID: "p2", Dataset: "plain", Claim: "The bridge opened in 1932.", Evidence: "The bridge was completed in 1931.\nIt opened to traffic in March 1932.", Label: claimtrace.Partial, Format: FormatPlain, Line: 2},
				{Dataset: "handmade", Claim: "Inflation fell to 2% in 2019.", Evidence: "Inflation rose to 4% in 2019.", Label: claimtrace.Contradicted, Format: FormatPlain, Line: 3},
				{ID: "7", Dataset: "plain", Claim: "The museum charges no entry fee.", Evidence: "Admission to the museum is free for all visitors.", Label: claimtrace.Supported, Format: FormatPlain, Line: 5},
				{ID: "p5", Dataset: "plain", Claim: "The company was founded by three brothers.", Evidence: "The company was founded in 1902 by a local banker.", Label: claimtrace.Unsupported, Format: FormatPlain, Line: 6},
				{ID: "p6", Dataset: "plain", Claim: "The river is 300 km long.", Evidence: "The river flows for 300 kilometres through two countries.", Label: claimtrace.Unsupported, Format: FormatPlain, Line: 7},
			},
		},
		{
			file: "attributionbench.jsonl",
			want: []Pair{
				{ID: "AttributedQA_0f1e2d3c-aaaa-4bbb-8ccc-000000000001", Dataset: AttributionBench, Subset: "AttributedQA",
					Claim:    "Kazuo Ishiguro wrote the novel 'The Remains of the Day.'",
					Evidence: "Title: The Remains of the Day\n\nThe Remains of the Day is a 1989 novel by the Nobel Prize-winning British author Kazuo Ishiguro. The protagonist, Stevens, is a butler with a long record of service at Darlington Hall.",
					Label:    claimtrace.Supported, Format: FormatAttributionBench, Line: 1},
				{ID: "ExpertQA_42", Dataset: AttributionBench, Subset: "ExpertQA",
					Claim:    "Fresh frozen plasma can be stored for up to 3 years at -25°C or colder [2].",
					Evidence: "[2] https://example.org/ffp-storage\n\nFFP is stored frozen. At temperatures of -18°C or colder it may be kept for 12 months.\n\n[2] https://example.org/ffp-storage-2\n\nThawed plasma must be used within 24 hours.",
					Label:    claimtrace.Unsupported, Format: FormatAttributionBench, Line: 2},
			},
		},
		{
			file: "wice.jsonl",
			want: []Pair{
				{ID: "dev90001", Dataset: WiCE, Claim: "She joined the orchestra in 1998 and became its principal cellist in 2004.",
					Evidence: "(meta data) TITLE: Our Musicians – City Orchestra\nSkip to content\n# Our Musicians\nAnna Berg joined the City Orchestra in 1998.\nShe studied at the Royal Academy of Music.\nBerg is known for her chamber music recordings.",
					Label:    claimtrace.Partial, Format: FormatWiCE, Line: 1},
				{ID: "dev90002", Dataset: WiCE, Claim: "The album was released on 2 November 2004.",
					Evidence: "(meta data) PUBLISHED DATETIME: 2004-10-19\nThe band's third album hits stores on November 2, 2004.\nTen of the twelve songs are covers.",
					Label:    claimtrace.Supported, Format: FormatWiCE, Line: 2},
				{ID: "dev90003", Dataset: WiCE, Claim: "The library holds the first book acquired by the museum.",
					Evidence: "The library was founded in 1866.\nIt is open to students and staff.",
					Label:    claimtrace.Unsupported, Format: FormatWiCE, Line: 3},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			// Lines without an id get a content hash; check its shape, then
			// compare the rest.
			for i := range got {
				if got[i].ID == "" {
					t.Errorf("line %d: empty ID", got[i].Line)
				}
				if strings.HasPrefix(got[i].ID, "sha256:") {
					got[i].ID = ""
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadFile(%s) mismatch (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestReadConcatenatedFormats(t *testing.T) {
	var all strings.Builder
	for _, f := range []string{"wice.jsonl", "plain.jsonl", "attributionbench.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	got, err := Read(strings.NewReader(all.String()), "mixed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	count := make(map[Format]int)
	for _, p := range got {
		count[p.Format]++
	}
	want := map[Format]int{FormatWiCE: 3, FormatPlain: 6, FormatAttributionBench: 2}
	if diff := cmp.Diff(want, count); diff != "" {
		t.Errorf("formats detected (-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, input, wantSub string
	}{
		{"not json", `{"claim": "x", "evidence": "y", "label": "supported"}` + "\nnot json\n", "bad.jsonl:2:"},
		{"no claim", `{"evidence": "y", "label": "supported"}`, `no "claim" field`},
		{"no evidence", `{"claim": "x", "label": "supported"}`, `no "evidence" field`},
		{"no label", `{"claim": "x", "evidence": "y"}`, `no "label" field`},
		{"unknown label", `{"claim": "x", "evidence": "y", "label": "maybe"}`, `label "maybe"`},
		{"bad attribution label", `{"claim": "x", "references": ["y"], "attribution_label": "sort of"}`, `attribution_label "sort of"`},
		{"wice evidence not a list", `{"claim": "x", "evidence": "y", "label": "supported", "supporting_sentences": [[0]]}`, "wice evidence"},
		{"evidence object", `{"claim": "x", "evidence": {"a": 1}, "label": "supported"}`, "want a string or a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.input), "bad.jsonl")
			if err == nil {
				t.Fatalf("Read(%q) = nil error, want one containing %q", tt.input, tt.wantSub)
			}
			if !strings.Contains(err.Error(), tt.wantSub) || !strings.Contains(err.Error(), "bad.jsonl") {
				t.Errorf("Read error = %q, want it to name the file and contain %q", err, tt.wantSub)
			}
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("Read error = %v, want errors.Is ErrInvalid", err)
			}
		})
	}
}

func TestParseLabel(t *testing.T) {
	tests := []struct {
		raw  string
		want claimtrace.Label
	}{
		{`"supported"`, claimtrace.Supported},
		{`"Supported"`, claimtrace.Supported},
		{`"attributable"`, claimtrace.Supported},
		{`"entailment"`, claimtrace.Supported},
		{`true`, claimtrace.Supported},
		{`1`, claimtrace.Supported},
		{`"partially_supported"`, claimtrace.Partial},
		{`"partially supported"`, claimtrace.Partial},
		{`"Partial"`, claimtrace.Partial},
		{`"not_supported"`, claimtrace.Unsupported},
		{`"not attributable"`, claimtrace.Unsupported},
		{`"neutral"`, claimtrace.Unsupported},
		{`false`, claimtrace.Unsupported},
		{`0`, claimtrace.Unsupported},
		{`"contradiction"`, claimtrace.Contradicted},
		{`"refuted"`, claimtrace.Contradicted},
	}
	for _, tt := range tests {
		got, err := ParseLabel(json.RawMessage(tt.raw))
		if err != nil || got != tt.want {
			t.Errorf("ParseLabel(%s) = %q, %v; want %q", tt.raw, got, err, tt.want)
		}
	}
	for _, bad := range []string{`"unsure"`, `2`, `null`, ``, `[true]`} {
		if got, err := ParseLabel(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseLabel(%s) = %q, nil; want an error", bad, got)
		}
	}
}

func TestSplit(t *testing.T) {
	var pairs []Pair
	for i := range 2000 {
		pairs = append(pairs, Pair{Dataset: "d", ID: fmt.Sprintf("id-%d", i)})
	}
	calib, test := Filter(pairs, SplitCalib), Filter(pairs, SplitTest)
	if len(calib)+len(test) != len(pairs) {
		t.Fatalf("calib %d + test %d != %d pairs", len(calib), len(test), len(pairs))
	}
	if len(calib) < 900 || len(calib) > 1100 {
		t.Errorf("calib half has %d of %d pairs, want about half", len(calib), len(pairs))
	}
	if got := Filter(pairs, SplitAll); len(got) != len(pairs) {
		t.Errorf("Filter(all) kept %d of %d", len(got), len(pairs))
	}
	// The half depends only on dataset and id, not on other fields.
	p := Pair{Dataset: "wice", ID: "dev02986", Claim: "a"}
	q := p
	q.Claim, q.Evidence, q.Line = "b", "other", 99
	if HalfOf(p) != HalfOf(q) {
		t.Errorf("HalfOf depends on fields other than dataset and id")
	}
	if _, err := ParseSplit("train"); err == nil {
		t.Errorf("ParseSplit(train) = nil error")
	}
}

// TestSharedLabels reads the shared AttributionBench and WiCE files and
// checks the counts and label balance their documentation states.
func TestSharedLabels(t *testing.T) {
	dir := sharedtest.Dir(t, "labels")
	tests := []struct {
		file  string
		want  map[claimtrace.Label]int
		split [2]int // rough bounds of the calib half
	}{
		{"attributionbench/dev.jsonl", map[claimtrace.Label]int{claimtrace.Supported: 599, claimtrace.Unsupported: 599}, [2]int{500, 700}},
		{"wice/dev.jsonl", map[claimtrace.Label]int{claimtrace.Supported: 115, claimtrace.Partial: 191, claimtrace.Unsupported: 43}, [2]int{130, 220}},
	}
	for _, tt := range tests {
		pairs, err := ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		got := make(map[claimtrace.Label]int)
		ids := make(map[string]bool)
		for _, p := range pairs {
			got[p.Label]++
			if ids[p.ID] {
				t.Errorf("%s: duplicate id %s", tt.file, p.ID)
			}
			ids[p.ID] = true
			if strings.TrimSpace(p.Claim) == "" {
				t.Errorf("%s:%d: empty claim", tt.file, p.Line)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s label counts (-want +got):\n%s", tt.file, diff)
		}
		if n := len(Filter(pairs, SplitCalib)); n < tt.split[0] || n > tt.split[1] {
			t.Errorf("%s: calib half has %d of %d pairs", tt.file, n, len(pairs))
		}
	}
}

func FuzzParseLine(f *testing.F) {
	for _, file := range []string{"plain.jsonl", "attributionbench.jsonl", "wice.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			f.Add([]byte(line))
		}
	}
	f.Add([]byte(`{"claim": "x", "evidence": ["a", "b"], "label": "partially-supported", "meta": {"id": 3}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseLine(b, "fuzz")
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("ParseLine error %v is not ErrInvalid", err)
			}
			return
		}
		if p.ID == "" || p.Dataset == "" {
			t.Errorf("ParseLine(%q) = %+v: empty ID or Dataset", b, p)
		}
		switch p.Label {
		case claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted:
		default:
			t.Errorf("ParseLine(%q): label %q", b, p.Label)
		}
	})
}
