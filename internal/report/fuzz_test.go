package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Revenue grew.[[3]](https://example.com/a) Costs fell [4].\n\nReferences\n[4] https://x.org - X",
		"A [1, 3] B [2-4] C 【2】 D [^x] E <https://a.b/c> F https://a.b/(c)) G doi:10.1/abcd H arXiv:2101.00001\n\n[^x]: https://doi. org/10.1/x\n[1]: https://a.b",
		"让我搜索：\n\n# 标题\n\n第一句。 [1]\n\n参考文献：\n[1] https://zh.wikipedia.org/wiki/中文 - 中文",
		"| a | [1] |\n|---|---|\n```\n[1]\n```\n> q [2]\n- item.1 x\n\n1. T, accessed, [https://a](https://a)",
		"x.\ue200cite\ue202turn1view0\ue201 [[1]](#r) ![i](https://i) \\[[A' 2020](http://arxiv.org/abs/2101.00001)\\]",
		"Query ID: 1\nQUESTION:\nq\nANSWER:\nA.[[1]](https://a.b)",
		"A (Lewis et al., 2020; see Izacard & Grave, 2021a, p. 4). Lewis and Perez (2020, 2021b) agree. (March 2020) (X, n.d.)\n\n## References\n\nLewis, P., & Perez, E. (2020). T. https://a.b\n\nIzacard, G. (2021a). U.",
		"van der Aalst (2016) and (De Cock et al. 2019, Table 2; O’Brien, 2018) or (Müller,2017,2018)\n\n[1] W. van der Aalst, “P,” 2016.\n[2] **De Cock et al. (2019)** Q. doi:10.1/x",
		"(Smith et\nal., 2020 (Smith, 2020) Smith & (2020) et al. (2020) ((2020)) (, 2020) (Smith, 2020\n\n- Smith, J. (2020). S.",
		"<img src=\"https://x.ai/logo.png\"/>\n\nA [^1] <span style=\"display:none\">[^1]</span> <a href='https://a.b'>t</a> $[1, 3] \\times [0, 1]$ x ∈ [1, 3] $5 and $6 [2]\n\nNotes:\n1. See [1].\n| a | b |\n\n[^1]: https://a.b/c?d=1\\&e=2 https://w.org/wiki/A–B\n\nAnswer from Perplexity: pplx.ai/share",
		"References\n\n[1] A. B, \"T,\" 2019. [2] C. D, \"U,\" 2020. [4] E. [3] F.\n\n## Further reading\n1. T, 2020.\n\n[1] https://a.b",
		"x [1] [2] [3]\n\nReferences\n[1] A, 2024. https://a.b/c-\nd-e/ [Accessed 2025-08-25].[2] B. In: CVPR3. Ali W. T. 2020\n315. [4] C\f\n\n1.\nD 2.E\n",
		"x [1]。\n前文。\n参考文献： [1]\nhttps://a.b/c/d_e\n_f [2]\nhttps://a.b/x-\nY-z.pdf\n\nReferences [1] A. [2] B.",
		"x [^1]\n\n[^1]: https://a.b/4995/Teacher Resources/ESOL Matrix.pdf\n\n## Sources\n\n关键引用：\n\ntext-align: center\n\nNote: x\n\n- https://a.b/x- y- z/ https://c.d/research/not\nes/e.html",
	} {
		f.Add(s)
	}
	for _, name := range []string{"report.md", "authoryear.md"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := Parse(s)
		if err := checkDocument(s, doc); err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add("a.json", []byte(`{"response": "x"}`))
	f.Add("a.json", []byte(`{"content": [{"type": "text", "text": "x"}]}`))
	f.Add("a.json", []byte(`{"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]}`))
	f.Add("a.md", []byte("\xef\xbb\xbf# x"))
	f.Add("a.txt", []byte("\xff"))
	f.Add("a.pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Add("a.md", []byte("%PDF-1.7 then garbage"))
	f.Add("a.docx", []byte("PK\x03\x04\x14\x00garbage"))
	f.Add("a.doc", []byte("\xd0\xcf\x11\xe0"))
	if b, err := os.ReadFile("../document/testdata/links.pandoc.docx"); err == nil {
		f.Add("a.docx", b)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		text, err := Decode(name, data)
		if err != nil {
			return
		}
		if text == "" {
			t.Fatalf("Decode(%q, %q) returned empty text without error", name, data)
		}
		Parse(text)
	})
}

// FuzzBracketTable: matching a block's brackets in one pass gives the
// links the one-bracket-at-a-time search gives, at every '['.
func FuzzBracketTable(f *testing.F) {
	for _, s := range []string{
		"[a](http://x) [[1]](http://y) \\[no](z) [b]\n\n[c](d)",
		"[ [[ [1] ]( x) \\\\[e](f) `[g](h)` ![i](j)",
		"[" + strings.Repeat("x", maxLinkText) + "](http://far)",
		"[a\\](b)](http://c) [x]\n[y](z)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		table := matchBrackets(text, 0, len(text))
		for i := 0; i < len(text); i++ {
			if text[i] != '[' {
				continue
			}
			want, wok := parseInlineLink(text, i, len(text))
			got, gok := linkByTable(text, table, 0, i, len(text))
			if wok != gok || want != got {
				t.Fatalf("link at %d of %q: by table %+v, %v; by search %+v, %v", i, text, got, gok, want, wok)
			}
		}
	})
}
