package prompts

import (
	"fmt"
	"strconv"
	"strings"
)

// The helpers below write the variable parts of prompts. Every model-facing
// package renders its data with them, so that a statement or a reason
// reads the same in every prompt and every record.

// OneLine folds runs of white space, line breaks included, into single
// spaces and trims the ends: a statement, a search snippet or a model's
// reason on one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Numbered writes items as numbered <tag n="i">item</tag> lines, from 1,
// each item on one line (OneLine). The answer schemas refer to the items by
// these numbers.
func Numbered(tag string, items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "<%s n=\"%d\">%s</%s>", tag, i+1, OneLine(it), tag)
	}
	return b.String()
}

// Range names a batch of items in an error, given their 0-based indices in
// ascending order: 1-based, "4" for one item, "4-9" from the first to the
// last. idx must not be empty.
func Range(idx []int) string {
	if len(idx) == 1 {
		return strconv.Itoa(idx[0] + 1)
	}
	return fmt.Sprintf("%d-%d", idx[0]+1, idx[len(idx)-1]+1)
}
