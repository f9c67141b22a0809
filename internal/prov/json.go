package prov

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/santhosh-tekuri/jsonschema/v6"
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
// AAR rules (Validate). Errors match claimtrace.ErrInvalid.
func Unmarshal(data []byte) (*Graph, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("graph is not JSON: %v: %w", err, claimtrace.ErrInvalid)
	}
	sch, err := compileSchema()
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(doc); err != nil {
		return nil, fmt.Errorf("graph does not match the aar-graph/1 schema: %s: %w", schemaErrors(err), claimtrace.ErrInvalid)
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

// Decode reads a graph in the native JSON format from r (see Unmarshal).
func Decode(r io.Reader) (*Graph, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read graph: %w", err)
	}
	return Unmarshal(data)
}

func compileSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("embedded graph schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("embedded graph schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("embedded graph schema: %w", err)
	}
	return sch, nil
}

// schemaErrors lists the leaf errors of a schema validation, with the JSON
// pointer of each offending value, at most five.
func schemaErrors(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var msgs []string
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		msgs = append(msgs, fmt.Sprintf("at %s: %s", loc, u.Error))
	}
	if len(msgs) == 0 {
		return ve.Error()
	}
	if len(msgs) > 5 {
		msgs = append(msgs[:5], fmt.Sprintf("and %d more", len(msgs)-5))
	}
	return strings.Join(msgs, "; ")
}
