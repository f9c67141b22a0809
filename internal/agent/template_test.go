package agent_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// The seed's sentence-level example (appendix A.3).
const (
	radarPrompt = "Please help me research the academic advancements in different radar data representation methods in the field of autonomous driving, and ensure only papers published before April 2025 are referenced."
	radarTitle  = "Exploring Radar Data Representations in Autonomous Driving: A Comprehensive Review"
)

func TestDefaultPromptIsTheBenchmarksWithURLCitations(t *testing.T) {
	tm, err := agent.DefaultTemplate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := tm.Prompt(agent.PromptData{Prompt: radarPrompt, Title: radarTitle, TaskID: "2312.04861", MaxToolCalls: 5, Search: agent.SearchFunction})
	if err != nil {
		t.Fatal(err)
	}
	want := radarPrompt + `

You also need to follow the following rules:
- Do not refer to the survey titled ` + "``" + radarTitle + "``" + `.
- Responses are given in the form of an English language survey with citations where appropriate.
- Cite every source you rely on with its full URL, as a Markdown link right after the statement it supports, for example [1](https://arxiv.org/abs/1706.03762).`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
}

// TestDefaultPromptRulesAreTheSeeds: the default prompt's rules are the
// seed's words (appendix A.3 of the ReportBench paper, ../shared/seeds).
func TestDefaultPromptRulesAreTheSeeds(t *testing.T) {
	root := sharedtest.Root()
	if root == "" {
		t.Skip("shared data not found (../shared/data or $CLAIMTRACE_SHARED_DATA): the seeds beside it are needed to check the prompt's rules against the paper's words")
	}
	seed, err := os.ReadFile(filepath.Join(root, "..", "seeds", "002_465e28ad3759435d.txt"))
	if err != nil {
		t.Skipf("the ReportBench seed is not beside the shared data (../shared/seeds): %v", err)
	}
	tm, err := agent.DefaultTemplate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := tm.Prompt(agent.PromptData{Prompt: radarPrompt, Title: radarTitle, TaskID: "2312.04861", MaxToolCalls: 5, Search: agent.SearchFunction})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(got, "\n")[2:5] {
		if !strings.Contains(string(seed), line) {
			t.Errorf("rule %q is not in the seed's appendix A.3", line)
		}
	}
}

func TestSystemPromptFollowsTheMode(t *testing.T) {
	tm, _ := agent.DefaultTemplate()
	tests := []struct {
		d    agent.PromptData
		want []string
		not  []string
	}{
		{agent.PromptData{Search: agent.SearchFunction, MaxToolCalls: 5, Tools: true}, []string{"search(query)", "read(url)", "at most 5 tool calls"}, nil},
		{agent.PromptData{Search: agent.SearchFunction, MaxToolCalls: 5, Tools: false}, []string{"used up"}, []string{"search(query)"}},
		{agent.PromptData{Search: agent.SearchNative}, []string{"search the web"}, []string{"read(url)"}},
		{agent.PromptData{Search: agent.SearchNone}, []string{"literature survey"}, []string{"search(", "tool", "web"}},
	}
	for _, tt := range tests {
		got, err := tm.System(tt.d)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("system(%+v) = %q lacks %q", tt.d, got, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("system(%+v) = %q has %q", tt.d, got, n)
			}
		}
	}
}

func TestOverrideTemplate(t *testing.T) {
	dir := t.TempDir()
	src := "{{.Prompt}}\n\nRules: never cite ``{{.Title}}``; cite URLs.\n"
	path := filepath.Join(dir, "my.tmpl")
	os.WriteFile(path, []byte(src), 0o644)
	tm, err := agent.LoadTemplate(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(src))
	def, _ := agent.DefaultTemplate()
	if tm.SHA256 != hex.EncodeToString(sum[:]) || tm.File != path || tm.BuiltinSHA256 != def.SHA256 {
		t.Errorf("identity = %+v", tm.Info())
	}
	got, _ := tm.Prompt(agent.PromptData{Prompt: "P", Title: "T"})
	if got != "P\n\nRules: never cite ``T``; cite URLs." {
		t.Errorf("override prompt = %q", got)
	}
	// The blocks it does not redefine keep the built-in wording.
	if s, _ := tm.System(agent.PromptData{Search: agent.SearchFunction, MaxToolCalls: 3, Tools: true}); !strings.Contains(s, "at most 3 tool calls") {
		t.Errorf("system = %q", s)
	}
	// A partial override redefining only "final" keeps the built-in body.
	tm2, err := agent.ParseTemplate("final-only", []byte(`{{define "final"}}{{.Prompt}} NOTES: {{.Notes}}{{end}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := tm2.Prompt(agent.PromptData{Prompt: radarPrompt, Title: radarTitle}); !strings.Contains(p, "You also need to follow the following rules:") {
		t.Errorf("body lost: %q", p)
	}
	if f, _ := tm2.Final(agent.FinalData{Prompt: "P", Notes: "N"}); f != "P NOTES: N" {
		t.Errorf("final = %q", f)
	}
}

func TestBadTemplates(t *testing.T) {
	for name, src := range map[string]string{
		"unknown field":   "{{.Prompt}} {{.Cutoff}}",
		"no task prompt":  "Write a survey about {{.Title}}.",
		"syntax":          "{{.Prompt",
		"bad final field": `{{.Prompt}}{{define "final"}}{{.Nope}}{{end}}`,
	} {
		if _, err := agent.ParseTemplate(name, []byte(src)); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: ParseTemplate = %v, want ErrInvalid naming the template", name, err)
		}
	}
	if _, err := agent.LoadTemplate(filepath.Join(t.TempDir(), "missing.tmpl")); err == nil || !strings.Contains(err.Error(), "missing.tmpl") {
		t.Errorf("missing file: %v", err)
	}
}
