package fetch

import (
	"time"

	"github.com/claimtrace/claimtrace/internal/backoff"
)

// backoff returns the wait before retry attempt+1: full-jitter exponential
// backoff, at least the server's Retry-After, never more than MaxWait.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	return backoff.Delay(c.opts.Backoff, c.opts.MaxWait, attempt, retryAfter)
}
