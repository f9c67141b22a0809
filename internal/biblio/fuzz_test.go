package biblio

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
)

func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{
		"http://www.Example.com/a/b/?utm_source=chatgpt.com&b=2&a=1#frag",
		"https://zh.wikipedia.org/zh-hans/中產階級",
		"https://en.wikipedia.org/wiki/Python_(programming_language)).",
		"https://youtu.be/x?t=1", "doi:10.1145/ABC", "www.x.org/%7e%3a%zz", "https://[::1]:8080/x",
		"https://user@host:99999/%", "//a.b/c?d=e&&f#/g", "https://x.org/?a=%E4%B8&b", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := CanonicalURL(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(c, "https://") {
			t.Fatalf("CanonicalURL(%q) = %q: not https", s, c)
		}
		if !utf8.ValidString(c) {
			t.Fatalf("CanonicalURL(%q) = %q: invalid UTF-8", s, c)
		}
		if strings.ContainsAny(c, " \t\n") {
			t.Fatalf("CanonicalURL(%q) = %q: contains whitespace", s, c)
		}
		c2, err := CanonicalURL(c)
		if err != nil {
			t.Fatalf("CanonicalURL(%q) = %q, which is rejected: %v", s, c, err)
		}
		if c2 != c {
			t.Fatalf("CanonicalURL not idempotent: %q -> %q -> %q", s, c, c2)
		}
	})
}

func FuzzNormalizeTitle(f *testing.F) {
	for _, s := range []string{
		"Post-\\OCR\\ parsing", "$\\$TESSERACT$\\$", "Z{\\\"u}gner", "\\textCIS2", "Multi-Agent",
		"中文标题：研究", "ﬁne", "\\", "\\c", "{\\v", "$\\alpha", "ǅ ǈ ǋ", "İstanbul", "\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeTitle(s)
		if !utf8.ValidString(n) {
			t.Fatalf("NormalizeTitle(%q) = %q: invalid UTF-8", s, n)
		}
		if n != strings.TrimSpace(n) || strings.Contains(n, "  ") {
			t.Fatalf("NormalizeTitle(%q) = %q: whitespace not collapsed", s, n)
		}
		if NormalizeTitle(n) != n {
			t.Fatalf("NormalizeTitle not idempotent: %q -> %q -> %q", s, n, NormalizeTitle(n))
		}
		if k := TitleKey(s); strings.Contains(k, " ") {
			t.Fatalf("TitleKey(%q) = %q contains a space", s, k)
		}
	})
}

func FuzzArXivID(f *testing.F) {
	for _, s := range []string{
		"2101.00001v2", "arXiv:hep-th/9901001v1", "math.GT/0309136", "https://arxiv.org/pdf/2101.00001v2.pdf",
		"arXiv preprint arXiv:1810.04805", "10.48550/arXiv.2211.05100", "https://huggingface.co/papers/2305.12345",
		"arxiv arxiv arxiv 2101.00001", "cs/", "/1234567",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id := ArXivID(s)
		if id == "" {
			return
		}
		if again := ArXivID(id); again != id {
			t.Fatalf("ArXivID(%q) = %q, but ArXivID(%q) = %q", s, id, id, again)
		}
		if _, ok := ArXivDate(id); !ok {
			t.Fatalf("ArXivID(%q) = %q has no date", s, id)
		}
		num := id[strings.IndexByte(id, '/')+1:]
		if !strings.Contains(strings.ToLower(s), num) {
			t.Fatalf("ArXivID(%q) = %q, not in the input", s, id)
		}
	})
}

func FuzzDOI(f *testing.F) {
	for _, s := range []string{
		"doi:10.1145/3292500.3330701.", "https://doi.org/10.1016/S1474-6670(17)45407-3",
		"https://www.biorxiv.org/content/10.1101/2020.01.01.123456v2.full.pdf", "10.1000%2Fabc",
		"https://www.nature.com/articles/s41467-020-15149-4.pdf", "10.1234/)))", "10.1234/v1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := DOI(s)
		if d == "" {
			return
		}
		if !strings.HasPrefix(d, "10.") || !strings.Contains(d, "/") {
			t.Fatalf("DOI(%q) = %q: not a DOI", s, d)
		}
		if strings.ContainsAny(d, " \t\n\"<>") {
			t.Fatalf("DOI(%q) = %q: contains a separator", s, d)
		}
		if d != strings.ToLower(d) {
			t.Fatalf("DOI(%q) = %q: not lowercased", s, d)
		}
		if again := DOI(d); again != d {
			t.Fatalf("DOI not idempotent: %q -> %q -> %q", s, d, again)
		}
	})
}

// FuzzMatch checks that matching never panics and that a reference always
// finds itself by title.
func FuzzMatch(f *testing.F) {
	f.Add("Attention is all you need", "Attention is all you nead")
	f.Add("Deep residual learning", "Deep residual learning for image recognition")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		ix := NewIndex([]claimtrace.Reference{{BibID: "a", Title: a}, {BibID: "b", Title: "unrelated reference title here"}})
		m, ok := ix.Match(claimtrace.Work{Title: b})
		if ok && (m.Ref < 0 || m.Ref >= ix.Len() || m.Score <= 0 || m.Score > 1) {
			t.Fatalf("Match(%q) = %+v", b, m)
		}
		if TitleKey(a) != "" && TitleKey(a) != TitleKey("unrelated reference title here") {
			m, ok := ix.Match(claimtrace.Work{Title: a})
			if !ok || m.Ref != 0 || m.Method != MethodTitle {
				t.Fatalf("title %q does not match itself: %+v %v", a, m, ok)
			}
		}
	})
}
