package prov

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

func TestMarshalRoundTrip(t *testing.T) {
	for _, g := range []*Graph{
		readGraph(t, "testdata/figure4-transparent.json"),
		mustBuild(t),
		{}, // empty lists must come back as empty lists
	} {
		data, err := Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(data)
		if err != nil {
			t.Fatalf("Unmarshal: %v\n%s", err, data)
		}
		want := g.Clone()
		want.Format = FormatVersion
		if want.Sources == nil {
			want.Sources, want.Claims, want.Edges = []Source{}, []Claim{}, []Edge{}
		}
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func mustBuild(t *testing.T) *Graph {
	g, err := Build(buildInput())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"not JSON", `{"claims": [`, "graph is not JSON"},
		{"no claims", `{"sources": []}`, "at /: missing property 'claims'"},
		{"unknown field", `{"claims": [], "nodes": []}`, "additional properties 'nodes' not allowed"},
		{"bad relation", `{"claims": [{"id": "c", "statement": ""}], "sources": [{"id": "s"}], "edges": [{"from": "s", "to": "c", "rel": "cites"}]}`, "at /edges/0/rel"},
		{"strength on contradicts", `{"claims": [{"id": "c", "statement": ""}], "sources": [{"id": "s"}], "edges": [{"from": "s", "to": "c", "rel": "contradicts", "strength": 0.2}]}`, "at /edges/0"},
		{"strength out of range", `{"claims": [{"id": "c", "statement": ""}], "sources": [{"id": "s"}], "edges": [{"from": "s", "to": "c", "rel": "supports", "strength": 2}]}`, "at /edges/0/strength"},
		{"bad time", `{"claims": [], "sources": [{"id": "s", "retrieved_at": "yesterday"}]}`, "at /sources/0/retrieved_at"},
		{"bad reasoning type", `{"claims": [], "reasoning": [{"id": "r", "type": "abduction"}]}`, "at /reasoning/0/type"},
		{"empty id", `{"claims": [{"id": "", "statement": "x"}]}`, "at /claims/0/id"},
		{"edge into a source", `{"claims": [], "sources": [{"id": "a"}, {"id": "b"}], "edges": [{"from": "a", "to": "b", "rel": "supports"}]}`, "[rule source-no-incoming]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

// TestSchemaFileMatchesEmbedded keeps the schema served to agents and the
// one the decoder uses the same file.
func TestSchemaFileMatchesEmbedded(t *testing.T) {
	data, err := os.ReadFile("graph.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, Schema()) {
		t.Error("Schema() differs from graph.schema.json")
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, p := range []string{"testdata/figure4-blackbox.json", "testdata/figure4-transparent.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"claims": [{"id": "c", "statement": "x"}], "sources": [{"id": "s", "resolved": true}], "edges": [{"from": "s", "to": "c", "rel": "supports", "strength": 0.7}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Unmarshal(data)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		// A graph that decodes is valid, scores, and survives a round trip.
		m, err := Compute(g, DefaultTau)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := m.PCov.Value(); ok && (v < 0 || v > 1) {
			t.Fatalf("PCov %v", v)
		}
		out, err := Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Unmarshal(out); err != nil {
			t.Fatalf("re-read: %v", err)
		}
		for _, c := range g.Claims {
			if _, err := NewIndexMust(t, g).Path(c.ID, DefaultTau); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// NewIndexMust indexes a graph that is known to be valid.
func NewIndexMust(t *testing.T, g *Graph) *Index {
	t.Helper()
	ix, err := NewIndex(g)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestExports(t *testing.T) {
	g := readGraph(t, "testdata/figure4-transparent.json")
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer, *Graph) error
	}{
		{"figure4-transparent.graphml", func(b *bytes.Buffer, g *Graph) error { return WriteGraphML(b, g) }},
		{"figure4-transparent.dot", func(b *bytes.Buffer, g *Graph) error { return WriteDOT(b, g) }},
	} {
		var buf bytes.Buffer
		if err := f.write(&buf, g); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", f.name), buf.Bytes())
	}
}

// TestGraphMLParses reads the GraphML back: every node and edge is there.
func TestGraphMLParses(t *testing.T) {
	g := readGraph(t, "testdata/figure4-transparent.json")
	var buf bytes.Buffer
	if err := WriteGraphML(&buf, g); err != nil {
		t.Fatal(err)
	}
	var doc graphML
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := len(doc.Graph.Nodes), len(g.Sources)+len(g.Reasoning)+len(g.Claims); got != want {
		t.Errorf("%d nodes, want %d", got, want)
	}
	if got, want := len(doc.Graph.Edges), len(g.Edges)+len(g.Conflicts); got != want {
		t.Errorf("%d edges, want %d", got, want)
	}
}

func TestDOTEscaping(t *testing.T) {
	g := &Graph{ID: `a"b`, Claims: []Claim{{ID: `c\1`, Statement: "say \"hi\"\nthen\x00 go"}}}
	var buf bytes.Buffer
	if err := WriteDOT(&buf, g); err != nil {
		t.Fatal(err)
	}
	want := "digraph \"a\\\"b\" {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n" +
		"  \"c\\\\1\" [shape=note, label=\"c\\\\1\\nsay \\\"hi\\\" then go\"];\n}\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
