package search

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecode feeds arbitrary bodies to every provider's decoder: none may
// panic, and every result they accept has an absolute http(s) URL, no
// duplicate, and at most n entries.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"organic_results":[{"title":"T","link":"https://a.org/x","snippet":"s"}]}`,
		`{"error":"Google hasn't returned any results for this query."}`,
		`{"error":"Invalid API key."}`,
		`{"type":"search","web":{"results":[{"title":"<strong>T</strong>","url":"https://b.org","description":"a &amp; <strong>b</strong>"}]}}`,
		`{"type":"search","query":{"original":"q"}}`,
		`{"query":"q","results":[{"title":"T","url":"http://c.org/?q=1","content":"c"},{"title":"dup","url":"http://c.org/?q=1"}]}`,
		`{"results":[{"url":"javascript:alert(1)"},{"url":"//no-scheme.org"},{"url":"https://"}]}`,
		`{"success":true,"data":{"markdown":"# M","metadata":{"title":"T","statusCode":200}}}`,
		`{"success":true,"data":{"markdown":"","metadata":{"statusCode":404,"error":"Not Found"}}}`,
		`{"code":200,"status":20000,"data":{"title":"T","content":"C","warning":"Target URL returned error 403"}}`,
		"Title: T\n\nURL Source: https://x\n\nMarkdown Content:\nbody",
		`<html>nginx</html>`, ``, `null`, `[]`, `{"results":null}`,
	} {
		f.Add([]byte(seed), 3)
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		n = clampN(n)
		check := func(name string, rs []Result, err error) {
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("%s: error %T %v is not an *Error", name, err, err)
				}
				return
			}
			if len(rs) > n {
				t.Fatalf("%s: %d results, n = %d", name, len(rs), n)
			}
			seen := map[string]bool{}
			for _, r := range rs {
				u, perr := url.Parse(r.URL)
				if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					t.Fatalf("%s: accepted URL %q", name, r.URL)
				}
				if seen[r.URL] {
					t.Fatalf("%s: duplicate %q", name, r.URL)
				}
				seen[r.URL] = true
				if strings.ContainsAny(r.Title+r.Snippet, "\n\t") {
					t.Fatalf("%s: title or snippet not one line: %q %q", name, r.Title, r.Snippet)
				}
			}
		}
		rs, err := decodeSerpAPI("op", body, n)
		check("serpapi", rs, err)
		rs, err = decodeBrave("op", body, n)
		check("brave", rs, err)
		rs, err = decodeContentResults("tavily", "op", body, n)
		check("tavily", rs, err)
		if _, _, err := decodeFirecrawl("op", body); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("firecrawl: %T", err)
			}
		}
		if _, _, err := decodeJina("op", body); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("jina: %T", err)
			}
		}
		code, msg := errorInfo(body)
		if utf8.ValidString(string(body)) && (!utf8.ValidString(code) || !utf8.ValidString(msg)) {
			t.Fatalf("errorInfo produced invalid UTF-8 from valid input")
		}
	})
}

// FuzzParseJinaText: no panic; the title is one line; the text is part of
// the input.
func FuzzParseJinaText(f *testing.F) {
	for _, seed := range []string{
		"Title: A\n\nURL Source: https://x\n\nMarkdown Content:\nB",
		"Title: only",
		"Markdown Content:",
		"plain text",
		"Title: x\nMarkdown Content:\nTitle: y",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		title, text := ParseJinaText(s)
		if strings.Contains(title, "\n") {
			t.Fatalf("title %q spans lines", title)
		}
		if !strings.Contains(s, text) {
			t.Fatalf("text %q is not part of the input %q", text, s)
		}
	})
}

// FuzzClean: cleaned text is one line with no tag left intact.
func FuzzClean(f *testing.F) {
	for _, seed := range []string{"a <strong>b</strong> &amp; c", "<<>>", "x\n\ty", "&lt;script&gt;", "<a href='x'>link</a>"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := clean(s)
		if strings.ContainsAny(c, "\n\t\r") || c != strings.TrimSpace(c) {
			t.Fatalf("clean(%q) = %q is not one trimmed line", s, c)
		}
	})
}
