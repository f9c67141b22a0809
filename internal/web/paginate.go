package web

import (
	"strings"
	"unicode/utf8"
)

// Page bounds of the audit view: one page shows at most this many claims
// and this many bytes of report text, so that a report of any size inside
// the input cap costs one page's worth of rendering and memory.
const (
	// DefaultPageClaims is the claims one audit page shows when
	// Options.PageClaims is 0.
	DefaultPageClaims = 200
	// MaxPageClaims caps Options.PageClaims.
	MaxPageClaims = 2000
	// pageBytes caps the report text of one page.
	pageBytes = 128 << 10
)

// textPage is one page of a report's text: bytes [From, To).
type textPage struct {
	From, To int
}

// paginate cuts text into pages of at most perPage claim starts and at
// most maxBytes bytes each. spans must be clean (cleanSpans). A page ends,
// in order of preference: at a blank line outside a fenced code block and
// outside every claim, before a claim, or (a single line or claim longer
// than maxBytes) at the last white space or rune boundary before the limit,
// where a claim may go on to the next page. Every page holds at least one
// byte, and the pages cover the text in order.
func paginate(text string, spans []span, perPage, maxBytes int) []textPage {
	perPage, maxBytes = max(perPage, 1), max(maxBytes, 4*utf8.UTFMax)
	var pages []textPage
	from, k, fenced := 0, 0, false
	for from < len(text) {
		for k < len(spans) && spans[k].Start < from {
			k++
		}
		limit := min(len(text), from+maxBytes)
		if k+perPage < len(spans) && spans[k+perPage].Start < limit {
			limit = spans[k+perPage].Start
		}
		to := limit
		if limit < len(text) {
			switch cut, start := blankCut(text, from, limit, spans, k, fenced), lastStart(spans, k, from, limit); {
			case cut > from:
				to = cut
			case start > from:
				to = start
			default:
				to = hardCut(text, from, limit)
			}
		}
		fenced = fenceState(text[from:to], fenced)
		pages = append(pages, textPage{From: from, To: to})
		from = to
	}
	if len(pages) == 0 {
		pages = append(pages, textPage{})
	}
	return pages
}

// blankCut returns the last offset in (from, limit] that starts a line
// after a blank line, outside a fenced code block and outside every claim,
// or from when there is none. fenced says whether from is inside a fence;
// spans before index k end before from.
func blankCut(text string, from, limit int, spans []span, k int, fenced bool) int {
	best, j := from, max(k-1, 0)
	for at := from; at < limit; {
		end := strings.IndexByte(text[at:limit], '\n')
		if end < 0 {
			break
		}
		line, next := text[at:at+end], at+end+1
		if isFence(line) {
			fenced = !fenced
		}
		if !fenced && strings.TrimSpace(line) == "" {
			// Spans do not overlap, so they end in the order they
			// start: the first ending after next is the only one that
			// may hold it.
			for j < len(spans) && spans[j].End <= next {
				j++
			}
			if j == len(spans) || spans[j].Start >= next {
				best = next
			}
		}
		at = next
	}
	return best
}

// fenceState returns whether the end of chunk is inside a fenced code
// block, given whether its start is.
func fenceState(chunk string, fenced bool) bool {
	for line := range strings.Lines(chunk) {
		if isFence(strings.TrimRight(line, "\n")) {
			fenced = !fenced
		}
	}
	return fenced
}

// isFence reports whether a line opens or closes a fenced code block.
func isFence(line string) bool {
	l := strings.TrimLeft(line, " ")
	return len(line)-len(l) < 4 && (strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~"))
}

// lastStart returns the start of the last span starting in (from, limit],
// or from.
func lastStart(spans []span, k, from, limit int) int {
	best := from
	for i := k; i < len(spans) && spans[i].Start <= limit; i++ {
		if spans[i].Start > from {
			best = spans[i].Start
		}
	}
	return best
}

// hardCut returns an offset in (from, limit] to cut a page with no better
// place: after the last white space of the last kilobyte, else the last
// rune boundary.
func hardCut(text string, from, limit int) int {
	window := text[max(from, limit-1024):limit]
	if i := strings.LastIndexAny(window, " \n\t"); i >= 0 {
		if cut := limit - len(window) + i + 1; cut > from {
			return cut
		}
	}
	to := limit
	for to > from+1 && !utf8.RuneStart(text[to]) {
		to--
	}
	return to
}
