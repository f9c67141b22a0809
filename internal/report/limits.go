package report

import (
	"context"
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// Limits bound the work one report may cause, so that a hostile report
// inside the size limit (one 16 MB line, 650,000 "[n]" markers) fails
// alone, with a message naming the limit, instead of taking gigabytes and
// minutes from a batch. Real deep-research reports hold a few hundred
// claims and citations and lines of a few kilobytes: the defaults are
// fifty to two hundred and fifty times that. Zero fields take
// DefaultLimits.
type Limits struct {
	// Claims caps the claims of a report.
	Claims int
	// Citations caps its citations: in-text markers and reference-list
	// entries.
	Citations int
	// LineBytes caps one line of its text.
	LineBytes int
	// Spans caps the inline spans the parser keeps while it reads the
	// report: citation markers, links, code and math spans, HTML tags.
	Spans int
}

// DefaultLimits are the limits of ParseContext unless configured.
func DefaultLimits() Limits {
	return Limits{Claims: 20000, Citations: 50000, LineBytes: 1 << 20, Spans: 200000}
}

func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.Claims <= 0 {
		l.Claims = d.Claims
	}
	if l.Citations <= 0 {
		l.Citations = d.Citations
	}
	if l.LineBytes <= 0 {
		l.LineBytes = d.LineBytes
	}
	if l.Spans <= 0 {
		l.Spans = d.Spans
	}
	return l
}

// Names of the limits, as the configuration spells them ([eval] table).
const (
	LimitClaims    = "max_claims"
	LimitCitations = "max_citations"
	LimitLineBytes = "max_line_bytes"
	LimitSpans     = "max_spans"
)

// LimitError is a report refused because it passes a limit. It matches
// claimtrace.ErrTooLarge.
type LimitError struct {
	// Limit names the limit (LimitClaims, …) and Max is its value.
	Limit string
	Max   int
	what  string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s, over the limit %s = %d (real reports hold a few hundred claims and citations and lines of a few kilobytes); check the report, or raise %s under [eval] in claimtrace's config",
		e.what, e.Limit, e.Max, e.Limit)
}

// Is makes errors.Is(err, claimtrace.ErrTooLarge) hold.
func (e *LimitError) Is(target error) bool { return target == claimtrace.ErrTooLarge }

// ParseContext is Parse within limits (zero fields take DefaultLimits)
// and until ctx ends. A line longer than limits.LineBytes is refused
// before anything is parsed; parsing stops as soon as the report passes
// the claims or citations limit, or ctx ends, and returns the error
// (*LimitError, or ctx's error) and no document.
func ParseContext(ctx context.Context, text string, limits Limits) (claimtrace.Document, error) {
	l := limits.orDefault()
	if err := ctx.Err(); err != nil {
		return claimtrace.Document{}, err
	}
	text = splitCR(text)
	if err := checkLines(text, l.LineBytes); err != nil {
		return claimtrace.Document{}, err
	}
	p := newParser(text)
	p.guard = &guard{ctx: ctx, limits: l}
	// The parse runs beside the caller, which returns as soon as ctx ends:
	// the parser stops at its next check (between blocks, every 64 KiB of
	// a block's markers), but one long paragraph is split into sentences
	// in one step.
	type result struct {
		doc claimtrace.Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		doc := p.parse()
		done <- result{doc, p.guard.err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return claimtrace.Document{}, r.err
		}
		return r.doc, nil
	case <-ctx.Done():
		return claimtrace.Document{}, ctx.Err()
	}
}

// guard stops a parse that passes a limit or whose context ends; the
// parser's loops ask it between blocks.
type guard struct {
	ctx    context.Context
	limits Limits
	err    error
}

// stop reports whether the parse must end, given how many citations and
// claims it has made so far, or because its context ended. A nil guard
// never stops.
func (g *guard) stop(cites, claims int) bool {
	if g == nil {
		return false
	}
	if g.err != nil {
		return true
	}
	switch {
	case cites > g.limits.Citations:
		g.err = &LimitError{Limit: LimitCitations, Max: g.limits.Citations, what: fmt.Sprintf("more than %d citations", g.limits.Citations)}
	case claims > g.limits.Claims:
		g.err = &LimitError{Limit: LimitClaims, Max: g.limits.Claims, what: fmt.Sprintf("more than %d claims", g.limits.Claims)}
	default:
		g.err = g.ctx.Err()
	}
	return g.err != nil
}

// tooManySpans reports whether a parse holding n inline spans must end,
// setting the error. A nil guard never stops.
func (g *guard) tooManySpans(n int) bool {
	if g == nil {
		return false
	}
	if g.err == nil && n > g.limits.Spans {
		g.err = &LimitError{Limit: LimitSpans, Max: g.limits.Spans, what: fmt.Sprintf("more than %d inline spans (markers, links, code, math, tags)", g.limits.Spans)}
	}
	return g.err != nil
}

// citationsFull reports whether a scanner holding n citations may add no
// more: it stops collecting past the limit, so that one block of markers
// cannot grow the list without bound before the guard is asked.
func (g *guard) citationsFull(n int) bool { return g != nil && n > g.limits.Citations }

// splitCR turns each carriage return that ends a line on its own (old Mac
// line endings, "\r" not followed by "\n") into a newline, byte for byte,
// so that every span into the result is a span into text too. A report
// with CR-only endings would otherwise be one line.
func splitCR(text string) string {
	i := strings.IndexByte(text, '\r')
	for i >= 0 && i+1 < len(text) && text[i+1] == '\n' {
		j := strings.IndexByte(text[i+1:], '\r')
		if j < 0 {
			return text
		}
		i += 1 + j
	}
	if i < 0 {
		return text
	}
	b := []byte(text)
	for k := i; k < len(b); k++ {
		if b[k] == '\r' && (k+1 == len(b) || b[k+1] != '\n') {
			b[k] = '\n'
		}
	}
	return string(b)
}

// checkLines refuses a text with a line longer than max bytes, naming the
// line.
func checkLines(text string, max int) error {
	n := 0
	for start := 0; start < len(text); n++ {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text) - start
		}
		if end > max {
			return &LimitError{Limit: LimitLineBytes, Max: max, what: fmt.Sprintf("line %d is %d bytes long", n+1, end)}
		}
		start += end + 1
	}
	return nil
}
