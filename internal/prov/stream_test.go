package prov

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/claimtrace/claimtrace"
)

// schemaUnmarshal is the reading DecodeStream replaces, kept as its
// oracle: the whole document through the JSON Schema validator, then
// encoding/json, then the AAR rules.
func schemaUnmarshal(data []byte) (*Graph, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("graph is not JSON: %v: %w", err, claimtrace.ErrInvalid)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource(schemaURL, sdoc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(doc); err != nil {
		return nil, fmt.Errorf("graph does not match the aar-graph/1 schema: %v: %w", err, claimtrace.ErrInvalid)
	}
	var g Graph
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("decode graph: %v: %w", err, claimtrace.ErrInvalid)
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return &g, nil
}

// agree checks that DecodeStream reads data as the schema path does: both
// fail, or both give the same graph. It reads through a one-byte reader
// and a tiny buffer too, so that every token crosses a buffer refill.
func agree(t *testing.T, data []byte) {
	t.Helper()
	want, werr := schemaUnmarshal(data)
	for _, r := range []func() *Graph{
		func() *Graph { g, err := DecodeStream(bytes.NewReader(data)); check(t, data, err, werr); return g },
		func() *Graph {
			g, err := DecodeStream(iotest.OneByteReader(bytes.NewReader(data)))
			check(t, data, err, werr)
			return g
		},
		func() *Graph {
			// A buffer of a few bytes, refilled by halves: every token
			// crosses a refill that moves the buffer's content.
			ix, err := decodeStream(newJSONScannerSize(iotest.HalfReader(bytes.NewReader(data)), 3))
			check(t, data, err, werr)
			if ix == nil {
				return nil
			}
			return ix.Graph()
		},
	} {
		got := r()
		if werr == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q: graphs differ (-schema +stream):\n%s", data, diff)
			}
		}
	}
}

func check(t *testing.T, data []byte, err, werr error) {
	t.Helper()
	if (err == nil) != (werr == nil) {
		t.Fatalf("%q: stream error %v, schema path error %v", data, err, werr)
	}
	if err != nil && !errors.Is(err, claimtrace.ErrInvalid) {
		t.Fatalf("%q: error %v does not match ErrInvalid", data, err)
	}
}

// streamCases are documents written for these tests, valid and not.
var streamCases = []string{
	`{"claims": []}`,
	`{"format": "aar-graph/1", "id": "r1", "query": "q", "agent": "a", "claims": [{"id": "c1", "statement": "The Rhine is 1,230 km long.", "location": {"start": 0, "end": 27, "section": "Rivers"}}],
	  "sources": [{"id": "s1", "key": "url:x", "url": "https://x", "doi": "10.1/x", "title": "T", "excerpt": "E \u00e9 \ud83d\ude00", "retrieved_at": "2024-05-01T10:00:00Z", "resolved": true}],
	  "reasoning": [{"id": "r", "inference": "i", "type": "synthesis", "model": "m"}],
	  "edges": [{"from": "s1", "to": "r", "rel": "supports", "strength": 0.5, "label": "partial", "evidence": "E"}, {"from": "r", "to": "c1", "rel": "refines"}],
	  "conflicts": [{"a": "s1", "b": "s2", "entity": "length", "snippet_a": "x", "snippet_b": "y", "kind": "number", "detector": "offline"}]}`,
	`{"claims": [], "sources": [{"id": "s2"}], "sources": [{"id": "s1"}]}`, // the last duplicate wins
	`{"claims": [{"id": "c", "statement": "x"}], "sources": [{"id": "s", "resolved": true}], "edges": [{"from": "s", "to": "c", "rel": "supports", "strength": 1e-1}]}`,
	`{"claims": [{"id": "c", "statement": "bad \xff utf8 and lone \udc00"}]}`,
	`  {"claims":[]}  ` + "\n",
	// Not JSON.
	`{"claims": [`, `{"claims": []} x`, `{"claims": [],}`, `{"claims": [01]}`, `{"claims": "\x01"}`, `{claims: []}`, ``, `[`,
	`{"claims": [{"id": "c", "statement": "x"}]}{}`, `{"claims": [], "id": tru}`, `{"claims": [1.]}`, `{"claims": [-]}`,
	// JSON, but not a graph.
	`[]`, `"claims"`, `null`, `{"sources": []}`, `{"claims": [], "nodes": []}`, `{"Claims": []}`, `{"claims": null}`,
	`{"claims": [], "format": "aar-graph/2"}`, `{"claims": [{"id": 1, "statement": "x"}]}`, `{"claims": [{"id": "c"}]}`,
	`{"claims": [{"id": "c", "statement": "x", "location": {"start": -1}}]}`, `{"claims": [{"id": "c", "statement": "x", "location": {"start": 1.0}}]}`,
	`{"claims": [{"id": "c", "statement": "x", "location": {"start": 1e2}}]}`, `{"claims": [{"id": "c", "statement": "x", "location": {"line": 1}}]}`,
	`{"claims": [{"id": "c", "statement": "x", "location": null}]}`, `{"claims": [], "sources": [{"id": "s", "resolved": "yes"}]}`,
	`{"claims": [], "sources": [{"id": "s", "retrieved_at": "2024-05-01"}]}`, `{"claims": [], "sources": [{"id": "s", "retrieved_at": "2024-05-01t10:00:00z"}]}`,
	`{"claims": [], "sources": [{"id": "s", "retrieved_at": "2024-05-01T10:00:60Z"}]}`, `{"claims": [], "sources": [{"id": "s", "retrieved_at": "2024-05-01T10:00:00\u005a"}]}`,
	`{"claims": [{"id": "c", "statement": ""}], "sources": [{"id": "s"}], "edges": [{"from": "s", "to": "c", "rel": "supports", "strength": null}]}`,
	`{"claims": [{"id": "c", "statement": ""}], "sources": [{"id": "s"}], "edges": [{"from": "s", "to": "c", "strength": 0.5}]}`,
	`{"claims": [{"id": "c", "statement": ""}], "sources": [{"id": "s"}], "edges": [{"from": "s", "to": "c", "rel": "supports", "label": "true"}]}`,
	`{"claims": [{"id": "c", "statement": ""}], "sources": [{"id": "s"}], "edges": [{"from": "s", "to": "c", "rel": "supports", "strength": 1e400}]}`,
	`{"claims": [], "conflicts": [{"a": "x", "b": "y", "entity": ""}]}`, `{"claims": [], "conflicts": [{"a": "x", "b": "y"}]}`,
	`{"claims": [], "reasoning": [{"type": "synthesis"}]}`, `{"claims": [], "reasoning": ["r"]}`,
	// Valid against the schema, not a graph (AAR rules).
	`{"claims": [{"id": "x", "statement": ""}], "sources": [{"id": "x"}]}`,
	`{"claims": [{"id": "c", "statement": ""}], "edges": [{"from": "s", "to": "c", "rel": "supports"}]}`,
}

func TestDecodeStreamMatchesSchema(t *testing.T) {
	for _, doc := range streamCases {
		agree(t, []byte(doc))
	}
	for _, ts := range dateTimeCases {
		agree(t, []byte(`{"claims": [], "sources": [{"id": "s", "retrieved_at": "`+ts+`"}]}`))
	}
	for _, p := range []string{"testdata/figure4-blackbox.json", "testdata/figure4-transparent.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		agree(t, data)
	}
	var big bytes.Buffer
	if err := Encode(&big, generated(2000)); err != nil {
		t.Fatal(err)
	}
	agree(t, big.Bytes())
}

func TestDecodeStreamErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"claims": [`, "graph is not JSON: not valid JSON at byte 12: want an array element or ']', found the end of the document"},
		{`{"claims": [1, 2] "x"}`, "want ',' or '}' after an object member"},
		{`{"claims": [{"id": "", "statement": 3}], "nodes": 1}`, `at /claims/0/id: want a non-empty string; at /claims/0/statement: want a string, got a number; at /: additional properties 'nodes' not allowed`},
		{`{"claims": [], "edges": [{"from": "a", "to": "b", "rel": "cites", "strength": 2}]}`, `at /edges/0/rel: want one of supports, contradicts, refines, prerequisite, got "cites"; at /edges/0/strength: want a number from 0 to 1, got 2`},
		{`{"claims": [` + strings.Repeat(`{"id": ""},`, 7) + `{"id": "x", "statement": ""}]}`, "and 9 more"},
		{strings.Repeat("[", 100), "nested more than 64 levels deep"},
	} {
		_, err := DecodeStream(strings.NewReader(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("%.60s: err = %v, want ErrInvalid containing %q", tc.doc, err, tc.want)
		}
	}
}

// failingReader fails after n bytes, as a dropped disk or pipe would.
type failingReader struct {
	data []byte
	n    int
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("read error: device gone")
	}
	k := copy(p, r.data[:min(len(r.data), r.n, len(p))])
	r.data, r.n = r.data[k:], r.n-k
	return k, nil
}

func TestDecodeStreamReadError(t *testing.T) {
	_, err := DecodeStream(&failingReader{data: []byte(`{"claims": [{"id": "c", "statement": "x"}]}`), n: 20})
	if err == nil || !strings.Contains(err.Error(), "device gone") || errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("err = %v, want the read error, not an invalid graph", err)
	}
}

func FuzzDecodeStream(f *testing.F) {
	for _, doc := range streamCases {
		f.Add([]byte(doc))
	}
	for _, p := range []string{"testdata/figure4-blackbox.json", "testdata/figure4-transparent.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agree(t, data)
	})
}

// TestAddConflicts: adding conflicts to an index gives the metrics of
// indexing the graph with them, and a conflict that breaks a rule changes
// nothing.
func TestAddConflicts(t *testing.T) {
	base := readGraph(t, "testdata/figure4-blackbox.json")
	extra := []Conflict{
		{A: base.Sources[0].ID, B: base.Sources[1].ID, Entity: "answer accuracy", Kind: ConflictNumber, Detector: "offline"},
		{A: base.Sources[1].ID, B: base.Sources[0].ID, Entity: "Answer Accuracy"}, // the same conflict, reversed
	}
	data, err := Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := DecodeStreamIndex(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddConflicts(extra...); err != nil {
		t.Fatal(err)
	}
	got, err := ix.Metrics(DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	want := base.Clone()
	want.Conflicts = MergeConflicts(want.Conflicts, extra...)
	wm, err := Compute(want, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wm, got); diff != "" {
		t.Errorf("metrics (-reindexed +added):\n%s", diff)
	}
	if diff := cmp.Diff(want.Conflicts, ix.Graph().Conflicts); diff != "" {
		t.Errorf("graph conflicts (-want +got):\n%s", diff)
	}
	before := len(ix.Graph().Conflicts)
	err = ix.AddConflicts(Conflict{A: base.Sources[0].ID, B: "nowhere", Entity: "x"})
	if err == nil || !errors.Is(err, claimtrace.ErrInvalid) || len(ix.Graph().Conflicts) != before {
		t.Errorf("a conflict with a missing source: err %v, %d conflicts (had %d)", err, len(ix.Graph().Conflicts), before)
	}
}

// dateTimeCases are timestamps written for this test, valid and not.
var dateTimeCases = []string{
	"2024-05-01T10:00:00Z", "2024-05-01t10:00:00z", "2024-05-01T10:00:60Z", "2024-05-01T23:59:60Z", "2024-05-01T10:00:00.123+05:30",
	"0000-01-01T00:00:00-23:59", "2024-02-30T10:00:00Z", "2024-05-01T10:00:00+24:00", "2024-05-01T24:00:00Z", "2024-05-01 10:00:00Z",
	"2024-05-01T10:00:00.Z", "2024-05-01T10:00:00,5Z", "+2024-05-01T10:00:00Z", "2024-5-01T10:00:00Z", "2024-05-01T+1:00:00Z",
	"2024-05-01T00:00:60+00:01", "2024-05-01T23:59:60-00:01", "2024-05-01T10:00:00+05:3a", "2024-05-01T10:00:00.5",
}

// FuzzDateTimeFormat: the decoder's date-time check accepts what the
// JSON Schema validator's accepts.
func FuzzDateTimeFormat(f *testing.F) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("dt.json", map[string]any{"type": "string", "format": "date-time"}); err != nil {
		f.Fatal(err)
	}
	sch := c.MustCompile("dt.json")
	for _, s := range dateTimeCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := dateTimeFormat(s), sch.Validate(s) == nil; got != want {
			t.Fatalf("dateTimeFormat(%q) = %v, the schema validator says %v", s, got, want)
		}
	})
}
