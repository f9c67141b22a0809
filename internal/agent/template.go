package agent

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

//go:embed templates/default.tmpl
var defaultTemplate []byte

// Template renders the agent's three texts from one Go text/template file:
// its body is the user prompt, and it defines "system" (the system prompt)
// and "final" (the last user message once the tool budget is spent). An
// override file is parsed over the built-in one, so it may redefine any of
// the three and keeps the built-in wording for the rest.
type Template struct {
	t *template.Template
	// File is the override file, "" for the built-in template.
	File string
	// SHA256 is the hex SHA-256 of the override file, or of the built-in
	// template when there is none: the run manifest records it.
	SHA256 string
	// BuiltinSHA256 is the hex SHA-256 of the built-in template, which
	// supplies whatever an override leaves out.
	BuiltinSHA256 string
}

// PromptData is what the user prompt and the system prompt are rendered
// with.
type PromptData struct {
	Prompt       string
	Title        string
	TaskID       string
	MaxToolCalls int
	// Search is SearchFunction, SearchNative or SearchNone.
	Search string
	// Tools is true while tools are offered (system prompt only).
	Tools bool
}

// FinalData is what the final message is rendered with.
type FinalData struct {
	// Prompt is the rendered user prompt.
	Prompt string
	// Notes are the tool calls and their results, as text.
	Notes        string
	Used         int
	MaxToolCalls int
}

// Search modes as the template sees them.
const (
	SearchFunction = "function"
	SearchNative   = "native"
	SearchNone     = "none"
)

// BuiltinSource returns the built-in template file, to start an override
// from.
func BuiltinSource() []byte { return append([]byte(nil), defaultTemplate...) }

// DefaultTemplate returns the built-in template.
func DefaultTemplate() (*Template, error) { return parseTemplate("", nil) }

// LoadTemplate reads an override template file.
func LoadTemplate(path string) (*Template, error) {
	b, err := inputfile.ReadFile(path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("prompt template: %w", err)
	}
	return parseTemplate(path, b)
}

// ParseTemplate parses override template text; name appears in errors.
func ParseTemplate(name string, src []byte) (*Template, error) {
	return parseTemplate(name, src)
}

func parseTemplate(name string, override []byte) (*Template, error) {
	t, err := template.New("prompt").Option("missingkey=error").Parse(string(defaultTemplate))
	if err != nil {
		return nil, err
	}
	builtin := sha256hex(defaultTemplate)
	out := &Template{SHA256: builtin, BuiltinSHA256: builtin}
	if override != nil {
		if t, err = t.Parse(string(override)); err != nil {
			return nil, fmt.Errorf("prompt template %s: %v: %w", name, err, claimtrace.ErrInvalid)
		}
		out.File, out.SHA256 = name, sha256hex(override)
	}
	out.t = t
	// Render once with sample data, so a template naming an unknown field
	// or forgetting the task's prompt fails before any model is paid.
	const sample = "SAMPLE-TASK-PROMPT-5f1c"
	p, err := out.Prompt(PromptData{Prompt: sample, Title: "T", TaskID: "0000.00000", MaxToolCalls: 5, Search: SearchFunction})
	if err == nil && !strings.Contains(p, sample) {
		err = fmt.Errorf("the prompt never includes {{.Prompt}}, the task's prompt")
	}
	if err == nil {
		_, err = out.System(PromptData{Prompt: sample, MaxToolCalls: 5, Search: SearchFunction, Tools: true})
	}
	if err == nil {
		_, err = out.Final(FinalData{Prompt: sample, Notes: "notes", Used: 5, MaxToolCalls: 5})
	}
	if err != nil {
		return nil, fmt.Errorf("prompt template %s: %v: %w", or(name, "built-in"), err, claimtrace.ErrInvalid)
	}
	return out, nil
}

// Prompt renders the user prompt.
func (t *Template) Prompt(d PromptData) (string, error) { return t.render("prompt", d) }

// System renders the system prompt ("" when the template makes it empty).
func (t *Template) System(d PromptData) (string, error) { return t.render("system", d) }

// Final renders the final message.
func (t *Template) Final(d FinalData) (string, error) { return t.render("final", d) }

func (t *Template) render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := t.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
