package report

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
)

// checkDocument returns the first violated invariant of a parsed document,
// or nil: spans in bounds (and on rune boundaries for valid UTF-8), claim
// texts equal to their spans, claims ordered and disjoint with ids c1, c2,
// …, citation indices valid and inside their claim, citations ordered, no
// claim overlapping a reference-list entry.
func checkDocument(text string, doc claimtrace.Document) error {
	valid := utf8.ValidString(text)
	onBoundary := func(i int) bool { return i == len(text) || utf8.RuneStart(text[i]) }
	for i, c := range doc.Citations {
		if c.Start < 0 || c.End < c.Start || c.End > len(text) {
			return fmt.Errorf("citation %d span [%d,%d) out of bounds (len %d)", i, c.Start, c.End, len(text))
		}
		if valid && (!onBoundary(c.Start) || !onBoundary(c.End)) {
			return fmt.Errorf("citation %d span [%d,%d) not on rune boundaries", i, c.Start, c.End)
		}
		if i > 0 && doc.Citations[i-1].Start > c.Start {
			return fmt.Errorf("citation %d starts at %d before citation %d at %d", i, c.Start, i-1, doc.Citations[i-1].Start)
		}
		if c.Kind == "" {
			return fmt.Errorf("citation %d has no kind", i)
		}
	}
	prevEnd := 0
	for k, c := range doc.Claims {
		if c.ID != "c"+strconv.Itoa(k+1) {
			return fmt.Errorf("claim %d has id %q", k, c.ID)
		}
		if c.Start < prevEnd || c.End <= c.Start || c.End > len(text) {
			return fmt.Errorf("claim %s span [%d,%d) out of order or bounds (previous end %d, len %d)", c.ID, c.Start, c.End, prevEnd, len(text))
		}
		if valid && (!onBoundary(c.Start) || !onBoundary(c.End)) {
			return fmt.Errorf("claim %s span [%d,%d) not on rune boundaries", c.ID, c.Start, c.End)
		}
		if text[c.Start:c.End] != c.Text {
			return fmt.Errorf("claim %s text %q != span text %q", c.ID, c.Text, text[c.Start:c.End])
		}
		if c.Citations == nil {
			return fmt.Errorf("claim %s has nil citations", c.ID)
		}
		for _, idx := range c.Citations {
			if idx < 0 || idx >= len(doc.Citations) {
				return fmt.Errorf("claim %s cites index %d of %d", c.ID, idx, len(doc.Citations))
			}
			ct := doc.Citations[idx]
			if ct.Kind == claimtrace.KindListEntry {
				return fmt.Errorf("claim %s cites list entry %d", c.ID, idx)
			}
			if ct.Start < c.Start || ct.End > c.End {
				return fmt.Errorf("claim %s [%d,%d) cites %d at [%d,%d), outside it", c.ID, c.Start, c.End, idx, ct.Start, ct.End)
			}
		}
		for i, ct := range doc.Citations {
			if ct.Kind == claimtrace.KindListEntry && ct.Start < c.End && c.Start < ct.End {
				return fmt.Errorf("claim %s [%d,%d) overlaps list entry %d [%d,%d)", c.ID, c.Start, c.End, i, ct.Start, ct.End)
			}
		}
		prevEnd = c.End
	}
	return nil
}
