package provjson

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// parsed is one record as read: its section, id and attributes.
type parsed struct {
	kind  kind
	id    string
	attrs map[string]json.RawMessage
	pre   map[string]string // prefixes in scope
	order int
}

// lit is one attribute value as read.
type lit struct {
	s     string // lexical form
	typ   string // datatype QName as written; "" for plain strings
	qname bool   // a QName value (typed xsd:QName or prov:QUALIFIED_NAME)
	b     *bool
	num   *float64
}

// Unmarshal reads a PROV-JSON document into a graph. Documents written by
// Marshal come back as the same graph. Other documents are read best-effort:
// entities typed aar:Source / aar:Claim / aar:Excerpt keep their roles, an
// untyped entity becomes a claim when something was derived or generated
// into it and a source otherwise, activities become reasoning steps, and
// relations become supports edges unless typed with another AAR relation.
// The result must pass the AAR rules (prov.Graph.Validate).
func Unmarshal(data []byte) (*prov.Graph, error) {
	var recs []parsed
	order := 0
	var readContainer func(raw json.RawMessage, outer map[string]string, depth int) error
	readContainer = func(raw json.RawMessage, outer map[string]string, depth int) error {
		members, err := orderedMembers(raw)
		if err != nil {
			return err
		}
		pre := map[string]string{"prov": PROVNamespace, "xsd": XSDNamespace}
		for k, v := range outer {
			pre[k] = v
		}
		for _, m := range members {
			if m.key != "prefix" {
				continue
			}
			var p map[string]string
			if err := json.Unmarshal(m.value.(json.RawMessage), &p); err != nil {
				return fmt.Errorf("prefix: %w", err)
			}
			for k, v := range p {
				pre[k] = v
			}
		}
		for _, m := range members {
			raw := m.value.(json.RawMessage)
			if m.key == "prefix" {
				continue
			}
			if m.key == "bundle" {
				if depth > 0 {
					return fmt.Errorf("bundles do not nest")
				}
				bundles, err := orderedMembers(raw)
				if err != nil {
					return fmt.Errorf("bundle: %w", err)
				}
				for _, b := range bundles {
					if err := readContainer(b.value.(json.RawMessage), pre, depth+1); err != nil {
						return fmt.Errorf("bundle %s: %w", b.key, err)
					}
				}
				continue
			}
			k := slices.Index(sectionName[:], m.key)
			if k < 0 {
				continue // relations AAR has no use for (wasStartedBy, alternateOf, …)
			}
			items, err := orderedMembers(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", m.key, err)
			}
			for _, it := range items {
				var attrs map[string]json.RawMessage
				if err := json.Unmarshal(it.value.(json.RawMessage), &attrs); err != nil {
					return fmt.Errorf("%s %s: want an object: %w", m.key, it.key, err)
				}
				recs = append(recs, parsed{kind: kind(k), id: it.key, attrs: attrs, pre: pre, order: order})
				order++
			}
		}
		return nil
	}
	if err := readContainer(data, nil, 0); err != nil {
		return nil, fmt.Errorf("read prov-json: %v: %w", err, claimtrace.ErrInvalid)
	}
	g, err := toGraph(recs)
	if err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("prov-json as AAR graph: %w", err)
	}
	return g, nil
}

// expand turns a QName into an IRI using the prefixes in scope; an unknown
// prefix or a plain name is returned as is.
func expand(q string, pre map[string]string) string {
	if i := strings.IndexByte(q, ':'); i > 0 {
		if ns, ok := pre[q[:i]]; ok {
			return ns + q[i+1:]
		}
	}
	if ns, ok := pre["default"]; ok && !strings.Contains(q, ":") {
		return ns + q
	}
	return q
}

// name maps a record id to a graph id and says which of our namespaces it
// is in. Ids in our node namespace lose their prefix; foreign ids are kept
// whole.
func name(q string, pre map[string]string) (string, space) {
	if i := strings.IndexByte(q, ':'); i > 0 {
		if ns, ok := pre[q[:i]]; ok {
			if s := spaceOf(ns); s != spaceForeign {
				return unescapeLocal(q[i+1:]), s
			}
		}
	}
	return q, spaceForeign
}

// values reads an attribute as a list of literals.
func values(raw json.RawMessage) []lit {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		var out []lit
		for _, it := range items {
			out = append(out, values(it)...)
		}
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	switch x := v.(type) {
	case string:
		return []lit{{s: x}}
	case bool:
		return []lit{{s: strconv.FormatBool(x), b: &x}}
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil
		}
		return []lit{{s: x.String(), num: &f}}
	case map[string]any:
		s, _ := x["$"].(string)
		if n, ok := x["$"].(json.Number); ok {
			s = n.String() // python prov < 3 wrote numbers here
		}
		t, _ := x["type"].(string)
		return []lit{{s: s, typ: t, qname: t == "xsd:QName" || t == "prov:QUALIFIED_NAME"}}
	}
	return nil
}

func first(raw json.RawMessage) (lit, bool) {
	vs := values(raw)
	if len(vs) == 0 {
		return lit{}, false
	}
	return vs[0], true
}

func (r parsed) text(key string) string {
	if v, ok := first(r.attrs[key]); ok {
		return v.s
	}
	return ""
}

func (r parsed) formal(key string) string {
	var s string
	if json.Unmarshal(r.attrs[key], &s) != nil {
		return ""
	}
	return s
}

// types returns the expanded IRIs of the record's prov:type values.
func (r parsed) types() []string {
	var out []string
	for _, v := range values(r.attrs["prov:type"]) {
		out = append(out, expand(v.s, r.pre))
	}
	return out
}

func (r parsed) is(local string) bool {
	return slices.Contains(r.types(), AARNamespace+local)
}

// declareImplicit adds an entity or activity record for every id a relation
// names without declaring it (PROV allows that).
func declareImplicit(recs []parsed) []parsed {
	declared := make(map[string]bool)
	for _, r := range recs {
		if r.kind <= kAgent {
			declared[r.id] = true
		}
	}
	roles := map[kind][]struct {
		attr string
		k    kind
	}{
		kDerivation:    {{"prov:generatedEntity", kEntity}, {"prov:usedEntity", kEntity}},
		kUsed:          {{"prov:entity", kEntity}, {"prov:activity", kActivity}},
		kGeneration:    {{"prov:entity", kEntity}, {"prov:activity", kActivity}},
		kCommunication: {{"prov:informed", kActivity}, {"prov:informant", kActivity}},
	}
	n := len(recs)
	for _, r := range recs[:n] {
		for _, role := range roles[r.kind] {
			id := r.formal(role.attr)
			if id == "" || declared[id] {
				continue
			}
			declared[id] = true
			recs = append(recs, parsed{kind: role.k, id: id, attrs: map[string]json.RawMessage{}, pre: r.pre, order: len(recs)})
		}
	}
	return recs
}

// toGraph assembles the graph from the records.
func toGraph(recs []parsed) (*prov.Graph, error) {
	recs = declareImplicit(recs)
	g := &prov.Graph{Format: prov.FormatVersion}
	type ent struct {
		rec  parsed
		role string // source, claim, excerpt, report, "" (untyped)
	}
	ents := make(map[string]*ent) // by full QName as written
	var entOrder []string
	for _, r := range recs {
		if r.kind != kEntity {
			continue
		}
		e := &ent{rec: r}
		switch {
		case r.is("Source"):
			e.role = "source"
		case r.is("Claim"):
			e.role = "claim"
		case r.is("Excerpt"):
			e.role = "excerpt"
		case r.is("Report"):
			e.role = "report"
		}
		if _, dup := ents[r.id]; !dup {
			entOrder = append(entOrder, r.id)
		}
		ents[r.id] = e
	}

	// Untyped entities: a claim when something is derived or generated into
	// it, a source otherwise. Collections (hadMember) are reports.
	for _, r := range recs {
		var target string
		switch r.kind {
		case kDerivation:
			if slices.Contains(r.types(), PROVNamespace+"Quotation") {
				continue
			}
			target = r.formal("prov:generatedEntity")
		case kGeneration:
			target = r.formal("prov:entity")
		case kMembership:
			if e := ents[r.formal("prov:collection")]; e != nil && e.role == "" {
				e.role = "report"
			}
			continue
		default:
			continue
		}
		if e := ents[target]; e != nil && e.role == "" {
			e.role = "claim"
		}
	}

	// Excerpts point at their source through a quotation.
	excerptOf := make(map[string]string) // excerpt QName → source QName
	for _, r := range recs {
		if r.kind == kDerivation && slices.Contains(r.types(), PROVNamespace+"Quotation") {
			if x := ents[r.formal("prov:generatedEntity")]; x != nil && x.role == "excerpt" {
				excerptOf[x.rec.id] = r.formal("prov:usedEntity")
			}
		}
	}

	ids := make(map[string]string) // record QName → graph node id
	srcIdx := make(map[string]int)
	for _, q := range entOrder {
		e := ents[q]
		r := e.rec
		id, _ := name(q, r.pre)
		switch e.role {
		case "report":
			g.ID = r.text("aar:graphId")
			g.Query = r.text("aar:query")
			g.Agent = r.text("aar:agent")
		case "excerpt":
		case "claim":
			c := prov.Claim{ID: id, Statement: r.text("prov:value")}
			c.Location.Start = intAttr(r.attrs["aar:start"])
			c.Location.End = intAttr(r.attrs["aar:end"])
			c.Location.Section = r.text("aar:location")
			ids[q] = id
			g.Claims = append(g.Claims, c)
		default: // source, or untyped
			s := prov.Source{ID: id, Title: r.text("prov:label"), URL: r.text("aar:url"),
				DOI: r.text("aar:doi"), Key: r.text("aar:key")}
			if v, ok := first(r.attrs["aar:resolved"]); ok {
				s.Resolved = v.b != nil && *v.b || v.s == "true"
			}
			if t := r.text("aar:retrievedAt"); t != "" {
				at, err := time.Parse(time.RFC3339Nano, t)
				if err != nil {
					return nil, fmt.Errorf("source %s: aar:retrievedAt %q: %v: %w", q, t, err, claimtrace.ErrInvalid)
				}
				s.RetrievedAt = at.UTC()
			}
			ids[q] = id
			srcIdx[q] = len(g.Sources)
			g.Sources = append(g.Sources, s)
		}
	}
	// In document order, so that a source quoted by several excerpts gets
	// them all, always in the same order.
	for _, x := range entOrder {
		src, ok := excerptOf[x]
		if !ok {
			continue
		}
		if i, ok := srcIdx[src]; ok {
			s := &g.Sources[i]
			if s.Excerpt != "" {
				s.Excerpt += " […] "
			}
			s.Excerpt += ents[x].rec.text("prov:value")
			ids[x] = ids[src]
		}
	}

	agentModel := make(map[string]string)
	for _, r := range recs {
		if r.kind == kAgent {
			m := r.text("aar:model")
			if m == "" {
				m = r.text("prov:label")
			}
			agentModel[r.id] = m
		}
	}
	actIdx := make(map[string]int)
	for _, r := range recs {
		if r.kind != kActivity || r.is("Evaluation") {
			// The evaluation is how the graph was judged, not a step of
			// the report's reasoning.
			continue
		}
		id, _ := name(r.id, r.pre)
		rs := prov.Reasoning{ID: id, Inference: r.text("aar:inference")}
		for _, t := range []prov.ReasoningType{prov.Deduction, prov.Induction, prov.Synthesis} {
			if r.is(strings.ToUpper(string(t[:1])) + string(t[1:])) {
				rs.Type = t
			}
		}
		ids[r.id] = id
		actIdx[r.id] = len(g.Reasoning)
		g.Reasoning = append(g.Reasoning, rs)
	}
	for _, r := range recs {
		if r.kind == kAssociation {
			if i, ok := actIdx[r.formal("prov:activity")]; ok && g.Reasoning[i].Model == "" {
				g.Reasoning[i].Model = agentModel[r.formal("prov:agent")]
			}
		}
	}

	// Edges and conflicts. Ours carry their position in the id (e12, k3);
	// foreign ones follow in document order.
	type placed struct {
		pos, order int
		edge       prov.Edge
		conflict   *prov.Conflict
	}
	var edges, conflicts []placed
	for _, r := range recs {
		var from, to string
		switch r.kind {
		case kDerivation:
			if slices.Contains(r.types(), PROVNamespace+"Quotation") && excerptOf[r.formal("prov:generatedEntity")] != "" {
				continue
			}
			from, to = r.formal("prov:usedEntity"), r.formal("prov:generatedEntity")
		case kUsed:
			from, to = r.formal("prov:entity"), r.formal("prov:activity")
		case kGeneration:
			from, to = r.formal("prov:activity"), r.formal("prov:entity")
		case kCommunication:
			from, to = r.formal("prov:informant"), r.formal("prov:informed")
		case kInfluence:
			from, to = r.formal("prov:influencer"), r.formal("prov:influencee")
		default:
			continue
		}
		if from == "" || to == "" {
			continue // incomplete relation: nothing to link
		}
		local, sp := name(r.id, r.pre)
		pos := -1
		if sp == spaceRel && len(local) > 1 {
			if n, err := strconv.Atoi(local[1:]); err == nil {
				pos = n
			}
		}
		if r.is("Conflict") {
			c := &prov.Conflict{A: nodeName(from, ids, r.pre), B: nodeName(to, ids, r.pre), Entity: r.text("aar:entity"),
				SnippetA: r.text("aar:snippetA"), SnippetB: r.text("aar:snippetB"),
				Kind: prov.ConflictKind(r.text("aar:kind")), Detector: r.text("aar:detector")}
			if sp != spaceRel || !strings.HasPrefix(local, "k") {
				pos = -1
			}
			conflicts = append(conflicts, placed{pos: pos, order: r.order, conflict: c})
			continue
		}
		e := prov.Edge{From: nodeName(from, ids, r.pre), To: nodeName(to, ids, r.pre), Rel: prov.Supports}
		switch {
		case r.is("Contradicts"):
			e.Rel = prov.Contradicts
		case r.is("Refines"):
			e.Rel = prov.Refines
		case r.is("Prerequisite"):
			e.Rel = prov.Prerequisite
		case r.kind == kInfluence && !r.is("Supports"):
			continue // a generic influence says nothing AAR can score
		}
		if v, ok := first(r.attrs["aar:strength"]); ok {
			f, err := strength(v)
			if err != nil {
				return nil, fmt.Errorf("%s %s: aar:strength: %v: %w", sectionName[r.kind], r.id, err, claimtrace.ErrInvalid)
			}
			e.Strength = &f
		}
		e.Label = claimtrace.Label(r.text("aar:label"))
		e.Evidence = r.text("aar:evidence")
		if sp != spaceRel || !strings.HasPrefix(local, "e") {
			pos = -1
		}
		edges = append(edges, placed{pos: pos, order: r.order, edge: e})
	}
	byPos := func(a, b placed) int {
		if (a.pos < 0) != (b.pos < 0) {
			if a.pos < 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.order, b.order))
	}
	slices.SortStableFunc(edges, byPos)
	slices.SortStableFunc(conflicts, byPos)
	for _, p := range edges {
		g.Edges = append(g.Edges, p.edge)
	}
	for _, p := range conflicts {
		g.Conflicts = append(g.Conflicts, *p.conflict)
	}
	if g.Sources == nil {
		g.Sources = []prov.Source{}
	}
	if g.Claims == nil {
		g.Claims = []prov.Claim{}
	}
	if g.Edges == nil {
		g.Edges = []prov.Edge{}
	}
	return g, nil
}

// nodeName maps a referenced QName to its node id: through the records read
// (so excerpts map to their source), else by the id rules of name.
func nodeName(q string, ids map[string]string, pre map[string]string) string {
	if id, ok := ids[q]; ok {
		return id
	}
	id, _ := name(q, pre)
	return id
}

func strength(v lit) (float64, error) {
	if v.num != nil {
		return *v.num, nil
	}
	return strconv.ParseFloat(strings.TrimSpace(v.s), 64)
}

func intAttr(raw json.RawMessage) int {
	v, ok := first(raw)
	if !ok {
		return 0
	}
	if v.num != nil {
		return int(*v.num)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v.s))
	if err != nil {
		return 0
	}
	return n
}
