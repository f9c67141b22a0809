package report

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

// TestParseCROnly: a report whose lines end in a lone carriage return
// (issue 23 item 4: read as one line, 0 claims) parses as the same report
// with newlines, spans and all.
func TestParseCROnly(t *testing.T) {
	lf := "# Findings\n\nRetrieval raised answer accuracy by 14% on long-form questions [1]. The gain held across three benchmarks [2].\n\n## References\n\n[1] https://example.org/rag-accuracy - Retrieval and accuracy\n[2] https://example.org/three-benchmarks - Three benchmarks\n"
	cr := strings.ReplaceAll(lf, "\n", "\r")
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	want := Parse(lf)
	if len(want.Claims) != 2 || len(want.Citations) != 4 {
		t.Fatalf("LF report: %d claims, %d citations; want 2 and 4", len(want.Claims), len(want.Citations))
	}
	got := Parse(cr)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CR-only report differs from the LF one (-lf +cr):\n%s", diff)
	}
	for _, c := range got.Claims {
		if cr[c.Start:c.End] != strings.ReplaceAll(c.Text, "\n", "\r") {
			t.Errorf("claim %s: span [%d,%d) of the CR text is %q, want %q", c.ID, c.Start, c.End, cr[c.Start:c.End], c.Text)
		}
	}
	if n := len(Parse(crlf).Claims); n != 2 {
		t.Errorf("CRLF report: %d claims, want 2", n)
	}
	for _, s := range []string{"a\rb", "a\r\nb", "\r", "\r\n", "a\r\r\nb\r", ""} {
		got := splitCR(s)
		if len(got) != len(s) || strings.Contains(strings.ReplaceAll(got, "\r\n", ""), "\r") {
			t.Errorf("splitCR(%q) = %q", s, got)
		}
	}
}

// TestParseContextLimits: a report past a limit fails with a
// *LimitError naming it; one at the limit parses as Parse does.
func TestParseContextLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Survey\n\n")
	for i := range 30 {
		b.WriteString("The tidal barrage at site ")
		b.WriteString(strings.Repeat("x", i%5))
		b.WriteString(" produced more power than forecast [1].\n\n")
	}
	b.WriteString("[1] https://example.org/tidal - Tidal power review\n")
	text := b.String()
	want := Parse(text)
	claims, cites := len(want.Claims), len(want.Citations)
	if claims != 30 || cites != 31 {
		t.Fatalf("%d claims, %d citations; want 30 and 31", claims, cites)
	}
	got, err := ParseContext(context.Background(), text, Limits{Claims: claims, Citations: cites, LineBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseContext at the limits differs from Parse (-Parse +ParseContext):\n%s", diff)
	}
	for _, tt := range []struct {
		limits Limits
		name   string
	}{
		{Limits{Claims: claims - 1}, LimitClaims},
		{Limits{Citations: cites - 1}, LimitCitations},
		{Limits{LineBytes: 60}, LimitLineBytes},
		{Limits{Spans: 20}, LimitSpans},
	} {
		_, err := ParseContext(context.Background(), text, tt.limits)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != tt.name || !errors.Is(err, claimtrace.ErrTooLarge) || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("%+v: %v; want a *LimitError naming %s", tt.limits, err, tt.name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseContext(ctx, text, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	// One long paragraph: cancellation returns at once, mid-parse.
	long := "# R\n\n" + strings.Repeat("Costs rose again this year in the harbour district.\n", 300000)
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = ParseContext(ctx, long, Limits{Claims: 1 << 30})
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > 300*time.Millisecond {
		t.Errorf("cancelled mid-parse: %v after %v; want the context's error within 300ms", err, took)
	}
}

// TestParseContextHostile: reports inside the 16 MiB input limit that
// used to cost gigabytes (issue 23 item 4) stop at a limit quickly, with
// bounded allocation.
func TestParseContextHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few MB of input")
	}
	for name, text := range map[string]string{
		"markers":    "# R\n\n" + strings.Repeat(strings.Repeat("Claim [1]. ", 100)+"\n", 4000) + "\n\n[1] https://example.org/a - A\n",
		"sentences":  "# R\n\n" + strings.Repeat("Costs rose again this year in the harbour district.\n", 200000),
		"one line":   "# R\n\n" + strings.Repeat("word ", 3<<20),
		"code spans": "# R\n\n" + strings.Repeat(strings.Repeat("`x` ", 2000)+"\n\n", 800),
	} {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		_, err := ParseContext(context.Background(), text, Limits{})
		took := time.Since(start)
		runtime.ReadMemStats(&m1)
		alloc := (m1.TotalAlloc - m0.TotalAlloc) >> 20
		t.Logf("%s: %d MB of text, %v, %d MB allocated: %v", name, len(text)>>20, took, alloc, err)
		if !errors.Is(err, claimtrace.ErrTooLarge) {
			t.Errorf("%s: %v, want a limit", name, err)
		}
		if alloc > 40*uint64(len(text)>>20)+64 {
			t.Errorf("%s: %d MB allocated for %d MB of text", name, alloc, len(text)>>20)
		}
	}
}

// FuzzParseContext: no panic; within the limits the document is Parse's,
// spans in bounds; past them an error and no document.
func FuzzParseContext(f *testing.F) {
	f.Add("Claim one [1].\r\rSecond claim here [2].\r[1] https://a.example/x\r[2] https://b.example/y\r", 3, 3, 40)
	f.Add("# T\n\nA finding [1][2][3].\n\n[1] https://x.example\n", 1, 2, 1000)
	f.Fuzz(func(t *testing.T, text string, claims, cites, line int) {
		l := Limits{Claims: claims % 50, Citations: cites % 50, LineBytes: line % 2000}
		doc, err := ParseContext(context.Background(), text, l)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrTooLarge) {
				t.Fatalf("error %v is not a limit", err)
			}
			return
		}
		l = l.orDefault()
		if len(doc.Claims) > l.Claims || len(doc.Citations) > l.Citations {
			t.Fatalf("%d claims, %d citations past limits %+v", len(doc.Claims), len(doc.Citations), l)
		}
		for _, c := range doc.Claims {
			if c.Start < 0 || c.End > len(text) || c.Start > c.End || doc.Text[c.Start:c.End] != c.Text {
				t.Fatalf("claim %s span [%d,%d) out of bounds or not its text", c.ID, c.Start, c.End)
			}
		}
		for _, c := range doc.Citations {
			if c.Start < 0 || c.End > len(text) || c.Start > c.End {
				t.Fatalf("citation span [%d,%d) out of bounds", c.Start, c.End)
			}
		}
		if diff := cmp.Diff(Parse(text), doc); diff != "" {
			t.Fatalf("ParseContext within limits differs from Parse:\n%s", diff)
		}
	})
}
