package analysis

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExcerpt: any report and budget give valid UTF-8 that keeps the
// report's start and end, sends at most the budget, and says what it left
// out.
func FuzzExcerpt(f *testing.F) {
	f.Add("# Title\n\nSome text.\n", 1000)
	f.Add(strings.Repeat("Line of a report — ρ 検索.\n", 200), 1000)
	f.Add(strings.Repeat("x", 5000), 1200)
	f.Add(strings.Repeat("\n", 3000), 1000)
	f.Fuzz(func(t *testing.T, text string, budget int) {
		if !utf8.ValidString(text) || budget < 1000 || budget > 1<<20 {
			return
		}
		ex := excerpt(text, budget)
		n := utf8.RuneCountInString(text)
		if ex.Chars != n || !utf8.ValidString(ex.Text) {
			t.Fatalf("chars %d of %d, valid %v", ex.Chars, n, utf8.ValidString(ex.Text))
		}
		if !ex.Truncated {
			if ex.Text != text || ex.Sent != n || n > budget || ex.Note != "" {
				t.Fatalf("untruncated excerpt changed the report")
			}
			return
		}
		if ex.Sent > budget || ex.Sent < budget*9/10-1 || ex.Note == "" {
			t.Fatalf("sent %d of budget %d", ex.Sent, budget)
		}
		marker := strings.Index(ex.Text, "[… ")
		end := strings.Index(ex.Text, " …]\n\n")
		if marker < 0 || end < marker {
			t.Fatalf("no omission marker")
		}
		head := strings.TrimRight(ex.Text[:marker], "\n")
		tail := ex.Text[end+len(" …]\n\n"):]
		if !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tail) {
			t.Fatalf("excerpt is not the report's start and end")
		}
		if utf8.RuneCountInString(ex.Text[:marker])+utf8.RuneCountInString(tail) < ex.Sent-1 {
			t.Fatalf("sent %d but kept fewer characters", ex.Sent)
		}
	})
}
