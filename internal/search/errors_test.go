package search_test

import (
	"errors"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/search"
)

// TestSentinelsShared: a search API's auth failure is the model clients'
// too, so one errors.Is test stops a run on either (the two packages used
// to declare their own ErrAuth, ErrQuota and ErrRateLimit).
func TestSentinelsShared(t *testing.T) {
	_, err := search.NewSearcher(search.SerpAPIName, search.Options{KeyEnv: "SERPAPI_API_KEY"})
	if err == nil {
		t.Fatal("a search client without a key")
	}
	for _, target := range []error{search.ErrAuth, llm.ErrAuth, claimtrace.ErrAuth} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %v) = false", err, target)
		}
	}
	for _, pair := range [][2]error{{search.ErrQuota, llm.ErrQuota}, {search.ErrRateLimit, llm.ErrRateLimit}, {search.ErrBadRequest, llm.ErrBadRequest}} {
		if !errors.Is(pair[0], pair[1]) {
			t.Errorf("%v is not %v", pair[0], pair[1])
		}
	}
}
