package llm_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm"
)

// TestGeminiMalformedAnswers feeds the Gemini client answers a broken or
// hostile endpoint could send. Each is a failure of that call, never a
// panic: the genai SDK itself dereferences a null candidate while
// post-processing an answer.
func TestGeminiMalformedAnswers(t *testing.T) {
	bodies := map[string]string{
		"null candidate":      `{"candidates":[null]}`,
		"null candidates":     `{"candidates":[null,null]}`,
		"null content":        `{"candidates":[{"content":null,"finishReason":"STOP"}]}`,
		"null part":           `{"candidates":[{"content":{"role":"model","parts":[null]}}]}`,
		"null function args":  `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":null}}]}}]}`,
		"no candidates":       `{}`,
		"not an object":       `[1,2,3]`,
		"truncated":           `{"candidates":[{"content":{"parts":[{"text":"ha`,
		"grounding nulls":     `{"candidates":[{"content":{"parts":[{"text":"x"}]},"groundingMetadata":{"groundingChunks":[null],"groundingSupports":[null,{"segment":null}]}}]}`,
		"usage wrong type":    `{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"usageMetadata":"lots"}`,
		"empty text":          `{"candidates":[{"content":{"parts":[{"text":""}]}}]}`,
		"thought only":        `{"candidates":[{"content":{"parts":[{"text":"hidden","thought":true}]}}]}`,
		"finish reason other": `{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"SOMETHING_NEW"}]}`,
	}
	// Answers with nothing to read are transient failures; the others may
	// be read as (possibly empty) answers, but never crash.
	transient := map[string]bool{"null candidate": true, "null candidates": true, "no candidates": true, "not an object": true, "truncated": true}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			ep := llm.Endpoint{Provider: llm.Gemini, Model: "gemini-2.5-flash", BaseURL: srv.URL, APIKey: testKey}
			c, err := llm.Open(t.Context(), ep, llm.Options{Retry: llm.Retry{MaxAttempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			var r llm.Response
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("Generate panicked on %s: %v", body, p)
					}
				}()
				r, err = c.Generate(t.Context(), ask("hello"))
			}()
			var e *llm.Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want an *llm.Error", err, err)
			}
			if transient[name] && !errors.Is(err, llm.ErrTransient) {
				t.Fatalf("err = %v, answer %+v; want a transient error (retried, counted failed if it persists)", err, r)
			}
		})
	}
}
