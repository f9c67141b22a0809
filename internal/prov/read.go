package prov

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// Format is the kind of document a graph file holds, as Sniff tells it.
type Format uint8

// Formats Sniff tells apart.
const (
	// FormatReport is anything that is not a graph document: a report's
	// text (.md, .txt), a report JSON with its text in "response", or not
	// JSON at all.
	FormatReport Format = iota
	// FormatNative is claimtrace's graph JSON (aar-graph/1).
	FormatNative
	// FormatPROVJSON is a W3C PROV-JSON document.
	FormatPROVJSON
	// FormatPROVJSONLD is a PROV-JSONLD document: written, never read.
	FormatPROVJSONLD
)

// String names the format.
func (f Format) String() string {
	switch f {
	case FormatNative:
		return "native"
	case FormatPROVJSON:
		return "prov-json"
	case FormatPROVJSONLD:
		return "prov-jsonld"
	}
	return "report"
}

// provKeys are top-level keys only a PROV-JSON document has.
var provKeys = []string{"prefix", "entity", "activity", "agent", "wasGeneratedBy", "used", "wasDerivedFrom",
	"wasInfluencedBy", "wasAttributedTo", "wasAssociatedWith", "hadMember", "bundle", "wasInformedBy"}

// Sniff tells graph documents from reports by their content: name (a file
// path) counts only for its extension, a report's .md, .markdown or .txt.
// A JSON object with "claims" is a native graph (PROV-JSON never has that
// key, while both have "agent"), one with "@graph" PROV-JSONLD and one
// with a PROV-JSON section PROV-JSON; anything else is a report.
func Sniff(name string, data []byte) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown", ".txt":
		return FormatReport
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return FormatReport
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(trimmed, &top) != nil {
		return FormatReport
	}
	if _, ok := top["@graph"]; ok {
		return FormatPROVJSONLD
	}
	if _, ok := top["claims"]; ok {
		return FormatNative
	}
	for _, k := range provKeys {
		if _, ok := top[k]; ok {
			return FormatPROVJSON
		}
	}
	return FormatReport
}

// NameFromFile gives g, when it has no id, the base name of the file it
// was read from without its extension: the name audit and gate print.
func NameFromFile(g *Graph, path string) {
	if g.ID == "" {
		g.ID = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
}

// SniffStream tells a graph document's format from its first member,
// for a file too large to read whole to Sniff it: a JSON object whose
// first key is a native graph's ("format", "id", "query", "sources",
// "reasoning", "claims", "edges", "conflicts", or "agent" with a string)
// is native, one whose first key is a PROV-JSON section (or "agent" with
// an object) PROV-JSON, "@context" or "@graph" PROV-JSONLD; anything else
// is FormatReport. Only the start of r is read.
func SniffStream(r io.Reader) Format {
	s := newJSONScanner(r)
	if c, err := s.peek(); err != nil || c != '{' {
		return FormatReport
	}
	s.pos++
	key, _, err := s.str()
	if err != nil || s.expect(':') != nil {
		return FormatReport
	}
	switch key {
	case "@context", "@graph":
		return FormatPROVJSONLD
	case "format", "id", "query", "sources", "reasoning", "claims", "edges", "conflicts":
		return FormatNative
	case "agent":
		if c, err := s.peek(); err == nil && c == '"' {
			return FormatNative
		}
		return FormatPROVJSON
	}
	if slices.Contains(provKeys, key) {
		return FormatPROVJSON
	}
	return FormatReport
}

// MaxGraphBytes is the largest graph file the commands read, far above
// the limit on reports: a graph of a million claims as claimtrace writes
// it is about half a gigabyte, and decodes in about twice that in memory.
// A native graph is read as a stream (DecodeStream); a PROV-JSON one is
// read whole.
const MaxGraphBytes = 1 << 30
