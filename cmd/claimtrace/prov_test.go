package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

const (
	blackBox    = "../../internal/prov/testdata/figure4-blackbox.json"
	transparent = "../../internal/prov/testdata/figure4-transparent.json"
)

func TestAuditJSON(t *testing.T) {
	out, errOut, code := cli(t, "audit", "--json", blackBox)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m struct {
		PCov, PSnd, CTran *float64
		Counts            map[string]int
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if m.PCov == nil || *m.PCov != 1.0/3 || m.PSnd == nil || *m.PSnd != 0.25 || m.CTran == nil || *m.CTran != 0 {
		t.Errorf("pcov %v psnd %v ctran %v", m.PCov, m.PSnd, m.CTran)
	}
	if m.Counts["conflicts"] != 2 {
		t.Errorf("counts %v", m.Counts)
	}
}

func TestAuditOut(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli(t, "audit", "--out", dir, transparent)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"PCov   1.000  (3/3", "PSnd   1.000  (4/4", "CTran  1.000  (2/2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("a graph input has no report to render, yet report.html was written")
	}
	native, err := os.ReadFile(filepath.Join(dir, "graph.json"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := prov.Unmarshal(native)
	if err != nil {
		t.Fatal(err)
	}
	pj, err := os.ReadFile(filepath.Join(dir, "prov.json"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := provjson.Unmarshal(pj)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g, back); diff != "" {
		t.Errorf("prov.json and graph.json differ (-graph +prov):\n%s", diff)
	}
	var m map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil || m["pcov"] != 1.0 {
		t.Errorf("metrics.json: %v, pcov %v", err, m["pcov"])
	}
}

func TestGate(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"transparent passes", []string{"--min-pcov", "0.9", "--min-psnd", "0.9", "--min-ctran", "1", transparent}, 0,
			[]string{"gate PASS", "ok    PCov  1.000 ≥ 0.90"}},
		{"black box fails", []string{"--min-pcov", "0.3", "--min-psnd", "0.5", "--min-ctran", "0.5", blackBox}, 1,
			[]string{"gate FAIL", "ok    PCov  0.333 ≥ 0.30", "FAIL  PSnd  0.250 < 0.50: 3 of 4 citation pairs",
				`FAIL  CTran 0.000 < 0.50: 2 of 2 conflicts between sources are hidden: s1 ↔ s3 about "answer accuracy"`}},
		{"ctran unchecked unless asked", []string{"--min-pcov", "0.3", "--min-psnd", "0.2", blackBox}, 0, []string{"gate PASS"}},
		{"missing threshold", []string{"--min-pcov", "0.3", blackBox}, 2, nil},
		{"threshold out of range", []string{"--min-pcov", "3", "--min-psnd", "0.2", blackBox}, 2, nil},
		{"no such file", []string{"--min-pcov", "0.3", "--min-psnd", "0.2", "nosuch.json"}, 2, nil},
		{"two inputs", []string{"--min-pcov", "0.3", "--min-psnd", "0.2", blackBox, transparent}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, append([]string{"gate"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if code == 2 && errOut == "" {
				t.Error("exit 2 without an error message")
			}
		})
	}
}

func TestGateNoCitations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.json")
	if err := os.WriteFile(path, []byte(`{"claims": [{"id": "c1", "statement": "x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := cli(t, "gate", "--min-pcov", "0", "--min-psnd", "0", path)
	if code != 1 || !strings.Contains(out, "FAIL  PSnd  n/a, need ≥ 0.00: no claim cites a source") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestProvCommands(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"prov", "why", "c1", transparent}, []string{`claim c1: "RAG achieves`, "s1 -supports ν=0.91-> c1 [supported]",
			"s3 -contradicts-> r1", `s1 ↔ s3 about "answer accuracy": surfaced by contradicts edge s3 -> r1`}},
		{[]string{"prov", "contradictions", blackBox}, []string{"2 conflicts between sources, 0 surfaced, 2 hidden", `s2 ↔ s4 about "model sizes": hidden`}},
		{[]string{"prov", "orphans", blackBox}, []string{"2 of 3 claims without complete provenance", "c2: no source"}},
		{[]string{"prov", "export", "--format", "dot", blackBox}, []string{`digraph "figure4-black-box"`, `"s3" -> "c1" [label="supports 0.07"]`}},
		{[]string{"prov", "export", "--format", "graphml", blackBox}, []string{`<graphml xmlns="http://graphml.graphdrawing.org/xmlns">`}},
		{[]string{"prov", "export", "--format", "prov-jsonld", blackBox}, []string{`"https://openprovenance.org/prov-jsonld/context.jsonld"`}},
		{[]string{"prov", "validate", transparent}, []string{"valid: 4 sources, 3 reasoning steps, 3 claims, 13 edges, 2 conflicts"}},
		{[]string{"prov", "schema"}, []string{`"$id": "https://github.com/claimtrace/claimtrace/schema/aar-graph-1.json"`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			out, errOut, code := cli(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestProvExportRoundTrip(t *testing.T) {
	out, errOut, code := cli(t, "prov", "export", "--format", "prov-json", transparent)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "prov.json")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every command reads PROV-JSON as well as the native format.
	for _, args := range [][]string{{"audit", path}, {"prov", "why", "c2", path}} {
		if _, errOut, code := cli(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

func TestProvErrors(t *testing.T) {
	report := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(report, []byte("# A report\nClaims [1].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"prov", "why", "c9", transparent}, `claim "c9": not found`},
		{[]string{"prov", "export", "--format", "svg", transparent}, `--format "svg"`},
		{[]string{"prov", "orphans", report}, "not a provenance graph"},
		{[]string{"import", "mistral", blackBox}, `provider "mistral"`},
	}
	for _, tt := range tests {
		_, errOut, code := cli(t, tt.args...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

func TestImportCommand(t *testing.T) {
	for _, p := range []struct{ provider, file string }{
		{"openai", "openai-responses.json"}, {"openai", "openai-chat.json"}, {"gemini", "gemini.json"},
		{"anthropic", "anthropic.json"}, {"perplexity", "perplexity.json"},
	} {
		t.Run(p.file, func(t *testing.T) {
			path := filepath.Join("../../internal/prov/importer/testdata", p.file)
			out, errOut, code := cli(t, "import", p.provider, path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			g, err := prov.Unmarshal([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Claims) == 0 || g.ID != strings.TrimSuffix(p.file, ".json") {
				t.Errorf("graph %q with %d claims", g.ID, len(g.Claims))
			}
		})
	}
	dir := t.TempDir()
	if _, errOut, code := cli(t, "import", "anthropic", "../../internal/prov/importer/testdata/anthropic.json", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	var doc importedDoc
	data, err := os.ReadFile(filepath.Join(dir, "document.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Claims {
		if string(text[c.Start:c.End]) != c.Text {
			t.Errorf("claim %q does not match report.md bytes %d-%d", c.Text, c.Start, c.End)
		}
	}
	for _, f := range []string{"graph.json", "prov.json"} {
		if _, errOut, code := cli(t, "audit", filepath.Join(dir, f)); code != 0 {
			t.Errorf("audit %s: exit %d: %s", f, code, errOut)
		}
	}
}
