package llm_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/google/go-cmp/cmp"
)

type statement struct {
	Statement string `json:"statement"`
	URL       string `json:"url"`
}

type judged struct {
	Reason   string  `json:"reason"`
	Decision bool    `json:"decision"`
	Score    *int    `json:"score"`
	Note     string  `json:"note,omitempty"`
	Extra    *string `json:"extra,omitempty"`
}

func TestDecodeJSON(t *testing.T) {
	three := 3
	tests := []struct {
		name    string
		in      string
		want    judged
		wantErr string // substring; "" means success
	}{
		{"plain", `{"reason":"r","decision":true}`, judged{Reason: "r", Decision: true}, ""},
		{"fence json", "```json\n{\"reason\":\"r\",\"decision\":false}\n```", judged{Reason: "r"}, ""},
		{"fence JSON upper", "```JSON\n{\"reason\":\"r\",\"decision\":true}\n```", judged{Reason: "r", Decision: true}, ""},
		{"leading newline", "\n\n```json\n{\"reason\":\"r\",\"decision\":true}```\n", judged{Reason: "r", Decision: true}, ""},
		{"fence no tag", "```\n{\"reason\":\"r\",\"decision\":true}\n```", judged{Reason: "r", Decision: true}, ""},
		{"four backticks", "````json\n{\"reason\":\"r\",\"decision\":true}\n````", judged{Reason: "r", Decision: true}, ""},
		{"unclosed fence (truncated prose after)", "```json\n{\"reason\":\"r\",\"decision\":true}", judged{Reason: "r", Decision: true}, ""},
		{"prose around", "Let me check.\n{\"reason\":\"r\",\"decision\":true}\nDone.", judged{Reason: "r", Decision: true}, ""},
		{"braces in prose before", "Set {x} is empty. {\"reason\":\"r\",\"decision\":true}", judged{Reason: "r", Decision: true}, ""},
		{"optional score", `{"reason":"r","decision":true,"score":3}`, judged{Reason: "r", Decision: true, Score: &three}, ""},
		{"unknown fields ignored", `{"reason":"r","decision":true,"confidence":0.9}`, judged{Reason: "r", Decision: true}, ""},
		{"case-insensitive key", `{"Reason":"r","Decision":true}`, judged{Reason: "r", Decision: true}, ""},
		{"bool as string false", `{"reason":"r","decision":"false"}`, judged{}, `field "decision": got JSON string, want boolean`},
		{"bool as string true", `{"reason":"r","decision":"true"}`, judged{}, `"decision"`},
		{"bool as number", `{"reason":"r","decision":1}`, judged{}, `"decision"`},
		{"missing required", `{"reason":"r"}`, judged{}, `missing field "decision"`},
		{"null required", `{"reason":"r","decision":null}`, judged{}, `field "decision" is null`},
		{"array not object", `[{"reason":"r","decision":true}]`, judged{}, "answer is a JSON array, want object"},
		{"empty", "   ", judged{}, "empty answer"},
		{"no json", "The statement is correct.", judged{}, "no JSON"},
		{"broken json", `{"reason": "r", "decision": tru`, judged{}, "no JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got judged
			err := llm.DecodeJSON(tt.in, &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, llm.ErrMalformed) {
					t.Fatalf("DecodeJSON(%q) = %v (%+v), want ErrMalformed containing %q", tt.in, err, got, tt.wantErr)
				}
				if diff := cmp.Diff(judged{}, got); diff != "" {
					t.Errorf("value changed on error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeJSON(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeJSON(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestDecodeJSONNested(t *testing.T) {
	in := "Here you go:\n```json\n[{\"statement\":\"A.\",\"url\":\"https://a.example\"},{\"statement\":\"B.\"}]\n```"
	var got []statement
	err := llm.DecodeJSON(in, &got)
	if err == nil || !strings.Contains(err.Error(), `answer[1]: missing field "url"`) {
		t.Errorf("DecodeJSON = %v, %+v; want the missing url of element 1 reported", err, got)
	}
	var papers struct {
		Papers []struct {
			Title   string   `json:"title"`
			Authors []string `json:"authors"`
		} `json:"papers"`
	}
	if err := llm.DecodeJSON(`{"papers":[{"title":"T","authors":["A","B"]}]}`, &papers); err != nil || len(papers.Papers) != 1 || papers.Papers[0].Authors[1] != "B" {
		t.Errorf("nested decode = %+v, %v", papers, err)
	}
}

func TestExtractJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1,2]`, `[1,2]`},
		{"```json\n{\"a\":1}\n```\nand also ```json\n{\"b\":2}\n```", `{"a":1}`},
		{"```python\nprint(1)\n```\n```json\n{\"b\":2}\n```", `{"b":2}`},
		{"Answer: {\"a\": {\"b\": [1, {\"c\": \"}\"}]}} trailing", `{"a": {"b": [1, {"c": "}"}]}}`},
		{"\ufeff{\"a\":1}", `{"a":1}`},
	}
	for _, tt := range tests {
		got, err := llm.ExtractJSON(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ExtractJSON(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"reason":"r","decision":true}`,
		"```json\n{\"reason\":\"r\",\"decision\":false}\n```",
		"prose {\"reason\":\"r\",\"decision\":\"false\"} prose",
		"````\n[1,2,3]\n````",
		"```JSON\n{\"reason\": \"unterminated",
		"{{{{[[[[",
		"~~~json\n{\"reason\":\"x\",\"decision\":true}\n~~~",
		`{"reason":null,"decision":true,"score":"3"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		js, err := llm.ExtractJSON(s)
		if err == nil {
			if !json.Valid([]byte(js)) {
				t.Fatalf("ExtractJSON(%q) = %q: not valid JSON", s, js)
			}
			if !strings.Contains(s, js) {
				t.Fatalf("ExtractJSON(%q) = %q: not a substring of the answer", s, js)
			}
		} else if !errors.Is(err, llm.ErrMalformed) {
			t.Fatalf("ExtractJSON error %v does not wrap ErrMalformed", err)
		}
		var v judged
		if err := llm.DecodeJSON(s, &v); err != nil {
			if !errors.Is(err, llm.ErrMalformed) {
				t.Fatalf("DecodeJSON error %v does not wrap ErrMalformed", err)
			}
			if v != (judged{}) {
				t.Fatalf("DecodeJSON changed the value on error: %+v", v)
			}
			return
		}
		// Success means the decision really was a JSON boolean.
		var raw map[string]json.RawMessage
		js, _ = llm.ExtractJSON(s)
		if json.Unmarshal([]byte(js), &raw) != nil {
			t.Fatalf("decoded %q but it is not an object", js)
		}
		var b bool
		found := false
		for k, r := range raw {
			if strings.EqualFold(k, "decision") && json.Unmarshal(r, &b) == nil && b == v.Decision {
				found = true
			}
		}
		if !found {
			t.Fatalf("DecodeJSON(%q) = %+v without a boolean decision in %s", s, v, js)
		}
	})
}
