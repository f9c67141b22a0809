package agent

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/llm"
)

// InsertCitations writes a provider's web citations into its answer as
// Markdown links, so that the report carries its URLs in the text the way
// claimtrace eval reads them: "[n](url)" after each cited span, numbered by
// first appearance. A URL already written in the text is left as it is;
// citations without a location (Start = End = 0) are listed under
// "Sources" at the end. With no citation the text is returned unchanged.
func InsertCitations(text string, cites []llm.WebCitation) string {
	num := map[string]int{}
	var order []string
	number := func(u string) int {
		if n, ok := num[u]; ok {
			return n
		}
		order = append(order, u)
		num[u] = len(order)
		return num[u]
	}
	type mark struct {
		at   int
		urls []string
	}
	byEnd := map[int]*mark{}
	var unplaced []string
	inText := map[string]bool{} // URLs already written in the text
	for _, c := range cites {
		u := strings.TrimSpace(c.URL)
		if !plausibleURL(u) {
			continue
		}
		in, seen := inText[u]
		if !seen {
			in = strings.Contains(text, u)
			inText[u] = in
		}
		if in {
			continue
		}
		if c.Start == 0 && c.End == 0 || c.End <= 0 || c.End > len(text) || c.Start > c.End {
			unplaced = append(unplaced, u)
			continue
		}
		at := c.End
		for at < len(text) && !utf8.RuneStart(text[at]) {
			at++
		}
		m := byEnd[at]
		if m == nil {
			m = &mark{at: at}
			byEnd[at] = m
		}
		if !contains(m.urls, u) {
			m.urls = append(m.urls, u)
		}
	}
	marks := make([]*mark, 0, len(byEnd))
	for _, m := range byEnd {
		marks = append(marks, m)
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].at < marks[j].at })
	var b strings.Builder
	pos := 0
	for _, m := range marks {
		b.WriteString(text[pos:m.at])
		for _, u := range m.urls {
			fmt.Fprintf(&b, " [%d](%s)", number(u), u)
		}
		pos = m.at
	}
	b.WriteString(text[pos:])
	var listed []string
	for _, u := range unplaced {
		if _, placed := num[u]; !placed && !contains(listed, u) {
			listed = append(listed, u)
		}
	}
	if len(listed) > 0 {
		b.WriteString("\n\nSources:\n")
		for _, u := range listed {
			fmt.Fprintf(&b, "\n[%d] %s", number(u), u)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// plausibleURL rejects what cannot be written as a Markdown link target:
// empty strings, invalid UTF-8, spaces, control characters, brackets.
func plausibleURL(u string) bool {
	if u == "" || !utf8.ValidString(u) {
		return false
	}
	for _, r := range u {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("()[]<>", r) {
			return false
		}
	}
	return true
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
