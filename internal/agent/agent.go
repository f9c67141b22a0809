// Package agent is the baseline research agent of ReportBench (seed 002,
// §3.1, A.2.5): a base model given a web search tool and a page reader
// through its native function calling, capped at a number of tool calls
// per task, asked for an English survey that cites its sources by URL.
//
// Agent.Run runs one task: the prompt (task prompt + the benchmark's rules,
// from a template file), then model turns and tool calls until the model
// answers or the budget is spent, at which point it is given what its tools
// returned and asked for the final answer with no tool offered. Every call
// counts against the budget, several calls in one turn included; calls
// beyond it are answered "budget exhausted" without being run. A
// context-length error ends the task at once with status context_length.
//
// Agent.RunBatch runs tasks concurrently into a reports directory, one
// <task_id>.json per task written atomically when the task ends: a rerun
// skips finished tasks and retries failed ones, and never overwrites or
// truncates a finished report.
package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/search"
)

// Model answers one request; *llm.Client implements it (with the cache,
// retries, rate limits, budget and ledger).
type Model interface {
	Generate(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Defaults applied to zero Options fields.
const (
	DefaultSearchResults = 10
	DefaultReadChars     = 20000
	DefaultMaxTokens     = 8192
)

// Options configure an Agent.
type Options struct {
	Model Model
	// ModelName is the model spec recorded with each task (provider:model).
	ModelName string
	// Searcher and Reader are the tools; both are required unless Native
	// is set or MaxToolCalls is 0. SearchName and ReaderName are recorded.
	Searcher   search.Searcher
	Reader     search.Reader
	SearchName string
	ReaderName string
	// Native uses the provider's own web search (Request.WebSearch) instead
	// of the function tools. The budget is passed to the provider as its
	// search cap (OpenAI max_tool_calls, Anthropic max_uses); Gemini
	// grounding has no cap, so there the provider decides. Native with a
	// budget of 0 runs without search.
	Native bool
	// MaxToolCalls is the tool-call budget per task (0: no tools).
	MaxToolCalls int
	// SearchResults is how many results a search returns (default 10).
	SearchResults int
	// ReadChars is how much of a page the model is shown, in characters
	// (default 20000; negative: all of it).
	ReadChars int
	// MaxTokens caps each answer (default 8192).
	MaxTokens int
	// Template renders the prompts (default: the built-in template).
	Template *Template
	// Now is the clock for record timestamps (default time.Now).
	Now func() time.Time
}

// Agent runs tasks with one configuration. It is safe for concurrent use.
type Agent struct {
	o     Options
	tools []llm.Tool
	mode  string
}

// New checks opts and returns an Agent.
func New(opts Options) (*Agent, error) {
	if opts.Model == nil {
		return nil, fmt.Errorf("agent: no model: %w", claimtrace.ErrInvalid)
	}
	if opts.MaxToolCalls < 0 {
		return nil, fmt.Errorf("agent: max tool calls %d: %w", opts.MaxToolCalls, claimtrace.ErrInvalid)
	}
	if opts.SearchResults <= 0 {
		opts.SearchResults = DefaultSearchResults
	}
	switch {
	case opts.ReadChars == 0:
		opts.ReadChars = DefaultReadChars
	case opts.ReadChars < 0:
		opts.ReadChars = 0
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Template == nil {
		t, err := DefaultTemplate()
		if err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		opts.Template = t
	}
	a := &Agent{o: opts, mode: SearchNone}
	switch {
	case opts.Native && opts.MaxToolCalls > 0:
		a.mode = SearchNative
		a.o.SearchName, a.o.ReaderName = SearchNative, ""
	case opts.MaxToolCalls > 0:
		if opts.Searcher == nil || opts.Reader == nil {
			return nil, fmt.Errorf("agent: a searcher and a reader are needed for %d tool calls: %w", opts.MaxToolCalls, claimtrace.ErrInvalid)
		}
		a.mode = SearchFunction
		a.tools = Tools()
	default:
		a.o.SearchName, a.o.ReaderName = SearchNone, ""
	}
	return a, nil
}

// MaxToolCalls returns the agent's budget.
func (a *Agent) MaxToolCalls() int { return a.o.MaxToolCalls }

// FatalError stops a batch: every further task would fail the same way
// (a rejected key, an exhausted quota or run budget, an unknown model).
type FatalError struct{ Err error }

// Error returns the cause's message.
func (e *FatalError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *FatalError) Unwrap() error { return e.Err }

// fatal reports whether err dooms every further task.
func fatal(err error) bool {
	return search.Fatal(err) || errors.Is(err, llm.ErrAuth) || errors.Is(err, llm.ErrQuota) ||
		errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, claimtrace.ErrBudget)
}

// Run runs one task and returns its record: done with the answer, or
// failed with the reason. The error is the context's when ctx ends (the
// task is then unfinished and nothing should be written), or a
// *FatalError, returned together with the failed record, when the run
// cannot go on.
func (a *Agent) Run(ctx context.Context, task claimtrace.Task) (*Record, error) {
	start := a.o.Now()
	rec := &Record{
		TaskID: task.ArXivID, Title: task.Title, Status: StatusFailed,
		Model: a.o.ModelName, Search: a.o.SearchName, Reader: a.o.ReaderName,
		MaxToolCalls: a.o.MaxToolCalls, TemplateSHA256: a.o.Template.SHA256, Tools: a.tools,
		StartedAt: start.UTC(), Version: Version,
	}
	finish := func(err error) (*Record, error) {
		rec.FinishedAt = a.o.Now().UTC()
		rec.LatencyMS = rec.FinishedAt.Sub(rec.StartedAt).Milliseconds()
		if err == nil {
			return rec, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rec.Status, rec.Response = StatusFailed, ""
		switch {
		case errors.Is(err, llm.ErrContextLength):
			rec.Status = StatusContextLength
		case errors.Is(err, claimtrace.ErrBudget):
			rec.Status = StatusBudget
		}
		rec.Error = err.Error()
		if fatal(err) {
			return rec, &FatalError{Err: err}
		}
		return rec, nil
	}

	data := PromptData{Prompt: task.Prompt, Title: task.Title, TaskID: task.ArXivID, MaxToolCalls: a.o.MaxToolCalls, Search: a.mode, Tools: len(a.tools) > 0}
	prompt, err := a.o.Template.Prompt(data)
	if err != nil {
		return finish(fmt.Errorf("task %s: %w", task.ArXivID, err))
	}
	system, err := a.o.Template.System(data)
	if err != nil {
		return finish(fmt.Errorf("task %s: %w", task.ArXivID, err))
	}
	rec.Prompt, rec.System = prompt, system
	if system != "" {
		rec.Transcript = append(rec.Transcript, Turn{Role: "system", Content: system})
	}
	rec.Transcript = append(rec.Transcript, Turn{Role: "user", Content: prompt})

	msgs := []llm.Message{llm.UserMessage(prompt)}
	var notes []note
	used := 0
	for round := 0; ; round++ {
		// Each round before the last runs at least one counted call, so
		// there are at most MaxToolCalls+1 rounds; the check keeps a paid
		// loop impossible even if that ever stopped being true.
		if round > a.o.MaxToolCalls+1 {
			return finish(fmt.Errorf("task %s: the tool loop ran %d rounds for a budget of %d", task.ArXivID, round, a.o.MaxToolCalls))
		}
		final := len(a.tools) == 0 || used >= a.o.MaxToolCalls
		req := llm.Request{Stage: "agent", System: system, Messages: msgs, MaxTokens: a.o.MaxTokens, WebSearch: a.mode == SearchNative}
		if req.WebSearch {
			req.MaxSearches = a.o.MaxToolCalls
		}
		if !final {
			req.Tools = a.tools
		} else if len(a.tools) > 0 {
			// The budget is spent. Providers refuse a conversation holding
			// tool calls when no tool is declared (Anthropic: "Requests which
			// include tool_use or tool_result blocks must define tools"), so
			// the exchanges are written out as text in one final message.
			fd := data
			fd.Tools = false
			if req.System, err = a.o.Template.System(fd); err != nil {
				return finish(fmt.Errorf("task %s: %w", task.ArXivID, err))
			}
			msg, err := a.o.Template.Final(FinalData{Prompt: prompt, Notes: renderNotes(notes), Used: used, MaxToolCalls: a.o.MaxToolCalls})
			if err != nil {
				return finish(fmt.Errorf("task %s: %w", task.ArXivID, err))
			}
			req.Messages = []llm.Message{llm.UserMessage(msg)}
			if req.System != system {
				rec.Transcript = append(rec.Transcript, Turn{Role: "system", Content: req.System})
			}
			rec.Transcript = append(rec.Transcript, Turn{Role: "user", Content: msg, Final: true})
		}

		resp, err := a.o.Model.Generate(ctx, req)
		info := callInfo(req, resp, err)
		if err != nil {
			rec.Transcript = append(rec.Transcript, Turn{Role: "assistant", Call: info})
			return finish(fmt.Errorf("task %s: model call %d: %w", task.ArXivID, rec.Usage.Calls+1, err))
		}
		rec.Usage.Add(resp)
		if resp.Model != "" {
			rec.ServedModel = resp.Model
		}
		turn := Turn{Role: "assistant", Content: resp.Text, Call: info}
		for _, tc := range resp.ToolCalls {
			turn.ToolCalls = append(turn.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		}
		rec.Transcript = append(rec.Transcript, turn)

		if final || len(resp.ToolCalls) == 0 {
			text := resp.Text
			if a.mode == SearchNative && len(resp.Citations) > 0 {
				rec.Citations = resp.Citations
				text = InsertCitations(text, resp.Citations)
			}
			if strings.TrimSpace(text) == "" {
				why := "finish reason " + or(resp.FinishReason, "unknown")
				if len(resp.ToolCalls) > 0 {
					why = "it asked for tools after the budget was spent"
				}
				return finish(fmt.Errorf("task %s: the model's final answer is empty (%s)", task.ArXivID, why))
			}
			rec.Status, rec.Response, rec.Truncated = StatusDone, text, resp.Truncated()
			return finish(nil)
		}

		msgs = append(msgs, llm.AssistantMessage(resp.Text, resp.ToolCalls...))
		if strings.TrimSpace(resp.Text) != "" {
			notes = append(notes, note{content: strings.TrimSpace(resp.Text)})
		}
		for _, tc := range resp.ToolCalls {
			var content string
			var tt Turn
			if used >= a.o.MaxToolCalls {
				content = budgetMessage
				tt = Turn{Role: "tool", ToolCallID: tc.ID, Tool: tc.Name, Outcome: OutcomeBudget, Content: content}
			} else {
				used++
				rec.ToolCalls = used
				var terr error
				content, tt, terr = a.exec(ctx, tc)
				if terr != nil {
					rec.Transcript = append(rec.Transcript, tt)
					return finish(fmt.Errorf("task %s: tool call %d: %w", task.ArXivID, used, terr))
				}
			}
			msgs = append(msgs, llm.ToolResultMessage(tc, content))
			rec.Transcript = append(rec.Transcript, tt)
			notes = append(notes, note{call: callLabel(tc), content: content})
		}
	}
}

// callInfo describes one model call for the transcript.
func callInfo(req llm.Request, resp llm.Response, err error) *CallInfo {
	ci := &CallInfo{
		Model: resp.Model, FinishReason: resp.FinishReason, ToolsOffered: len(req.Tools) > 0, WebSearch: req.WebSearch,
		Messages: len(req.Messages), Usage: resp.Usage, CostUSD: resp.Cost, LatencyMS: resp.Latency.Milliseconds(),
		CacheHit: resp.CacheHit, Attempts: resp.Attempts, Searches: resp.Searches, Sources: resp.Sources,
	}
	if err != nil {
		ci.Error = err.Error()
		var e *llm.Error
		if errors.As(err, &e) {
			ci.Attempts = e.Attempts
		}
	}
	return ci
}
