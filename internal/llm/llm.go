// Package llm calls language models through the providers' official SDKs
// (OpenAI and every OpenAI-compatible server, Gemini, Anthropic) behind one
// small interface, and makes every call safe to pay for: answers are cached
// by a hash of everything that determines them, failures are classified
// (rate limits and transient faults are retried with backoff, context-length,
// auth and bad-request errors are not), requests and tokens per minute and
// concurrent calls are limited per endpoint, a run budget stops new calls
// cleanly, and each call (or cache hit) is accounted for in a Ledger with
// its tokens, latency, attempts and cost.
//
// A Model speaks one provider's wire protocol; a Client wraps a Model with
// the cache, retries, limits, budget and accounting. Callers use the Client.
// Nothing here reads the environment: keys and base URLs arrive in Endpoint.
package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Provider names an API family.
type Provider string

// Supported providers.
const (
	OpenAI    Provider = "openai"    // OpenAI and OpenAI-compatible servers (Azure, vLLM, Ollama, llama.cpp, OpenRouter…)
	Gemini    Provider = "gemini"    // Google Gemini API (generateContent)
	Anthropic Provider = "anthropic" // Anthropic Messages API
)

// Role is the author of a message.
type Role string

// Message roles. System text goes in Request.System, not in a message.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // the result of one tool call, answering ToolCallID
)

// Message is one turn of a conversation. An assistant turn may carry the
// tool calls the model made; a tool turn carries the result of one call.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant turn made (send them back
	// unchanged, including Signature, when continuing the conversation).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and Name identify the call a tool turn answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// UserMessage returns a user turn.
func UserMessage(text string) Message { return Message{Role: RoleUser, Content: text} }

// AssistantMessage returns an assistant turn: the model's earlier answer,
// with the tool calls it made, if any.
func AssistantMessage(text string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Content: text, ToolCalls: calls}
}

// ToolResultMessage returns the tool turn answering call with result.
func ToolResultMessage(call ToolCall, result string) Message {
	return Message{Role: RoleTool, Content: result, ToolCallID: call.ID, Name: call.Name}
}

// Tool declares a function the model may call. Parameters is a JSON Schema
// object describing the arguments.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is one function call requested by the model. Arguments is the
// JSON object the model produced (not validated). Signature is opaque
// provider state (Gemini's thought signature) that must be sent back with
// the call.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Signature []byte          `json:"signature,omitempty"`
}

// Schema asks for structured output: the answer must be one JSON value
// valid against the JSON Schema in JSON. Providers with native structured
// output enforce it; the Client validates it in every case.
type Schema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	JSON        json.RawMessage `json:"schema"`
	// Strict requests the provider's strict mode (OpenAI): every property
	// required and additionalProperties false in the schema.
	Strict bool `json:"strict,omitempty"`
}

// Request is one model call. Everything except Stage is part of the cache
// key, so two requests with equal fields get the same cached answer;
// CacheTag tells apart requests that must not share one (the i-th of n
// independent votes).
type Request struct {
	// Stage says what the call is for (judge, fact_check, extract, check,
	// agent…); it is recorded in the ledger, not hashed.
	Stage    string
	System   string
	Messages []Message
	// Schema requests structured JSON output (see Client.GenerateJSON).
	Schema *Schema
	// Tools are functions the model may call.
	Tools []Tool
	// WebSearch enables the provider's own web search (OpenAI web_search via
	// the Responses API, Gemini Google Search grounding, Anthropic web search
	// tool); citations come back in Response.Citations.
	WebSearch bool
	// MaxSearches caps the provider's own searches in this request when
	// WebSearch is set: OpenAI max_tool_calls, Anthropic max_uses (default 5).
	// Gemini grounding has no such control and ignores it; 0 means the
	// provider default.
	MaxSearches int
	Temperature *float64
	// MaxTokens caps the answer; 0 means the provider default (Anthropic,
	// which requires one, gets DefaultMaxTokens).
	MaxTokens int
	Seed      *int
	CacheTag  string
	// TopLogprobs, when positive, asks for the log-probability of each
	// answer token and of the TopLogprobs likeliest tokens at its place
	// (at most MaxTopLogprobs): OpenAI chat completions and the compatible
	// servers that implement it (vLLM, recent Ollama). Other providers and
	// APIs ignore it; Response.Logprobs is then empty.
	TopLogprobs int
}

// MaxTopLogprobs is the most alternatives a request may ask for (the
// OpenAI API's limit).
const MaxTopLogprobs = 20

// DefaultMaxTokens is the answer cap sent to providers that require one
// when the request sets none.
const DefaultMaxTokens = 4096

// Finish reasons, normalised across providers.
const (
	FinishStop     = "stop"
	FinishLength   = "length" // the answer hit MaxTokens and is cut off
	FinishToolUse  = "tool_calls"
	FinishFiltered = "content_filter"
)

// Response is a model's answer.
type Response struct {
	Text      string     `json:"text"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Citations locate cited web sources in Text (web search answers).
	Citations []WebCitation `json:"citations,omitempty"`
	// Sources are all web pages the provider's search returned or consulted,
	// cited or not.
	Sources []WebSource `json:"sources,omitempty"`
	// Searches are the web search queries the provider ran.
	Searches []string `json:"searches,omitempty"`
	Usage    Usage    `json:"usage"`
	// Model is the model name the provider reports (often a dated version).
	Model        string `json:"model,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	// Logprobs are the answer's tokens with their log-probabilities, when
	// the request asked for them (TopLogprobs) and the server gave them.
	Logprobs []TokenLogprob `json:"logprobs,omitempty"`

	// Filled in by the Client, not stored in the cache. On a cache hit
	// Usage is the original call's (nothing was spent: Cost is 0).
	Key      string        `json:"-"` // cache key
	CacheHit bool          `json:"-"`
	Attempts int           `json:"-"`
	Latency  time.Duration `json:"-"`
	Cost     float64       `json:"-"` // USD; 0 on a cache hit or when the model has no price
}

// TokenLogprob is one answer token, its natural log-probability, and the
// likeliest tokens at its place with theirs (the token itself among them
// when it is one of the likeliest).
type TokenLogprob struct {
	Token   string         `json:"token"`
	Logprob float64        `json:"logprob"`
	Top     []TokenLogprob `json:"top,omitempty"`
}

// Truncated reports whether the answer was cut off at the token cap.
func (r Response) Truncated() bool { return r.FinishReason == FinishLength }

// WebCitation is one cited web source attached to a span of the answer.
// Start and End are byte offsets into Response.Text (UTF-8), End exclusive;
// both are 0 when the provider gives no location. Text is the cited span of
// the answer (Gemini), or the quoted source text (Anthropic cited_text).
type WebCitation struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text,omitempty"`
}

// WebSource is a web page a search returned.
type WebSource struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Usage counts tokens of one call, normalised across providers:
// InputTokens includes CachedTokens, OutputTokens includes ReasoningTokens.
// WebSearches counts billed searches (OpenAI web_search calls, Anthropic
// web_search_requests, one per grounded Gemini request).
type Usage struct {
	InputTokens     int64 `json:"input_tokens"`
	OutputTokens    int64 `json:"output_tokens"`
	CachedTokens    int64 `json:"cached_tokens"`
	ReasoningTokens int64 `json:"reasoning_tokens"`
	WebSearches     int64 `json:"web_searches,omitempty"`
}

// Model is one provider endpoint speaking its wire protocol. Generate makes
// exactly one attempt: retries, limits and caching belong to the Client.
type Model interface {
	Generate(ctx context.Context, req Request) (Response, error)
}
