package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ReferenceCalls estimates the LLM calls the released ReportBench code
// would make for the same reports (REFERENCE.md A2), an upper bound:
// 2B + 2C + U + 6N, with B the blocks its split_text_by_headers cuts a
// report into (cited and non-cited extraction, one call each), C (claim,
// URL) pairs (match and verify), U unique URLs (paper classification) and
// N check-worthy non-cited claims (six web fact-check calls each).
type ReferenceCalls struct {
	Calls    int `json:"calls"`
	Blocks   int `json:"blocks"`
	Pairs    int `json:"pairs"`
	URLs     int `json:"urls"`
	NonCited int `json:"non_cited"`
	// SplitFailures counts reports on which the released splitter's own
	// check fails (REFERENCE.md A5 B1): the released code skips such a
	// report. Their blocks are counted all the same, so the formula is
	// the same for every report.
	SplitFailures int `json:"split_failures,omitempty"`
}

// ReferenceEstimate counts ReferenceCalls over results; nil results (reports
// that failed to load) count nothing. B is each result's
// Stats.ReferenceBlocks, or ⌈bytes/16 KiB⌉ for results written before it
// was recorded.
func ReferenceEstimate(results []*Result) ReferenceCalls {
	var rc ReferenceCalls
	for _, r := range results {
		if r == nil {
			continue
		}
		b := r.Stats.ReferenceBlocks
		if b == 0 && r.Stats.Bytes > 0 {
			b = (r.Stats.Bytes + referenceBlockSize - 1) / referenceBlockSize
		}
		rc.Blocks += b
		if r.Stats.ReferenceSplitFails {
			rc.SplitFailures++
		}
		rc.URLs += r.Stats.DistinctURLs
		for _, c := range r.Claims {
			rc.Pairs += len(c.Citations)
		}
		if r.NonCited != nil {
			rc.NonCited += r.NonCited.CheckWorthy
		}
	}
	rc.Calls = 2*rc.Blocks + 2*rc.Pairs + rc.URLs + 6*rc.NonCited
	return rc
}

// referenceBlockSize is the released code's BLOCK_SIZE (utils.py), in
// characters (Unicode code points, as Python's len counts them).
const referenceBlockSize = 16384

// ReferenceBlocks counts the blocks the released ReportBench code cuts a
// report's text into before extracting its statements
// (split_text_by_headers in utils.py), the B of its cost: lines are
// grouped between Markdown headings of levels 1–3 ("# ", "## ", "### " at
// the start of a line) into blocks of at most 16,384 characters, a section
// longer than that staying one block; a text without such headings is cut
// between lines. Its quirks are kept, since they decide the count: when a
// section overflows the block being built, the block is closed before it
// and the section becomes a block of its own, however short; blocks of
// white space only are dropped. fails reports that the released code's
// own check (the blocks joined again give the text) fails, which makes it
// skip the report (REFERENCE.md A5 B1); the count is returned all the
// same.
func ReferenceBlocks(text string) (blocks int, fails bool) {
	lines := strings.Split(text, "\n")
	runes := make([]int, len(lines)+1) // prefix sums of code points per line
	for i, l := range lines {
		runes[i+1] = runes[i] + utf8.RuneCountInString(l)
	}
	// size is the length of "\n".join(lines[from:to]).
	size := func(from, to int) int {
		if to <= from {
			return 0
		}
		return runes[to] - runes[from] + (to - from - 1)
	}
	var heads []int
	for i, l := range lines {
		if strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "### ") {
			heads = append(heads, i)
		}
	}
	if len(heads) == 0 {
		// Cut between lines, counting each line with its newline. No
		// block is dropped on this path, so the check always holds.
		cur := 0 // size of the block being built
		open := false
		for i := range lines {
			ls := runes[i+1] - runes[i] + 1
			if cur+ls > referenceBlockSize && open {
				blocks++
				cur = ls
			} else {
				cur += ls
			}
			open = true
		}
		if open {
			blocks++
		}
		return blocks, false
	}
	type span struct{ from, to int }
	var out []span
	all := append(append([]int{0}, heads...), len(lines))
	start := 0
	for i := 1; i < len(all); i++ {
		end := all[i]
		if size(start, end) > referenceBlockSize {
			if start == all[i-1] {
				out = append(out, span{start, end})
				start = end
				continue
			}
			if start < all[i-1] {
				out = append(out, span{start, all[i-1]})
			}
			start = all[i-1]
			out = append(out, span{start, end})
			start = end
			continue
		}
		if i == len(all)-1 {
			if start < end {
				out = append(out, span{start, end})
			}
			start = end
		}
	}
	if start < len(lines) {
		out = append(out, span{start, len(lines)})
	}
	// Blocks of white space only are dropped; an empty slice of lines
	// ("".join of nothing) is one too.
	kept := 0
	var joined strings.Builder
	for _, s := range out {
		b := strings.Join(lines[s.from:s.to], "\n")
		if strings.TrimFunc(b, unicode.IsSpace) == "" {
			continue
		}
		if kept > 0 {
			joined.WriteByte('\n')
		}
		joined.WriteString(b)
		kept++
	}
	return kept, joined.String() != text
}
