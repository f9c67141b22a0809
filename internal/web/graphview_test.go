package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/prov"
)

func TestGraphView(t *testing.T) {
	f := demoFixture(t, "")
	ctx := context.Background()
	_, g, err := f.srv.loadGraph(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	m, err := prov.Compute(g, prov.DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := f.get(t, "/api/runs/"+f.run+"/graphs/"+f.task+"/view")
	if code != http.StatusOK {
		t.Fatalf("GET view: %d %s", code, body)
	}
	v := decode[GraphView](t, body)
	if v.Truncated || v.ClaimsShown != len(g.Claims) || v.Claims != len(g.Claims) {
		t.Errorf("the demo graph is drawn whole: truncated %v, %d of %d claims", v.Truncated, v.ClaimsShown, v.Claims)
	}
	nodes := map[string]GraphNode{}
	kinds := map[string]int{}
	for _, n := range v.Nodes {
		if _, dup := nodes[n.ID]; dup {
			t.Errorf("node %s twice", n.ID)
		}
		nodes[n.ID] = n
		kinds[n.Kind]++
	}
	if kinds["claim"] != len(g.Claims) || kinds["source"] == 0 || kinds["excerpt"] == 0 {
		t.Errorf("nodes by kind %v", kinds)
	}
	for _, e := range v.Edges {
		from, to := nodes[e.From], nodes[e.To]
		if from.ID == "" || to.ID == "" {
			t.Errorf("edge %s ends outside the drawing", e.ID)
		}
		// Sources reach claims through their excerpts when they have one.
		if e.Rel == "supports" && from.Kind == "source" && nodes["x:"+from.Node].ID != "" {
			t.Errorf("edge %s starts at a source that has an excerpt", e.ID)
		}
	}
	// Gated claims are those the metrics say lack complete provenance or
	// have a citation with ν ≤ τ.
	for _, cm := range m.PerClaim {
		want := !cm.Complete || cm.PSnd.Den > cm.PSnd.Num
		if n := nodes["c:"+cm.ID]; n.Gated != want || (want && n.Why == "") {
			t.Errorf("claim %s gated %v (%q), want %v", cm.ID, n.Gated, n.Why, want)
		}
	}
	var conflicts int
	for _, e := range v.Edges {
		if e.Rel == "conflict" {
			conflicts++
			if !nodes[e.From].Conflict || !nodes[e.To].Conflict {
				t.Errorf("conflict %s: its sources are not marked", e.ID)
			}
		}
	}
	if conflicts != len(g.Conflicts) {
		t.Errorf("%d conflict edges, the graph has %d conflicts", conflicts, len(g.Conflicts))
	}

	// A cap: whole paths only, in the report's order.
	_, body, _ = f.get(t, "/api/runs/"+f.run+"/graphs/"+f.task+"/view?max=6")
	small := decode[GraphView](t, body)
	if !small.Truncated || len(small.Nodes) > 6 || small.ClaimsShown >= v.ClaimsShown || small.MaxNodes != 6 {
		t.Errorf("max=6: truncated %v, %d nodes, %d claims", small.Truncated, len(small.Nodes), small.ClaimsShown)
	}
	for _, q := range []string{"0", "x", "2001", "-3"} {
		if code, _, _ := f.get(t, "/api/runs/"+f.run+"/graphs/"+f.task+"/view?max="+q); code != http.StatusBadRequest {
			t.Errorf("max=%s: %d, want 400", q, code)
		}
	}
	if code, _, _ := f.get(t, "/api/runs/"+f.run+"/graphs/nosuch/view"); code != http.StatusNotFound {
		t.Errorf("graph of a missing report: %d", code)
	}

	// The page: our scripts only, the library served from the binary.
	code, page, hdr := f.get(t, f.reportPath()+"/graph")
	if code != http.StatusOK {
		t.Fatalf("GET graph page: %d", code)
	}
	for _, s := range []string{`<script src="/static/vendor/cytoscape.min.js"></script><script src="/static/graph.js"></script>`, `id="graph"`, "claims drawn", `data-src="/api/runs/`} {
		if !strings.Contains(page, s) {
			t.Errorf("graph page lacks %q", s)
		}
	}
	if strings.Count(page, "<script") != 2 || strings.Contains(hdr.Get("Content-Security-Policy"), "unsafe") {
		t.Errorf("graph page: %d scripts, CSP %q", strings.Count(page, "<script"), hdr.Get("Content-Security-Policy"))
	}
	code, lib, hdr := f.get(t, "/static/vendor/cytoscape.min.js")
	if code != http.StatusOK || !strings.Contains(hdr.Get("Content-Type"), "javascript") || len(lib) < 100000 {
		t.Errorf("vendored library: %d %s, %d bytes", code, hdr.Get("Content-Type"), len(lib))
	}
	_, audit, _ := f.get(t, f.reportPath())
	if !strings.Contains(audit, `href="`+f.reportPath()+`/graph"`) {
		t.Error("the audit view does not link the graph")
	}
}

// TestVendoredLibraryMatchesPin checks that the embedded Cytoscape.js is
// the version web/package.json and its lock file pin, with its licence
// beside it (web/vendor.sh refreshes them together).
func TestVendoredLibraryMatchesPin(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	for name, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		b, err := os.ReadFile(filepath.Join("..", "..", "web", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("web/%s: %v", name, err)
		}
	}
	pin := pkg.Dependencies["cytoscape"]
	locked := lock.Packages["node_modules/cytoscape"]
	if pin == "" || strings.ContainsAny(pin, "^~<>*x ") || locked.Version != pin || !strings.HasPrefix(locked.Integrity, "sha512-") {
		t.Fatalf("cytoscape pinned %q, locked %q (%q): want one exact version", pin, locked.Version, locked.Integrity)
	}
	lib, err := assets.ReadFile("static/vendor/cytoscape.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(lib), `.version="`+pin+`"`) {
		t.Errorf("the embedded cytoscape.min.js is not version %s: run sh web/vendor.sh", pin)
	}
	licence, err := assets.ReadFile("static/vendor/cytoscape.LICENSE")
	if err != nil || !strings.Contains(string(licence), "Permission is hereby granted") {
		t.Errorf("no MIT licence beside the vendored library: %v", err)
	}
}
