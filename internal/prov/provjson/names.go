// Package provjson writes AAR provenance graphs as W3C PROV-JSON (Member
// Submission, 2013) and PROV-JSONLD (Member Submission, 2024), and reads
// PROV-JSON back into a graph.
//
// The mapping follows the AAR → PROV table (FORMATS.md §1.7): claims,
// sources and excerpts are entities (typed aar:Claim, aar:Source,
// aar:Excerpt), an excerpt is quoted from its source (wasDerivedFrom typed
// prov:Quotation), reasoning steps are activities (typed aar:Reasoning plus
// aar:Deduction/Induction/Synthesis and aar:AIModelInvocation, PROV-AGENT's
// term) associated with their model (a prov:SoftwareAgent typed
// aar:AIAgent), and the report is a prov:Collection with one hadMember per
// claim. Given an Evaluation (MarshalWith), the document also says who
// judged and how: the evaluation is an activity (aar:Evaluation, with its
// start and end times and settings) associated with two
// prov:SoftwareAgents, the tool (claimtrace and its version) and the judge
// (name, model, calibration), and every judged derivation names it as its
// prov:activity.
//
// Every term of ours lives in one namespace the project owns,
// AARNamespace, prefix "aar" (docs/audit.md lists the terms).
//
// Edges map onto the PROV relation their end points allow, typed with the
// AAR relation (aar:Supports, aar:Contradicts, aar:Refines,
// aar:Prerequisite): a supports edge between entities is a derivation
// (generatedEntity = claim, usedEntity = the source's excerpt) carrying
// aar:strength as xsd:decimal; from an entity into a reasoning step it is a
// usage, from a reasoning step into a claim a generation, between reasoning
// steps a communication. Contradicts and prerequisite edges are influences
// (no PROV relation says "evidence against"); refines is a derivation
// between entities and an influence otherwise. Conflicts between sources
// are influences typed aar:Conflict.
//
// Output keeps inside both the official PROV-JSON schema and ProvToolbox's
// v4 schema: explicit ids for every relation, one hadMember record per
// member, "$" always a string, QName values typed xsd:QName, no wasEndedBy.
// Reading accepts QName values typed xsd:QName or prov:QUALIFIED_NAME and
// flattens bundles.
package provjson

import (
	"net/url"
	"strings"
)

// Namespaces written into every document.
const (
	// AARNamespace is the namespace of claimtrace's AAR vocabulary.
	AARNamespace = "https://github.com/claimtrace/claimtrace/ns/aar#"
	// PROVNamespace is the W3C PROV namespace.
	PROVNamespace = "http://www.w3.org/ns/prov#"
	// XSDNamespace is the XML Schema datatypes namespace.
	XSDNamespace = "http://www.w3.org/2001/XMLSchema#"
	// PROVJSONLDContext is the PROV-JSONLD context IRI.
	PROVJSONLDContext = "https://openprovenance.org/prov-jsonld/context.jsonld"
)

// graphBase is the IRI under which a graph's own names live; the four
// prefixes below it hold nodes, excerpts, relations and agents.
const graphBase = "urn:claimtrace:graph:"

const (
	pNode    = "rpt"
	pExcerpt = "rpt-x"
	pRel     = "rpt-r"
	pAgent   = "rpt-a"
)

type space uint8

const (
	spaceForeign space = iota
	spaceNode
	spaceExcerpt
	spaceRel
	spaceAgent
)

var spaceSuffix = map[space]string{spaceNode: "/node/", spaceExcerpt: "/excerpt/", spaceRel: "/rel/", spaceAgent: "/agent/"}

// prefixes returns the prefix map of a document for graph id.
func prefixes(graphID string) map[string]string {
	if graphID == "" {
		graphID = "_"
	}
	base := graphBase + url.PathEscape(graphID)
	return map[string]string{
		"aar":    AARNamespace,
		pNode:    base + spaceSuffix[spaceNode],
		pExcerpt: base + spaceSuffix[spaceExcerpt],
		pRel:     base + spaceSuffix[spaceRel],
		pAgent:   base + spaceSuffix[spaceAgent],
	}
}

// prefixOrder is the order prefixes are written in.
var prefixOrder = []string{"aar", pNode, pExcerpt, pRel, pAgent}

// spaceOf classifies a namespace IRI.
func spaceOf(iri string) space {
	if !strings.HasPrefix(iri, graphBase) {
		return spaceForeign
	}
	for s, suf := range spaceSuffix {
		if strings.HasSuffix(iri, suf) {
			return s
		}
	}
	return spaceForeign
}

// escapeLocal makes an id safe as the local part of a QName that is also an
// absolute URI: letters, digits, "-", "." and "_" are kept, every other byte
// is percent-encoded.
func escapeLocal(id string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// unescapeLocal reverses escapeLocal; malformed escapes are kept as text.
func unescapeLocal(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if h, ok1 := unhex(s[i+1]); ok1 {
				if l, ok2 := unhex(s[i+2]); ok2 {
					b.WriteByte(h<<4 | l)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
