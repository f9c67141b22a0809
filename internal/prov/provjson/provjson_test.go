package provjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func readGraph(t testing.TB, path string) *prov.Graph {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := prov.Unmarshal(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

// awkward is a graph with everything that could go wrong in a mapping:
// ids that are not QName-safe, a source without excerpt, an unresolved
// source, edges of every relation between every pair of kinds, a reasoning
// step without type or model, an edge without strength, a claim without a
// span, non-ASCII text, and a graph id with a space.
func awkward() *prov.Graph {
	at := time.Date(2026, 11, 20, 10, 15, 0, 123000000, time.UTC)
	return &prov.Graph{
		Format: prov.FormatVersion, ID: "report 7/α", Query: "Is X safe?", Agent: "o3-deep-research",
		Sources: []prov.Source{
			{ID: "https://example.org/a?b=1&c=2", URL: "https://example.org/a?b=1&c=2", Title: "A <b> & c", Excerpt: "Dosage was 5 mg; \"safe\" said the panel.", RetrievedAt: at, Resolved: true, Key: "url:https://example.org/a?b=1&c=2"},
			{ID: "s:2", DOI: "10.5555/x.y", Resolved: false},
			{ID: "源3", Excerpt: "安全性良好。", Resolved: true},
		},
		Reasoning: []prov.Reasoning{
			{ID: "r 1", Inference: "combine a and 源3", Type: prov.Synthesis, Model: "model/β"},
			{ID: "r2"},
			{ID: "r3", Type: prov.Deduction, Model: "model/β"},
		},
		Claims: []prov.Claim{
			{ID: "c1", Statement: "X is safe at 5 mg.", Location: prov.Location{Start: 0, End: 19, Section: "§1"}},
			{ID: "c#2", Statement: "Experts disagree, however."},
			{ID: "c3", Statement: ""},
		},
		Edges: []prov.Edge{
			{From: "https://example.org/a?b=1&c=2", To: "r 1", Rel: prov.Supports, Strength: prov.Nu(0.9)},
			{From: "源3", To: "r 1", Rel: prov.Prerequisite},
			{From: "r 1", To: "c1", Rel: prov.Supports, Strength: prov.Nu(1e-7)},
			{From: "r2", To: "r3", Rel: prov.Supports},
			{From: "r 1", To: "r3", Rel: prov.Refines},
			{From: "r3", To: "c#2", Rel: prov.Contradicts},
			{From: "s:2", To: "c#2", Rel: prov.Refines},
			{From: "s:2", To: "c1", Rel: prov.Supports, Label: claimtrace.Unknown, Evidence: "n/a"},
			{From: "https://example.org/a?b=1&c=2", To: "c1", Rel: prov.Supports, Strength: prov.Nu(0), Label: claimtrace.Contradicted, Evidence: "\"safe\""},
			{From: "源3", To: "c3", Rel: prov.Contradicts},
			{From: "r 1", To: "c3", Rel: prov.Prerequisite},
			{From: "r3", To: "c3", Rel: prov.Refines},
		},
		Conflicts: []prov.Conflict{{A: "源3", B: "s:2", Entity: "safety", SnippetA: "安全性良好。", Kind: prov.ConflictPolarity, Detector: "offline"}},
	}
}

func graphs(t *testing.T) map[string]*prov.Graph {
	return map[string]*prov.Graph{
		"figure4-blackbox":    readGraph(t, "../testdata/figure4-blackbox.json"),
		"figure4-transparent": readGraph(t, "../testdata/figure4-transparent.json"),
		"awkward":             awkward(),
		"empty":               {Format: prov.FormatVersion, Sources: []prov.Source{}, Claims: []prov.Claim{}, Edges: []prov.Edge{}},
	}
}

func TestRoundTrip(t *testing.T) {
	for name, g := range graphs(t) {
		t.Run(name, func(t *testing.T) {
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			data, err := Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Unmarshal(data)
			if err != nil {
				t.Fatalf("Unmarshal: %v\n%s", err, data)
			}
			if diff := cmp.Diff(g, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			// Older writers type QName values prov:QUALIFIED_NAME.
			old := bytes.ReplaceAll(data, []byte(`"xsd:QName"`), []byte(`"prov:QUALIFIED_NAME"`))
			back, err = Unmarshal(old)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(g, back); diff != "" {
				t.Errorf("round trip with prov:QUALIFIED_NAME (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMapping pins the PROV shape of the main constructs (FORMATS.md §1.7).
func TestMapping(t *testing.T) {
	data, err := Marshal(readGraph(t, "../testdata/figure4-transparent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	doc := make(map[string]map[string]map[string]any)
	for k, v := range raw {
		if k == "prefix" {
			continue
		}
		var sec map[string]map[string]any
		if err := json.Unmarshal(v, &sec); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		doc[k] = sec
	}
	qn := func(q string) any { return map[string]any{"$": q, "type": "xsd:QName"} }
	tests := []struct {
		section, id string
		want        map[string]any
	}{
		{"entity", "rpt:c1", map[string]any{"prov:type": qn("aar:Claim"),
			"prov:value":   "RAG achieves 14-18% higher accuracy than parametric models on long-form QA when retrieved passages are clean.",
			"aar:start":    map[string]any{"$": "0", "type": "xsd:nonNegativeInteger"},
			"aar:end":      map[string]any{"$": "109", "type": "xsd:nonNegativeInteger"},
			"aar:location": "answer, sentence 1"}},
		{"wasDerivedFrom", "rpt-r:q-s1", map[string]any{"prov:generatedEntity": "rpt-x:s1", "prov:usedEntity": "rpt:s1", "prov:type": qn("prov:Quotation")}},
		// e4: s1 -supports 0.91-> c1: a derivation from s1's excerpt.
		{"wasDerivedFrom", "rpt-r:e4", map[string]any{"prov:generatedEntity": "rpt:c1", "prov:usedEntity": "rpt-x:s1",
			"prov:type": qn("aar:Supports"), "aar:strength": map[string]any{"$": "0.91", "type": "xsd:decimal"}, "aar:label": "supported"}},
		// e1: s1 -supports-> r1: the reasoning step used the excerpt.
		{"used", "rpt-r:e1", map[string]any{"prov:activity": "rpt:r1", "prov:entity": "rpt-x:s1",
			"prov:type": qn("aar:Supports"), "aar:strength": map[string]any{"$": "0.93", "type": "xsd:decimal"}}},
		// e2: s3 -contradicts-> r1: an influence.
		{"wasInfluencedBy", "rpt-r:e2", map[string]any{"prov:influencee": "rpt:r1", "prov:influencer": "rpt-x:s3", "prov:type": qn("aar:Contradicts")}},
		// e3: r1 -supports-> c1: the claim was generated by the step.
		{"wasGeneratedBy", "rpt-r:e3", map[string]any{"prov:entity": "rpt:c1", "prov:activity": "rpt:r1",
			"prov:type": qn("aar:Supports"), "aar:strength": map[string]any{"$": "0.88", "type": "xsd:decimal"}}},
		{"activity", "rpt:r1", map[string]any{"prov:type": []any{qn("aar:Reasoning"), qn("aar:Synthesis"), qn("aar:AIModelInvocation")},
			"aar:inference": "s1 reports a 14-18% accuracy gain on long-form QA; s3 finds no gain when retrieved passages are noisy. The two agree once retrieval quality is controlled, so the gain is stated for clean retrieval."}},
		{"wasAssociatedWith", "rpt-r:assoc-r1", map[string]any{"prov:activity": "rpt:r1", "prov:agent": "rpt-a:model.example-model-2026-01"}},
		{"hadMember", "rpt-r:m-c2", map[string]any{"prov:collection": "rpt-a:report", "prov:entity": "rpt:c2"}},
		{"wasInfluencedBy", "rpt-r:k2", map[string]any{"prov:influencee": "rpt:s4", "prov:influencer": "rpt:s2", "prov:type": qn("aar:Conflict"),
			"aar:entity": "model sizes", "aar:kind": "polarity", "aar:detector": "offline",
			"aar:snippetA": "Gains from retrieval augmentation held across model sizes from 7B to 70B parameters and across biomedical, legal and open-domain questions.",
			"aar:snippetB": "Gains from retrieval augmentation did not hold across model sizes: they vanished for the largest 70B-parameter models."}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, doc[tt.section][tt.id]); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.section, tt.id, diff)
		}
	}
}

func TestGolden(t *testing.T) {
	g := readGraph(t, "../testdata/figure4-transparent.json")
	for _, f := range []struct {
		file string
		fn   func(*prov.Graph) ([]byte, error)
	}{{"figure4-transparent.prov.json", Marshal}, {"figure4-transparent.jsonld", MarshalLD}} {
		got, err := f.fn(g)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", f.file)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f.file, diff)
		}
	}
}

// compile loads a schema file from the shared data folder (never copied
// into the repository) with format assertions on.
func compile(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(sharedtest.Dir(t, "prov"), file)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "file:///shared/prov/" + file
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", file, err)
	}
	return sch
}

func validate(t *testing.T, sch *jsonschema.Schema, data []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

func TestSchemas(t *testing.T) {
	official := compile(t, "prov-json.schema.json")
	toolbox := compile(t, "provtoolbox-prov-json-schema-v4.json")
	ld := compile(t, "prov-jsonld.schema.json")
	for name, g := range graphs(t) {
		t.Run(name, func(t *testing.T) {
			pj, err := Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(t, official, pj); err != nil {
				t.Errorf("official PROV-JSON schema: %v", err)
			}
			if err := validate(t, toolbox, pj); err != nil {
				t.Errorf("ProvToolbox v4 schema: %v", err)
			}
			jl, err := MarshalLD(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(t, ld, jl); err != nil {
				t.Errorf("PROV-JSONLD schema: %v", err)
			}
		})
	}
	// The validators are not vacuous: the fixtures SOURCES.md lists as
	// failing fail here too.
	for _, f := range []struct {
		file string
		sch  *jsonschema.Schema
	}{{"trungdong-prov-influence1.json", official}, {"trungdong-prov-member3.json", official}, {"trungdong-prov-entity10.json", toolbox}} {
		data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "prov"), "examples", f.file))
		if err != nil {
			t.Fatal(err)
		}
		if validate(t, f.sch, data) == nil {
			t.Errorf("%s validated; SOURCES.md says it fails", f.file)
		}
	}
}

// TestForeign reads PROV-JSON written by other tools.
func TestForeign(t *testing.T) {
	// python prov 2.x style: QUALIFIED_NAME types, numbers in "$", a bundle,
	// an undeclared used entity, and an activity without AAR types.
	doc := `{
	  "prefix": {"ex": "http://example.org/", "aar": "` + AARNamespace + `"},
	  "bundle": {"ex:b1": {
	    "prefix": {"ex": "http://example.org/"},
	    "entity": {
	      "ex:paper": {"prov:type": {"$": "aar:Source", "type": "prov:QUALIFIED_NAME"}, "prov:label": "A paper", "aar:resolved": {"$": "true", "type": "xsd:boolean"}},
	      "ex:answer": {"prov:value": "It works."}
	    },
	    "activity": {"ex:think": {"prov:type": {"$": "aar:Induction", "type": "prov:QUALIFIED_NAME"}}},
	    "used": {"_:u1": {"prov:activity": "ex:think", "prov:entity": "ex:paper", "aar:strength": {"$": 0.7, "type": "xsd:double"}},
	             "_:u2": {"prov:activity": "ex:think", "prov:entity": "ex:data"}},
	    "wasGeneratedBy": {"_:g1": {"prov:entity": "ex:answer", "prov:activity": "ex:think"}},
	    "wasInfluencedBy": {"_:i1": {"prov:influencee": "ex:answer", "prov:influencer": "ex:paper"}}
	  }}
	}`
	g, err := Unmarshal([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := &prov.Graph{
		Format: prov.FormatVersion,
		Sources: []prov.Source{
			{ID: "ex:paper", Title: "A paper", Resolved: true},
			{ID: "ex:data"},
		},
		Reasoning: []prov.Reasoning{{ID: "ex:think", Type: prov.Induction}},
		Claims:    []prov.Claim{{ID: "ex:answer", Statement: "It works."}},
		Edges: []prov.Edge{
			{From: "ex:paper", To: "ex:think", Rel: prov.Supports, Strength: prov.Nu(0.7)},
			{From: "ex:data", To: "ex:think", Rel: prov.Supports},
			{From: "ex:think", To: "ex:answer", Rel: prov.Supports},
		},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestSharedExamples reads the public example documents: each is either an
// AAR graph or refused with an error naming the broken rule, never a panic.
func TestSharedExamples(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t, "prov"), "examples")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in %s: %v", dir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Unmarshal(data)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("%s: error %v does not match ErrInvalid", filepath.Base(f), err)
			}
			continue
		}
		if err := g.Validate(); err != nil {
			t.Errorf("%s: returned an invalid graph: %v", filepath.Base(f), err)
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"not json", `{`, "read prov-json"},
		{"not an object", `[]`, "want an object"},
		{"bad strength", `{"entity": {"a": {"prov:type": {"$": "aar:Source", "type": "xsd:QName"}}, "b": {}},
			"prefix": {"aar": "` + AARNamespace + `"},
			"wasDerivedFrom": {"d": {"prov:generatedEntity": "b", "prov:usedEntity": "a", "aar:strength": "high"}}}`, "aar:strength"},
		{"strength out of range", `{"prefix": {"aar": "` + AARNamespace + `"}, "entity": {"a": {}, "b": {}},
			"wasDerivedFrom": {"d": {"prov:generatedEntity": "b", "prov:usedEntity": "a", "aar:strength": 1.5}}}`, "rule strength"},
		{"claim with outgoing edge", `{"entity": {"a": {}, "b": {}, "c": {}},
			"wasDerivedFrom": {"d1": {"prov:generatedEntity": "b", "prov:usedEntity": "a"}, "d2": {"prov:generatedEntity": "c", "prov:usedEntity": "b"}}}`, "rule claim-no-outgoing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid mentioning %q", err, tt.want)
			}
		})
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, g := range []*prov.Graph{awkward()} {
		data, err := Marshal(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, p := range []string{"../testdata/figure4-blackbox.json", "../testdata/figure4-transparent.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		g, err := prov.Unmarshal(data)
		if err != nil {
			f.Fatal(err)
		}
		out, err := Marshal(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(out)
	}
	f.Add([]byte(`{"entity": {"a": {}}, "bundle": {"b": {"entity": {"c": {}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Unmarshal(data)
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("Unmarshal returned an invalid graph: %v", err)
		}
		// What we read, we can write and read again unchanged.
		out, err := Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, out)
		}
		if diff := cmp.Diff(g, back); diff != "" {
			t.Fatalf("second round trip (-first +second):\n%s", diff)
		}
	})
}
