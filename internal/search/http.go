package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/backoff"
)

// maxBody caps an API answer: search pages are a few KB, scraped pages
// rarely more than a few MB.
const maxBody = 32 << 20

// request describes one logical API call; build makes a fresh
// *http.Request for each attempt.
type request struct {
	provider string
	op       string
	build    func(ctx context.Context) (*http.Request, error)
}

// do sends r, retrying 429, 5xx and network failures, and returns the body
// of the first 2xx answer. Every other outcome is an *Error (or the
// context's error when ctx ends).
func (o Options) do(ctx context.Context, r request) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		body, retryAfter, err := o.once(ctx, r)
		if err == nil {
			return body, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s %s: %w", r.provider, r.op, ctx.Err())
		}
		var e *Error
		if !errors.As(err, &e) {
			return nil, err
		}
		e.Attempts = attempt
		retryable := e.Kind == ErrRateLimit || e.Kind == claimtrace.ErrUnreachable
		if !retryable || attempt > o.Retries {
			return nil, e
		}
		if err := o.Sleep(ctx, o.wait(attempt, retryAfter)); err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.provider, r.op, err)
		}
	}
}

// once makes one attempt.
func (o Options) once(ctx context.Context, r request) ([]byte, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := r.build(actx)
	if err != nil {
		return nil, 0, &Error{Provider: r.provider, Op: r.op, Kind: claimtrace.ErrInvalid, msg: o.scrub(err.Error())}
	}
	resp, err := o.HTTPClient.Do(req)
	if err != nil {
		// *url.Error prints the request URL, which carries SerpAPI's key:
		// report the cause alone.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		what := "network"
		if errors.Is(err, context.DeadlineExceeded) {
			what = "timeout"
		}
		return nil, 0, &Error{Provider: r.provider, Op: r.op, Kind: claimtrace.ErrUnreachable, msg: what + ": " + o.scrub(err.Error()), err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, 0, &Error{Provider: r.provider, Op: r.op, Kind: claimtrace.ErrUnreachable, Status: resp.StatusCode, msg: "reading the answer: " + o.scrub(err.Error()), err: err}
	}
	if len(body) > maxBody {
		return nil, 0, &Error{Provider: r.provider, Op: r.op, Kind: ErrMalformed, Status: resp.StatusCode, msg: fmt.Sprintf("answer larger than %d bytes", maxBody)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return body, 0, nil
	}
	code, msg := errorInfo(body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	e := &Error{Provider: r.provider, Op: r.op, Status: resp.StatusCode, Code: code, msg: o.scrub(truncate(msg, 300))}
	e.Kind = kindOf(resp.StatusCode, code, msg)
	return nil, backoff.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), e
}

// kindOf classifies a failed HTTP answer.
func kindOf(status int, code, msg string) error {
	text := strings.ToLower(code + " " + msg)
	switch {
	case strings.Contains(text, "subscription_token") || strings.Contains(text, "invalid api key") || strings.Contains(text, "invalid_api_key"):
		return ErrAuth
	case status == http.StatusPaymentRequired || status == 432 || status == 433 ||
		strings.Contains(text, "quota_limited") || strings.Contains(text, "run out of searches") || strings.Contains(text, "insufficient credits"):
		return ErrQuota
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrAuth
	case status == http.StatusTooManyRequests:
		return ErrRateLimit
	case status >= 500 || status == http.StatusRequestTimeout:
		return claimtrace.ErrUnreachable
	}
	return ErrBadRequest
}

// wait returns the delay before attempt+1: the provider's Retry-After when
// it gave one, else jittered exponential backoff; both capped at MaxWait.
func (o Options) wait(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, o.MaxWait)
	}
	return backoff.Delay(o.Backoff, o.MaxWait, attempt-1, 0)
}

// errorInfo reads the provider's error code and message from an error
// body: {"error": "msg"} (SerpAPI, Firecrawl), {"error": {"code",
// "detail"}} and {"errors": [{"code", "detail"}]} (Brave), {"detail":
// {"error": "msg"}} or {"detail": "msg"} (Tavily), {"name", "message",
// "readableMessage"} (Jina). Anything else yields a short text or nothing.
func errorInfo(body []byte) (code, msg string) {
	var v struct {
		Error           json.RawMessage `json:"error"`
		Errors          []braveError    `json:"errors"`
		Detail          json.RawMessage `json:"detail"`
		Message         string          `json:"message"`
		ReadableMessage string          `json:"readableMessage"`
		Name            string          `json:"name"`
	}
	if json.Unmarshal(body, &v) != nil {
		t := strings.TrimSpace(string(body))
		if t == "" || strings.ContainsAny(t, "<>") || len(t) > 300 {
			return "", ""
		}
		return "", t
	}
	if s := jsonString(v.Error); s != "" {
		return "", s
	}
	var be braveError
	if len(v.Error) > 0 && json.Unmarshal(v.Error, &be) == nil && (be.Code != "" || be.Detail != "") {
		return be.Code, firstNonEmpty(be.Detail, be.Message)
	}
	if len(v.Errors) > 0 {
		return v.Errors[0].Code, firstNonEmpty(v.Errors[0].Detail, v.Errors[0].Message)
	}
	if s := jsonString(v.Detail); s != "" {
		return "", s
	}
	var d struct {
		Error string `json:"error"`
	}
	if len(v.Detail) > 0 && json.Unmarshal(v.Detail, &d) == nil && d.Error != "" {
		return "", d.Error
	}
	return v.Name, firstNonEmpty(v.ReadableMessage, v.Message)
}

// braveError is one error object of Brave's ErrorResponse.
type braveError struct {
	Code    string `json:"code"`
	Detail  string `json:"detail"`
	Message string `json:"message"`
}

func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// scrub removes the key from a message.
func (o Options) scrub(s string) string {
	if len(o.APIKey) >= 4 {
		s = strings.ReplaceAll(s, o.APIKey, "[REDACTED]")
		s = strings.ReplaceAll(s, url.QueryEscape(o.APIKey), "[REDACTED]")
	}
	return s
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// decodeJSON decodes an API answer into v, or returns an ErrMalformed
// *Error naming what came back.
func decodeJSON(provider, op string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		head := strings.TrimSpace(string(body[:min(len(body), 80)]))
		if !json.Valid(body) && bytes.ContainsAny(body[:min(len(body), 200)], "<>") {
			head = "an HTML page"
		}
		return &Error{Provider: provider, Op: op, Kind: ErrMalformed, msg: fmt.Sprintf("answer is not the documented JSON (%v; got %q)", err, head), err: err}
	}
	return nil
}
