package fetch

import (
	"strings"
	"testing"
)

// TestWallMarkersOnShortPagesOnly: a challenge script's marker makes a
// short page a bot wall, weak markers only a very short one, and neither
// touches a long article that happens to load the same script.
func TestWallMarkersOnShortPagesOnly(t *testing.T) {
	para := "<p>The harbour authority measured tide levels at four gauges between 2014 and 2023, " +
		"finding a mean rise of 4.2 centimetres, most of it in the last three winters.</p>\n"
	page := func(script string, paras int) []byte {
		return []byte("<html><head><title>Tide levels in the harbour</title>" + script + "</head><body><article><h1>Tide levels</h1>" +
			strings.Repeat(para, paras) + "</article></body></html>")
	}
	strong := `<script>window._cf_chl_opt={cvId:'3'};</script>`
	weak := `<script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script>`
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"strong marker, short page", page(strong, 20), WallBot}, // ~500 words
		{"strong marker, long page", page(strong, 60), ""},       // ~1,500 words
		{"weak marker, very short page", page(weak, 3), WallBot}, // ~75 words
		{"weak marker, middling page", page(weak, 20), ""},       // past the 300 words weak markers need
		{"no marker, short page", page("", 3), ""},
	}
	for _, tt := range tests {
		c, err := Extract(&Page{URL: "https://harbour.example.org/tides", Status: 200, ContentType: "text/html", Body: tt.body})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if c.Wall != tt.want {
			t.Errorf("%s: wall %q, want %q", tt.name, c.Wall, tt.want)
		}
	}
}
