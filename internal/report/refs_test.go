package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

func TestCitedNumbers(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"as shown [1] and [3, 5] and [7-9]; see 【12】", []string{"1", "12", "3", "5", "7", "8", "9"}},
		{"ranges with an en dash [2–3], spaces [ 4 ]", []string{"2", "3", "4"}},
		{"links are not citations: [1](https://a) [[2]](https://b)", nil},
		{"but a bracketed marker is: [[3]] and [4]]", []string{"3", "4"}},
		{"not numbers: [a] [1a] [] [-1] [5-2] [1-100000] [x, 2]", nil},
		{"an unclosed [1 and a far ] close", nil},
	} {
		set := citedNumbers(tt.text)
		var got []string
		for n := range set {
			got = append(got, n)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("citedNumbers(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if !mostIn([]string{"01", "2", "3"}, citedNumbers("[1] [2]")) || mostIn([]string{"1", "2", "3"}, citedNumbers("[1]")) {
		t.Errorf("mostIn: want at least half, with leading zeros ignored")
	}
}

// BenchmarkParseLongHeaderlessList parses a report of 9,000 cited
// sentences followed by a 9,000-item numbered list without a heading: the
// look for the numbers the text cites is one pass over the text, not one a
// list item.
func BenchmarkParseLongHeaderlessList(b *testing.B) {
	const n = 9000
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "Claim number %d holds [%d]. ", i, i)
	}
	sb.WriteString("\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%d. Title %d, https://example.org/p/%d\n", i, i, i)
	}
	text := sb.String()
	resolved := 0
	for _, c := range Parse(text).Citations {
		if c.Kind == claimtrace.KindNumbered && c.URL != "" {
			resolved++
		}
	}
	if resolved != n {
		b.Fatalf("%d markers resolved through the list, want %d", resolved, n)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Parse(text)
	}
}

// BenchmarkParseUnclosedBrackets parses a paragraph of 60,000 brackets
// that never close: each would otherwise be searched maxLinkText bytes
// ahead; the block's one-pass bracket table, made once searching costs more,
// keeps it linear.
func BenchmarkParseUnclosedBrackets(b *testing.B) {
	text := strings.Repeat("[ [[ [1 word ", 20000) + "."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Parse(text)
	}
}

// TestNumberLinkLen: the hand-written matcher agrees with linkLabelRE.
func TestNumberLinkLen(t *testing.T) {
	for _, s := range []string{"[[3]](u", "[3](u", "[[12]]x", "[12](", "[[1234]](x", "[12345](x", "[a](x", "[[3](x", "[3]](x", "[](x", "[[", "", "[[3]]("} {
		want := 0
		if m := linkLabelRE.FindStringIndex(s); m != nil {
			want = m[1]
		}
		if got := numberLinkLen(s); got != want {
			t.Errorf("numberLinkLen(%q) = %d, want %d", s, got, want)
		}
	}
}
