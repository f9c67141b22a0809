package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/inputfile"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/search"
)

// Version identifies the agent's behaviour (tool loop, formats); records
// and the run manifest carry it.
const Version = "agent/1"

// Task statuses. Only StatusDone records have a "response"; the others are
// failures a rerun retries.
const (
	StatusDone          = "done"
	StatusFailed        = "failed"
	StatusContextLength = "context_length"   // the conversation outgrew the model's context window
	StatusBudget        = "budget_exhausted" // the run's cost or call budget ran out
)

// Record is one task's output file, <task_id>.json in the reports
// directory. A finished task has Status "done" and the report text in
// Response, the field claimtrace eval reads. A failed task has no
// "response" key at all (and no other field eval could take for the
// report), so eval rejects the file with an error instead of scoring an
// empty report or the prompt.
type Record struct {
	TaskID string `json:"task_id"`
	Status string `json:"status"`
	// Response is the final answer (done only; omitted otherwise).
	Response string `json:"response,omitempty"`
	Error    string `json:"error,omitempty"`
	// Truncated is true when the answer stopped at the token cap.
	Truncated bool   `json:"truncated,omitempty"`
	Title     string `json:"title,omitempty"`

	// Model is the model spec the run used; ServedModel what the provider
	// reported serving.
	Model       string `json:"model"`
	ServedModel string `json:"served_model,omitempty"`
	// Search is the search provider ("serpapi", …), "native" or "none";
	// Reader the page reader.
	Search string `json:"search"`
	Reader string `json:"reader,omitempty"`
	// MaxToolCalls is the budget; ToolCalls the calls counted against it.
	MaxToolCalls int `json:"max_tool_calls"`
	ToolCalls    int `json:"tool_calls"`

	// Prompt and System are the rendered prompts; TemplateSHA256 is the
	// template file's hash.
	Prompt         string     `json:"prompt"`
	System         string     `json:"system,omitempty"`
	TemplateSHA256 string     `json:"template_sha256"`
	Tools          []llm.Tool `json:"tools,omitempty"`

	// Transcript is the whole conversation in order. Tool results are
	// exactly what the model was shown (page text already cut to the
	// read budget).
	Transcript []Turn `json:"transcript"`
	// Citations are the provider's web citations (native search), located
	// in the raw answer text of the last assistant turn.
	Citations []llm.WebCitation `json:"citations,omitempty"`

	Usage      Usage     `json:"usage"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	LatencyMS  int64     `json:"latency_ms"`
	Version    string    `json:"version"`
	// PreviousAttempts are earlier failed runs of this task, oldest first.
	PreviousAttempts []Attempt `json:"previous_attempts,omitempty"`
}

// Turn is one message of the conversation.
type Turn struct {
	// Role is system, user, assistant or tool.
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	// Final marks the user message sent once the tool budget was spent:
	// the earlier tool exchanges are written into it as text, and no tool
	// is offered with it.
	Final bool `json:"final,omitempty"`

	// ToolCalls are an assistant turn's function calls; Call describes the
	// model call that produced the turn (or failed to).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Call      *CallInfo  `json:"call,omitempty"`

	// A tool turn: the call it answers, and what happened.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Tool       string `json:"tool,omitempty"`
	// Outcome is ok, error, bad_arguments, unknown_tool or
	// budget_exhausted (the call was not run).
	Outcome string          `json:"outcome,omitempty"`
	Error   string          `json:"error,omitempty"`
	Query   string          `json:"query,omitempty"`
	Results []search.Result `json:"results,omitempty"`
	URL     string          `json:"url,omitempty"`
	Title   string          `json:"title,omitempty"`
	// PageChars is the page text's length in characters before it was cut
	// to the read budget; Truncated says it was cut.
	PageChars int  `json:"page_chars,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	// CacheHit says the result came from the run store's cache (a rerun or
	// a resumed run) rather than from the search API or reader.
	CacheHit   bool  `json:"cache_hit,omitempty"`
	DurationMS int64 `json:"duration_ms,omitempty"`
}

// ToolCall is one function call of the model.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// CallInfo is the accounting of one model call.
type CallInfo struct {
	Model        string `json:"model,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	// ToolsOffered says whether function tools were offered; WebSearch
	// whether the provider's own search was on.
	ToolsOffered bool      `json:"tools_offered"`
	WebSearch    bool      `json:"web_search,omitempty"`
	Messages     int       `json:"messages"`
	Usage        llm.Usage `json:"usage"`
	CostUSD      float64   `json:"cost_usd"`
	LatencyMS    int64     `json:"latency_ms"`
	CacheHit     bool      `json:"cache_hit,omitempty"`
	Attempts     int       `json:"attempts,omitempty"`
	Error        string    `json:"error,omitempty"`
	// Native web search: the queries, the pages consulted.
	Searches []string        `json:"searches,omitempty"`
	Sources  []llm.WebSource `json:"sources,omitempty"`
}

// Usage sums a task's model calls. Token counts cover every answer of the
// conversation, replayed from the response cache or not; CostUSD is what
// this attempt paid (cache hits are free).
type Usage struct {
	Calls           int     `json:"calls"`
	CacheHits       int     `json:"cache_hits,omitempty"`
	InputTokens     int64   `json:"input_tokens"`
	OutputTokens    int64   `json:"output_tokens"`
	CachedTokens    int64   `json:"cached_tokens,omitempty"`
	ReasoningTokens int64   `json:"reasoning_tokens,omitempty"`
	WebSearches     int64   `json:"web_searches,omitempty"`
	CostUSD         float64 `json:"cost_usd"`
}

// Add counts one model answer.
func (u *Usage) Add(r llm.Response) {
	u.Calls++
	if r.CacheHit {
		u.CacheHits++
	}
	u.InputTokens += r.Usage.InputTokens
	u.OutputTokens += r.Usage.OutputTokens
	u.CachedTokens += r.Usage.CachedTokens
	u.ReasoningTokens += r.Usage.ReasoningTokens
	u.WebSearches += r.Usage.WebSearches
	u.CostUSD += r.Cost
}

// Merge adds o into u.
func (u *Usage) Merge(o Usage) {
	u.Calls += o.Calls
	u.CacheHits += o.CacheHits
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedTokens += o.CachedTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.WebSearches += o.WebSearches
	u.CostUSD += o.CostUSD
}

// Attempt summarises an earlier failed run of a task.
type Attempt struct {
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	ToolCalls  int       `json:"tool_calls"`
	Usage      Usage     `json:"usage"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
}

// Finished reports whether the record is a finished report.
func (r *Record) Finished() bool { return r.Status == StatusDone && r.Response != "" }

// maxRecordBytes caps a record file read back (reports are capped at 16
// MiB by eval; a transcript adds page texts).
const maxRecordBytes = 64 << 20

// state is what a reports directory holds for one task.
type state int

const (
	stateNew      state = iota // nothing yet
	stateFinished              // a finished report (ours or another tool's): never touched
	stateFailed                // our failed record: retried and replaced
)

// inspect looks at what dir holds for task id. A .md or .txt report, a
// JSON report without our status (another tool's), and our done record
// are finished; our failed record is returned for its history. A JSON
// file that cannot be read as an object is an error: it is not ours, and
// replacing it could destroy someone's work.
func inspect(dir, id string) (state, *Record, error) {
	for _, ext := range []string{".md", ".txt", ".MD", ".TXT"} {
		if _, err := os.Stat(filepath.Join(dir, id+ext)); err == nil {
			return stateFinished, nil, nil
		}
	}
	path := filepath.Join(dir, id+".json")
	b, err := readCapped(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return stateNew, nil, nil
	case err != nil:
		return 0, nil, err
	}
	// Most files are finished reports: look at the status and the response
	// alone, without building the transcript.
	var head struct {
		Status   string          `json:"status"`
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return 0, nil, fmt.Errorf("record %s: not a JSON object (%v); it is not claimtrace's, move it away to run this task: %w", path, err, claimtrace.ErrInvalid)
	}
	if head.Status == "" || head.Status == StatusDone && len(head.Response) > 2 {
		return stateFinished, nil, nil
	}
	rec, err := DecodeRecord(path, b)
	if err != nil {
		return 0, nil, err
	}
	if rec.Finished() {
		return stateFinished, rec, nil
	}
	return stateFailed, rec, nil
}

// LoadRecord reads a record file. Any JSON object decodes (fields it lacks
// stay empty); anything else is an error naming the file.
func LoadRecord(path string) (*Record, error) {
	b, err := readCapped(path)
	if err != nil {
		return nil, err
	}
	return DecodeRecord(path, b)
}

// readCapped reads a record file, at most one byte past maxRecordBytes.
func readCapped(path string) ([]byte, error) {
	f, _, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	return b, nil
}

// DecodeRecord decodes a record; name appears in errors.
func DecodeRecord(name string, b []byte) (*Record, error) {
	if len(b) > maxRecordBytes {
		return nil, fmt.Errorf("record %s: over %d bytes: %w", name, maxRecordBytes, claimtrace.ErrTooLarge)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("record %s: not a JSON object (%v); it is not claimtrace's, move it away to run this task: %w", name, err, claimtrace.ErrInvalid)
	}
	return &rec, nil
}

// writeRecord writes rec to dir/<task_id>.json atomically: a hidden temp
// file, synced, then moved into place. A new file is linked into place,
// which fails if one appeared meanwhile, so a finished report is never
// overwritten; replace is for our own failed record. Outputs are never
// opened for writing in place, so a crash leaves the old file or the new
// one, never a truncated mix.
func writeRecord(dir string, rec *Record, replace bool) error {
	if rec.Status == StatusDone && rec.Response == "" {
		return fmt.Errorf("record %s: done without a response: %w", rec.TaskID, claimtrace.ErrInvalid)
	}
	if rec.Status != StatusDone && rec.Response != "" {
		return fmt.Errorf("record %s: status %s with a response: %w", rec.TaskID, rec.Status, claimtrace.ErrInvalid)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("record %s: %w", rec.TaskID, err)
	}
	return writeFileAtomic(filepath.Join(dir, rec.TaskID+".json"), buf.Bytes(), replace)
}

// writeFileAtomic puts data at path through a synced temp file in the same
// directory. Without replace an existing file is an error wrapping
// fs.ErrExist.
func writeFileAtomic(path string, data []byte, replace bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	defer os.Remove(name) // after a link or a failure; a rename leaves nothing
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if replace {
		if err := os.Rename(name, path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		syncDir(dir)
		return nil
	}
	if err := os.Link(name, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("write %s: exists and is not replaced: %w", path, err)
		}
		// A file system without hard links: check, then rename.
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("write %s: exists and is not replaced: %w", path, fs.ErrExist)
		}
		if err := os.Rename(name, path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename or link in dir durable where the file system
// supports syncing a directory; elsewhere the file's own sync must do.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
