package report

import (
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

// cite is a citation projected for comparison: Span is the text it covers.
type cite struct {
	Kind    claimtrace.CitationKind
	Marker  string
	Span    string
	URL     string
	DOI     string
	ArXivID string
	Title   string
}

// claim is a claim projected for comparison: its text and the spans of its
// citations.
type claim struct {
	Text  string
	Cites []string
}

func project(text string, doc claimtrace.Document) ([]claim, []cite) {
	var claims []claim
	for _, c := range doc.Claims {
		cl := claim{Text: c.Text}
		for _, i := range c.Citations {
			ct := doc.Citations[i]
			cl.Cites = append(cl.Cites, ct.Marker)
		}
		claims = append(claims, cl)
	}
	var cites []cite
	for _, c := range doc.Citations {
		cites = append(cites, cite{Kind: c.Kind, Marker: c.Marker, Span: text[c.Start:c.End], URL: c.URL, DOI: c.DOI, ArXivID: c.ArXivID, Title: c.Title})
	}
	return claims, cites
}

func TestParseStyles(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		claims []claim
		cites  []cite // nil: not checked
	}{
		{
			name: "inline links with parentheses in the URL",
			text: "Python is a language [Wikipedia](https://en.wikipedia.org/wiki/Python_(programming_language)). It is popular ([survey](https://example.org/survey?year=2024 \"Survey\")).",
			claims: []claim{
				{"Python is a language [Wikipedia](https://en.wikipedia.org/wiki/Python_(programming_language)).", []string{"[Wikipedia]"}},
				{"It is popular ([survey](https://example.org/survey?year=2024 \"Survey\")).", []string{"[survey]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindLink, Marker: "[Wikipedia]", Span: "[Wikipedia](https://en.wikipedia.org/wiki/Python_(programming_language))", URL: "https://en.wikipedia.org/wiki/Python_(programming_language)"},
				{Kind: claimtrace.KindLink, Marker: "[survey]", Span: "[survey](https://example.org/survey?year=2024 \"Survey\")", URL: "https://example.org/survey?year=2024"},
			},
		},
		{
			name: "onyx [[n]](url) after the sentence end",
			text: "Revenue grew 12% in 2024.[[3]](https://example.com/a)[[4]](https://arxiv.org/abs/2101.00001v2) Costs fell [[5]](https://doi.org/10.1145/3292500.3330701).",
			claims: []claim{
				{"Revenue grew 12% in 2024.[[3]](https://example.com/a)[[4]](https://arxiv.org/abs/2101.00001v2)", []string{"[3]", "[4]"}},
				{"Costs fell [[5]](https://doi.org/10.1145/3292500.3330701).", []string{"[5]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindLink, Marker: "[3]", Span: "[[3]](https://example.com/a)", URL: "https://example.com/a"},
				{Kind: claimtrace.KindLink, Marker: "[4]", Span: "[[4]](https://arxiv.org/abs/2101.00001v2)", URL: "https://arxiv.org/abs/2101.00001v2", ArXivID: "2101.00001"},
				{Kind: claimtrace.KindLink, Marker: "[5]", Span: "[[5]](https://doi.org/10.1145/3292500.3330701)", URL: "https://doi.org/10.1145/3292500.3330701", DOI: "10.1145/3292500.3330701"},
			},
		},
		{
			name: "headerless list written without blank lines",
			text: "Smith showed X [1]. Lee showed Y [2].\n\n[1] https://example.org/a\n[2] https://example.org/b\n",
			claims: []claim{
				{"Smith showed X [1].", []string{"[1]"}},
				{"Lee showed Y [2].", []string{"[2]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://example.org/a"},
				{Kind: claimtrace.KindNumbered, Marker: "[2]", Span: "[2]", URL: "https://example.org/b"},
				{Kind: claimtrace.KindListEntry, Marker: "[1]", Span: "[1] https://example.org/a", URL: "https://example.org/a"},
				{Kind: claimtrace.KindListEntry, Marker: "[2]", Span: "[2] https://example.org/b", URL: "https://example.org/b"},
			},
		},
		{
			name: "headerless list of one entry cited in the text",
			text: "Smith showed X [1].\n\n[1] https://example.org/a",
			claims: []claim{
				{"Smith showed X [1].", []string{"[1]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://example.org/a"},
				{Kind: claimtrace.KindListEntry, Marker: "[1]", Span: "[1] https://example.org/a", URL: "https://example.org/a"},
			},
		},
		{
			name: "headerless numbered list whose numbers the text cites",
			text: "Alpha grew [1]. Beta fell [2].\n\n1. Alpha report, https://example.org/a\n2. Beta news, https://example.org/b\n",
			claims: []claim{
				{"Alpha grew [1].", []string{"[1]"}},
				{"Beta fell [2].", []string{"[2]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://example.org/a", Title: "Alpha report"},
				{Kind: claimtrace.KindNumbered, Marker: "[2]", Span: "[2]", URL: "https://example.org/b", Title: "Beta news"},
				{Kind: claimtrace.KindListEntry, Marker: "1.", Span: "1. Alpha report, https://example.org/a", URL: "https://example.org/a", Title: "Alpha report"},
				{Kind: claimtrace.KindListEntry, Marker: "2.", Span: "2. Beta news, https://example.org/b", URL: "https://example.org/b", Title: "Beta news"},
			},
		},
		{
			name: "closing numbered advice citing inline links is prose",
			text: "Alpha grew [[1]](https://example.org/a).\n\n1) Next, check [[1]](https://example.org/a)[[2]](https://example.org/b).\n",
			claims: []claim{
				{"Alpha grew [[1]](https://example.org/a).", []string{"[1]"}},
				{"Next, check [[1]](https://example.org/a)[[2]](https://example.org/b).", []string{"[1]", "[2]"}},
			},
		},
		{
			name: "a numbered list of links the text does not cite is prose",
			text: "Alpha grew by 5% in 2024.\n\n1. See https://example.org/a\n",
			claims: []claim{
				{"Alpha grew by 5% in 2024.", nil},
				{"See https://example.org/a", []string{"https://example.org/a"}},
			},
		},
		{
			name: "a last paragraph opening with an uncited marker is prose",
			text: "Smith showed X.\n\n[1] Lee showed Y at https://example.org/b.",
			claims: []claim{
				{"Smith showed X.", nil},
				{"[1] Lee showed Y at https://example.org/b.", []string{"[1]", "https://example.org/b"}},
			},
		},
		{
			name: "autolinks and bare URLs with trailing punctuation",
			text: "See <https://example.org/a_(b)> for details. Data from https://example.org/data?utm_source=chatgpt.com, and (https://example.org/x). 数据见https://example.cn/报告/第一章。",
			claims: []claim{
				{"See <https://example.org/a_(b)> for details.", []string{"<https://example.org/a_(b)>"}},
				{"Data from https://example.org/data?utm_source=chatgpt.com, and (https://example.org/x).", []string{"https://example.org/data?utm_source=chatgpt.com", "https://example.org/x"}},
				{"数据见https://example.cn/报告/第一章。", []string{"https://example.cn/报告/第一章"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindAutolink, Marker: "<https://example.org/a_(b)>", Span: "<https://example.org/a_(b)>", URL: "https://example.org/a_(b)"},
				{Kind: claimtrace.KindBareURL, Marker: "https://example.org/data?utm_source=chatgpt.com", Span: "https://example.org/data?utm_source=chatgpt.com", URL: "https://example.org/data?utm_source=chatgpt.com"},
				{Kind: claimtrace.KindBareURL, Marker: "https://example.org/x", Span: "https://example.org/x", URL: "https://example.org/x"},
				{Kind: claimtrace.KindBareURL, Marker: "https://example.cn/报告/第一章", Span: "https://example.cn/报告/第一章", URL: "https://example.cn/报告/第一章"},
			},
		},
		{
			name: "bare URL stops at CJK text that does not follow a separator",
			text: "参见https://example.org/a以及其他资料来源的说明。",
			claims: []claim{
				{"参见https://example.org/a以及其他资料来源的说明。", []string{"https://example.org/a"}},
			},
		},
		{
			name: "claude: chatter, [n] markers and a [n] url - title list",
			text: "我将为您撰写一份报告。让我通过搜索获取最新相关数据。\n\n让我搜索更具体的数据：\n\n# 报告\n\n2023年全国居民人均可支配收入为39,218元。 [1][2]\n\nI'll research the market now.\n\n参考文献：\n[1] https://www.stats.gov.cn/sj/zxfb/202401/t20240116_1946622.html - 2023年居民收入和消费支出情况 - 国家统计局\n[2] https://zh.wikipedia.org/zh-hans/中產階級 - 中产阶级 - 维基百科\n",
			claims: []claim{
				{"2023年全国居民人均可支配收入为39,218元。 [1][2]", []string{"[1]", "[2]"}},
				{"I'll research the market now.", nil},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://www.stats.gov.cn/sj/zxfb/202401/t20240116_1946622.html", Title: "2023年居民收入和消费支出情况 - 国家统计局"},
				{Kind: claimtrace.KindNumbered, Marker: "[2]", Span: "[2]", URL: "https://zh.wikipedia.org/zh-hans/中產階級", Title: "中产阶级"},
				{Kind: claimtrace.KindListEntry, Marker: "[1]", Span: "[1] https://www.stats.gov.cn/sj/zxfb/202401/t20240116_1946622.html - 2023年居民收入和消费支出情况 - 国家统计局", URL: "https://www.stats.gov.cn/sj/zxfb/202401/t20240116_1946622.html", Title: "2023年居民收入和消费支出情况 - 国家统计局"},
				{Kind: claimtrace.KindListEntry, Marker: "[2]", Span: "[2] https://zh.wikipedia.org/zh-hans/中產階級 - 中产阶级 - 维基百科", URL: "https://zh.wikipedia.org/zh-hans/中產階級", Title: "中产阶级"},
			},
		},
		{
			name: "marker groups, ranges and lenticular brackets",
			text: "A holds [1, 3]. B holds [2-4]. C holds [1][4]. D holds 【2】 and 【3†source】.\n\n## References\n\n1. First source: https://a.example/1\n2. Second source: https://a.example/2\n3. Third source: https://a.example/3\n4. Fourth source: https://a.example/4\n",
			claims: []claim{
				{"A holds [1, 3].", []string{"[1]", "[3]"}},
				{"B holds [2-4].", []string{"[2]", "[3]", "[4]"}},
				{"C holds [1][4].", []string{"[1]", "[4]"}},
				{"D holds 【2】 and 【3†source】.", []string{"[2]", "[3]"}},
			},
		},
		{
			name: "not markers: years, reversed ranges, decimals, words",
			text: "In [2020] the rate was [3.5] and the note [41-23] was [sic] removed.",
			claims: []claim{
				{"In [2020] the rate was [3.5] and the note [41-23] was [sic] removed.", nil},
			},
			cites: []cite{},
		},
		{
			name: "dangling marker kept without a target",
			text: "Known fact [1]. Unknown fact [7].\n\nReferences\n[1] https://example.org/one - One\n",
			claims: []claim{
				{"Known fact [1].", []string{"[1]"}},
				{"Unknown fact [7].", []string{"[7]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://example.org/one", Title: "One"},
				{Kind: claimtrace.KindNumbered, Marker: "[7]", Span: "[7]"},
				{Kind: claimtrace.KindListEntry, Marker: "[1]", Span: "[1] https://example.org/one - One", URL: "https://example.org/one", Title: "One"},
			},
		},
		{
			name: "chatgpt export: labels, domain line, repeated URL lines",
			text: "Plants acquire genes. [1] Animals rarely do. [2]\n\n[1] [3] academic.oup.com\n\nhttps://academic.oup.com/plcell/article/37/9/koaf195/8238793\n\n[2] Evolutionary Significance of Wolbachia-to-Animal Horizontal Gene ...\n\nhttps://www.mdpi.com/2073-4425/8/7/186?utm_source=chatgpt.com\n",
			claims: []claim{
				{"Plants acquire genes. [1]", []string{"[1]"}},
				{"Animals rarely do. [2]", []string{"[2]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://academic.oup.com/plcell/article/37/9/koaf195/8238793"},
				{Kind: claimtrace.KindNumbered, Marker: "[2]", Span: "[2]", URL: "https://www.mdpi.com/2073-4425/8/7/186?utm_source=chatgpt.com", Title: "Evolutionary Significance of Wolbachia-to-Animal Horizontal Gene"},
				{Kind: claimtrace.KindListEntry, Marker: "[1] [3]", Span: "[1] [3] academic.oup.com\n\nhttps://academic.oup.com/plcell/article/37/9/koaf195/8238793", URL: "https://academic.oup.com/plcell/article/37/9/koaf195/8238793"},
				{Kind: claimtrace.KindListEntry, Marker: "[2]", Span: "[2] Evolutionary Significance of Wolbachia-to-Animal Horizontal Gene ...\n\nhttps://www.mdpi.com/2073-4425/8/7/186?utm_source=chatgpt.com", URL: "https://www.mdpi.com/2073-4425/8/7/186?utm_source=chatgpt.com", Title: "Evolutionary Significance of Wolbachia-to-Animal Horizontal Gene"},
			},
		},
		{
			name: "numbered list 'n. Title: url' and markdown link entries",
			text: "Gene transfer shapes plants [1]. Tools exist [2].\n\n## Sources\n\n1. Horizontal gene transfer in plants: https://pubmed.ncbi.nlm.nih.gov/17030541/\n2. [Gomez et al., 2022, hgtseq: A Standard Pipeline to Study Horizontal Gene Transfer](https://pmc.ncbi.nlm.nih.gov/articles/PMC9738810/)\n",
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://pubmed.ncbi.nlm.nih.gov/17030541/", Title: "Horizontal gene transfer in plants"},
				{Kind: claimtrace.KindNumbered, Marker: "[2]", Span: "[2]", URL: "https://pmc.ncbi.nlm.nih.gov/articles/PMC9738810/", Title: "hgtseq: A Standard Pipeline to Study Horizontal Gene Transfer"},
				{Kind: claimtrace.KindListEntry, Marker: "1.", Span: "1. Horizontal gene transfer in plants: https://pubmed.ncbi.nlm.nih.gov/17030541/", URL: "https://pubmed.ncbi.nlm.nih.gov/17030541/", Title: "Horizontal gene transfer in plants"},
				{Kind: claimtrace.KindListEntry, Marker: "2.", Span: "2. [Gomez et al., 2022, hgtseq: A Standard Pipeline to Study Horizontal Gene Transfer](https://pmc.ncbi.nlm.nih.gov/articles/PMC9738810/)", URL: "https://pmc.ncbi.nlm.nih.gov/articles/PMC9738810/", Title: "hgtseq: A Standard Pipeline to Study Horizontal Gene Transfer"},
			},
		},
		{
			name: "link reference definitions",
			text: "Attention replaced recurrence [1] in most systems [vaswani].\n\n[1]: https://arxiv.org/abs/1706.03762 \"Attention Is All You Need\"\n[vaswani]: https://papers.nips.cc/paper/7181\n",
			claims: []claim{
				{"Attention replaced recurrence [1] in most systems [vaswani].", []string{"[1]", "[vaswani]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", URL: "https://arxiv.org/abs/1706.03762", ArXivID: "1706.03762", Title: "Attention Is All You Need"},
				{Kind: claimtrace.KindLink, Marker: "[vaswani]", Span: "[vaswani]", URL: "https://papers.nips.cc/paper/7181"},
				{Kind: claimtrace.KindListEntry, Marker: "[1]", Span: "[1]: https://arxiv.org/abs/1706.03762 \"Attention Is All You Need\"", URL: "https://arxiv.org/abs/1706.03762", ArXivID: "1706.03762", Title: "Attention Is All You Need"},
				{Kind: claimtrace.KindListEntry, Marker: "[vaswani]", Span: "[vaswani]: https://papers.nips.cc/paper/7181", URL: "https://papers.nips.cc/paper/7181"},
			},
		},
		{
			name: "footnotes with a URL broken by a space",
			text: "Sea slugs do not keep algal genes.[^slug] Tardigrades neither.[^2]\n\n[^slug]: Bhattacharya et al. Genome analysis of Elysia chlorotica egg DNA. https://academic.oup.com/mbe/article/ 30/8/1843/1017567\n[^2]: https://doi. org/10.1073/pnas.1600338113\n",
			claims: []claim{
				{"Sea slugs do not keep algal genes.[^slug]", []string{"[^slug]"}},
				{"Tardigrades neither.[^2]", []string{"[^2]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindFootnote, Marker: "[^slug]", Span: "[^slug]", URL: "https://academic.oup.com/mbe/article/30/8/1843/1017567", Title: "Genome analysis of Elysia chlorotica egg DNA"},
				{Kind: claimtrace.KindFootnote, Marker: "[^2]", Span: "[^2]", URL: "https://doi.org/10.1073/pnas.1600338113", DOI: "10.1073/pnas.1600338113"},
				{Kind: claimtrace.KindListEntry, Marker: "[^slug]", Span: "[^slug]: Bhattacharya et al. Genome analysis of Elysia chlorotica egg DNA. https://academic.oup.com/mbe/article/ 30/8/1843/1017567", URL: "https://academic.oup.com/mbe/article/30/8/1843/1017567", Title: "Genome analysis of Elysia chlorotica egg DNA"},
				{Kind: claimtrace.KindListEntry, Marker: "[^2]", Span: "[^2]: https://doi. org/10.1073/pnas.1600338113", URL: "https://doi.org/10.1073/pnas.1600338113", DOI: "10.1073/pnas.1600338113"},
			},
		},
		{
			name: "DOIs and arXiv identifiers in the text",
			text: "See doi:10.1038/nrg2386 and https://doi.org/10.1186/1741-7007-7-20. Also 10.1126/science.aat8414, arXiv:2101.00001v2, arxiv.org/abs/1810.04805 and hep-th/9901001.",
			cites: []cite{
				{Kind: claimtrace.KindDOI, Marker: "doi:10.1038/nrg2386", Span: "doi:10.1038/nrg2386", DOI: "10.1038/nrg2386"},
				{Kind: claimtrace.KindBareURL, Marker: "https://doi.org/10.1186/1741-7007-7-20", Span: "https://doi.org/10.1186/1741-7007-7-20", URL: "https://doi.org/10.1186/1741-7007-7-20", DOI: "10.1186/1741-7007-7-20"},
				{Kind: claimtrace.KindDOI, Marker: "10.1126/science.aat8414", Span: "10.1126/science.aat8414", DOI: "10.1126/science.aat8414"},
				{Kind: claimtrace.KindArXiv, Marker: "arXiv:2101.00001v2", Span: "arXiv:2101.00001v2", ArXivID: "2101.00001"},
				{Kind: claimtrace.KindArXiv, Marker: "arxiv.org/abs/1810.04805", Span: "arxiv.org/abs/1810.04805", ArXivID: "1810.04805"},
				{Kind: claimtrace.KindArXiv, Marker: "hep-th/9901001", Span: "hep-th/9901001", ArXivID: "hep-th/9901001"},
			},
		},
		{
			name: "title-only references: IEEE, APA, ACM, Authors. Title.",
			text: "Speech synthesis improved [1] [2] [3] [4].\n\n## References\n\n[1] Y. Wang, R. Skerry-Ryan, and R. A. Saurous, “Tacotron: Towards End-to-End Speech Synthesis,” in Proc. Interspeech, 2017.\n\n[2] Ren, Y., Hu, C., & Liu, T. (2020). FastSpeech 2: Fast and High-Quality End-to-End Text to Speech. In ICLR.\n\n[3] Aaron van den Oord and Sander Dieleman. 2016. WaveNet: A Generative Model for Raw Audio. In SSW.\n\n[4] S. Laine and T. Aila. Temporal ensembling for semi-supervised learning. *arXiv:1610.02242*, 2016.\n",
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", Title: "Tacotron: Towards End-to-End Speech Synthesis"},
				{Kind: claimtrace.KindNumbered, Marker: "[2]", Span: "[2]", Title: "FastSpeech 2: Fast and High-Quality End-to-End Text to Speech"},
				{Kind: claimtrace.KindNumbered, Marker: "[3]", Span: "[3]", Title: "WaveNet: A Generative Model for Raw Audio"},
				{Kind: claimtrace.KindNumbered, Marker: "[4]", Span: "[4]", ArXivID: "1610.02242", Title: "Temporal ensembling for semi-supervised learning"},
				{Kind: claimtrace.KindListEntry, Marker: "[1]", Span: "[1] Y. Wang, R. Skerry-Ryan, and R. A. Saurous, “Tacotron: Towards End-to-End Speech Synthesis,” in Proc. Interspeech, 2017.", Title: "Tacotron: Towards End-to-End Speech Synthesis"},
				{Kind: claimtrace.KindListEntry, Marker: "[2]", Span: "[2] Ren, Y., Hu, C., & Liu, T. (2020). FastSpeech 2: Fast and High-Quality End-to-End Text to Speech. In ICLR.", Title: "FastSpeech 2: Fast and High-Quality End-to-End Text to Speech"},
				{Kind: claimtrace.KindListEntry, Marker: "[3]", Span: "[3] Aaron van den Oord and Sander Dieleman. 2016. WaveNet: A Generative Model for Raw Audio. In SSW.", Title: "WaveNet: A Generative Model for Raw Audio"},
				{Kind: claimtrace.KindListEntry, Marker: "[4]", Span: "[4] S. Laine and T. Aila. Temporal ensembling for semi-supervised learning. *arXiv:1610.02242*, 2016.", ArXivID: "1610.02242", Title: "Temporal ensembling for semi-supervised learning"},
			},
		},
		{
			name: "title-only reference without authors, fabricated id",
			text: "Taxes were optimized [1].\n\n## References\n\n[1] Optimal Income Taxation and Social Welfare: An Empirical Analysis. *arXiv:2301.XXXXX*, 2023.\n",
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", Title: "Optimal Income Taxation and Social Welfare: An Empirical Analysis"},
				{Kind: claimtrace.KindListEntry, Marker: "[1]", Span: "[1] Optimal Income Taxation and Social Welfare: An Empirical Analysis. *arXiv:2301.XXXXX*, 2023.", Title: "Optimal Income Taxation and Social Welfare: An Empirical Analysis"},
			},
		},
		{
			name: "sentence splitting: abbreviations, decimals, versions, URLs, CJK",
			text: "Smith et al. found a 3.5% gain (Fig. 2) with v1.2.3, e.g. on ImageNet. The U.S. market grew vs. 2023. Visit https://x.org/a.b?c=d. Next sentence here! 第一句话很长。第二句话也很长？第三句",
			claims: []claim{
				{"Smith et al. found a 3.5% gain (Fig. 2) with v1.2.3, e.g. on ImageNet.", []string{}},
				{"The U.S. market grew vs. 2023.", nil},
				{"Visit https://x.org/a.b?c=d.", []string{"https://x.org/a.b?c=d"}},
				{"Next sentence here!", nil},
				{"第一句话很长。", nil},
				{"第二句话也很长？", nil},
			},
		},
		{
			name: "headings, code, tables and lists",
			text: "# Title [1]\n\n## Findings\n\n```python\nx = a[1]  # not a citation\n```\n\n| Model | Score | Source |\n|---|---|---|\n| GPT | 90 | [1] |\n| Other | 80 | none |\n\n- First item states a fact [1].\n- **Bold Heading**\n1. Second item, with a second sentence. It has two.\n\n> A quoted finding holds [1].\n\n[1]: https://example.org/src\n",
			claims: []claim{
				{"GPT | 90 | [1]", []string{"[1]"}},
				{"First item states a fact [1].", []string{"[1]"}},
				{"Second item, with a second sentence.", nil},
				{"It has two.", nil},
				{"A quoted finding holds [1].", []string{"[1]"}},
			},
		},
		{
			name: "gemini: superscript numbers glued after punctuation",
			text: "HGT moves DNA between organisms.1 It is common in microbes.2,3 Version 2.0 shipped in 2019.\n\n#### **Works cited**\n\n1. Horizontal gene transfer - Wikipedia, 檢索日期：4月 24, 2025， [https://en.wikipedia.org/wiki/Horizontal_gene_transfer](https://en.wikipedia.org/wiki/Horizontal_gene_transfer)\n2. Gene transfer in microbes, accessed May 1, 2025, [https://example.org/2](https://example.org/2)\n3. Third source, [https://example.org/3](https://example.org/3)\n",
			claims: []claim{
				{"HGT moves DNA between organisms.1", []string{"[1]"}},
				{"It is common in microbes.2,3", []string{"[2]", "[3]"}},
				{"Version 2.0 shipped in 2019.", nil},
			},
		},
		{
			name: "chatgpt private-use markers have no target",
			text: "Arrays reached 256 atoms. \ue200cite\ue202turn9view0\ue202turn11view0\ue201\n",
			claims: []claim{
				{"Arrays reached 256 atoms. \ue200cite\ue202turn9view0\ue202turn11view0\ue201", []string{"turn9view0", "turn11view0"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindNumbered, Marker: "turn9view0", Span: "\ue200cite\ue202turn9view0\ue202turn11view0\ue201"},
				{Kind: claimtrace.KindNumbered, Marker: "turn11view0", Span: "\ue200cite\ue202turn9view0\ue202turn11view0\ue201"},
			},
		},
		{
			name: "agent log preamble before ANSWER:",
			text: "Query ID: 7\n============\n\nQUESTION:\nWhat is the market size?\n\nRESEARCH TASKS (1 total):\n  #1: Find the market size.\n\n============\n\nANSWER:\nThe market was worth $5 billion in 2024.[[1]](https://example.org/m)\n",
			claims: []claim{
				{"The market was worth $5 billion in 2024.[[1]](https://example.org/m)", []string{"[1]"}},
			},
		},
		{
			name: "escaped brackets around author-date links",
			text: "Policies were learned \\[[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/2108.02755v1)\\].\n\n**References**\n\n\\[[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/2108.02755v1)\\] The AI Economist: Optimal Economic Policy Design  \n\\[[Kirill Borissov' 2021-07-01](http://arxiv.org/abs/2107.00410v1)\\] Fiscal policy and inequality  \n",
			claims: []claim{
				{"Policies were learned \\[[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/2108.02755v1)\\].", []string{"[Stephan Zheng' 2021-08-05]"}},
			},
			cites: []cite{
				{Kind: claimtrace.KindLink, Marker: "[Stephan Zheng' 2021-08-05]", Span: "[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/2108.02755v1)", URL: "http://arxiv.org/abs/2108.02755v1", ArXivID: "2108.02755"},
				{Kind: claimtrace.KindListEntry, Span: "\\[[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/2108.02755v1)\\] The AI Economist: Optimal Economic Policy Design", URL: "http://arxiv.org/abs/2108.02755v1", ArXivID: "2108.02755", Title: "The AI Economist: Optimal Economic Policy Design"},
				{Kind: claimtrace.KindListEntry, Span: "\\[[Kirill Borissov' 2021-07-01](http://arxiv.org/abs/2107.00410v1)\\] Fiscal policy and inequality", URL: "http://arxiv.org/abs/2107.00410v1", ArXivID: "2107.00410", Title: "Fiscal policy and inequality"},
			},
		},
		{
			name: "english chatter before the title, CRLF line endings, inline code",
			text: "Let me search for the latest figures on battery prices.\r\n\r\nNow I'll look up the market forecasts:\r\n\r\n# Battery Prices\r\n\r\nPack prices fell 14% in 2023, see `cells[1]` in the model.\r\nThey may fall further [1].\r\n\r\n[1]: https://example.org/bnef\r\n",
			claims: []claim{
				{"Pack prices fell 14% in 2023, see `cells[1]` in the model.", nil},
				{"They may fall further [1].", []string{"[1]"}},
			},
		},
		{
			name: "images and anchors are not citations",
			text: "The chart shows growth ![chart](https://example.org/c.png) as noted in [the appendix](#appendix) and [[2]](#ref-2).\n\n## References\n\n[2] https://example.org/two - Two\n",
			claims: []claim{
				{"The chart shows growth ![chart](https://example.org/c.png) as noted in [the appendix](#appendix) and [[2]](#ref-2).", []string{"[2]"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := Parse(tt.text)
			if err := checkDocument(tt.text, doc); err != nil {
				t.Fatalf("invariant: %v", err)
			}
			claims, cites := project(tt.text, doc)
			if tt.claims != nil {
				if diff := cmp.Diff(tt.claims, claims, cmpClaims); diff != "" {
					t.Errorf("claims mismatch (-want +got):\n%s", diff)
				}
			}
			if tt.cites != nil {
				if diff := cmp.Diff(tt.cites, cites, cmpCites); diff != "" {
					t.Errorf("citations mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

var (
	// cmpClaims treats a nil and an empty citation list alike.
	cmpClaims = cmp.Transformer("claim", func(c claim) claim {
		if len(c.Cites) == 0 {
			c.Cites = nil
		}
		return c
	})
	cmpCites = cmp.Transformer("cites", func(cs []cite) []cite {
		if len(cs) == 0 {
			return nil
		}
		return cs
	})
)

func TestParseEmptyAndDegenerate(t *testing.T) {
	for _, text := range []string{"", "\n\n", "[", "[1]", "```", "# only a heading", "|---|", "[^x]:", "\ue200cite", strings.Repeat("[", 5000), strings.Repeat("[a](", 2000), "ReferenCe\n://\n- "} {
		doc := Parse(text)
		if err := checkDocument(text, doc); err != nil {
			t.Errorf("Parse(%.40q): %v", text, err)
		}
		if doc.Claims == nil || doc.Citations == nil {
			t.Errorf("Parse(%.40q): nil slices", text)
		}
	}
}

// TestBareIPv6URLs checks that the brackets of an IPv6 literal do not end a
// bare URL, in the text and in a reference list, while a bracket after a
// URL still does.
func TestBareIPv6URLs(t *testing.T) {
	text := "Hosts answer on IPv6 too [1]. See https://[2606:4700:4700::1111]/y for one, and https://example.org/a[2] for a marker.\n\n## References\n[1] https://[2001:db8::1]:8443/x - A page\n[2] https://example.org/b - B\n"
	doc := Parse(text)
	got := map[string]bool{}
	for _, c := range doc.Citations {
		got[c.URL] = true
	}
	want := map[string]bool{"https://[2001:db8::1]:8443/x": true, "https://[2606:4700:4700::1111]/y": true, "https://example.org/a": true, "https://example.org/b": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("URLs cited (-want +got):\n%s", diff)
	}
}
