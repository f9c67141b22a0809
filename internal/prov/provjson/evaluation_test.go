package provjson

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// testEvaluation is an evaluation as the web server and audit describe one.
func testEvaluation() *Evaluation {
	return &Evaluation{Run: "eval-1a2b", Tool: "claimtrace", Version: "0.9.1", Mode: "offline", Judge: "openai:gpt-4o-mini",
		Model: "gpt-4o-mini", Calibration: "citing", Tau: 0.5,
		Started: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), Ended: time.Date(2026, 11, 21, 9, 3, 30, 0, time.UTC)}
}

func TestEvaluationRecords(t *testing.T) {
	for name, g := range graphs(t) {
		t.Run(name, func(t *testing.T) {
			pj, err := MarshalWith(g, testEvaluation())
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(pj, &raw); err != nil {
				t.Fatal(err)
			}
			doc := map[string]map[string]map[string]any{}
			for section, v := range raw {
				if section == "prefix" {
					continue
				}
				var recs map[string]map[string]any
				if err := json.Unmarshal(v, &recs); err != nil {
					t.Fatalf("%s: %v", section, err)
				}
				doc[section] = recs
			}
			act := doc["activity"]["rpt-a:evaluation"]
			if act == nil || act["prov:startTime"] != "2026-11-21T09:00:00Z" || act["prov:endTime"] != "2026-11-21T09:03:30Z" || act["aar:run"] != "eval-1a2b" {
				t.Errorf("evaluation activity %v", act)
			}
			tool, judge := doc["agent"]["rpt-a:tool"], doc["agent"]["rpt-a:judge"]
			if tool == nil || judge == nil || tool["aar:version"] != "0.9.1" || judge["aar:model"] != "gpt-4o-mini" || judge["aar:calibration"] != "citing" || judge["aar:judge"] != "openai:gpt-4o-mini" {
				t.Errorf("agents: tool %v, judge %v", tool, judge)
			}
			for _, a := range []map[string]any{tool, judge} {
				if !strings.Contains(mustJSON(t, a["prov:type"]), `"prov:SoftwareAgent"`) {
					t.Errorf("agent %v is not a prov:SoftwareAgent", a)
				}
			}
			assoc := doc["wasAssociatedWith"]
			if assoc["rpt-r:assoc-evaluation-tool"]["prov:agent"] != "rpt-a:tool" || assoc["rpt-r:assoc-evaluation-judge"]["prov:agent"] != "rpt-a:judge" {
				t.Errorf("associations %v", assoc)
			}
			// Every derivation with a strength was made by the evaluation.
			for id, d := range doc["wasDerivedFrom"] {
				if _, judged := d["aar:strength"]; judged != (d["prov:activity"] == "rpt-a:evaluation") {
					t.Errorf("derivation %s: strength %v, activity %v", id, d["aar:strength"], d["prov:activity"])
				}
			}
			if strings.Contains(string(pj), "example.org/aiprov") || strings.Contains(string(pj), "prov_ag") {
				t.Error("the placeholder PROV-AGENT namespace is still declared")
			}
			// Read back, the evaluation is no reasoning step: the same
			// graph as without it.
			with, err := Unmarshal(pj)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			without, err := Unmarshal(plain)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(without, with); diff != "" {
				t.Errorf("read back with the evaluation (-without +with):\n%s", diff)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEvaluationSchemas(t *testing.T) {
	official := compile(t, "prov-json.schema.json")
	toolbox := compile(t, "provtoolbox-prov-json-schema-v4.json")
	ld := compile(t, "prov-jsonld.schema.json")
	for name, g := range graphs(t) {
		pj, err := MarshalWith(g, testEvaluation())
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, official, pj); err != nil {
			t.Errorf("%s: official PROV-JSON schema: %v", name, err)
		}
		if err := validate(t, toolbox, pj); err != nil {
			t.Errorf("%s: ProvToolbox v4 schema: %v", name, err)
		}
		jl, err := MarshalLDWith(g, testEvaluation())
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, ld, jl); err != nil {
			t.Errorf("%s: PROV-JSONLD schema: %v", name, err)
		}
	}
}

// pythonProv is a script reading a PROV-JSON file with the prov package
// and printing what it found: record counts by type, and the activities'
// and agents' types and attributes.
const pythonProv = `
import json, sys
import prov.model as pm
from prov.model import ProvDocument
doc = ProvDocument.deserialize(sys.argv[1], format='json')
counts = {}
for r in doc.get_records():
    counts[type(r).__name__] = counts.get(type(r).__name__, 0) + 1
nodes = {}
for r in doc.get_records((pm.ProvActivity, pm.ProvAgent)):
    nodes[str(r.identifier)] = {
        "types": sorted(str(t) for t in r.get_asserted_types()),
        "attrs": {str(k): str(v) for k, v in r.attributes if str(k) != 'prov:type'},
    }
json.dump({"counts": counts, "nodes": nodes, "namespaces": sorted(ns.uri for ns in doc.get_registered_namespaces())}, sys.stdout)
`

// python returns Debian's python3 with the prov package, or skips (fails
// under CI=true, where .ci/run installs python3-prov).
func python(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import prov").Run(); err != nil {
		msg := "python3-prov not installed (apt-get install python3-prov): the PROV export is not checked with it"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return py
}

// TestPython3Prov reads the PROV-JSON export of a graph with its evaluation
// using python3-prov: the activities and agents are there, typed, with the
// judge's settings, and only our own namespaces are declared.
func TestPython3Prov(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "read.py")
	if err := os.WriteFile(script, []byte(pythonProv), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*prov.Graph{"figure4-transparent": readGraph(t, "../testdata/figure4-transparent.json"), "awkward": awkward()} {
		t.Run(name, func(t *testing.T) {
			pj, err := MarshalWith(g, testEvaluation())
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, name+".json")
			if err := os.WriteFile(file, pj, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(py, script, file).Output()
			if err != nil {
				t.Fatalf("python3-prov cannot read the export: %v\n%s", err, stderrOf(err))
			}
			var got struct {
				Counts map[string]int
				Nodes  map[string]struct {
					Types []string
					Attrs map[string]string
				}
				Namespaces []string
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if n := got.Counts["ProvActivity"]; n != len(g.Reasoning)+1 {
				t.Errorf("%d activities, want %d reasoning steps and the evaluation (%v)", n, len(g.Reasoning), got.Counts)
			}
			if got.Counts["ProvAgent"] < 2 || got.Counts["ProvAssociation"] < 2 {
				t.Errorf("agents and associations: %v", got.Counts)
			}
			var ev, judge string
			for id := range got.Nodes {
				if strings.HasSuffix(id, "evaluation") {
					ev = id
				}
				if strings.HasSuffix(id, "judge") {
					judge = id
				}
			}
			if ev == "" || !strings.Contains(strings.Join(got.Nodes[ev].Types, " "), "aar:Evaluation") || got.Nodes[ev].Attrs["prov:startTime"] == "" {
				t.Errorf("evaluation activity as read: %q %+v", ev, got.Nodes[ev])
			}
			if j := got.Nodes[judge]; !strings.Contains(strings.Join(j.Types, " "), "prov:SoftwareAgent") || j.Attrs["aar:model"] != "gpt-4o-mini" || j.Attrs["aar:calibration"] != "citing" {
				t.Errorf("judge agent as read: %q %+v", judge, j)
			}
			for _, ns := range got.Namespaces {
				if !strings.HasPrefix(ns, AARNamespace) && !strings.HasPrefix(ns, "urn:claimtrace:graph:") {
					t.Errorf("namespace %s declared", ns)
				}
			}
			t.Logf("python3-prov read %v", got.Counts)
		})
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
