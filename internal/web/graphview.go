package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// Caps of the graph view: a browser draws a few hundred nodes well, and a
// report's graph can hold hundreds of thousands.
const (
	// DefaultGraphNodes is how many nodes the graph view draws unless
	// ?max= says otherwise.
	DefaultGraphNodes = 300
	// MaxGraphNodes caps ?max=.
	MaxGraphNodes = 2000
)

// GraphView is the picture of a report's provenance graph the graph page
// draws (GET /api/runs/{run}/graphs/{task}/view): sources → excerpts →
// reasoning steps → claims, laid out in those four columns. Claims are
// taken in the report's order, each with every node of its provenance
// path, until the next would pass MaxNodes: Truncated says some were left
// out, ClaimsShown of Claims are drawn.
type GraphView struct {
	Task        string      `json:"task_id"`
	Tau         float64     `json:"tau"`
	Claims      int         `json:"claims"`
	ClaimsShown int         `json:"claims_shown"`
	MaxNodes    int         `json:"max_nodes"`
	Truncated   bool        `json:"truncated"`
	Nodes       []GraphNode `json:"nodes"`
	Edges       []GraphEdge `json:"edges"`
}

// GraphNode is one node of a GraphView. IDs are the graph's node ids with
// a kind prefix ("s:", "x:" for a source's excerpt, "r:", "c:"), so that
// an excerpt and its source never share one.
type GraphNode struct {
	ID string `json:"id"`
	// Node is the id in the provenance graph (the source's, for an
	// excerpt).
	Node string `json:"node"`
	// Kind is source, excerpt, reasoning or claim.
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// Text is a claim's statement, an excerpt's passage or a reasoning
	// step's inference.
	Text string `json:"text,omitempty"`
	// URL is a source's http(s) address.
	URL      string `json:"url,omitempty"`
	Resolved bool   `json:"resolved"`
	// Status is a claim's status in the audit view (supported, …).
	Status string `json:"status,omitempty"`
	// Conflict marks a source in a conflict with another.
	Conflict bool `json:"conflict,omitempty"`
	// Gated marks a claim 'claimtrace gate' holds against the report:
	// incomplete provenance, or a citation with strength ν ≤ τ or none;
	// Why says which.
	Gated bool    `json:"gated,omitempty"`
	Why   string  `json:"why,omitempty"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
}

// GraphEdge is one edge of a GraphView: a graph edge (supports,
// contradicts, refines, prerequisite), "quotes" from a source to its
// excerpt, or "conflict" between two sources.
type GraphEdge struct {
	ID       string   `json:"id"`
	From     string   `json:"from"`
	To       string   `json:"to"`
	Rel      string   `json:"rel"`
	Strength *float64 `json:"strength,omitempty"`
	Label    string   `json:"label,omitempty"`
	// Weak marks a supports edge from a source whose strength is ν ≤ τ
	// or unknown.
	Weak bool `json:"weak,omitempty"`
	// Surfaced says, for a conflict, whether the report brings it up.
	Surfaced bool `json:"surfaced,omitempty"`
}

// Column positions of the graph view, in pixels of the drawing.
const (
	columnGap = 280.0
	rowGap    = 46.0
)

// graphView lays out the provenance graph g of a report (res its stored
// result) for drawing, at most maxNodes nodes.
func graphView(g *prov.Graph, res *eval.Result, maxNodes int) (*GraphView, error) {
	ix, err := prov.NewIndex(g)
	if err != nil {
		return nil, fmt.Errorf("graph of report %q: %w", res.Task, err)
	}
	tau := prov.DefaultTau
	if res.AAR != nil && res.AAR.Tau > 0 {
		tau = res.AAR.Tau
	}
	v := &GraphView{Task: res.Task, Tau: tau, Claims: len(g.Claims), MaxNodes: maxNodes, Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	status := make(map[string]string, len(res.Claims))
	for _, c := range res.Claims {
		status[c.ID] = claimStatus(c)
	}
	shown := map[string]bool{}
	var cols [4][]int // node indexes by column
	add := func(n GraphNode, col int) {
		shown[n.ID] = true
		cols[col] = append(cols[col], len(v.Nodes))
		v.Nodes = append(v.Nodes, n)
	}
	edges := map[string]bool{}
	addEdge := func(e GraphEdge) {
		if !edges[e.ID] {
			edges[e.ID] = true
			v.Edges = append(v.Edges, e)
		}
	}
	hasExcerpt := map[string]bool{}
	surfacedK := map[[3]string]bool{} // conflict (a, b, entity) → surfaced
	for _, c := range g.Claims {
		p, err := ix.Path(c.ID, tau)
		if err != nil {
			return nil, fmt.Errorf("graph of report %q: %w", res.Task, err)
		}
		need := 1
		for _, s := range p.Sources {
			if !shown["s:"+s.ID] {
				need++
				if s.Excerpt != "" {
					need++
				}
			}
		}
		for _, r := range p.Reasoning {
			if !shown["r:"+r.ID] {
				need++
			}
		}
		if len(v.Nodes)+need > maxNodes {
			v.Truncated = true
			break
		}
		for _, s := range p.Sources {
			if shown["s:"+s.ID] {
				continue
			}
			label := s.Title
			if label == "" {
				label = s.URL
			}
			if label == "" {
				label = s.ID
			}
			add(GraphNode{ID: "s:" + s.ID, Node: s.ID, Kind: "source", Label: trimText(label, 60), Text: s.Title, URL: httpURL(s.URL), Resolved: s.Resolved}, 0)
			if s.Excerpt != "" {
				hasExcerpt[s.ID] = true
				add(GraphNode{ID: "x:" + s.ID, Node: s.ID, Kind: "excerpt", Label: trimText(s.Excerpt, 60), Text: s.Excerpt, Resolved: s.Resolved}, 1)
				addEdge(GraphEdge{ID: "q:" + s.ID, From: "s:" + s.ID, To: "x:" + s.ID, Rel: "quotes"})
			}
		}
		for _, r := range p.Reasoning {
			if !shown["r:"+r.ID] {
				label := string(r.Type)
				if label == "" {
					label = "reasoning"
				}
				add(GraphNode{ID: "r:" + r.ID, Node: r.ID, Kind: "reasoning", Label: r.ID + " · " + label, Text: r.Inference, Resolved: true}, 2)
			}
		}
		m := p.Metrics
		n := GraphNode{ID: "c:" + c.ID, Node: c.ID, Kind: "claim", Label: c.ID + " · " + trimText(c.Statement, 48), Text: c.Statement, Resolved: true, Status: status[c.ID]}
		switch {
		case !m.Complete:
			n.Gated, n.Why = true, "incomplete provenance: "+m.GapText()
		case m.PSnd.Den > m.PSnd.Num:
			n.Gated, n.Why = true, fmt.Sprintf("%d of %d citations with ν ≤ %.2f or no strength", m.PSnd.Den-m.PSnd.Num, m.PSnd.Den, tau)
		}
		add(n, 3)
		v.ClaimsShown++
		for _, e := range p.Edges {
			from, to := nodeRef(ix, e.From), nodeRef(ix, e.To)
			if hasExcerpt[e.From] {
				from = "x:" + e.From
			}
			ge := GraphEdge{ID: "e:" + e.From + ">" + e.To + ">" + e.Rel.String(), From: from, To: to, Rel: e.Rel.String(), Strength: e.Strength, Label: string(e.Label)}
			if u, _ := ix.Lookup(e.From); e.Rel == prov.Supports && ix.Kind(u) == prov.KindSource {
				ge.Weak = e.Strength == nil || *e.Strength <= tau
			}
			addEdge(ge)
		}
		for _, k := range p.Conflicts {
			surfacedK[[3]string{k.A, k.B, k.Entity}] = k.Surfaced
			for _, id := range []string{k.A, k.B} {
				if i := nodeIndex(v, "s:"+id); i >= 0 {
					v.Nodes[i].Conflict = true
				}
			}
		}
	}
	for i, k := range g.Conflicts {
		if shown["s:"+k.A] && shown["s:"+k.B] {
			addEdge(GraphEdge{ID: "k:" + strconv.Itoa(i), From: "s:" + k.A, To: "s:" + k.B, Rel: "conflict", Label: k.Entity, Surfaced: surfacedK[[3]string{k.A, k.B, k.Entity}]})
		}
	}
	// Columns side by side, each centred on the tallest; a column with no
	// node (no reasoning steps) takes no room.
	tallest := 0
	for _, c := range cols {
		tallest = max(tallest, len(c))
	}
	x := 0.0
	for _, c := range cols {
		if len(c) == 0 {
			continue
		}
		top := float64(tallest-len(c)) * rowGap / 2
		for row, i := range c {
			v.Nodes[i].X, v.Nodes[i].Y = x, top+float64(row)*rowGap
		}
		x += columnGap
	}
	return v, nil
}

// nodeRef is a graph node's id in the view.
func nodeRef(ix *prov.Index, id string) string {
	u, _ := ix.Lookup(id)
	switch ix.Kind(u) {
	case prov.KindSource:
		return "s:" + id
	case prov.KindReasoning:
		return "r:" + id
	}
	return "c:" + id
}

func nodeIndex(v *GraphView, id string) int {
	for i := range v.Nodes {
		if v.Nodes[i].ID == id {
			return i
		}
	}
	return -1
}

// graphMax reads ?max=: the nodes to draw.
func graphMax(r *http.Request) (int, error) {
	raw := r.URL.Query().Get("max")
	if raw == "" {
		return DefaultGraphNodes, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > MaxGraphNodes {
		return 0, fmt.Errorf("max %q: want a number of nodes from 1 to %d: %w", clip(raw, 40), MaxGraphNodes, claimtrace.ErrInvalid)
	}
	return n, nil
}

// loadGraphView reads a report's graph and lays it out.
func (s *Server) loadGraphView(r *http.Request) (*GraphView, error) {
	run, task, err := reportNames(r)
	if err != nil {
		return nil, err
	}
	maxNodes, err := graphMax(r)
	if err != nil {
		return nil, err
	}
	l, err := s.loadReport(r.Context(), run, task)
	if err != nil {
		return nil, err
	}
	_, g, err := s.loadGraph(r.Context(), run, task)
	if err != nil {
		return nil, err
	}
	return graphView(g, l.Res, maxNodes)
}

func (s *Server) apiGraphView(w http.ResponseWriter, r *http.Request) error {
	v, err := s.loadGraphView(r)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, v)
	return nil
}

// graphPage is the page drawing a report's provenance graph.
type graphPage struct {
	base
	Run, Task  string
	RunHref    string
	ReportHref string
	ViewHref   string
	View       *GraphView
}

// Nodes counts the nodes drawn.
func (p graphPage) Nodes() int { return len(p.View.Nodes) }

func (s *Server) graphPage(w http.ResponseWriter, r *http.Request) error {
	v, err := s.loadGraphView(r)
	if err != nil {
		return err
	}
	run, task := r.PathValue("run"), r.PathValue("task")
	view := "/api/runs/" + url.PathEscape(run) + "/graphs/" + url.PathEscape(task) + "/view"
	if q := r.URL.Query().Get("max"); q != "" {
		view += "?max=" + url.QueryEscape(q)
	}
	data := graphPage{base: s.base(task + " — provenance graph"), Run: run, Task: task, RunHref: "/runs/" + url.PathEscape(run),
		ReportHref: reportURL(run, task), ViewHref: view, View: v}
	return s.render(w, http.StatusOK, "graph.html", data)
}
