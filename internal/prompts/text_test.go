package prompts_test

import (
	"testing"

	"github.com/claimtrace/claimtrace/internal/prompts"
)

func TestOneLine(t *testing.T) {
	tests := map[string]string{
		"":                            "",
		"  a  b ":                     "a b",
		"line one\nline two\t\tend\n": "line one line two end",
		"\u00a0non-breaking\u00a0":    "non-breaking",
	}
	for in, want := range tests {
		if got := prompts.OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNumbered(t *testing.T) {
	got := prompts.Numbered("statement", []string{"First\nclaim.", "  Second claim. "})
	want := "<statement n=\"1\">First claim.</statement>\n<statement n=\"2\">Second claim.</statement>"
	if got != want {
		t.Errorf("Numbered = %q, want %q", got, want)
	}
	if got := prompts.Numbered("claim", nil); got != "" {
		t.Errorf("Numbered of nothing = %q, want \"\"", got)
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		idx  []int
		want string
	}{
		{[]int{0}, "1"},
		{[]int{6}, "7"},
		{[]int{3, 4, 8}, "4-9"},
	}
	for _, tt := range tests {
		if got := prompts.Range(tt.idx); got != tt.want {
			t.Errorf("Range(%v) = %q, want %q", tt.idx, got, tt.want)
		}
	}
}
