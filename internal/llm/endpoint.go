package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
)

// Default base URLs of the public APIs.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultGeminiBaseURL    = "https://generativelanguage.googleapis.com/"
	DefaultAnthropicBaseURL = "https://api.anthropic.com/"
)

// DefaultTimeout bounds one attempt when Endpoint.Timeout is zero.
const DefaultTimeout = 10 * time.Minute

// OpenAI API flavours (Endpoint.API).
const (
	APIAuto      = ""          // chat completions, or Responses when the request wants web search
	APIChat      = "chat"      // always chat completions (what compatible servers speak)
	APIResponses = "responses" // always the Responses API
)

// Endpoint says how to reach one model. The key travels only here and in
// request headers: it is never part of an error message or a log line.
type Endpoint struct {
	// Name is how the user named the endpoint: a config name or the spec.
	Name     string
	Provider Provider
	Model    string
	// BaseURL overrides the provider's public endpoint (Azure, vLLM, Ollama,
	// a test server). Empty means the public API.
	BaseURL string
	APIKey  string `json:"-"`
	// KeyEnv names the environment variable the key comes from; it is only
	// used in messages ("set OPENAI_API_KEY").
	KeyEnv string
	// API selects the OpenAI API flavour (APIAuto, APIChat, APIResponses).
	API string
	// NoStructuredOutput stops sending the provider's native JSON-schema
	// mode (for servers or models that reject it); answers are then
	// extracted and validated tolerantly from plain text.
	NoStructuredOutput bool
	// Timeout bounds one attempt (default DefaultTimeout).
	Timeout time.Duration
	// HTTPClient is the client the SDK uses (default: a fresh http.Client).
	// The Model wraps its transport to observe status codes and headers.
	HTTPClient *http.Client
}

// String names the endpoint as "provider:model".
func (e Endpoint) String() string { return string(e.Provider) + ":" + e.Model }

// ParseSpec splits a model spec "provider:model" ("openai:gpt-4o",
// "gemini:gemini-2.5-pro", "anthropic:claude-sonnet-4-5"). Model names may
// themselves contain colons ("openai:llama3.1:8b" for Ollama).
func ParseSpec(spec string) (Provider, string, error) {
	p, model, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok || model == "" {
		return "", "", fmt.Errorf("model spec %q: want provider:model (openai:…, gemini:…, anthropic:…) or a model name from the config file: %w", spec, claimtrace.ErrInvalid)
	}
	switch prov := Provider(strings.ToLower(p)); prov {
	case OpenAI, Gemini, Anthropic:
		return prov, model, nil
	case "google":
		return Gemini, model, nil
	default:
		return "", "", fmt.Errorf("model spec %q: unknown provider %q (want openai, gemini or anthropic): %w", spec, p, claimtrace.ErrInvalid)
	}
}

// DefaultKeyEnv returns the standard environment variables holding a
// provider's key, in order of preference.
func DefaultKeyEnv(p Provider) []string {
	switch p {
	case OpenAI:
		return []string{"OPENAI_API_KEY"}
	case Gemini:
		return []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}
	case Anthropic:
		return []string{"ANTHROPIC_API_KEY"}
	}
	return nil
}

// defaultBaseURL returns the public API base URL of p.
func defaultBaseURL(p Provider) string {
	switch p {
	case OpenAI:
		return DefaultOpenAIBaseURL
	case Gemini:
		return DefaultGeminiBaseURL
	case Anthropic:
		return DefaultAnthropicBaseURL
	}
	return ""
}

// baseURL returns the effective base URL.
func (e Endpoint) baseURL() string {
	if e.BaseURL != "" {
		return e.BaseURL
	}
	return defaultBaseURL(e.Provider)
}

// public reports whether the endpoint is the provider's public API (which
// always needs a key), rather than a self-hosted compatible server.
func (e Endpoint) public() bool {
	return e.BaseURL == "" || strings.TrimRight(e.BaseURL, "/") == strings.TrimRight(defaultBaseURL(e.Provider), "/")
}

func (e Endpoint) timeout() time.Duration {
	if e.Timeout > 0 {
		return e.Timeout
	}
	return DefaultTimeout
}

// httpClient returns a copy of the endpoint's HTTP client whose transport
// records each response's status, headers and error body for classification.
func (e Endpoint) httpClient() *http.Client {
	var c http.Client
	if e.HTTPClient != nil {
		c = *e.HTTPClient
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &recordingTransport{next: next}
	return &c
}

// NewModel returns the Model speaking ep's provider protocol through the
// official SDK, with the SDK's own retries disabled (the Client retries and
// counts). A missing key is an ErrAuth error naming the variable to set,
// except for OpenAI-compatible servers at a custom base URL, which often
// need none.
func NewModel(ctx context.Context, ep Endpoint) (Model, error) {
	if ep.Model == "" {
		return nil, fmt.Errorf("endpoint %s: no model name: %w", ep.Name, claimtrace.ErrInvalid)
	}
	if ep.APIKey == "" && (ep.Provider != OpenAI || ep.public()) {
		env := ep.KeyEnv
		if env == "" {
			env = strings.Join(DefaultKeyEnv(ep.Provider), " or ")
		}
		return nil, &Error{Provider: ep.Provider, Model: ep.Model, Kind: ErrAuth, msg: "no API key: set " + env}
	}
	switch ep.Provider {
	case OpenAI:
		return newOpenAIModel(ep), nil
	case Gemini:
		return newGeminiModel(ctx, ep)
	case Anthropic:
		return newAnthropicModel(ep), nil
	}
	return nil, fmt.Errorf("endpoint %s: unknown provider %q: %w", ep.Name, ep.Provider, claimtrace.ErrInvalid)
}

// GoString keeps %#v from printing the key.
func (e Endpoint) GoString() string {
	key := "unset"
	if e.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Endpoint{Name:%q, Provider:%q, Model:%q, BaseURL:%q, APIKey:%s, KeyEnv:%q, API:%q}", e.Name, e.Provider, e.Model, e.BaseURL, key, e.KeyEnv, e.API)
}
