package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRateHeaders(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	unknown := rateQuota{limitRequests: -1, remainingRequests: -1, limitTokens: -1, remainingTokens: -1}
	for _, tc := range []struct {
		name   string
		header http.Header
		want   rateQuota
		ok     bool
	}{
		{"none", http.Header{"Content-Type": {"application/json"}}, unknown, false},
		{"nil", nil, unknown, false},
		{"openai", http.Header{
			"X-Ratelimit-Limit-Requests":     {"5000"},
			"X-Ratelimit-Remaining-Requests": {"4999"},
			"X-Ratelimit-Reset-Requests":     {"12ms"},
			"X-Ratelimit-Limit-Tokens":       {"800000"},
			"X-Ratelimit-Remaining-Tokens":   {"799100"},
			"X-Ratelimit-Reset-Tokens":       {"6m0s"},
		}, rateQuota{5000, 4999, 800000, 799100, 12 * time.Millisecond, 6 * time.Minute}, true},
		{"anthropic with overall tokens", http.Header{
			"Anthropic-Ratelimit-Requests-Limit":     {"50"},
			"Anthropic-Ratelimit-Requests-Remaining": {"0"},
			"Anthropic-Ratelimit-Requests-Reset":     {"2026-03-01T12:00:07Z"},
			"Anthropic-Ratelimit-Tokens-Limit":       {"40000"},
			"Anthropic-Ratelimit-Tokens-Remaining":   {"12000"},
			"Anthropic-Ratelimit-Tokens-Reset":       {"2026-03-01T12:00:30Z"},
		}, rateQuota{50, 0, 40000, 12000, 7 * time.Second, 30 * time.Second}, true},
		{"anthropic input tokens only", http.Header{
			"Anthropic-Ratelimit-Input-Tokens-Limit":     {"30000"},
			"Anthropic-Ratelimit-Input-Tokens-Remaining": {"29000"},
			"Anthropic-Ratelimit-Input-Tokens-Reset":     {"2026-03-01T12:01:00Z"},
		}, rateQuota{-1, -1, 30000, 29000, 0, time.Minute}, true},
		{"garbage is ignored", http.Header{
			"X-Ratelimit-Remaining-Requests": {"lots"},
			"X-Ratelimit-Reset-Requests":     {"soon"},
			"X-Ratelimit-Limit-Tokens":       {"-5"},
		}, unknown, false},
		{"reset in the past is now", http.Header{
			"Anthropic-Ratelimit-Requests-Remaining": {"3"},
			"Anthropic-Ratelimit-Requests-Reset":     {"2026-03-01T11:59:00Z"},
		}, rateQuota{-1, 3, -1, -1, 0, 0}, true},
	} {
		got, ok := parseRateHeaders(tc.header, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: parseRateHeaders = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseRateHeaders(f *testing.F) {
	f.Add("4999", "12ms", "2026-03-01T12:00:07Z")
	f.Add("-1", "1h2m", "0.5")
	f.Add("", "", "")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, count, dur, stamp string) {
		h := http.Header{}
		h.Set("x-ratelimit-remaining-requests", count)
		h.Set("x-ratelimit-reset-requests", dur)
		h.Set("anthropic-ratelimit-tokens-limit", count)
		h.Set("anthropic-ratelimit-tokens-reset", stamp)
		q, _ := parseRateHeaders(h, now)
		if q.remainingRequests < -1 || q.limitTokens < -1 || q.resetRequests < 0 || q.resetTokens < 0 {
			t.Fatalf("out of range: %+v", q)
		}
	})
}

func TestEffectiveLimits(t *testing.T) {
	public := Endpoint{Provider: OpenAI, Model: "gpt-4o"}
	local := Endpoint{Provider: OpenAI, Model: "llama3", BaseURL: "http://localhost:11434/v1"}
	for _, tc := range []struct {
		name string
		in   Limits
		ep   Endpoint
		want Limits
	}{
		{"public API: provider defaults", Limits{}, public, Limits{RPM: 500, TPM: 200_000, Concurrency: DefaultMaxConcurrency}},
		{"configured values stand", Limits{RPM: 60, TPM: 9000, Concurrency: 3}, public, Limits{RPM: 60, TPM: 9000, Concurrency: 3}},
		{"negative: no limit", Limits{RPM: -1, TPM: -1}, public, Limits{Concurrency: DefaultMaxConcurrency}},
		{"compatible server: no default rate", Limits{}, local, Limits{Concurrency: DefaultMaxConcurrency}},
		{"gemini", Limits{}, Endpoint{Provider: Gemini, Model: "gemini-2.5-pro"}, Limits{RPM: 150, TPM: 1_000_000, Concurrency: DefaultMaxConcurrency}},
		{"anthropic", Limits{}, Endpoint{Provider: Anthropic, Model: "claude-sonnet-4-5"}, Limits{RPM: 50, TPM: 30_000, Concurrency: DefaultMaxConcurrency}},
	} {
		if got := EffectiveLimits(tc.in, tc.ep); got != tc.want {
			t.Errorf("%s: resolveLimits = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestLimiterAIMD drives the limiter with a fake clock: it grows by one a
// round of fast answers, halves on a rate limit once per round trip, does
// not grow on slow answers, and learns the provider's limits.
func TestLimiterAIMD(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	l := newLimiter(Limits{Concurrency: 10}, Endpoint{Provider: OpenAI, Model: "m", BaseURL: "http://local/v1"}, clock)
	if p := l.pace(); p.Limit != StartConcurrency {
		t.Fatalf("start limit = %d, want %d", p.Limit, StartConcurrency)
	}
	round := func(lat time.Duration, err error, h http.Header) {
		n := l.pace().Limit
		rels := make([]func(outcome), n)
		for i := range rels {
			r, err := l.acquire(t.Context(), 10, false)
			if err != nil {
				t.Fatal(err)
			}
			rels[i] = r
		}
		now = now.Add(lat)
		for _, r := range rels {
			r(outcome{latency: lat, err: err, header: h})
		}
	}
	for range 3 {
		round(100*time.Millisecond, nil, nil)
	}
	if p := l.pace(); p.Limit != StartConcurrency+3 {
		t.Errorf("after 3 fast rounds limit = %d, want %d", p.Limit, StartConcurrency+3)
	}
	for range 10 {
		round(100*time.Millisecond, nil, nil)
	}
	if p := l.pace(); p.Limit != 10 {
		t.Errorf("limit = %d, want the ceiling 10", p.Limit)
	}
	// Slow answers (5× the fastest) lower it by a quarter, once a round trip.
	round(500*time.Millisecond, nil, nil)
	if p := l.pace(); p.Limit != 7 {
		t.Errorf("after a slow round limit = %d, want 7", p.Limit)
	}
	// A round of 429s halves it once, and holds every call for Retry-After.
	rl := &Error{Kind: ErrRateLimit, Status: 429, RetryAfter: 2 * time.Second}
	now = now.Add(time.Second)
	round(100*time.Millisecond, rl, nil)
	if p := l.pace(); p.Limit != 3 {
		t.Errorf("after a round of 429s limit = %d, want 3", p.Limit)
	}
	l.mu.Lock()
	hold := l.hold
	l.mu.Unlock()
	if want := now.Add(2 * time.Second); !hold.Equal(want) {
		t.Errorf("hold until %v, want %v", hold, want)
	}
	// The provider reports its limits: a compatible server had none, so
	// they are taken as they are.
	now = now.Add(3 * time.Second)
	round(100*time.Millisecond, nil, http.Header{"X-Ratelimit-Limit-Requests": {"120"}, "X-Ratelimit-Limit-Tokens": {"90000"},
		"X-Ratelimit-Remaining-Requests": {"100"}, "X-Ratelimit-Remaining-Tokens": {"80000"}})
	if p := l.pace(); p.RPM != 120 || p.TPM != 90000 {
		t.Errorf("learned limits = %d rpm, %d tpm; want 120, 90000", p.RPM, p.TPM)
	}
}

// TestLearnedLimitsAgainstConfigured: a configured limit stands unless the
// provider's is lower; a default gives way either way.
func TestLearnedLimitsAgainstConfigured(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	public := Endpoint{Provider: OpenAI, Model: "gpt-4o"}
	for _, tc := range []struct {
		name     string
		user     int
		reported string
		want     int
	}{
		{"configured, provider allows more", 60, "5000", 60},
		{"configured, provider allows less", 600, "100", 100},
		{"default, provider allows more", 0, "5000", 5000},
		{"default, provider allows less", 0, "200", 200},
	} {
		l := newLimiter(Limits{RPM: tc.user}, public, now)
		rel, err := l.acquire(t.Context(), 1, false)
		if err != nil {
			t.Fatal(err)
		}
		rel(outcome{latency: time.Millisecond, header: http.Header{"X-Ratelimit-Limit-Requests": {tc.reported}}})
		if got := l.pace().RPM; got != tc.want {
			t.Errorf("%s: rpm = %d, want %d", tc.name, got, tc.want)
		}
	}
}
