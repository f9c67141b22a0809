package biblio

import (
	"errors"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

func TestCanonicalURL(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"http://www.Example.com/a/b/?utm_source=chatgpt.com&b=2&a=1#frag", "https://example.com/a/b?a=1&b=2"},
		{"https://arxiv.org/abs/2101.01507.", "https://arxiv.org/abs/2101.01507"},
		{"http://arxiv.org/abs/x", "https://arxiv.org/abs/x"},
		{"https://www.arxiv.org/abs/x/", "https://arxiv.org/abs/x"},
		{"HTTPS://EXPORT.ARXIV.ORG/abs/x", "https://arxiv.org/abs/x"},
		{"https://en.wikipedia.org/wiki/Python_(programming_language)", "https://en.wikipedia.org/wiki/Python_(programming_language)"},
		{"https://en.wikipedia.org/wiki/Python_(programming_language)).", "https://en.wikipedia.org/wiki/Python_(programming_language)"},
		{"https://en.m.wikipedia.org/wiki/Foo", "https://en.wikipedia.org/wiki/Foo"},
		{"https://zh.wikipedia.org/zh-hans/中產階級", "https://zh.wikipedia.org/zh-hans/%E4%B8%AD%E7%94%A2%E9%9A%8E%E7%B4%9A"},
		{"https://zh.wikipedia.org/zh-hans/%e4%b8%ad%e7%94%a2%e9%9a%8e%e7%b4%9a", "https://zh.wikipedia.org/zh-hans/%E4%B8%AD%E7%94%A2%E9%9A%8E%E7%B4%9A"},
		{"https://example.org/a%3Ab%2Fc%7Ed", "https://example.org/a:b%2Fc~d"},
		{"https://example.org/a%20b", "https://example.org/a%20b"},
		{"https://example.org/q?x=a%26b&y=%41", "https://example.org/q?x=a%26b&y=A"},
		{"https://example.org/page?a=1&amp;b=2", "https://example.org/page?a=1&b=2"},
		{"https://example.org:443/x", "https://example.org/x"},
		{"http://example.org:80/x", "https://example.org/x"},
		{"https://example.org:8080/x", "https://example.org:8080/x"},
		{"https://user:pw@example.org/x", "https://example.org/x"},
		{"https://example.org./x", "https://example.org/x"},
		{"www.example.org/x", "https://example.org/x"},
		{"//example.org/x", "https://example.org/x"},
		{"<https://example.org/x>", "https://example.org/x"},
		{"https://example.org/", "https://example.org"},
		{"https://example.org", "https://example.org"},
		{"https://example.org/x?", "https://example.org/x"},
		{"https://example.org/x，", "https://example.org/x"},
		{"https://example.org/x。", "https://example.org/x"},
		{"https://example.org/x）", "https://example.org/x"},
		{"https://example.org/app#/paper/12", "https://example.org/app#/paper/12"},
		{"https://example.org/app#!/paper/12", "https://example.org/app#!/paper/12"},
		{"https://example.org/doc#section-2", "https://example.org/doc"},
		{"https://dx.doi.org/10.1145/ABC.123", "https://doi.org/10.1145/abc.123"},
		{"doi:10.1145/ABC.123", "https://doi.org/10.1145/abc.123"},
		{"https://youtu.be/dQw4w9WgXcQ?si=xyz&t=42", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ&feature=share&list=PL1", "https://youtube.com/watch?list=PL1&v=dQw4w9WgXcQ"},
		{"https://m.youtube.com/watch?v=dQw4w9WgXcQ", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
		{"https://example.org/x?fbclid=1&gclid=2&mc_cid=3&spm=a.b&id=9", "https://example.org/x?id=9"},
		{"https://example.org/x?source=chatgpt.com&q=1", "https://example.org/x?q=1"},
		{"https://example.org/x?source=rss&q=1", "https://example.org/x?q=1&source=rss"},
		{"https://example.org/x?from=timeline&p=2", "https://example.org/x?p=2"},
		{"https://example.org/x?from=2020-01-01&p=2", "https://example.org/x?from=2020-01-01&p=2"},
		{"https://example.org/x?ref=hn", "https://example.org/x"},
		{"https://github.com/o/r/tree?ref=main", "https://github.com/o/r/tree?ref=main"},
		{"https://mp.weixin.qq.com/s?__biz=MzA&mid=22&idx=1&sn=ab&chksm=zz&scene=21#wechat_redirect", "https://mp.weixin.qq.com/s?__biz=MzA&idx=1&mid=22&sn=ab"},
		{"https://www.ndrc.gov.cn/wsdwhfz/202112/t20211213_1307494.html?state=123", "https://ndrc.gov.cn/wsdwhfz/202112/t20211213_1307494.html?state=123"},
		{"https://www.mdpi.com/2073-4425/8/7/186?utm_source=chatgpt.com", "https://mdpi.com/2073-4425/8/7/186"},
	}
	for _, tt := range tests {
		got, err := CanonicalURL(tt.in)
		if err != nil {
			t.Errorf("CanonicalURL(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("CanonicalURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCanonicalURLKeepsWorksApart checks the collisions of the reference
// implementation's normalize_url (REFERENCE.md A3) do not happen here.
func TestCanonicalURLKeepsWorksApart(t *testing.T) {
	pairs := [][2]string{
		{"https://openreview.net/forum?id=A", "https://openreview.net/forum?id=B"},
		{"https://openreview.net/pdf?id=A", "https://openreview.net/pdf?id=B"},
		{"https://ieeexplore.ieee.org/stamp/stamp.jsp?arnumber=8578280", "https://ieeexplore.ieee.org/stamp/stamp.jsp?arnumber=9010001"},
		{"https://www.youtube.com/watch?v=aaa", "https://www.youtube.com/watch?v=bbb"},
		{"https://example.org/view?id=1", "https://example.org/view?id=2"},
		{"https://example.org/a%2Fb", "https://example.org/a/b"},
		{"https://example.org/Paper", "https://example.org/paper"},
		{"https://scholar.example.org/search?q=x", "https://scholar.example.org/search?q=y"},
		{"https://example.org/x?from=2020", "https://example.org/x?from=2021"},
		{"https://arxiv.org/abs/2101.00001", "https://arxiv.org/pdf/2101.00001"}, // one work, two URLs: Key merges them, not CanonicalURL
	}
	for _, p := range pairs {
		a, errA := CanonicalURL(p[0])
		b, errB := CanonicalURL(p[1])
		if errA != nil || errB != nil {
			t.Fatalf("CanonicalURL errors: %v, %v", errA, errB)
		}
		if a == b {
			t.Errorf("CanonicalURL(%q) == CanonicalURL(%q) == %q: distinct pages merged", p[0], p[1], a)
		}
	}
}

func TestCanonicalURLErrors(t *testing.T) {
	for _, in := range []string{"", "   ", "mailto:a@b.org", "ftp://example.org/x", "javascript:alert(1)", "https://", "https:///x", "not a url", "https://exa mple.org/", "https://example.org:http/x", "doi:nothing"} {
		got, err := CanonicalURL(in)
		if err == nil {
			t.Errorf("CanonicalURL(%q) = %q, want error", in, got)
			continue
		}
		if !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("CanonicalURL(%q) error %v does not wrap ErrInvalid", in, err)
		}
	}
}

func TestTrimURLTail(t *testing.T) {
	tests := map[string]string{
		"https://x.org/a.":                       "https://x.org/a",
		"https://x.org/a),":                      "https://x.org/a",
		"https://x.org/a_(b)":                    "https://x.org/a_(b)",
		"https://x.org/a_(b))":                   "https://x.org/a_(b)",
		"https://x.org/a]":                       "https://x.org/a",
		"https://x.org/a”。":                      "https://x.org/a",
		"https://x.org/a**":                      "https://x.org/a",
		"https://x.org/?q=1!":                    "https://x.org/?q=1",
		"https://x.org/（中文）":                     "https://x.org/（中文）",
		"https://x.org/中文）":                      "https://x.org/中文",
		"https://x.org/a;b":                      "https://x.org/a;b",
		"":                                       "",
		"...":                                    "",
		"https://x.org/a?utm_source=chatgpt.com": "https://x.org/a?utm_source=chatgpt.com",
	}
	for in, want := range tests {
		if got := TrimURLTail(in); got != want {
			t.Errorf("TrimURLTail(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsScholarly(t *testing.T) {
	hosts := map[string]bool{
		"arxiv.org": true, "www.arxiv.org": true, "ARXIV.ORG": true, "export.arxiv.org": true,
		"dl.acm.org": true, "ieeexplore.ieee.org": true, "link.springer.com": true,
		"www.sciencedirect.com": true, "www.nature.com": true, "openreview.net": true,
		"aclanthology.org": true, "proceedings.neurips.cc": true, "openaccess.thecvf.com": true,
		"www.semanticscholar.org": true, "pubmed.ncbi.nlm.nih.gov": true, "pmc.ncbi.nlm.nih.gov": true,
		"www.biorxiv.org": true, "papers.ssrn.com": true, "www.researchgate.net": true,
		"www.jstor.org": true, "onlinelibrary.wiley.com": true, "www.tandfonline.com": true,
		"www.mdpi.com": true, "www.frontiersin.org": true, "journals.plos.org": true,
		"iopscience.iop.org": true, "journals.aps.org": true, "www.pnas.org": true,
		"www.science.org": true, "www.cell.com": true, "arxiv.org:443": true,
		"en.wikipedia.org": false, "medium.com": false, "www.reuters.com": false,
		"github.com": false, "notarxiv.org": false, "arxiv.org.evil.com": false, "": false,
		"spectrum.ieee.org": false,
	}
	for h, want := range hosts {
		if got := IsScholarlyHost(h); got != want {
			t.Errorf("IsScholarlyHost(%q) = %v, want %v", h, got, want)
		}
	}
	urls := map[string]bool{
		"https://www.researchgate.net/publication/123_Title":     true,
		"https://www.researchgate.net/profile/Someone":           false,
		"https://huggingface.co/papers/2305.12345":               true,
		"https://huggingface.co/bert-base-uncased":               false,
		"https://example.org/paper?doi=10.1145/3292500.3330701":  true,
		"https://blog.example.org/arxiv-2101.00001":              false,
		"https://arxiv.org/abs/2101.00001":                       true,
		"https://www.mdpi.com/2079-7737/11/5/710":                true,
		"https://en.wikipedia.org/wiki/Horizontal_gene_transfer": false,
		"not a url": false,
	}
	for u, want := range urls {
		if got := IsScholarlyURL(u); got != want {
			t.Errorf("IsScholarlyURL(%q) = %v, want %v", u, got, want)
		}
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		name string
		w    claimtrace.Work
		want string
	}{
		{"arxiv field", claimtrace.Work{ArXivID: "2101.00001v3", DOI: "10.1/x"}, "arxiv:2101.00001"},
		{"arxiv pdf url", claimtrace.Work{URL: "https://arxiv.org/pdf/2101.00001v2.pdf"}, "arxiv:2101.00001"},
		{"arxiv doi", claimtrace.Work{DOI: "10.48550/arXiv.2101.00001"}, "arxiv:2101.00001"},
		{"arxiv in second url", claimtrace.Work{URL: "https://example.org/p", URLs: []string{"https://arxiv.org/abs/2101.00001"}}, "arxiv:2101.00001"},
		{"doi field", claimtrace.Work{DOI: "10.1145/ABC", URL: "https://example.org"}, "doi:10.1145/abc"},
		{"doi url", claimtrace.Work{URL: "https://dl.acm.org/doi/10.1145/3292500.3330701"}, "doi:10.1145/3292500.3330701"},
		{"url", claimtrace.Work{URL: "http://www.example.org/x/?utm_medium=a", Title: "T"}, "url:https://example.org/x"},
		{"bad url falls to title", claimtrace.Work{URL: "mailto:x@y.org", Title: "Multi-Agent Systems"}, "title:multiagentsystems"},
		{"title", claimtrace.Work{Title: "Multi Agent  Systems"}, "title:multiagentsystems"},
		{"nothing", claimtrace.Work{}, ""},
	}
	for _, tt := range tests {
		if got := Key(tt.w); got != tt.want {
			t.Errorf("%s: Key = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Several URLs of one paper are one key.
	a := Key(claimtrace.Work{URL: "https://arxiv.org/abs/1706.03762"})
	b := Key(claimtrace.Work{URL: "http://arxiv.org/pdf/1706.03762v7"})
	c := Key(claimtrace.Work{URL: "https://doi.org/10.48550/arXiv.1706.03762"})
	if diff := cmp.Diff([]string{a, a}, []string{b, c}); diff != "" {
		t.Errorf("keys of one paper differ (-want +got):\n%s", diff)
	}
}
