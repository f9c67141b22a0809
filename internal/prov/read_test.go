package prov

import (
	"encoding/json"
	"testing"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name, data string
		want       Format
	}{
		{"r.md", `{"claims": []}`, FormatReport},
		{"r.TXT", `{"claims": []}`, FormatReport},
		{"r.markdown", `{"prefix": {}}`, FormatReport},
		{"g.json", `{"format": "aar-graph/1", "agent": "x", "claims": []}`, FormatNative},
		{"g", "  \n{\"claims\": null}", FormatNative},
		{"p.json", `{"prefix": {}, "entity": {}}`, FormatPROVJSON},
		{"p.json", `{"agent": {"ex:a": {}}}`, FormatPROVJSON},
		{"l.jsonld", `{"@context": [], "@graph": []}`, FormatPROVJSONLD},
		{"l.json", `{"@graph": [], "claims": []}`, FormatPROVJSONLD},
		{"r.json", `{"response": "text [1]"}`, FormatReport},
		{"r.json", `not json`, FormatReport},
		{"r.json", `{"claims": [`, FormatReport},
		{"r.json", `["claims"]`, FormatReport},
		{"r.json", ``, FormatReport},
	}
	for _, tt := range tests {
		if got := Sniff(tt.name, []byte(tt.data)); got != tt.want {
			t.Errorf("Sniff(%s, %s) = %v, want %v", tt.name, tt.data, got, tt.want)
		}
	}
}

func TestNameFromFile(t *testing.T) {
	for _, tt := range []struct{ id, path, want string }{
		{"", "dir/run.v2/graph.json", "graph"},
		{"", "report.prov.json", "report.prov"},
		{"", "noext", "noext"},
		{"kept", "dir/graph.json", "kept"},
	} {
		g := &Graph{ID: tt.id}
		NameFromFile(g, tt.path)
		if g.ID != tt.want {
			t.Errorf("NameFromFile(%q, %q): id %q, want %q", tt.id, tt.path, g.ID, tt.want)
		}
	}
}

// FuzzSniff checks that Sniff never panics, that a report's extension
// always wins, and that a graph format is only ever said of a JSON object.
func FuzzSniff(f *testing.F) {
	f.Add("g.json", []byte(`{"claims": []}`))
	f.Add("p.json", []byte(`{"prefix": {}, "entity": {}}`))
	f.Add("l.jsonld", []byte(`{"@graph": []}`))
	f.Add("r.md", []byte("# Title\n\nText [1].\n"))
	f.Add("r.json", []byte(`{"response": "x"}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		got := Sniff(name, data)
		if got == FormatReport {
			return
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("Sniff(%q, %q) = %v for a document that is not a JSON object: %v", name, data, got, err)
		}
		if Sniff(name+".md", data) != FormatReport {
			t.Fatalf("Sniff(%q.md) is not a report", name)
		}
	})
}
