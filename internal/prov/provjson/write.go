package provjson

import (
	"fmt"
	"strconv"
	"time"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// kind is a PROV-JSON section: an element type or a relation type.
type kind uint8

const (
	kEntity kind = iota
	kActivity
	kAgent
	kUsed
	kGeneration
	kCommunication
	kDerivation
	kAttribution
	kAssociation
	kInfluence
	kMembership
	nKinds
)

// section names in PROV-JSON, and record types in PROV-JSONLD.
var (
	sectionName = [nKinds]string{"entity", "activity", "agent", "used", "wasGeneratedBy", "wasInformedBy",
		"wasDerivedFrom", "wasAttributedTo", "wasAssociatedWith", "wasInfluencedBy", "hadMember"}
	ldType = [nKinds]string{"Entity", "Activity", "Agent", "Usage", "Generation", "Communication",
		"Derivation", "Attribution", "Association", "Influence", "Membership"}
)

// value is one attribute value.
type value struct {
	lex   string
	typ   string // "" for a plain string, "bool" for a boolean, "qname", or an xsd: datatype
	plain bool   // written as a bare JSON string
}

func str(s string) value            { return value{lex: s, plain: true} }
func typed(lex, xsd string) value   { return value{lex: lex, typ: xsd} }
func qname(q string) value          { return value{lex: q, typ: "qname"} }
func boolean(b bool) value          { return value{lex: strconv.FormatBool(b), typ: "bool"} }
func decimal(f float64) value       { return typed(strconv.FormatFloat(f, 'f', -1, 64), "xsd:decimal") }
func nonNegative(n int) value       { return typed(strconv.Itoa(n), "xsd:nonNegativeInteger") }
func dateTime(t time.Time) value    { return typed(t.UTC().Format(time.RFC3339Nano), "xsd:dateTime") }
func attr(name string, v value) att { return att{name, []value{v}} }

type att struct {
	name string
	vals []value
}

// ref is a formal attribute naming another record.
type ref struct{ name, id string }

// record is one PROV statement, rendered as PROV-JSON or PROV-JSONLD.
type record struct {
	kind   kind
	id     string
	formal []ref
	types  []string // QNames
	label  string
	value  string
	hasVal bool
	attrs  []att
}

// document is the PROV view of a graph, built once and rendered twice.
type document struct {
	prefix  map[string]string
	records []record
}

func nodeID(id string) string    { return pNode + ":" + escapeLocal(id) }
func excerptID(id string) string { return pExcerpt + ":" + escapeLocal(id) }
func relID(id string) string     { return pRel + ":" + id }

var relType = map[prov.Relation]string{
	prov.Supports: "aar:Supports", prov.Contradicts: "aar:Contradicts",
	prov.Refines: "aar:Refines", prov.Prerequisite: "aar:Prerequisite",
}

var reasoningType = map[prov.ReasoningType]string{
	prov.Deduction: "aar:Deduction", prov.Induction: "aar:Induction", prov.Synthesis: "aar:Synthesis",
}

// build maps g onto PROV records, with ev's when it is not nil. g must be
// valid.
func build(g *prov.Graph, ev *Evaluation) (*document, error) {
	ix, err := prov.NewIndex(g)
	if err != nil {
		return nil, err
	}
	d := &document{prefix: prefixes(g.ID)}
	add := func(r record) { d.records = append(d.records, r) }

	report := record{kind: kEntity, id: pAgent + ":report", types: []string{"prov:Collection", "aar:Report"}}
	if g.ID != "" {
		report.attrs = append(report.attrs, attr("aar:graphId", str(g.ID)))
	}
	if g.Query != "" {
		report.attrs = append(report.attrs, attr("aar:query", str(g.Query)))
	}
	if g.Agent != "" {
		report.attrs = append(report.attrs, attr("aar:agent", str(g.Agent)))
	}
	add(report)
	evaluation := ""
	if ev != nil {
		evaluation = ev.add(add)
	}
	if g.Agent != "" {
		add(record{kind: kAgent, id: pAgent + ":writer", types: []string{"prov:SoftwareAgent", "aar:AIAgent"},
			attrs: []att{attr("aar:name", str(g.Agent))}})
		add(record{kind: kAttribution, id: relID("attr-report"),
			formal: []ref{{"prov:entity", report.id}, {"prov:agent", pAgent + ":writer"}}})
	}

	// evidenceOf is what a relation from a source uses: its excerpt when it
	// has one (one source may carry many quoted spans), else the source.
	evidenceOf := make(map[string]string, len(g.Sources))
	for _, s := range g.Sources {
		e := record{kind: kEntity, id: nodeID(s.ID), types: []string{"aar:Source"}, label: s.Title}
		if s.URL != "" {
			e.attrs = append(e.attrs, attr("aar:url", typed(s.URL, "xsd:anyURI")))
		}
		if s.DOI != "" {
			e.attrs = append(e.attrs, attr("aar:doi", str(s.DOI)))
		}
		if s.Key != "" {
			e.attrs = append(e.attrs, attr("aar:key", str(s.Key)))
		}
		e.attrs = append(e.attrs, attr("aar:resolved", boolean(s.Resolved)))
		if !s.RetrievedAt.IsZero() {
			e.attrs = append(e.attrs, attr("aar:retrievedAt", dateTime(s.RetrievedAt)))
		}
		add(e)
		evidenceOf[s.ID] = e.id
		if s.Excerpt != "" {
			x := record{kind: kEntity, id: excerptID(s.ID), types: []string{"aar:Excerpt"}, value: s.Excerpt, hasVal: true}
			add(x)
			add(record{kind: kDerivation, id: relID("q-" + escapeLocal(s.ID)), types: []string{"prov:Quotation"},
				formal: []ref{{"prov:generatedEntity", x.id}, {"prov:usedEntity", e.id}}})
			evidenceOf[s.ID] = x.id
		}
	}

	models := make(map[string]string)
	for _, r := range g.Reasoning {
		a := record{kind: kActivity, id: nodeID(r.ID), types: []string{"aar:Reasoning"}}
		if t, ok := reasoningType[r.Type]; ok {
			a.types = append(a.types, t)
		}
		a.types = append(a.types, "aar:AIModelInvocation")
		if r.Inference != "" {
			a.attrs = append(a.attrs, attr("aar:inference", str(r.Inference)))
		}
		add(a)
		if r.Model == "" {
			continue
		}
		agent, ok := models[r.Model]
		if !ok {
			agent = pAgent + ":model." + escapeLocal(r.Model)
			models[r.Model] = agent
			add(record{kind: kAgent, id: agent, types: []string{"prov:SoftwareAgent", "aar:AIAgent"},
				attrs: []att{attr("aar:model", str(r.Model))}})
		}
		add(record{kind: kAssociation, id: relID("assoc-" + escapeLocal(r.ID)),
			formal: []ref{{"prov:activity", a.id}, {"prov:agent", agent}}})
	}

	for _, c := range g.Claims {
		e := record{kind: kEntity, id: nodeID(c.ID), types: []string{"aar:Claim"}, value: c.Statement, hasVal: true}
		if l := c.Location; l.End > 0 || l.Start > 0 {
			e.attrs = append(e.attrs, attr("aar:start", nonNegative(l.Start)), attr("aar:end", nonNegative(l.End)))
		}
		if c.Location.Section != "" {
			e.attrs = append(e.attrs, attr("aar:location", str(c.Location.Section)))
		}
		add(e)
		add(record{kind: kMembership, id: relID("m-" + escapeLocal(c.ID)),
			formal: []ref{{"prov:collection", report.id}, {"prov:entity", e.id}}})
	}

	for i, e := range g.Edges {
		u, _ := ix.Lookup(e.From)
		v, _ := ix.Lookup(e.To)
		from := nodeID(e.From)
		if ix.Kind(u) == prov.KindSource {
			from = evidenceOf[e.From]
		}
		to := nodeID(e.To)
		r := record{id: relID("e" + strconv.Itoa(i+1)), types: []string{relType[e.Rel]}}
		fromEntity, toEntity := ix.Kind(u) != prov.KindReasoning, ix.Kind(v) != prov.KindReasoning
		switch {
		case e.Rel == prov.Supports && fromEntity && toEntity, e.Rel == prov.Refines && fromEntity && toEntity:
			r.kind = kDerivation
			r.formal = []ref{{"prov:generatedEntity", to}, {"prov:usedEntity", from}}
		case e.Rel == prov.Supports && fromEntity:
			r.kind = kUsed
			r.formal = []ref{{"prov:activity", to}, {"prov:entity", from}}
		case e.Rel == prov.Supports && toEntity:
			r.kind = kGeneration
			r.formal = []ref{{"prov:entity", to}, {"prov:activity", from}}
		case e.Rel == prov.Supports:
			r.kind = kCommunication
			r.formal = []ref{{"prov:informed", to}, {"prov:informant", from}}
		default:
			r.kind = kInfluence
			r.formal = []ref{{"prov:influencee", to}, {"prov:influencer", from}}
		}
		if e.Strength != nil {
			r.attrs = append(r.attrs, attr("aar:strength", decimal(*e.Strength)))
			if evaluation != "" && r.kind == kDerivation {
				// The judge gave the strength during the evaluation.
				r.formal = append(r.formal, ref{"prov:activity", evaluation})
			}
		}
		if e.Label != "" {
			r.attrs = append(r.attrs, attr("aar:label", str(string(e.Label))))
		}
		if e.Evidence != "" {
			r.attrs = append(r.attrs, attr("aar:evidence", str(e.Evidence)))
		}
		add(r)
	}

	for i, c := range g.Conflicts {
		r := record{kind: kInfluence, id: relID("k" + strconv.Itoa(i+1)), types: []string{"aar:Conflict"},
			formal: []ref{{"prov:influencee", nodeID(c.B)}, {"prov:influencer", nodeID(c.A)}},
			attrs:  []att{attr("aar:entity", str(c.Entity))}}
		for _, kv := range [][2]string{{"aar:snippetA", c.SnippetA}, {"aar:snippetB", c.SnippetB},
			{"aar:kind", string(c.Kind)}, {"aar:detector", c.Detector}} {
			if kv[1] != "" {
				r.attrs = append(r.attrs, attr(kv[0], str(kv[1])))
			}
		}
		add(r)
	}
	return d, nil
}

// Marshal writes g as an indented PROV-JSON document.
func Marshal(g *prov.Graph) ([]byte, error) { return MarshalWith(g, nil) }

// MarshalWith writes g as an indented PROV-JSON document with the
// evaluation that judged it (nil: none).
func MarshalWith(g *prov.Graph, ev *Evaluation) ([]byte, error) {
	d, err := build(g, ev)
	if err != nil {
		return nil, fmt.Errorf("prov-json: %w", err)
	}
	var doc object
	doc.set("prefix", jsonPrefix(d))
	var sections [nKinds]object
	for _, r := range d.records {
		sections[r.kind].set(r.id, jsonRecord(r))
	}
	for k := range nKinds {
		if len(sections[k]) > 0 {
			doc.set(sectionName[k], sections[k])
		}
	}
	out, err := marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("prov-json: %w", err)
	}
	return indent(out)
}

// jsonPrefix is the prefix map of a PROV-JSON document.
func jsonPrefix(d *document) object {
	var pre object
	for _, p := range prefixOrder {
		pre.set(p, d.prefix[p])
	}
	return pre
}

// ldContext is the @context of a PROV-JSONLD document: an inline prefix
// map and the submission's context.
func ldContext(d *document) []any {
	var pre object
	for _, p := range prefixOrder {
		pre.set(p, d.prefix[p])
	}
	pre.set("prov", PROVNamespace)
	pre.set("xsd", XSDNamespace)
	return []any{pre, PROVJSONLDContext}
}

// jsonRecord renders one record as a PROV-JSON object.
func jsonRecord(r record) object {
	var o object
	for _, f := range r.formal {
		o.set(f.name, f.id)
	}
	switch len(r.types) {
	case 0:
	case 1:
		o.set("prov:type", jsonValue(qname(r.types[0])))
	default:
		var ts []any
		for _, t := range r.types {
			ts = append(ts, jsonValue(qname(t)))
		}
		o.set("prov:type", ts)
	}
	if r.label != "" {
		o.set("prov:label", r.label)
	}
	if r.hasVal {
		o.set("prov:value", r.value)
	}
	for _, a := range r.attrs {
		if len(a.vals) == 1 {
			o.set(a.name, jsonValue(a.vals[0]))
			continue
		}
		var vs []any
		for _, v := range a.vals {
			vs = append(vs, jsonValue(v))
		}
		o.set(a.name, vs)
	}
	if o == nil {
		o = object{}
	}
	return o
}

// jsonValue renders a value in PROV-JSON: plain strings and booleans as
// JSON, everything else as a typed literal whose "$" is a string.
func jsonValue(v value) any {
	switch {
	case v.plain:
		return v.lex
	case v.typ == "bool":
		return v.lex == "true"
	case v.typ == "qname":
		var o object
		o.set("$", v.lex)
		o.set("type", "xsd:QName")
		return o
	}
	var o object
	o.set("$", v.lex)
	o.set("type", v.typ)
	return o
}

// MarshalLD writes g as an indented PROV-JSONLD document with the
// submission's context and an inline prefix map.
func MarshalLD(g *prov.Graph) ([]byte, error) { return MarshalLDWith(g, nil) }

// MarshalLDWith writes g as PROV-JSONLD (see MarshalLD) with the
// evaluation that judged it (nil: none).
func MarshalLDWith(g *prov.Graph, ev *Evaluation) ([]byte, error) {
	d, err := build(g, ev)
	if err != nil {
		return nil, fmt.Errorf("prov-jsonld: %w", err)
	}
	var doc object
	doc.set("@context", ldContext(d))
	graph := make([]any, 0, len(d.records))
	for _, r := range d.records {
		graph = append(graph, ldRecord(r))
	}
	doc.set("@graph", graph)
	out, err := marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("prov-jsonld: %w", err)
	}
	return indent(out)
}

// ldRecord renders one record as a PROV-JSONLD node object.
func ldRecord(r record) object {
	var o object
	o.set("@type", ldType[r.kind])
	o.set("@id", r.id)
	for _, f := range r.formal {
		o.set(f.name[len("prov:"):], f.id)
	}
	if len(r.types) > 0 {
		o.set("type", r.types)
	}
	if r.label != "" {
		o.set("label", []any{map[string]string{"@value": r.label}})
	}
	if r.hasVal {
		o.set("value", []any{ldValue(str(r.value))})
	}
	for _, a := range r.attrs {
		vs := make([]any, len(a.vals))
		for i, v := range a.vals {
			vs[i] = ldValue(v)
		}
		o.set(a.name, vs)
	}
	return o
}

// ldValue renders a value in PROV-JSONLD: QNames as strings, everything
// else as {"@value", "@type"}.
func ldValue(v value) any {
	var o object
	switch {
	case v.typ == "qname":
		return v.lex
	case v.plain:
		o.set("@value", v.lex)
		o.set("@type", "xsd:string")
	case v.typ == "bool":
		o.set("@value", v.lex)
		o.set("@type", "xsd:boolean")
	default:
		o.set("@value", v.lex)
		o.set("@type", v.typ)
	}
	return o
}
