package prov

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
)

//go:embed graph.schema.json
var schemaJSON []byte

// schemaURL is the $id of graph.schema.json.
const schemaURL = "https://github.com/claimtrace/claimtrace/schema/aar-graph-1.json"

// Schema returns the JSON Schema (draft 2020-12) of the native graph format.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// Marshal encodes g in the native JSON format, indented.
func Marshal(g *Graph) ([]byte, error) {
	var buf bytes.Buffer
	if err := Encode(&buf, g); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Encode writes g to w in the native JSON format, indented, with the format
// version set and empty lists written as [] rather than null.
func Encode(w io.Writer, g *Graph) error {
	out := *g
	out.Format = FormatVersion
	if out.Sources == nil {
		out.Sources = []Source{}
	}
	if out.Claims == nil {
		out.Claims = []Claim{}
	}
	if out.Edges == nil {
		out.Edges = []Edge{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("encode graph %q: %w", g.ID, err)
	}
	return nil
}

// Unmarshal decodes a graph in the native JSON format: it checks the
// document against the format's JSON Schema, then the graph against the
// AAR rules (Validate). Errors match claimtrace.ErrInvalid. It is
// DecodeStream over data.
func Unmarshal(data []byte) (*Graph, error) {
	return DecodeStream(bytes.NewReader(data))
}

// Decode reads a graph in the native JSON format from r (DecodeStream).
func Decode(r io.Reader) (*Graph, error) { return DecodeStream(r) }
