package llm

import (
	"context"
	"sync"
	"time"

	"github.com/claimtrace/claimtrace/internal/backoff"
)

// Limits are one endpoint's rate limits. Zero means unlimited.
type Limits struct {
	// RPM is requests per minute.
	RPM int `json:"rpm" toml:"rpm"`
	// TPM is tokens per minute (input, estimated as bytes/4 before the
	// call, plus the answer cap), corrected with the actual usage after it.
	TPM int `json:"tpm" toml:"tpm"`
	// Concurrency is the number of calls in flight at once.
	Concurrency int `json:"concurrency" toml:"concurrency"`
}

// limiter enforces Limits for one Client.
type limiter struct {
	sem      chan struct{}
	rpm, tpm *bucket
}

func newLimiter(l Limits, now func() time.Time) *limiter {
	lim := &limiter{}
	if l.Concurrency > 0 {
		lim.sem = make(chan struct{}, l.Concurrency)
	}
	if l.RPM > 0 {
		lim.rpm = newBucket(l.RPM, now)
	}
	if l.TPM > 0 {
		lim.tpm = newBucket(l.TPM, now)
	}
	return lim
}

// acquire waits for a concurrency slot and for the request and token
// budgets of the rate limits. The returned release frees the slot and
// corrects the token bucket with the actual token count.
func (l *limiter) acquire(ctx context.Context, tokens int64) (release func(actual int64), err error) {
	if l.sem != nil {
		select {
		case l.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	free := func() {
		if l.sem != nil {
			<-l.sem
		}
	}
	if err := l.rpm.wait(ctx, 1); err != nil {
		free()
		return nil, err
	}
	if err := l.tpm.wait(ctx, float64(tokens)); err != nil {
		free()
		return nil, err
	}
	return func(actual int64) {
		if actual > 0 {
			l.tpm.adjust(float64(actual - tokens))
		}
		free()
	}, nil
}

// bucket is a token bucket refilled at perMinute/60 per second holding at
// most one second's worth (at least 1). A request larger than the bucket
// waits for a full bucket and then drives it negative, so the long-run
// rate holds without refusing big requests; adjust corrects an estimate
// after the fact, also by going into debt.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // per second
	size   float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

func newBucket(perMinute int, now func() time.Time) *bucket {
	rate := float64(perMinute) / 60
	size := max(1, rate)
	return &bucket{rate: rate, size: size, tokens: size, last: now(), now: now}
}

func (b *bucket) refill() {
	t := b.now()
	if d := t.Sub(b.last).Seconds(); d > 0 {
		b.tokens = min(b.size, b.tokens+d*b.rate)
	}
	b.last = t
}

func (b *bucket) wait(ctx context.Context, n float64) error {
	if b == nil {
		return nil
	}
	for {
		b.mu.Lock()
		b.refill()
		need := min(n, b.size)
		if b.tokens >= need {
			b.tokens -= n
			b.mu.Unlock()
			return nil
		}
		d := time.Duration((need - b.tokens) / b.rate * float64(time.Second))
		b.mu.Unlock()
		if err := backoff.Sleep(ctx, max(d, time.Millisecond)); err != nil {
			return err
		}
	}
}

func (b *bucket) adjust(delta float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.refill()
	b.tokens = min(b.size, b.tokens-delta)
	b.mu.Unlock()
}
