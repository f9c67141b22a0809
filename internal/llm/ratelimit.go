package llm

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// rateQuota is what one answer's headers say about the account's rate
// limits. Counts are -1 when not given.
type rateQuota struct {
	limitRequests, remainingRequests int64
	limitTokens, remainingTokens     int64
	// resetRequests and resetTokens are how long until the remaining
	// counts are full again.
	resetRequests, resetTokens time.Duration
}

// parseRateHeaders reads the rate-limit headers of OpenAI
// (x-ratelimit-{limit,remaining,reset}-{requests,tokens}, resets as
// durations "1s", "6m0s", "20ms") and of Anthropic
// (anthropic-ratelimit-{requests,tokens,input-tokens}-{limit,remaining,reset},
// resets as RFC 3339 times); ok is false when h has none of them. Anthropic's
// input-token limit stands for tokens when it gives no overall one (it
// counts input and output apart, and input is what a judge's prompts
// spend). Values that do not parse are ignored.
func parseRateHeaders(h http.Header, now time.Time) (q rateQuota, ok bool) {
	q = rateQuota{limitRequests: -1, remainingRequests: -1, limitTokens: -1, remainingTokens: -1}
	if h == nil {
		return q, false
	}
	count := func(name string, dst *int64) {
		if v := strings.TrimSpace(h.Get(name)); v != "" {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				*dst, ok = n, true
			}
		}
	}
	reset := func(name string, dst *time.Duration) {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			return
		}
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			*dst = d
			return
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			*dst = max(0, t.Sub(now))
			return
		}
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e6 {
			*dst = time.Duration(s * float64(time.Second))
		}
	}
	count("x-ratelimit-limit-requests", &q.limitRequests)
	count("x-ratelimit-remaining-requests", &q.remainingRequests)
	reset("x-ratelimit-reset-requests", &q.resetRequests)
	count("x-ratelimit-limit-tokens", &q.limitTokens)
	count("x-ratelimit-remaining-tokens", &q.remainingTokens)
	reset("x-ratelimit-reset-tokens", &q.resetTokens)

	count("anthropic-ratelimit-requests-limit", &q.limitRequests)
	count("anthropic-ratelimit-requests-remaining", &q.remainingRequests)
	reset("anthropic-ratelimit-requests-reset", &q.resetRequests)
	if h.Get("anthropic-ratelimit-tokens-limit") != "" {
		count("anthropic-ratelimit-tokens-limit", &q.limitTokens)
		count("anthropic-ratelimit-tokens-remaining", &q.remainingTokens)
		reset("anthropic-ratelimit-tokens-reset", &q.resetTokens)
	} else {
		count("anthropic-ratelimit-input-tokens-limit", &q.limitTokens)
		count("anthropic-ratelimit-input-tokens-remaining", &q.remainingTokens)
		reset("anthropic-ratelimit-input-tokens-reset", &q.resetTokens)
	}
	return q, ok
}
