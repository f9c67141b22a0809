package llmtest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/llm"
)

// Endpoint returns an endpoint of the server speaking protocol p (OpenAI
// through the chat completions API), with a test key.
func (s *Server) Endpoint(p llm.Provider, model string) llm.Endpoint {
	ep := llm.Endpoint{Name: string(p) + ":" + model, Provider: p, Model: model, BaseURL: s.URL, APIKey: "test-key", Timeout: 5 * time.Second}
	if p == llm.OpenAI {
		ep.BaseURL, ep.API = s.OpenAIBaseURL(), llm.APIChat
	}
	return ep
}

// Client returns a real client of the server's endpoint for p and model
// that retries without waiting (at most twice unless opts says otherwise).
func (s *Server) Client(tb testing.TB, p llm.Provider, model string, opts llm.Options) *llm.Client {
	tb.Helper()
	opts.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	if opts.Retry.MaxAttempts == 0 {
		opts.Retry.MaxAttempts = 2
	}
	c, err := llm.Open(context.Background(), s.Endpoint(p, model), opts)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// OfflineClient returns a client of provider p and model with no
// transport, for tests that only build requests: calling it fails.
func OfflineClient(p llm.Provider, model string) *llm.Client {
	return llm.NewClient(llm.Endpoint{Provider: p, Model: model}, nil, llm.Options{})
}

// ChatRequest is the part of an OpenAI chat completions request that
// tests read.
type ChatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Temperature    *float64        `json:"temperature"`
	MaxTokens      *int            `json:"max_tokens"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Logprobs       bool            `json:"logprobs"`
	TopLogprobs    *int            `json:"top_logprobs"`
}

// Chat decodes the call's body as an OpenAI chat request, failing the
// test when it is not one.
func (c Call) Chat(tb testing.TB) ChatRequest {
	tb.Helper()
	var b ChatRequest
	if err := json.Unmarshal(c.Body, &b); err != nil {
		tb.Fatalf("request body: %v\n%s", err, c.Body)
	}
	return b
}
