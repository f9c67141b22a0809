package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/backoff"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// Error kinds, matched with errors.Is. Only ErrRateLimit and ErrTransient
// are retried.
var (
	// ErrRateLimit: 429, Gemini RESOURCE_EXHAUSTED, Anthropic 529
	// overloaded_error. Retried after the delay the provider asks for.
	ErrRateLimit = claimtrace.ErrRateLimit
	// ErrTransient: 5xx, timeouts, connection resets, truncated or
	// undecodable response bodies. Retried with jittered exponential backoff.
	ErrTransient = errors.New("transient provider error")
	// ErrContextLength: the prompt does not fit the model's context. Never
	// retried: the same request can only fail again.
	ErrContextLength = errors.New("context length exceeded")
	// ErrAuth: missing, invalid or unauthorised key (401, 403).
	ErrAuth = claimtrace.ErrAuth
	// ErrQuota: the account is out of credit or quota (OpenAI
	// insufficient_quota, 402). Not retried.
	ErrQuota = claimtrace.ErrQuota
	// ErrBadRequest: the provider rejected the request (400, 413, 422).
	ErrBadRequest = claimtrace.ErrBadRequest
	// ErrModelNotFound: unknown model or endpoint (404). It also matches
	// claimtrace.ErrNotFound.
	ErrModelNotFound = errors.New("model not found")
	// ErrMalformed: the answer is not the JSON that was asked for (after the
	// bounded retries of GenerateJSON). The caller records a failed unit.
	ErrMalformed = errors.New("malformed answer")
)

// Error is a classified failure of a model call. Its message carries the
// provider's explanation with any key scrubbed; the underlying SDK error is
// reachable with errors.As but never printed.
type Error struct {
	Provider Provider
	Model    string
	// Kind is one of the Err* kinds above.
	Kind error
	// Status is the HTTP status (0 when no response arrived).
	Status int
	// Code is the provider's error code or type (context_length_exceeded,
	// RESOURCE_EXHAUSTED, overloaded_error…).
	Code string
	// RetryAfter is the delay the provider asked for (Retry-After,
	// retry-after-ms, Gemini RetryInfo).
	RetryAfter time.Duration
	// Attempts is how many attempts were made before giving up.
	Attempts int

	msg string
	err error
}

// Error describes the failure: provider:model, kind, HTTP status and code,
// the provider's message (keys scrubbed) and the attempts made.
func (e *Error) Error() string {
	return backoff.Describe(string(e.Provider)+":"+e.Model, e.Kind, e.Status, e.Code, e.msg, e.Attempts)
}

// Is matches the error's kind, and claimtrace.ErrNotFound for a missing
// model.
func (e *Error) Is(target error) bool {
	return target == e.Kind || (e.Kind == ErrModelNotFound && target == claimtrace.ErrNotFound)
}

// Unwrap returns the underlying SDK or network error.
func (e *Error) Unwrap() error { return e.err }

// Retryable reports whether another attempt may succeed.
func (e *Error) Retryable() bool { return e.Kind == ErrRateLimit || e.Kind == ErrTransient }

// providerError is the part of the providers' error bodies we read:
// OpenAI {"error":{"message","type","code"}}, Anthropic {"type":"error",
// "error":{"type","message"}}, Gemini {"error":{"code","message","status",
// "details":[{"@type","retryDelay","reason"}]}}.
type providerError struct {
	Error struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  string          `json:"status"`
		Details []struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
			Reason     string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
	// Some servers (llama.cpp, vLLM versions, proxies) answer
	// {"message": "..."} or {"detail": "..."} at the top level.
	Message string `json:"message"`
	Detail  string `json:"detail"`
}

// classify turns the outcome of one attempt into an *Error, using what the
// transport saw. parent is the caller's context: its cancellation is
// returned as is (not a provider failure), while a per-attempt timeout is
// transient.
func classify(parent context.Context, p Provider, model string, err error, tr *attemptTrace, key string) error {
	if perr := parent.Err(); perr != nil {
		return perr
	}
	status, header, body := tr.snapshot()
	e := &Error{Provider: p, Model: model, Status: status, err: err}
	if status == 0 || status < 400 {
		e.Kind = ErrTransient
		what := "network"
		if status != 0 {
			what = "bad response body"
		}
		var nerr net.Error
		if errors.As(err, &nerr) && nerr.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			what = "timeout"
		}
		e.msg = what + ": " + scrub(errString(err), key)
		return e
	}

	var pe providerError
	_ = json.Unmarshal(body, &pe)
	msg := firstNonEmpty(pe.Error.Message, pe.Message, pe.Detail)
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 200 || !json.Valid(body) && strings.ContainsAny(msg, "<>") {
			msg = http.StatusText(status)
		}
	}
	code := firstNonEmpty(jsonString(pe.Error.Code), pe.Error.Status, pe.Error.Type)
	e.Code = code
	e.msg = scrub(truncate(msg, 500), key)
	e.RetryAfter = retryAfter(header)
	reasons := code + " " + pe.Error.Type
	for _, d := range pe.Error.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") && e.RetryAfter == 0 {
			if d, err := time.ParseDuration(d.RetryDelay); err == nil && d > 0 {
				e.RetryAfter = d
			}
		}
		reasons += " " + d.Reason
	}
	text := strings.ToLower(reasons + " " + msg)

	switch {
	case contextTooLong(status, text):
		e.Kind = ErrContextLength
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		strings.Contains(text, "api_key_invalid") || strings.Contains(text, "invalid_api_key") ||
		strings.Contains(text, "api key not valid") || strings.Contains(text, "incorrect api key"):
		e.Kind = ErrAuth
	case status == http.StatusPaymentRequired || strings.Contains(text, "insufficient_quota") ||
		strings.Contains(text, "credit balance is too low"):
		// Gemini's per-minute 429 also says "exceeded your current quota";
		// it is a rate limit with a RetryInfo delay, handled below.
		e.Kind = ErrQuota
	case status == http.StatusTooManyRequests || status == 529 ||
		strings.Contains(text, "resource_exhausted") || strings.Contains(text, "overloaded_error") || strings.Contains(text, "rate_limit"):
		e.Kind = ErrRateLimit
	case status == http.StatusNotFound:
		e.Kind = ErrModelNotFound
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		e.Kind = ErrTransient
	default:
		e.Kind = ErrBadRequest
	}
	return e
}

// contextTooLong recognises each provider's "prompt too long" error. It
// never matches on a bare "maximum" or "exceed" (the reference code's bug:
// a context-length error looped forever as a rate limit).
func contextTooLong(status int, text string) bool {
	if status == http.StatusRequestEntityTooLarge {
		return true
	}
	for _, s := range []string{
		"context_length_exceeded", // OpenAI code
		"maximum context length",  // OpenAI, vLLM message
		"prompt is too long",      // Anthropic
		"input token count",       // Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)"
		"exceeds the maximum number of tokens",
		"exceeds the context size", // llama.cpp
		"exceed_context_size",      // llama.cpp type
		"context window",           // various
		"request_too_large",        // Anthropic 413 type
		"too many tokens",
	} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// retryAfter reads retry-after-ms (OpenAI, Anthropic) or Retry-After
// (seconds or an HTTP date).
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	return backoff.RetryAfter(h.Get("Retry-After"), time.Now())
}

var (
	keyParamRE = lazyregexp.New(`(?i)([?&](?:key|api_key|api-key)=)[^&\s"']+`)
	bearerRE   = lazyregexp.New(`(?i)(bearer\s+)[^\s"']+`)
	skKeyRE    = lazyregexp.New(`\bsk-[A-Za-z0-9_\-]{12,}`)
)

// scrub removes the key, and anything shaped like a key, from s.
func scrub(s, key string) string {
	if len(key) >= 4 {
		s = strings.ReplaceAll(s, key, "[REDACTED]")
	}
	s = keyParamRE.ReplaceAllString(s, "${1}[REDACTED]")
	s = bearerRE.ReplaceAllString(s, "${1}[REDACTED]")
	return skKeyRE.ReplaceAllString(s, "sk-[REDACTED]")
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// GoString keeps %#v from printing the underlying SDK error, whose fields
// may hold what the provider echoed back.
func (e *Error) GoString() string { return e.Error() }
