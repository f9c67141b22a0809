package eval

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReferenceEstimate(t *testing.T) {
	a := &Result{Stats: Stats{Bytes: 40000, ReferenceBlocks: 2, DistinctURLs: 3}, NonCited: &NonCitedStats{CheckWorthy: 2},
		Claims: []ClaimResult{{Citations: []string{"u1", "u2"}}, {Citations: []string{"u3"}}, {}}}
	// Written before blocks were recorded: ⌈bytes/16 KiB⌉.
	b := &Result{Stats: Stats{Bytes: 16385, DistinctURLs: 1}, Claims: []ClaimResult{{Citations: []string{"u1"}}}}
	c := &Result{Stats: Stats{Bytes: 10, ReferenceBlocks: 1, ReferenceSplitFails: true}}
	got := ReferenceEstimate([]*Result{a, nil, b, c})
	// Blocks 2 + 2 + 1; pairs 3 + 1; URLs 3 + 1; N 2.
	want := ReferenceCalls{Blocks: 5, Pairs: 4, URLs: 4, NonCited: 2, Calls: 2*5 + 2*4 + 4 + 6*2, SplitFailures: 1}
	if got != want {
		t.Errorf("ReferenceEstimate = %+v, want %+v", got, want)
	}
	if z := ReferenceEstimate(nil); z != (ReferenceCalls{}) {
		t.Errorf("ReferenceEstimate(nil) = %+v, want zero", z)
	}
}

// TestReferenceBlocks pins the block counts of the released code's
// splitter. The expected values were checked against a line-by-line
// Python port of split_text_by_headers (utils.py), which also agreed with
// ReferenceBlocks on all 108 shared deep-research reports and 300 random
// texts.
func TestReferenceBlocks(t *testing.T) {
	a, b, c := strings.Repeat("a", 10000), strings.Repeat("b", 7000), strings.Repeat("c", 100)
	for _, tc := range []struct {
		name  string
		text  string
		want  int
		fails bool
	}{
		{"empty text is one empty block", "", 1, false},
		{"short text without headings", "One line.\nTwo line.", 1, false},
		{"no headings: cut between lines", strings.Join([]string{a, a, a}, "\n"), 3, false},
		{"two sections too big together", "# A\n" + a + "\n## B\n" + a, 2, false},
		// After an overflow the section that overflowed is closed as a
		// block of its own; the two short sections after it make one.
		{"a section that overflows becomes its own block", "# A\n" + a + "\n## B\n" + b + "\n## C\n" + c + "\n## D\n" + c, 3, false},
		{"level-4 headings do not split", "#### A\n" + a + "\n#### B\n" + a, 2, false},
		{"a heading needs its space", "#A\n" + a + "\n#B\n" + a, 2, false},
		{"a section longer than a block stays whole", "intro\n# A\n" + strings.Repeat("y", 40000), 2, false},
		{"characters, not bytes", "# 标题\n" + strings.Repeat("模", 9000) + "\n## 二\n" + strings.Repeat("型", 9000), 2, false},
		{"leading blank lines, big first section: the released check fails", "\n\n# A\n" + strings.Repeat("z", 20000) + "\n# B\nshort", 2, true},
	} {
		got, fails := ReferenceBlocks(tc.text)
		if got != tc.want || fails != tc.fails {
			t.Errorf("%s: ReferenceBlocks = %d, fails %v; want %d, %v", tc.name, got, fails, tc.want, tc.fails)
		}
	}
}

func FuzzReferenceBlocks(f *testing.F) {
	f.Add("# A\nbody\n## B\nmore")
	f.Add("\n\n# A\n" + strings.Repeat("z", 17000))
	f.Add("plain\ntext")
	f.Fuzz(func(t *testing.T, text string) {
		n, _ := ReferenceBlocks(text)
		lines := strings.Count(text, "\n") + 1
		if n < 0 || n > lines {
			t.Fatalf("%d blocks for %d lines", n, lines)
		}
		if strings.TrimSpace(text) != "" && utf8.ValidString(text) && n == 0 {
			t.Fatalf("no block for a text with content")
		}
	})
}
