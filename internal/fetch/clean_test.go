package fetch

import (
	"strings"
	"testing"
)

// cleanTextByLines is cleanText as it was first written, a line at a
// time: the single pass must give the same text.
func cleanTextByLines(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	blank := 0
	for line := range strings.SplitSeq(s, "\n") {
		line = collapseSpaces(line)
		if line == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  \n\t\n ", ""},
		{"Harbour  levels\trose\u00a0sharply.", "Harbour levels rose sharply."},
		{"  First line  \n   second line\n", "First line\nsecond line"},
		{"Para one.\n\n\n\nPara two.\r\n", "Para one.\n\nPara two."},
		{"\n\nLeading blanks are dropped.", "Leading blanks are dropped."},
		{"zero\u200bwidth and\ufeffmark", "zerowidth andmark"},
		{"carriage\rreturn", "carriagereturn"},
		{"wide\u3000space \u2003here", "wide space here"},
		{"bad \xff\xfe bytes", "bad \uFFFD bytes"},
		{"a\n \u00a0 \nb", "a\n\nb"},
		{"of the  big\t dog \n x y\u00e9 z", "of the big dog\nx y\u00e9 z"},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := cleanTextByLines(tt.in); got != tt.want {
			t.Errorf("cleanTextByLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"", "a  b\n\n\nc", " \t\r\n\u00a0x\u200b\ufeff\u2028y\n", "\xff\x80 z \n", "line\n \nline\v\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanText(s), cleanTextByLines(s); got != want {
			t.Fatalf("cleanText(%q) = %q, line by line %q", s, got, want)
		}
	})
}

// BenchmarkCleanText compares the single pass with the line-by-line
// version on rendered page text (indented lines, blank runs, no-break
// spaces):
//
//	go test ./internal/fetch -run '^$' -bench CleanText
func BenchmarkCleanText(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 400; i++ {
		sb.WriteString("    The harbour authority  reported that\u00a0mean tide levels rose by 4.2 cm over the decade.\n")
		sb.WriteString("\t\tResidents   were told in March.  \n\n\n")
	}
	text := sb.String()
	for _, v := range []struct {
		name string
		fn   func(string) string
	}{{"single-pass", cleanText}, {"by-lines", cleanTextByLines}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				v.fn(text)
			}
		})
	}
}
