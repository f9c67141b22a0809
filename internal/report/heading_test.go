package report

import "testing"

func TestIsHeading(t *testing.T) {
	tests := map[string]bool{
		"# Title":           true,
		"## Methods\n":      true,
		"###### Six":        true,
		"   ### Indented":   true,
		"##\tTab":           true,
		"#":                 true,
		"##\n":              true,
		"####### Seven":     false,
		"#hashtag":          false,
		"Text # not":        false,
		"":                  false,
		"\n":                false,
		"##\r\n":            false,
		"\t# tab-indented":  false,
		"-# list, not head": false,
	}
	for line, want := range tests {
		if got := IsHeading(line); got != want {
			t.Errorf("IsHeading(%q) = %v, want %v", line, got, want)
		}
	}
}
