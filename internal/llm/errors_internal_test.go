package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterHeader(t *testing.T) {
	tests := []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"2500"}}, 2500 * time.Millisecond},
		{http.Header{"Retry-After": {"-1"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header); got != tt.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
	future := http.Header{"Retry-After": {time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}}
	if got := retryAfter(future); got < 80*time.Second || got > 90*time.Second {
		t.Errorf("retryAfter(HTTP date in 90s) = %v", got)
	}
}

func TestContextTooLongIsNotARateLimit(t *testing.T) {
	// The reference code's heuristic matched "maximum" and "exceed" and
	// retried context-length errors forever as rate limits.
	tests := []struct {
		status int
		body   string
		want   error
	}{
		{400, `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, ErrContextLength},
		{400, `{"error":{"message":"maximum context length is 4096 tokens, however you requested 5000 tokens","type":"BadRequestError","code":400}}`, ErrContextLength},    // vLLM
		{400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, ErrContextLength}, // llama.cpp
		{413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`, ErrContextLength},
		{429, `{"error":{"message":"You exceeded the maximum requests per minute.","type":"requests","code":"rate_limit_exceeded"}}`, ErrRateLimit},
		{400, `{"error":{"message":"Invalid 'max_tokens': exceeds maximum value.","type":"invalid_request_error"}}`, ErrBadRequest},
	}
	for _, tt := range tests {
		tr := &attemptTrace{status: tt.status, body: []byte(tt.body)}
		err := classify(context.Background(), OpenAI, "m", errors.New("sdk error"), tr, "")
		if !errors.Is(err, tt.want) {
			t.Errorf("classify(%d %s) = %v, want %v", tt.status, tt.body, err, tt.want)
		}
	}
}

func TestScrub(t *testing.T) {
	tests := []struct{ in, key, want string }{
		{"bad key abc123XYZ given", "abc123XYZ", "bad key [REDACTED] given"},
		{`GET https://x.example/v1?key=AIzaSyA-secret&alt=json`, "", `GET https://x.example/v1?key=[REDACTED]&alt=json`},
		{"Authorization: Bearer sk-proj-abcdef", "", "Authorization: Bearer [REDACTED]"},
		{"Incorrect API key provided: sk-proj-1234567890abcdef.", "", "Incorrect API key provided: sk-[REDACTED]."},
		{"nothing here", "k", "nothing here"}, // keys under 4 bytes are not replaced blindly
	}
	for _, tt := range tests {
		if got := scrub(tt.in, tt.key); got != tt.want {
			t.Errorf("scrub(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add(429, []byte(`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}`), "1")
	f.Add(400, []byte(`{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}`), "")
	f.Add(529, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), "")
	f.Add(502, []byte(`<html>bad gateway</html>`), "")
	f.Add(401, []byte(`{"error":{"message":"Incorrect API key provided: SECRETKEY123"}}`), "")
	f.Add(200, []byte(`{"choices":[`), "")
	f.Add(0, []byte(nil), "")
	const key = "SECRETKEY123"
	kinds := []error{ErrRateLimit, ErrTransient, ErrContextLength, ErrAuth, ErrQuota, ErrBadRequest, ErrModelNotFound}
	f.Fuzz(func(t *testing.T, status int, body []byte, retry string) {
		tr := &attemptTrace{status: status, body: body, header: http.Header{"Retry-After": {retry}}}
		err := classify(context.Background(), Gemini, "m", errors.New("sdk said "+key), tr, key)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("classify returned %T", err)
		}
		found := false
		for _, k := range kinds {
			if e.Kind == k {
				found = true
			}
		}
		if !found {
			t.Fatalf("kind %v is not one of the error kinds", e.Kind)
		}
		if strings.Contains(e.Error(), key) {
			t.Fatalf("message leaks the key: %s", e.Error())
		}
		if e.RetryAfter < 0 {
			t.Fatalf("negative RetryAfter %v", e.RetryAfter)
		}
	})
}
