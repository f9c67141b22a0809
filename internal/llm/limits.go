package llm

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/claimtrace/claimtrace/internal/backoff"
)

// Limits are one endpoint's rate limits and its ceiling on calls in
// flight. A zero RPM or TPM means the provider's default (DefaultLimits),
// a negative one no limit; a zero Concurrency means
// DefaultMaxConcurrency.
//
// Calls in flight adapt between 1 and Concurrency: they start at
// StartConcurrency, grow by one a round while answers come back 2xx and
// fast (within twice the fastest recent answer), and halve on a 429 or an
// overload, when the provider's rate-limit headers say the quota is spent
// (OpenAI x-ratelimit-*, Anthropic anthropic-ratelimit-*), or when most
// answers of a round are slow. The limits a provider reports in those
// headers replace the configured or default ones when they are lower, and
// the defaults when they are higher: a run uses what the account allows
// and no more.
type Limits struct {
	// RPM is requests per minute.
	RPM int `json:"rpm" toml:"rpm"`
	// TPM is tokens per minute (input, estimated as bytes/4 before the
	// call, plus the answer cap), corrected with the actual usage after it.
	TPM int `json:"tpm" toml:"tpm"`
	// Concurrency is the most calls in flight at once.
	Concurrency int `json:"concurrency" toml:"concurrency"`
}

// Concurrency bounds of the adaptive limit.
const (
	// StartConcurrency is how many calls may be in flight before the
	// endpoint has answered anything.
	StartConcurrency = 4
	// DefaultMaxConcurrency is the ceiling when Limits.Concurrency is 0.
	DefaultMaxConcurrency = 64
)

// DefaultLimits returns the rate limits assumed for an endpoint until the
// provider says otherwise: for the public APIs, the published limits of a
// first paid tier (OpenAI 500 requests and 200,000 tokens a minute;
// Gemini 150 and 1,000,000, its Pro model's; Anthropic 50 and 30,000 input
// tokens). OpenAI and Anthropic report the account's real limits in every
// answer's headers, which then replace these; Gemini reports none, so a
// faster account configures its own (llm.models.NAME rpm, tpm). A
// compatible server at another base URL (vLLM, Ollama, a proxy) has no
// default limit: only its answers' speed and 429s pace it.
func DefaultLimits(ep Endpoint) Limits {
	if !ep.public() {
		return Limits{}
	}
	switch ep.Provider {
	case OpenAI:
		return Limits{RPM: 500, TPM: 200_000}
	case Gemini:
		return Limits{RPM: 150, TPM: 1_000_000}
	case Anthropic:
		return Limits{RPM: 50, TPM: 30_000}
	}
	return Limits{}
}

// EffectiveLimits returns the limits a client of ep starts with: l with
// the provider's defaults for zero rates (DefaultLimits), no limit (0)
// for negative ones, and DefaultMaxConcurrency for a zero concurrency.
func EffectiveLimits(l Limits, ep Endpoint) Limits {
	def := DefaultLimits(ep)
	if l.RPM == 0 {
		l.RPM = def.RPM
	}
	if l.TPM == 0 {
		l.TPM = def.TPM
	}
	l.RPM, l.TPM = max(l.RPM, 0), max(l.TPM, 0)
	if l.Concurrency <= 0 {
		l.Concurrency = DefaultMaxConcurrency
	}
	return l
}

// outcome is what one attempt tells the limiter.
type outcome struct {
	latency time.Duration
	// err is the attempt's error (nil: a 2xx answer).
	err error
	// header is the last HTTP answer's (nil: none came).
	header http.Header
	// tokens is the attempt's actual token count (0: unknown).
	tokens int64
}

// limiter paces one Client: a ceiling on calls in flight that adapts to
// the answers (AIMD), the RPM and TPM buckets, and the provider's own
// account of its quota, read from its rate-limit headers.
type limiter struct {
	now func() time.Time
	rpm *bucket
	tpm *bucket
	// configured are the limits set by the user (or defaults); learned
	// ones replace them (see Limits).
	configured Limits
	fromUser   Limits

	mu       sync.Mutex
	ceiling  int
	limit    float64 // calls allowed in flight now
	inflight int
	wake     chan struct{}
	// hold: no call starts before it (a 429's Retry-After, a spent quota).
	hold time.Time
	// The provider's last word on the quota: remaining requests and
	// tokens (-1: unknown) until their reset.
	remReq, remTok     int64
	reqReset, tokReset time.Time
	// Recent successful latencies, the fastest of which is the baseline.
	recent []time.Duration
	// fast and slow count this round's answers; a round is limit answers.
	fast, slow int
	// decreased is when the limit was last lowered: at most once a round
	// trip, so a burst of refusals of calls sent together counts once.
	decreased time.Time
}

func newLimiter(l Limits, ep Endpoint, now func() time.Time) *limiter {
	r := EffectiveLimits(l, ep)
	lim := &limiter{now: now, configured: r, fromUser: l, ceiling: r.Concurrency,
		limit: float64(min(StartConcurrency, r.Concurrency)), wake: make(chan struct{}), remReq: -1, remTok: -1}
	lim.rpm, lim.tpm = newBucket(r.RPM, now), newBucket(r.TPM, now)
	return lim
}

// Pace is how a Client paces its calls at one moment.
type Pace struct {
	// InFlight is the calls in flight; Limit how many may be.
	InFlight, Limit int
	// RPM and TPM are the rate limits in force (0: none), after what the
	// provider reported.
	RPM, TPM int
}

func (l *limiter) pace() Pace {
	l.mu.Lock()
	p := Pace{InFlight: l.inflight, Limit: int(l.limit)}
	l.mu.Unlock()
	p.RPM, p.TPM = l.rpm.perMinute(), l.tpm.perMinute()
	return p
}

// acquire waits for a slot under the adaptive limit, for the provider's
// quota and for the request and token budgets of the rate limits. A
// retry does not wait for the hold a refusal set: it has waited out its
// own Retry-After already. The returned release reports the attempt's
// outcome and frees the slot.
func (l *limiter) acquire(ctx context.Context, tokens int64, retry bool) (release func(outcome), err error) {
	for {
		l.mu.Lock()
		now := l.now()
		var wait time.Duration
		switch {
		case now.Before(l.hold) && !retry:
			wait = l.hold.Sub(now)
		case l.remReq == 0 && now.Before(l.reqReset):
			wait = l.reqReset.Sub(now)
		case l.remTok >= 0 && l.remTok < tokens && now.Before(l.tokReset):
			wait = l.tokReset.Sub(now)
		case float64(l.inflight) >= math.Floor(l.limit):
			wait = -1
		}
		if wait == 0 {
			l.inflight++
			if l.remReq > 0 {
				l.remReq--
			}
			if l.remTok >= 0 {
				l.remTok = max(0, l.remTok-tokens)
			}
			l.mu.Unlock()
			break
		}
		wake := l.wake
		l.mu.Unlock()
		if wait < 0 {
			select {
			case <-wake:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		// A quota wait also ends when a slot frees: the answer that
		// frees it may carry a fresh account of the quota.
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-t.C:
		case <-wake:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	free := func() {
		l.mu.Lock()
		l.inflight--
		l.signal()
		l.mu.Unlock()
	}
	if err := l.rpm.wait(ctx, 1); err != nil {
		free()
		return nil, err
	}
	if err := l.tpm.wait(ctx, float64(tokens)); err != nil {
		free()
		return nil, err
	}
	return func(o outcome) {
		if o.tokens > 0 {
			l.tpm.adjust(float64(o.tokens - tokens))
		}
		l.mu.Lock()
		l.inflight--
		l.observe(o)
		l.signal()
		l.mu.Unlock()
	}, nil
}

// signal wakes the waiters; the caller holds l.mu.
func (l *limiter) signal() {
	close(l.wake)
	l.wake = make(chan struct{})
}

// slowFactor: an answer slower than this many times the fastest recent
// one is slow.
const slowFactor = 2

// observe adapts the limit to one outcome; the caller holds l.mu.
func (l *limiter) observe(o outcome) {
	now := l.now()
	l.readHeaders(o.header, now)
	var e *Error
	switch {
	case o.err == nil:
		l.recent = append(l.recent, o.latency)
		if len(l.recent) > 50 {
			l.recent = l.recent[len(l.recent)-50:]
		}
		if o.latency <= slowFactor*slices.Min(l.recent) {
			l.fast++
		} else {
			l.slow++
		}
		if l.fast+l.slow >= max(1, int(l.limit)) {
			switch {
			case l.slow > l.fast:
				l.decrease(0.75)
			case l.remReq != 0:
				l.limit = min(float64(l.ceiling), l.limit+1)
			}
			l.fast, l.slow = 0, 0
		}
	case errors.As(o.err, &e) && e.Kind == ErrRateLimit:
		l.decrease(0.5)
		if e.RetryAfter > 0 {
			l.hold = later(l.hold, now.Add(e.RetryAfter))
		}
	case errors.As(o.err, &e) && e.Kind == ErrTransient && e.Status >= 500:
		l.decrease(0.75)
	}
}

// decrease multiplies the limit by f (at least one call) and starts a new
// round, unless it was lowered less than a round trip ago (the fastest
// recent answer's latency, a second before any): the answers to calls
// sent together report one event.
func (l *limiter) decrease(f float64) {
	now := l.now()
	rtt := time.Second
	if len(l.recent) > 0 {
		rtt = slices.Min(l.recent)
	}
	if now.Sub(l.decreased) < rtt {
		return
	}
	l.decreased = now
	l.limit = max(1, math.Floor(l.limit*f))
	l.fast, l.slow = 0, 0
}

// readHeaders takes the provider's account of the quota from an answer's
// headers: what remains until when, and the limits themselves, which
// replace the configured ones as Limits says. The caller holds l.mu.
func (l *limiter) readHeaders(h http.Header, now time.Time) {
	q, ok := parseRateHeaders(h, now)
	if !ok {
		return
	}
	if q.remainingRequests >= 0 {
		l.remReq, l.reqReset = q.remainingRequests, now.Add(q.resetRequests)
		if q.remainingRequests == 0 {
			// The quota is spent: what is in flight will be refused too.
			l.decrease(0.5)
		}
	}
	if q.remainingTokens >= 0 {
		l.remTok, l.tokReset = q.remainingTokens, now.Add(q.resetTokens)
	}
	if q.limitRequests > 0 {
		learn(l.rpm, l.fromUser.RPM, q.limitRequests)
	}
	if q.limitTokens > 0 {
		learn(l.tpm, l.fromUser.TPM, q.limitTokens)
	}
}

// learn sets b to the limit the provider reports: a limit the user
// configured stands unless the provider's is lower; a default (or none)
// gives way to the provider's.
func learn(b *bucket, user int, reported int64) {
	if user > 0 && reported >= int64(user) {
		return
	}
	b.setRate(int(min(reported, math.MaxInt32)))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// bucket is a token bucket refilled at perMinute/60 per second holding at
// most one second's worth (at least 1); a rate of 0 is no limit. A request larger than the bucket
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

// perMinute returns the bucket's rate (0: no limit).
func (b *bucket) perMinute() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return int(math.Round(b.rate * 60))
}

// setRate changes the rate, keeping what the bucket holds within its new
// size.
func (b *bucket) setRate(perMinute int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	b.rate = float64(perMinute) / 60
	b.size = max(1, b.rate)
	b.tokens = min(b.tokens, b.size)
}

func (b *bucket) refill() {
	t := b.now()
	if d := t.Sub(b.last).Seconds(); d > 0 {
		b.tokens = min(b.size, b.tokens+d*b.rate)
	}
	b.last = t
}

func (b *bucket) wait(ctx context.Context, n float64) error {
	for {
		b.mu.Lock()
		if b.rate <= 0 {
			b.mu.Unlock()
			return nil
		}
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
	b.mu.Lock()
	b.refill()
	b.tokens = min(b.size, b.tokens-delta)
	b.mu.Unlock()
}
