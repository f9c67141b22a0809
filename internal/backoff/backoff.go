// Package backoff holds the retry timing every HTTP client of claimtrace
// shares (the fetcher, the scholarly APIs, search APIs, model providers):
// full-jitter exponential backoff that honours a server's Retry-After, the
// parsing of that header, a cancellable sleep, and the one wording of a
// retried call's failure (Describe).
package backoff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter caps what a Retry-After header can ask for.
const MaxRetryAfter = 24 * time.Hour

// Delay returns the wait before retry attempt+1 (attempt counts from 0):
// base·2^attempt with full jitter in [d/2, d], at least retryAfter, at most
// max. Jitter spreads the retries of concurrent clients.
func Delay(base, max time.Duration, attempt int, retryAfter time.Duration) time.Duration {
	d := base << min(max0(attempt), 16)
	if d <= 0 || d > max {
		d = max
	}
	if d > 0 {
		d = d/2 + rand.N(d/2+1)
	}
	if retryAfter > d {
		d = retryAfter
	}
	return min(d, max)
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// RetryAfter parses a Retry-After header value: delay-seconds (fractions
// accepted) or an HTTP date relative to now. It returns 0 for an empty,
// invalid, negative or past value, and caps the delay at MaxRetryAfter.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s != s {
			return 0
		}
		if s > MaxRetryAfter.Seconds() {
			return MaxRetryAfter
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, MaxRetryAfter)
		}
	}
	return 0
}

// Sleep waits d, or returns the context's error as soon as it is done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Describe words the failure of a retried API call the same way for every
// client: "HEAD: KIND (http STATUS CODE): MSG (after N attempts)", leaving
// out what is unknown (status 0, empty code or message, one attempt).
func Describe(head string, kind error, status int, code, msg string, attempts int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v", head, kind)
	if status != 0 || code != "" {
		b.WriteString(" (")
		if status != 0 {
			fmt.Fprintf(&b, "http %d", status)
		}
		if code != "" {
			if status != 0 {
				b.WriteByte(' ')
			}
			b.WriteString(code)
		}
		b.WriteByte(')')
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	if attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", attempts)
	}
	return b.String()
}
