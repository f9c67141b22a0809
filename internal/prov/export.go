package prov

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// GraphML and DOT are views for graph tools (Gephi, yEd, Cytoscape,
// Graphviz); the lossless formats are the native JSON and PROV-JSON.

type graphML struct {
	XMLName xml.Name     `xml:"graphml"`
	XMLNS   string       `xml:"xmlns,attr"`
	Keys    []graphMLKey `xml:"key"`
	Graph   graphMLGraph `xml:"graph"`
}

type graphMLKey struct {
	ID   string `xml:"id,attr"`
	For  string `xml:"for,attr"`
	Name string `xml:"attr.name,attr"`
	Type string `xml:"attr.type,attr"`
}

type graphMLGraph struct {
	ID          string        `xml:"id,attr"`
	EdgeDefault string        `xml:"edgedefault,attr"`
	Data        []graphMLData `xml:"data"`
	Nodes       []graphMLNode `xml:"node"`
	Edges       []graphMLEdge `xml:"edge"`
}

type graphMLNode struct {
	ID   string        `xml:"id,attr"`
	Data []graphMLData `xml:"data"`
}

type graphMLEdge struct {
	ID       string        `xml:"id,attr"`
	Source   string        `xml:"source,attr"`
	Target   string        `xml:"target,attr"`
	Directed string        `xml:"directed,attr,omitempty"`
	Data     []graphMLData `xml:"data"`
}

type graphMLData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

var graphMLKeys = []graphMLKey{
	{"g_query", "graph", "query", "string"},
	{"g_agent", "graph", "agent", "string"},
	{"kind", "node", "kind", "string"},
	{"label", "node", "label", "string"},
	{"url", "node", "url", "string"},
	{"doi", "node", "doi", "string"},
	{"key", "node", "key", "string"},
	{"excerpt", "node", "excerpt", "string"},
	{"retrieved_at", "node", "retrieved_at", "string"},
	{"resolved", "node", "resolved", "boolean"},
	{"inference", "node", "inference", "string"},
	{"type", "node", "type", "string"},
	{"model", "node", "model", "string"},
	{"start", "node", "start", "int"},
	{"end", "node", "end", "int"},
	{"section", "node", "section", "string"},
	{"rel", "edge", "rel", "string"},
	{"strength", "edge", "strength", "double"},
	{"verdict", "edge", "verdict", "string"},
	{"evidence", "edge", "evidence", "string"},
	{"entity", "edge", "entity", "string"},
}

// WriteGraphML writes g as GraphML: nodes carry their kind and fields,
// edges their relation and strength; conflicts are undirected edges with
// rel "conflict" and the entity.
func WriteGraphML(w io.Writer, g *Graph) error {
	doc := graphML{XMLNS: "http://graphml.graphdrawing.org/xmlns", Keys: graphMLKeys,
		Graph: graphMLGraph{ID: cmpOr(g.ID, "G"), EdgeDefault: "directed"}}
	gd := &doc.Graph
	gd.Data = appendData(nil, "g_query", g.Query, "g_agent", g.Agent)
	for _, s := range g.Sources {
		d := appendData(nil, "kind", "source", "label", s.Title, "url", s.URL, "doi", s.DOI, "key", s.Key,
			"excerpt", s.Excerpt, "retrieved_at", timeText(s.RetrievedAt), "resolved", strconv.FormatBool(s.Resolved))
		gd.Nodes = append(gd.Nodes, graphMLNode{ID: s.ID, Data: d})
	}
	for _, r := range g.Reasoning {
		d := appendData(nil, "kind", "reasoning", "inference", r.Inference, "type", string(r.Type), "model", r.Model)
		gd.Nodes = append(gd.Nodes, graphMLNode{ID: r.ID, Data: d})
	}
	for _, c := range g.Claims {
		d := appendData(nil, "kind", "claim", "label", c.Statement)
		if c.Location.End > 0 {
			d = appendData(d, "start", strconv.Itoa(c.Location.Start), "end", strconv.Itoa(c.Location.End))
		}
		d = appendData(d, "section", c.Location.Section)
		gd.Nodes = append(gd.Nodes, graphMLNode{ID: c.ID, Data: d})
	}
	for i, e := range g.Edges {
		d := appendData(nil, "rel", e.Rel.String())
		if e.Strength != nil {
			d = appendData(d, "strength", strconv.FormatFloat(*e.Strength, 'g', -1, 64))
		}
		d = appendData(d, "verdict", string(e.Label), "evidence", e.Evidence)
		gd.Edges = append(gd.Edges, graphMLEdge{ID: "e" + strconv.Itoa(i+1), Source: e.From, Target: e.To, Data: d})
	}
	for i, c := range g.Conflicts {
		d := appendData(nil, "rel", "conflict", "entity", c.Entity)
		gd.Edges = append(gd.Edges, graphMLEdge{ID: "k" + strconv.Itoa(i+1), Source: c.A, Target: c.B, Directed: "false", Data: d})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write graphml: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write graphml: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write graphml: %w", err)
	}
	return nil
}

// appendData appends key/value pairs, skipping empty values.
func appendData(d []graphMLData, kv ...string) []graphMLData {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			d = append(d, graphMLData{Key: kv[i], Value: kv[i+1]})
		}
	}
	return d
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// WriteDOT writes g in Graphviz DOT: sources as boxes (dashed when
// unresolved), reasoning as ellipses, claims as notes; contradicts edges
// red and dashed, conflicts as dotted undirected orange edges.
func WriteDOT(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotID(cmpOr(g.ID, "provenance")))
	fmt.Fprintln(bw, "  rankdir=LR;")
	fmt.Fprintln(bw, `  node [fontname="Helvetica", fontsize=10];`)
	fmt.Fprintln(bw, `  edge [fontname="Helvetica", fontsize=9];`)
	for _, s := range g.Sources {
		style := ""
		if !s.Resolved {
			style = `, style=dashed`
		}
		fmt.Fprintf(bw, "  %s [shape=box%s, label=%s];\n", dotID(s.ID), style, dotID(s.ID+"\n"+wrap(cmpOr(s.Title, cmpOr(s.URL, s.DOI)), 40, 2)))
	}
	for _, r := range g.Reasoning {
		label := r.ID
		if r.Type != "" {
			label += " (" + string(r.Type) + ")"
		}
		fmt.Fprintf(bw, "  %s [shape=ellipse, label=%s];\n", dotID(r.ID), dotID(label+"\n"+wrap(r.Inference, 40, 2)))
	}
	for _, c := range g.Claims {
		fmt.Fprintf(bw, "  %s [shape=note, label=%s];\n", dotID(c.ID), dotID(c.ID+"\n"+wrap(c.Statement, 40, 3)))
	}
	for _, e := range g.Edges {
		label := e.Rel.String()
		if e.Strength != nil {
			label += " " + strconv.FormatFloat(*e.Strength, 'f', 2, 64)
		}
		attrs := "label=" + dotID(label)
		switch e.Rel {
		case Contradicts:
			attrs += ", color=red, fontcolor=red, style=dashed"
		case Refines, Prerequisite:
			attrs += ", style=dotted"
		}
		fmt.Fprintf(bw, "  %s -> %s [%s];\n", dotID(e.From), dotID(e.To), attrs)
	}
	for _, c := range g.Conflicts {
		fmt.Fprintf(bw, "  %s -> %s [dir=none, constraint=false, style=dotted, color=orange, fontcolor=orange, label=%s];\n",
			dotID(c.A), dotID(c.B), dotID("conflict: "+c.Entity))
	}
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write dot: %w", err)
	}
	return nil
}

// dotID quotes s as a DOT string: backslashes and quotes escaped, newlines
// as \n, other control characters dropped.
func dotID(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// wrap breaks s into at most lines lines of about width runes, ending with
// "…" when cut.
func wrap(s string, width, lines int) string {
	words := strings.Fields(s)
	var out []string
	var cur []rune
	for i, w := range words {
		if len(cur) > 0 && len(cur)+1+utf8.RuneCountInString(w) > width {
			out = append(out, string(cur))
			cur = cur[:0]
			if len(out) == lines {
				out[lines-1] += " …"
				return strings.Join(out, "\n")
			}
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		cur = append(cur, []rune(w)...)
		if i == len(words)-1 {
			out = append(out, string(cur))
		}
	}
	return strings.Join(out, "\n")
}
