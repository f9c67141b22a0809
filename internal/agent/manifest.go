package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/inputfile"
	"github.com/claimtrace/claimtrace/internal/llm"
)

// ManifestFile is the run manifest's name in the reports directory.
const ManifestFile = "run-manifest.json"

// ManifestFormat identifies the manifest's layout.
const ManifestFormat = "claimtrace-run/1"

// Manifest describes how a reports directory was produced: everything that
// determines the reports (model, tools, budgets, prompt template, limits)
// and, for the record, the versions and times of each run into it.
type Manifest struct {
	Format string `json:"format"`
	// Model is the model spec; Provider and ModelName its parts.
	Model    string `json:"model"`
	Provider string `json:"provider,omitempty"`
	// Search is the search provider, "native" or "none"; Reader the page
	// reader ("" with native search).
	Search string `json:"search"`
	Reader string `json:"reader,omitempty"`
	// MaxToolCalls are the budgets; Dirs maps each to its reports
	// directory relative to the manifest ("." for a single budget,
	// "tools-N" for an ablation).
	MaxToolCalls  []int             `json:"max_tool_calls"`
	Dirs          map[string]string `json:"dirs"`
	SearchResults int               `json:"search_results"`
	ReadChars     int               `json:"read_chars"`
	MaxTokens     int               `json:"max_tokens"`
	Temperature   *float64          `json:"temperature,omitempty"`
	// Template is the prompt template; ToolsSHA256 hashes the tool
	// declarations the model is offered.
	Template    TemplateInfo `json:"template"`
	ToolsSHA256 string       `json:"tools_sha256"`
	// Prompts are the versions of claimtrace's embedded prompts
	// (prompts.Manifest()), for the record.
	Prompts map[string]string `json:"prompts,omitempty"`
	// Dataset is the tasks file the runs read.
	Dataset string `json:"dataset,omitempty"`
	// Versions are the agent's and the build's (Go, SDK modules).
	Versions map[string]string `json:"versions,omitempty"`
	Created  time.Time         `json:"created"`
	Updated  time.Time         `json:"updated"`
	// Runs lists every invocation into the directory, oldest first.
	Runs []ManifestRun `json:"runs"`
}

// TemplateInfo identifies the prompt template.
type TemplateInfo struct {
	// File is the --prompt-template file, "" for the built-in template.
	File          string `json:"file,omitempty"`
	SHA256        string `json:"sha256"`
	BuiltinSHA256 string `json:"builtin_sha256"`
}

// ManifestRun is one invocation.
type ManifestRun struct {
	Started time.Time `json:"started"`
	// Tasks is how many tasks the invocation was asked to run (after
	// --tasks).
	Tasks   int    `json:"tasks"`
	Version string `json:"version"`
}

// Info returns the template's identity for the manifest.
func (t *Template) Info() TemplateInfo {
	return TemplateInfo{File: t.File, SHA256: t.SHA256, BuiltinSHA256: t.BuiltinSHA256}
}

// ToolsSHA256 hashes tool declarations.
func ToolsSHA256(tools []llm.Tool) string {
	b, _ := json.Marshal(tools)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// settings are the manifest fields that determine the reports, compared
// field by field when a run continues in a directory.
func (m *Manifest) settings() [][2]string {
	temp := "default"
	if m.Temperature != nil {
		temp = fmt.Sprint(*m.Temperature)
	}
	return [][2]string{
		{"model", m.Model},
		{"search", m.Search},
		{"reader", m.Reader},
		{"max tool calls", fmt.Sprint(m.MaxToolCalls)},
		{"search results", fmt.Sprint(m.SearchResults)},
		{"read chars", fmt.Sprint(m.ReadChars)},
		{"max tokens", fmt.Sprint(m.MaxTokens)},
		{"temperature", temp},
		{"prompt template sha256", m.Template.SHA256},
		{"built-in template sha256", m.Template.BuiltinSHA256},
		{"tools sha256", m.ToolsSHA256},
	}
}

// WriteManifest records m in dir/run-manifest.json. When the directory
// already has a manifest, its settings must equal m's (a rerun continues
// the same run; other settings would mix reports of two configurations in
// one directory): the existing manifest then gains m's run. It returns the
// manifest written.
func WriteManifest(dir string, m Manifest) (*Manifest, error) {
	m.Format = ManifestFormat
	path := filepath.Join(dir, ManifestFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("run manifest: %w", err)
	}
	b, err := inputfile.ReadFile(path, maxManifestBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if m.Created.IsZero() && len(m.Runs) > 0 {
			m.Created = m.Runs[0].Started
		}
	case err != nil:
		return nil, fmt.Errorf("run manifest: %w", err)
	default:
		var old Manifest
		if err := json.Unmarshal(b, &old); err != nil || old.Format != ManifestFormat {
			return nil, fmt.Errorf("run manifest %s: not a claimtrace run manifest; use another --out directory: %w", path, claimtrace.ErrInvalid)
		}
		var diffs []string
		was, now := old.settings(), m.settings()
		for i := range was {
			if was[i][1] != now[i][1] {
				diffs = append(diffs, fmt.Sprintf("%s %q, now %q", was[i][0], was[i][1], now[i][1]))
			}
		}
		if len(diffs) > 0 {
			return nil, fmt.Errorf("%s holds reports of another configuration (%s); write to a new --out directory: %w", dir, strings.Join(diffs, "; "), claimtrace.ErrInvalid)
		}
		old.Runs = append(old.Runs, m.Runs...)
		old.Updated = m.Updated
		old.Versions, old.Prompts, old.Dataset = m.Versions, m.Prompts, m.Dataset
		old.Dirs = m.Dirs
		m = old
	}
	slices.SortStableFunc(m.Runs, func(a, b ManifestRun) int { return a.Started.Compare(b.Started) })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("run manifest: %w", err)
	}
	if err := writeFileAtomic(path, buf.Bytes(), true); err != nil {
		return nil, fmt.Errorf("run manifest: %w", err)
	}
	return &m, nil
}

// maxManifestBytes bounds a run manifest: one holds a few kilobytes a run.
const maxManifestBytes = 64 << 20

// ReadManifest reads dir/run-manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := inputfile.ReadFile(filepath.Join(dir, ManifestFile), maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("run manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("run manifest %s: %v: %w", filepath.Join(dir, ManifestFile), err, claimtrace.ErrInvalid)
	}
	return &m, nil
}
