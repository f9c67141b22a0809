package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// Answer schemas shaped like the ones the judge, the classifier and the
// fact-checkers send.
var answerSchemas = []string{
	`{"type": "object", "properties": {"verdicts": {"type": "array", "items": {"type": "object", "properties": {
		"claim": {"type": "integer"}, "label": {"type": "string", "enum": ["supported", "partial", "unsupported", "contradicted", "unknown"]},
		"strength": {"type": "number"}, "evidence": {"type": "string"}, "reason": {"type": "string"}},
		"required": ["claim", "label", "strength", "evidence", "reason"], "additionalProperties": false}}},
		"required": ["verdicts"], "additionalProperties": false}`,
	`{"type": "object", "properties": {"verdict": {"type": "string", "enum": ["true", "false", "unverifiable"]}, "reason": {"type": "string"},
		"sources": {"type": "array", "items": {"type": "integer"}}}, "required": ["verdict", "reason", "sources"], "additionalProperties": false}`,
	`{"type": "object", "properties": {"reason": {"type": "string"}, "decision": {"type": "boolean"}}, "required": ["reason", "decision"]}`,
}

// answers are instances written for this test, valid and not.
var answers = []string{
	`{"verdicts": [{"claim": 1, "label": "supported", "strength": 0.9, "evidence": "e", "reason": "r"}]}`,
	`{"verdicts": [{"claim": 1.0, "label": "partial", "strength": 1, "evidence": "", "reason": ""}]}`,
	`{"verdicts": [{"claim": 1.5, "label": "partial", "strength": 1, "evidence": "", "reason": ""}]}`,
	`{"verdicts": [{"claim": "1", "label": "supported", "strength": 0.9, "evidence": "e", "reason": "r"}]}`,
	`{"verdicts": [{"claim": 1, "label": "true", "strength": 0.9, "evidence": "e", "reason": "r"}]}`,
	`{"verdicts": [{"claim": 1, "label": "supported", "strength": 0.9, "evidence": "e"}]}`,
	`{"verdicts": [{"claim": 1, "label": "supported", "strength": 0.9, "evidence": "e", "reason": "r", "extra": 1}]}`,
	`{"verdicts": []}`, `{"verdicts": null}`, `{}`, `[]`, `"x"`, `null`, `{"verdicts": [], "notes": "x"}`,
	`{"verdict": "true", "reason": "r", "sources": [1, 3]}`, `{"verdict": "true", "reason": "r", "sources": [1.0]}`,
	`{"verdict": "True", "reason": "r", "sources": []}`, `{"verdict": "false", "reason": null, "sources": []}`,
	`{"verdict": "unverifiable", "reason": "r", "sources": ["1"]}`,
	`{"reason": "r", "decision": false}`, `{"reason": "r", "decision": "false"}`, `{"reason": "r", "decision": 0}`, `{"reason": "r", "decision": true, "more": 1}`,
}

// TestAnswerValidatorAgrees: the validator GenerateJSON uses accepts and
// refuses the same answers as santhosh-tekuri/jsonschema, the one it
// replaced.
func TestAnswerValidatorAgrees(t *testing.T) {
	c := &Client{schemas: map[string]*jsonschema.Resolved{}}
	for i, sch := range answerSchemas {
		ours, err := c.compileSchema(&Schema{Name: "s", JSON: json.RawMessage(sch)})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := santhosh.UnmarshalJSON(strings.NewReader(sch))
		if err != nil {
			t.Fatal(err)
		}
		comp := santhosh.NewCompiler()
		if err := comp.AddResource("s.json", doc); err != nil {
			t.Fatal(err)
		}
		theirs, err := comp.Compile("s.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range answers {
			var inst any
			if err := json.Unmarshal([]byte(a), &inst); err != nil {
				t.Fatal(err)
			}
			sinst, _ := santhosh.UnmarshalJSON(strings.NewReader(a))
			got, want := ours.Validate(inst) == nil, theirs.Validate(sinst) == nil
			if got != want {
				t.Errorf("schema %d, answer %s: valid %v, santhosh-tekuri says %v", i, a, got, want)
			}
		}
	}
}
