// Package prompts holds the prompt templates claimtrace sends to language
// models, as files embedded in the binary (templates/<family>/<name>.tmpl,
// Go text/template syntax). Each prompt is named "<family>/<name>" and has
// a version hash, the start of the SHA-256 of its file, which the run
// manifest records (Manifest) so every result names the exact prompts that
// produced it.
//
// The reportbench/ family reproduces the ReportBench paper's evaluation
// prompts (seed 002, appendix A.4.1–A.4.6) verbatim, for a parity mode.
// The seed is a Markdown conversion of the PDF; its text was kept word for
// word with these mechanical corrections, which TestReportBenchVerbatim
// checks against the seed itself: Markdown escapes removed ("\_" is "_"),
// fence lines the conversion put around verbatim blocks dropped (their
// contents kept), a four-backtick run around {report} read as the three
// backticks the prompt itself announces, PDF line-wrap artefacts (hard
// breaks, a leading space, a title split inside a JSON string) joined, and
// the {placeholders} written as template fields:
//
//	{report} .Report   {cited_statements} .CitedStatements   {statement} .Statement
//	{source_text} .SourceText   {source_sentence} .SourceSentence   {response} .Response
package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"text/template"

	"github.com/claimtrace/claimtrace"
)

//go:embed templates
var files embed.FS

const (
	root = "templates"
	ext  = ".tmpl"
)

// Prompt is one parsed prompt template.
type Prompt struct {
	// Name is "<family>/<name>", e.g. "reportbench/cited_extraction".
	Name string
	// Hash is the version: the first 12 hex digits of the SHA-256 of the
	// template file.
	Hash string
	// Source is the template text.
	Source string

	tmpl *template.Template
}

// Get parses the named prompt.
func Get(name string) (*Prompt, error) {
	if !fs.ValidPath(name) || strings.Contains(name, "\\") {
		return nil, fmt.Errorf("prompt %q: %w", name, claimtrace.ErrInvalid)
	}
	b, err := files.ReadFile(root + "/" + name + ext)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", name, claimtrace.ErrNotFound)
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", name, err)
	}
	return &Prompt{Name: name, Hash: hash(b), Source: string(b), tmpl: t}, nil
}

// Render executes the template with data: a struct or a map with the
// fields the template names. A map missing one of them is an error, so a
// forgotten field never renders as an empty report.
func (p *Prompt) Render(data any) (string, error) {
	var buf bytes.Buffer
	if err := p.tmpl.Execute(&buf, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", p.Name, err)
	}
	return buf.String(), nil
}

// Names lists every embedded prompt, sorted.
func Names() []string {
	var names []string
	fs.WalkDir(files, root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(p) == ext {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ext))
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// Manifest maps every prompt name to its version hash, for the run
// manifest.
func Manifest() map[string]string {
	m := map[string]string{}
	for _, name := range Names() {
		if b, err := files.ReadFile(root + "/" + name + ext); err == nil {
			m[name] = hash(b)
		}
	}
	return m
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}
