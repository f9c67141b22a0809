package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/search"
)

// Tool names the model calls.
const (
	ToolSearch = "search"
	ToolRead   = "read"
)

// Tool outcomes recorded on tool turns.
const (
	OutcomeOK           = "ok"
	OutcomeError        = "error"
	OutcomeBadArguments = "bad_arguments"
	OutcomeUnknownTool  = "unknown_tool"
	OutcomeBudget       = "budget_exhausted"
)

// Tools returns the function declarations offered to the model.
func Tools() []llm.Tool {
	return []llm.Tool{
		{
			Name:        ToolSearch,
			Description: "Search the web. Returns the titles, URLs and snippets of the top results.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"The search query."}},"required":["query"]}`),
		},
		{
			Name:        ToolRead,
			Description: "Read a web page. Returns its title and main text (long pages are cut).",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","description":"The absolute http(s) URL of the page."}},"required":["url"]}`),
		},
	}
}

// budgetMessage is the tool result of a call made beyond the budget.
const budgetMessage = "Not run: the tool-call budget is exhausted. Write your final answer with what you have."

// exec runs one tool call and returns what the model is shown and the
// transcript turn. The error is non-nil only for cancellation and for
// failures that doom the whole run (a bad search key, a spent quota); any
// other failure is a tool result the model reads.
func (a *Agent) exec(ctx context.Context, tc llm.ToolCall) (string, Turn, error) {
	start := time.Now()
	turn := Turn{Role: "tool", ToolCallID: tc.ID, Tool: tc.Name, Outcome: OutcomeOK}
	content, err := a.run(ctx, tc, &turn)
	turn.DurationMS = time.Since(start).Milliseconds()
	turn.Content = content
	return content, turn, err
}

// cachingSearcher and cachingReader are tools that say when an answer came
// from the run's cache (search.CachedSearcher, search.CachedReader).
type cachingSearcher interface {
	SearchCached(ctx context.Context, query string, n int) ([]search.Result, bool, error)
}

type cachingReader interface {
	ReadCached(ctx context.Context, url string) (title, text string, hit bool, err error)
}

func (a *Agent) run(ctx context.Context, tc llm.ToolCall, turn *Turn) (string, error) {
	switch tc.Name {
	case ToolSearch:
		var args struct {
			Query string `json:"query"`
		}
		if err := ParseArguments(tc.Arguments, &args); err != nil || strings.TrimSpace(args.Query) == "" {
			turn.Outcome = OutcomeBadArguments
			turn.Error = "want {\"query\": \"…\"}"
			return `Error: search needs a JSON object {"query": "<search terms>"}.`, nil
		}
		turn.Query = args.Query
		var rs []search.Result
		var err error
		if cs, ok := a.o.Searcher.(cachingSearcher); ok {
			rs, turn.CacheHit, err = cs.SearchCached(ctx, args.Query, a.o.SearchResults)
		} else {
			rs, err = a.o.Searcher.Search(ctx, args.Query, a.o.SearchResults)
		}
		if err != nil {
			if ctx.Err() != nil || search.Fatal(err) {
				turn.Outcome, turn.Error = OutcomeError, err.Error()
				return "", err
			}
			turn.Outcome, turn.Error = OutcomeError, err.Error()
			return "Error: the search failed: " + err.Error(), nil
		}
		turn.Results = rs
		return FormatResults(args.Query, rs), nil
	case ToolRead:
		var args struct {
			URL string `json:"url"`
		}
		if err := ParseArguments(tc.Arguments, &args); err != nil || strings.TrimSpace(args.URL) == "" {
			turn.Outcome = OutcomeBadArguments
			turn.Error = "want {\"url\": \"…\"}"
			return `Error: read needs a JSON object {"url": "<absolute http(s) URL>"}.`, nil
		}
		u := strings.TrimSpace(args.URL)
		turn.URL = u
		var title, text string
		var err error
		if cr, ok := a.o.Reader.(cachingReader); ok {
			title, text, turn.CacheHit, err = cr.ReadCached(ctx, u)
		} else {
			title, text, err = a.o.Reader.Read(ctx, u)
		}
		if err != nil {
			if ctx.Err() != nil || search.Fatal(err) {
				turn.Outcome, turn.Error = OutcomeError, err.Error()
				return "", err
			}
			turn.Outcome, turn.Error = OutcomeError, err.Error()
			return "Error: could not read " + u + ": " + err.Error(), nil
		}
		cut, total, truncated := TruncateChars(text, a.o.ReadChars)
		turn.Title, turn.PageChars, turn.Truncated = title, total, truncated
		return FormatPage(u, title, cut, total, truncated), nil
	}
	turn.Outcome = OutcomeUnknownTool
	turn.Error = "no tool named " + tc.Name
	return fmt.Sprintf("Error: there is no tool %q; the tools are %s and %s.", tc.Name, ToolSearch, ToolRead), nil
}

// ParseArguments decodes a tool call's arguments into v. Models sometimes
// send the JSON object as a JSON string; that is accepted too.
func ParseArguments(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		raw = []byte(s)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("arguments are not a JSON object")
	}
	return json.Unmarshal(raw, v)
}

// FormatResults renders search results for the model.
func FormatResults(query string, rs []search.Result) string {
	if len(rs) == 0 {
		return fmt.Sprintf("No results for %q.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Search results for %q:\n", query)
	for i, r := range rs {
		fmt.Fprintf(&b, "\n%d. %s\n   URL: %s\n", i+1, or(r.Title, "(no title)"), r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// FormatPage renders a page for the model.
func FormatPage(u, title, text string, total int, truncated bool) string {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "Title: %s\n", title)
	}
	fmt.Fprintf(&b, "URL: %s\n\n%s", u, text)
	if truncated {
		fmt.Fprintf(&b, "\n\n[Cut: the first %d of %d characters are shown.]", utf8.RuneCountInString(text), total)
	}
	return b.String()
}

// TruncateChars cuts s to at most n characters (runes), preferring to cut
// at a space near the limit, and returns the total character count. n <= 0
// means no limit.
func TruncateChars(s string, n int) (cut string, total int, truncated bool) {
	total = utf8.RuneCountInString(s)
	if n <= 0 || total <= n {
		return s, total, false
	}
	// Byte offset of the n-th rune.
	end, i := 0, 0
	for end < len(s) && i < n {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
		i++
	}
	cut = s[:end]
	// Back off to the last space within the final 200 bytes, so a word is
	// not split.
	if k := strings.LastIndexFunc(cut[max(0, len(cut)-200):], unicode.IsSpace); k >= 0 {
		cut = cut[:max(0, len(cut)-200)+k]
	}
	return strings.TrimRightFunc(cut, unicode.IsSpace), total, true
}

// note is one tool exchange, kept to write the final message.
type note struct {
	call    string // search("…") or read(url), or "" for the model's own words
	content string
}

// renderNotes writes the exchanges as the final message's notes.
func renderNotes(ns []note) string {
	var b strings.Builder
	k := 0
	for _, n := range ns {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if n.call == "" {
			fmt.Fprintf(&b, "Your note: %s", n.content)
			continue
		}
		k++
		fmt.Fprintf(&b, "[%d] %s\n%s", k, n.call, n.content)
	}
	return b.String()
}

// callLabel describes a tool call for the notes.
func callLabel(tc llm.ToolCall) string {
	var args map[string]any
	if ParseArguments(tc.Arguments, &args) == nil {
		switch tc.Name {
		case ToolSearch:
			if q, ok := args["query"].(string); ok {
				return fmt.Sprintf("search(%q)", q)
			}
		case ToolRead:
			if u, ok := args["url"].(string); ok {
				return "read(" + u + ")"
			}
		}
	}
	return tc.Name + "(" + truncate(string(tc.Arguments), 200) + ")"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
