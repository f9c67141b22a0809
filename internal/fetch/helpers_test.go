package fetch

import (
	"testing"
	"time"
	"unicode/utf8"
)

func validUTF8(s string) bool { return utf8.ValidString(s) }

// extractWithin runs Extract with a watchdog, so a fuzz input that hangs
// the extractor fails (and is saved) instead of stalling the fuzzer.
func extractWithin(t *testing.T, p *Page, d time.Duration) (*Content, error) {
	t.Helper()
	type result struct {
		c   *Content
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Extract(p)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-time.After(d):
		t.Fatalf("Extract did not return within %v on a %d-byte %s body", d, len(p.Body), p.ContentType)
		return nil, nil
	}
}
