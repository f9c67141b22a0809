package eval

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSlugTitle(t *testing.T) {
	tests := map[string]string{
		"https://blog.example/posts/dense-widget-retrieval-for-everyone":                "dense widget retrieval for everyone",
		"https://news.example/2024/05/gear_trains_for_widget_assembly.html":             "gear trains for widget assembly",
		"https://mag.example/a/widgets-at-scale-in-2023-factories-4f9a2c":               "widgets at scale in 2023 factories",
		"https://mag.example/a/widgets-at-scale-in-2023-factories-123456/?utm_source=x": "widgets at scale in 2023 factories",
		"https://example.org/p/widgets-at-scale":                                        "",
		"https://example.org/":                                                          "",
		"https://example.org/download/3f9a-21bc-77de-0a1b":                              "",
		"not a url": "",
	}
	for in, want := range tests {
		if got := slugTitle(in); got != want {
			t.Errorf("slugTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEntryYearAndAuthor(t *testing.T) {
	tests := []struct {
		entry, title string
		year         int
		author       string
	}{
		{"[3] Okafor, C. (2022). Sorting Widgets by Colour and Weight. https://x.example/3", "Sorting Widgets by Colour and Weight", 2022, "okafor"},
		{"Wang, L. Deep radar hallucination networks, 2023.", "Deep radar hallucination networks", 2023, "wang"},
		// A year inside the title is not the entry's.
		{"Müller, K. Widgets in 2020 and Beyond. Widget Press, 2021.", "Widgets in 2020 and Beyond", 2021, "muller"},
		// Two years outside the title: none is sure.
		{"Lee, J. (2019, revised 2021). Widget Theory.", "Widget Theory", 0, "lee"},
		// No name before the title.
		{"Widget Theory. https://x.example/t", "Widget Theory", 0, ""},
		{"", "Widget Theory", 0, ""},
		{"[7] https://x.example/t", "", 0, ""},
	}
	for _, tt := range tests {
		if got := entryYear(tt.entry, tt.title); got != tt.year {
			t.Errorf("entryYear(%q) = %d, want %d", tt.entry, got, tt.year)
		}
		if got := entryAuthor(tt.entry, tt.title); got != tt.author {
			t.Errorf("entryAuthor(%q) = %q, want %q", tt.entry, got, tt.author)
		}
	}
}

// FuzzEntryFields: reading a title from a slug and a year and an author
// from an entry never panics; a slug title has enough words, a year is a
// plausible one, an author one lowercase word.
func FuzzEntryFields(f *testing.F) {
	f.Add("https://blog.example/posts/dense-widget-retrieval-for-everyone", "[3] Okafor, C. (2022). Sorting Widgets. x", "Sorting Widgets")
	f.Add("https://x.example/%zz/a-b-c-d", "Wang, L. Deep radar, 2023.", "Deep radar")
	f.Add("", "]]]", "]")
	f.Fuzz(func(t *testing.T, u, entry, title string) {
		if s := slugTitle(u); s != "" && len(strings.Fields(s)) < minSlugWords {
			t.Fatalf("slugTitle(%q) = %q: too few words", u, s)
		}
		if y := entryYear(entry, title); y != 0 && (y < 1950 || y > 2099) {
			t.Fatalf("entryYear(%q, %q) = %d", entry, title, y)
		}
		a := entryAuthor(entry, title)
		if a != "" && (strings.ContainsAny(a, " \t\n") || !utf8.ValidString(a) || a != strings.ToLower(a)) {
			t.Fatalf("entryAuthor(%q, %q) = %q", entry, title, a)
		}
	})
}
