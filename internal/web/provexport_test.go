package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportPROVHasTheEvaluation exports a stored report's graph as
// PROV-JSON and PROV-JSONLD: the evaluation is an activity associated with
// the tool and the judge, and python3-prov reads the activities and agents.
func TestReportPROVHasTheEvaluation(t *testing.T) {
	f := demoFixture(t, "")
	code, body, _ := f.get(t, "/api/runs/"+f.run+"/graphs/"+f.task+"?format=prov")
	if code != http.StatusOK {
		t.Fatalf("GET prov: %d %s", code, body)
	}
	var doc struct {
		Activity map[string]map[string]any `json:"activity"`
		Agent    map[string]map[string]any `json:"agent"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	ev, judge, tool := doc.Activity["rpt-a:evaluation"], doc.Agent["rpt-a:judge"], doc.Agent["rpt-a:tool"]
	if ev == nil || ev["aar:run"] != f.run || ev["aar:mode"] != "offline" || ev["prov:startTime"] == nil || ev["prov:endTime"] == nil {
		t.Errorf("evaluation activity %v", ev)
	}
	if judge == nil || judge["aar:judge"] != "offline" || tool == nil || tool["aar:version"] == nil {
		t.Errorf("agents: judge %v, tool %v", judge, tool)
	}
	if strings.Contains(body, "example.org/aiprov") {
		t.Error("the placeholder namespace is declared")
	}
	code, ld, _ := f.get(t, "/api/runs/"+f.run+"/graphs/"+f.task+"?format=jsonld")
	if code != http.StatusOK || !strings.Contains(ld, `"@id": "rpt-a:evaluation"`) || !strings.Contains(ld, `"startTime"`) {
		t.Errorf("PROV-JSONLD: %d, evaluation %v", code, strings.Contains(ld, "rpt-a:evaluation"))
	}

	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import prov").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-prov not installed: the export is not read back")
		}
		t.Skip("python3-prov not installed (apt-get install python3-prov): the export is not read back")
	}
	file := filepath.Join(t.TempDir(), "report.prov.json")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", `
import sys, prov.model as pm
d = pm.ProvDocument.deserialize(sys.argv[1], format='json')
print(*(len(list(d.get_records(k))) for k in (pm.ProvActivity, pm.ProvAgent, pm.ProvAssociation, pm.ProvEntity)))
`, file).Output()
	if err != nil {
		t.Fatalf("python3-prov: %v\n%s", err, stderrOf(err))
	}
	var acts, agents, assoc, ents int
	if _, err := fmt.Sscan(string(out), &acts, &agents, &assoc, &ents); err != nil || acts < 1 || agents < 2 || assoc < 2 || ents == 0 {
		t.Errorf("python3-prov read %q: want an activity, two agents and their associations", out)
	}
	t.Logf("python3-prov: %d activities, %d agents, %d associations, %d entities", acts, agents, assoc, ents)
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
