package provjson

import (
	"strconv"
	"time"
)

// Evaluation is how claimtrace evaluated a report's graph: the run, the
// tool and the judge that gave the edges their strengths, with the
// settings in force and when it ran. MarshalWith writes it as a PROV
// activity (aar:Evaluation) associated with two prov:SoftwareAgents.
type Evaluation struct {
	// Run is the run's id in the store.
	Run string
	// Tool and Version name the program ("claimtrace" and its
	// version).
	Tool, Version string
	// Mode is the run's mode (offline, online).
	Mode string
	// Judge names the support judge ("offline", "openai:gpt-4o-mini");
	// Model its model and Calibration its calibration, when known.
	Judge, Model, Calibration string
	// Tau is PSnd's strength threshold τ.
	Tau float64
	// Started and Ended bound the evaluation; zero when unknown.
	Started, Ended time.Time
}

// Ids of the evaluation's records.
const (
	evalActivity = pAgent + ":evaluation"
	evalTool     = pAgent + ":tool"
	evalJudge    = pAgent + ":judge"
)

// add appends the evaluation's records (the activity, its two agents and
// their associations) and returns the activity's id.
func (ev *Evaluation) add(add func(record)) string {
	a := record{kind: kActivity, id: evalActivity, types: []string{"aar:Evaluation"}}
	// Start and end times are PROV's own attributes, written as plain
	// dateTime strings (PROV-JSON) or startTime/endTime (PROV-JSONLD).
	if !ev.Started.IsZero() {
		a.formal = append(a.formal, ref{"prov:startTime", ev.Started.UTC().Format(time.RFC3339)})
	}
	if !ev.Ended.IsZero() {
		a.formal = append(a.formal, ref{"prov:endTime", ev.Ended.UTC().Format(time.RFC3339)})
	}
	for _, kv := range [][2]string{{"aar:run", ev.Run}, {"aar:mode", ev.Mode}} {
		if kv[1] != "" {
			a.attrs = append(a.attrs, attr(kv[0], str(kv[1])))
		}
	}
	if ev.Tau > 0 {
		a.attrs = append(a.attrs, attr("aar:tau", decimal(ev.Tau)))
	}
	add(a)

	tool := record{kind: kAgent, id: evalTool, types: []string{"prov:SoftwareAgent", "aar:Tool"}}
	name := ev.Tool
	if name == "" {
		name = "claimtrace"
	}
	tool.attrs = append(tool.attrs, attr("aar:name", str(name)))
	if ev.Version != "" {
		tool.attrs = append(tool.attrs, attr("aar:version", str(ev.Version)))
	}
	add(tool)
	add(record{kind: kAssociation, id: relID("assoc-evaluation-tool"),
		formal: []ref{{"prov:activity", evalActivity}, {"prov:agent", evalTool}},
		attrs:  []att{attr("prov:role", qname("aar:Evaluator"))}})

	if ev.Judge != "" || ev.Model != "" || ev.Calibration != "" {
		judge := record{kind: kAgent, id: evalJudge, types: []string{"prov:SoftwareAgent", "aar:Judge"}}
		for _, kv := range [][2]string{{"aar:judge", ev.Judge}, {"aar:model", ev.Model}, {"aar:calibration", ev.Calibration}} {
			if kv[1] != "" {
				judge.attrs = append(judge.attrs, attr(kv[0], str(kv[1])))
			}
		}
		if ev.Tau > 0 {
			judge.attrs = append(judge.attrs, attr("aar:tau", typed(strconv.FormatFloat(ev.Tau, 'f', -1, 64), "xsd:decimal")))
		}
		add(judge)
		add(record{kind: kAssociation, id: relID("assoc-evaluation-judge"),
			formal: []ref{{"prov:activity", evalActivity}, {"prov:agent", evalJudge}},
			attrs:  []att{attr("prov:role", qname("aar:Judge"))}})
	}
	return evalActivity
}
