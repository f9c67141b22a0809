package fetch

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff returns the wait before retry attempt+1: full-jitter exponential
// backoff, at least the server's Retry-After, never more than MaxWait.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	return jitteredBackoff(c.opts.Backoff, c.opts.MaxWait, attempt, retryAfter)
}

func jitteredBackoff(base, max time.Duration, attempt int, retryAfter time.Duration) time.Duration {
	d := base << min(attempt, 16)
	if d <= 0 || d > max {
		d = max
	}
	// Full jitter in [d/2, d): spreads retries of concurrent fetches.
	d = d/2 + rand.N(d/2+1)
	if retryAfter > d {
		d = retryAfter
	}
	return min(d, max)
}

// retryAfter parses a Retry-After header (delay-seconds or HTTP-date).
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
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
