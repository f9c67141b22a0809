package backoff

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	base, max := 100*time.Millisecond, 2*time.Second
	for attempt := 0; attempt < 8; attempt++ {
		want := base << attempt
		if want > max {
			want = max
		}
		for i := 0; i < 200; i++ {
			d := Delay(base, max, attempt, 0)
			if d < want/2 || d > want {
				t.Fatalf("Delay(attempt %d) = %v, want in [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
	if d := Delay(base, max, 0, time.Second); d != time.Second {
		t.Errorf("Retry-After 1s: %v", d)
	}
	if d := Delay(base, max, 0, time.Hour); d != max {
		t.Errorf("Retry-After beyond the cap: %v, want %v", d, max)
	}
	if d := Delay(base, max, 1000, 0); d > max || d < max/2 {
		t.Errorf("huge attempt: %v", d)
	}
	if d := Delay(0, 0, 3, 0); d != 0 {
		t.Errorf("zero base and cap: %v", d)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"  3 ", 3 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{"0", 0},
		{"-5", 0},
		{"NaN", 0},
		{"soon", 0},
		{"999999999", MaxRetryAfter},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.in, now); got != tt.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); err != context.Canceled {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Error("Sleep did not return at once on a cancelled context")
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Error(err)
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1e309", "NaN"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d := RetryAfter(v, now); d < 0 || d > MaxRetryAfter {
			t.Fatalf("RetryAfter(%q) = %v out of [0, %v]", v, d, MaxRetryAfter)
		}
	})
}

func TestDescribe(t *testing.T) {
	kind := errors.New("rate limited")
	for _, tt := range []struct {
		status   int
		code     string
		msg      string
		attempts int
		want     string
	}{
		{0, "", "", 1, "openai:gpt-4o: rate limited"},
		{429, "", "", 1, "openai:gpt-4o: rate limited (http 429)"},
		{0, "RESOURCE_EXHAUSTED", "", 1, "openai:gpt-4o: rate limited (RESOURCE_EXHAUSTED)"},
		{429, "rate_limit_exceeded", "slow down", 4, "openai:gpt-4o: rate limited (http 429 rate_limit_exceeded): slow down (after 4 attempts)"},
	} {
		if got := Describe("openai:gpt-4o", kind, tt.status, tt.code, tt.msg, tt.attempts); got != tt.want {
			t.Errorf("Describe = %q, want %q", got, tt.want)
		}
	}
}
