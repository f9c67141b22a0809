package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

// TestConvertedReports parses the two surveys of testdata/converted as
// three PDF-to-text converters gave them back (README.md there): every
// numbered marker resolves to its entry, and every entry URL is the one
// the survey wrote (except where pdftotext dropped a URL's hyphen at a line
// end: that text no longer holds the URL).
func TestConvertedReports(t *testing.T) {
	files, err := filepath.Glob("testdata/converted/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no converted reports: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			survey := strings.SplitN(filepath.Base(f), ".", 2)[0]
			survey = strings.TrimSuffix(survey, "2col")
			src, err := os.ReadFile(filepath.Join("testdata/converted", survey+".md"))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			doc := Parse(text)
			if err := checkDocument(text, doc); err != nil {
				t.Fatal(err)
			}
			want := Parse(string(src))
			if got, w := numberedTargets(doc), numberedTargets(want); len(got) != len(w) {
				t.Errorf("%d numbered markers resolved, want %d (the markdown source's); got %v", len(got), len(w), got)
			}
			for _, c := range doc.Citations {
				if c.Kind == claimtrace.KindNumbered && !c.HasTarget() {
					t.Errorf("marker %s at %d resolves to no entry", c.Marker, c.Start)
				}
			}
			if strings.Contains(f, ".pdftotext.txt") {
				return // its URLs lost their line-end hyphens
			}
			if diff := cmp.Diff(entryURLs(want), entryURLs(doc)); diff != "" {
				t.Errorf("entry URLs (-source +converted):\n%s", diff)
			}
		})
	}
}

// numberedTargets lists the numbered markers of doc that resolve.
func numberedTargets(doc claimtrace.Document) []string {
	var out []string
	for _, c := range doc.Citations {
		if c.Kind == claimtrace.KindNumbered && c.HasTarget() {
			out = append(out, c.Marker)
		}
	}
	return out
}

// entryURLs lists the distinct URLs of doc's reference-list entries.
func entryURLs(doc claimtrace.Document) []string {
	var out []string
	for _, c := range doc.Citations {
		if c.Kind == claimtrace.KindListEntry && c.URL != "" && !slices.Contains(out, c.URL) {
			out = append(out, c.URL)
		}
	}
	slices.Sort(out)
	return out
}

// TestGluedReferenceLists: the shapes in which PDF-to-text conversion
// hands over a numbered reference list, written for the test in the way
// the converters write them (testdata/converted holds their real output).
func TestGluedReferenceLists(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		inText  []string
		entries []string
	}{
		{
			name:    "entries glued with no blank before the next label",
			text:    "Model cards were released [105], [106].\n\nReferences\n\n[105] OpenAI, \"GPT-5 system card,\" 2025. https://openai.example/gpt-5-system-card [Accessed 2025-08-25].[106] Zhipu AI, \"GLM-4.5 technical report,\" 2025. arXiv:2508.06471.[107] Moonshot AI, \"Kimi K2,\" 2025. https://moonshot.example/kimi-k2\n",
			inText:  []string{"[105]=https://openai.example/gpt-5-system-card", "[106]=arXiv:2508.06471"},
			entries: []string{"https://openai.example/gpt-5-system-card", "arXiv:2508.06471", "https://moonshot.example/kimi-k2"},
		},
		{
			name:    "a numbered list run together, the next number glued to the venue",
			text:    "Detectors improved steadily [1], [2], [3].\n\nReferences\n\n1. Ren S, He K, Girshick R, Sun J. Faster R-CNN: towards real-time object detection with region proposal networks. In: NeurIPS2. Lin TY, Goyal P, Girshick R. Focal loss for dense object detection. In: ICCV3. Ali W, Okafor M. Small-object detection in aerial images. In: CVPR 2024. https://example.org/papers/small-object-aerial.pdf\n",
			inText:  []string{"[1]=title:Faster R-CNN: towards real-time object detection with region proposal networks", "[2]=title:Focal loss for dense object detection", "[3]=https://example.org/papers/small-object-aerial.pdf"},
			entries: []string{"title:Faster R-CNN: towards real-time object detection with region proposal networks", "title:Focal loss for dense object detection", "https://example.org/papers/small-object-aerial.pdf"},
		},
		{
			name:    "a glued list running over its line breaks",
			text:    "Agents plan first [1] and read later [2], [3].\n\nReferences\n[1] M. Okafor, \"Planning before searching,\" in Proc. Workshop on\nAgentic Systems, 2024, pp. 12–20. [2] D. Chen et al., \"Reading Wikipedia\nto answer open-domain questions,\" in Proc. ACL, 2017. [3] V. Karpukhin\net al., \"Dense passage retrieval,\" in Proc. EMNLP, 2020, pp. 6769–\n6781.\n",
			inText:  []string{"[1]=title:Planning before searching", "[2]=title:Reading Wikipedia to answer open-domain questions", "[3]=title:Dense passage retrieval"},
			entries: []string{"title:Planning before searching", "title:Reading Wikipedia to answer open-domain questions", "title:Dense passage retrieval"},
		},
		{
			name:    "a line starting with the end of a page range is no entry",
			text:    "Tool budgets matter [10]; quotes help audits [11].\n\nReferences\n[10] T. Iyer, \"How many tool calls does an agent need?\" in Findings of EMNLP, 2024, pp. 301–\n315. [11] A. Petrov, \"Quote, then claim,\" 2025, doi:10.1145/3700001.\n",
			inText:  []string{"[10]=title:How many tool calls does an agent need?", "[11]=doi:10.1145/3700001"},
			entries: []string{"title:How many tool calls does an agent need?", "doi:10.1145/3700001"},
		},
		{
			name:    "labels alone on their line, or glued to the entry",
			text:    "Heat pumps work in the cold [1], [2], [3].\n\nReferences\n\n1.\nRosenow J, Gibb D. Heating up the global heat pump market. Nat Energy. 2022;7:901–4.\n\n2.Sager J, Leroux M. Field performance of cold-climate heat pumps. Energy Build. 2023;288:113012.\n3.Kim H, Ortega R. Defrost losses in air-source heat pumps: a measurement study. Appl Therm Eng. 2024;236:121544.\n",
			inText:  []string{"[1]=title:Heating up the global heat pump market", "[2]=title:Field performance of cold-climate heat pumps", "[3]=title:Defrost losses in air-source heat pumps: a measurement study"},
			entries: []string{"title:Heating up the global heat pump market", "title:Field performance of cold-climate heat pumps", "title:Defrost losses in air-source heat pumps: a measurement study"},
		},
		{
			name:    "volume and page numbers in sequence do not split an entry",
			text:    "Ground-source systems are efficient [11].\n\nReferences\n\n11. Sarbu I. General review of ground-source heat pumps. Energy Build. vol. 12. Springer; 2014. p. 13. Table 2.\n",
			inText:  []string{"[11]=title:General review of ground-source heat pumps"},
			entries: []string{"title:General review of ground-source heat pumps"},
		},
		{
			name:    "URLs broken by line wraps after their own hyphens",
			text:    "Research modes were announced [5], [13].\n\nReferences\n\n[5] OpenAI, \"Introducing deep research,\" 2025. https://openai.com/index/introducing- deep- research/ [Accessed 2025-08-25].\n[13] L. Ferreira, \"Citation drift,\" 2025. Available:\nhttps://example.org/blog/2025/citation-\ndrift-in-retrieval-augmented-\ngeneration-systems [14] Y. Li, \"ReportBench,\" arXiv:2508.15804, 2025.\n",
			inText:  []string{"[5]=https://openai.com/index/introducing-deep-research/", "[13]=https://example.org/blog/2025/citation-drift-in-retrieval-augmented-generation-systems"},
			entries: []string{"https://openai.com/index/introducing-deep-research/", "https://example.org/blog/2025/citation-drift-in-retrieval-augmented-generation-systems", "arXiv:2508.15804"},
		},
		{
			name:    "a URL broken inside a word by a narrow column, and across a page's form feed",
			text:    "Two notes exist [7], [8].\n\nReferences\n\n[7] Zhipu AI, \"GLM notes,\" 2025. https://zhipuai.example.cn/research/not\nes/glm-research-assistant-notes.html [Accessed 2025-09-01].\n[8] Example Lab, \"Field study,\" 2025. https://example.org/blog/2025/field-\n\n\f\nstudy-of-citations [Accessed 2025-09-02].\n",
			inText:  []string{"[7]=https://zhipuai.example.cn/research/notes/glm-research-assistant-notes.html", "[8]=https://example.org/blog/2025/field-study-of-citations"},
			entries: []string{"https://zhipuai.example.cn/research/notes/glm-research-assistant-notes.html", "https://example.org/blog/2025/field-study-of-citations"},
		},
		{
			name:    "the section title glued to the list's first label, inside a paragraph",
			text:    "投资银行业务将向综合服务转型 [1]。固收产品需求上升 [2]。\n取得优势地位的关键因素。\n参考文献： [1]\nhttps://www.example.cn/finance/2025/outlook.html - 2025 年金融展望 [2]\nhttps://www.example.cn/bonds/2025.html - 债券市场 2025\n",
			inText:  []string{"[1]=https://www.example.cn/finance/2025/outlook.html", "[2]=https://www.example.cn/bonds/2025.html"},
			entries: []string{"https://www.example.cn/finance/2025/outlook.html", "https://www.example.cn/bonds/2025.html"},
		},
		{
			name:    "an English title glued to its list",
			text:    "Agents plan first [1] and cite later [2].\n\nReferences [1] M. Okafor, \"Planning before searching,\" 2024. [2] D. Chen, \"Reading Wikipedia,\" in Proc. ACL, 2017.\n",
			inText:  []string{"[1]=title:Planning before searching", "[2]=title:Reading Wikipedia"},
			entries: []string{"title:Planning before searching", "title:Reading Wikipedia"},
		},
		{
			name: "a headerless list whose URLs a PDF broke over lines",
			text: "Transfer is common in bdelloids [1]. Aphids make carotenoids [2].\n\n[1] [3] academic.oup.com\n\nhttps://academic.oup.com/plcell/article/37/9/koaf195/8238793\n\n[2] https://www.researchgate.net/profile/Nancy-Moran-2/publication/\n43354958_Lateral_Transfer_of_Genes_from_Fungi_Underlies_Carotenoid_Pr\noduction_in_Aphids/links/09e41507daacf45681000000/Lateral-Transfer-of-\nGenes-from-Fungi-Underlies-Carotenoid-Production-in-Aphids.pdf\n\nhttps://www.academia.edu/66909010/Plasma_etching_of_proton_exchanged\n_lithium_niobate\n[3] https://www.academia.edu/100648805/Etching_characteristics_of_LiNbO3_c\nrystal_by_fluorine_gas_plasma\n",
			inText: []string{"[1]=https://academic.oup.com/plcell/article/37/9/koaf195/8238793",
				"[2]=https://www.researchgate.net/profile/Nancy-Moran-2/publication/43354958_Lateral_Transfer_of_Genes_from_Fungi_Underlies_Carotenoid_Production_in_Aphids/links/09e41507daacf45681000000/Lateral-Transfer-of-Genes-from-Fungi-Underlies-Carotenoid-Production-in-Aphids.pdf"},
			entries: []string{"https://academic.oup.com/plcell/article/37/9/koaf195/8238793",
				"https://www.researchgate.net/profile/Nancy-Moran-2/publication/43354958_Lateral_Transfer_of_Genes_from_Fungi_Underlies_Carotenoid_Production_in_Aphids/links/09e41507daacf45681000000/Lateral-Transfer-of-Genes-from-Fungi-Underlies-Carotenoid-Production-in-Aphids.pdf",
				"https://www.academia.edu/100648805/Etching_characteristics_of_LiNbO3_crystal_by_fluorine_gas_plasma"},
		},
		{
			name:    "a URL at a line's end does not swallow the next line's words or URL",
			text:    "Both pages [1], [2], [3].\n\nReferences\n\n[1] https://example.org/reports/\nAccessed 2025-08-25.\n[2] https://example.org/a-\nhttps://example.org/b\n[3] https://example.org/reports/annual-review-\nThen, a remark.\n",
			inText:  []string{"[1]=https://example.org/reports/", "[2]=https://example.org/a-", "[3]=https://example.org/reports/annual-review-"},
			entries: []string{"https://example.org/reports/", "https://example.org/a-", "https://example.org/reports/annual-review-"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := Parse(tt.text)
			if err := checkDocument(tt.text, doc); err != nil {
				t.Fatal(err)
			}
			inText, entries := targets(doc)
			if diff := cmp.Diff(tt.inText, inText); diff != "" {
				t.Errorf("in-text citations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.entries, entries); diff != "" {
				t.Errorf("list entries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpacedURLsAndJunkEntries: issue 19's leftovers seen on real exports,
// written for the test in their style: a Perplexity file URL with spaces
// in its path is read to the end of its entry; a sub-heading, a CSS
// declaration or a remark in a reference section is no title-only work.
func TestSpacedURLsAndJunkEntries(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		inText  []string
		entries []string
	}{
		{
			name:    "perplexity footnotes to files whose paths hold spaces",
			text:    "Sentence frames help emergent bilinguals.[^1_1] The matrix lists the strategies by level.[^1_2] A glossary helps too.[^1_3]\n\n<div align=\"center\">⁂</div>\n\n[^1_1]: https://www.colorincolorado.org/article/using-sentence-frames\n\n[^1_2]: https://www.lakeschools.example/cms/lib/FL01903475/Centricity/Domain/4995/Teacher Resources/ESOL Strategies Matrix.pdf\n\n[^1_3]: https://www.example.edu/esol/Visual Glossary/\n",
			inText:  []string{"[^1_1]=https://www.colorincolorado.org/article/using-sentence-frames", "[^1_2]=https://www.lakeschools.example/cms/lib/FL01903475/Centricity/Domain/4995/Teacher%20Resources/ESOL%20Strategies%20Matrix.pdf", "[^1_3]=https://www.example.edu/esol/Visual%20Glossary/"},
			entries: []string{"https://www.colorincolorado.org/article/using-sentence-frames", "https://www.lakeschools.example/cms/lib/FL01903475/Centricity/Domain/4995/Teacher%20Resources/ESOL%20Strategies%20Matrix.pdf", "https://www.example.edu/esol/Visual%20Glossary/"},
		},
		{
			name:    "words after a URL are its title, unless they end its path",
			text:    "Pumps [1], guides [2], rules [3], files [4].\n\n## Sources\n\n[1] https://www.example.org/heat/pumps Heat pump basics for installers\n[2] https://www.example.org/guides/install.pdf Installation guide 2024.pdf\n[3] https://www.example.org/rules/2024 - Building rules, updated.html\n[4] https://www.example.org/files/Annual Report 2024.pdf\n",
			inText:  []string{"[1]=https://www.example.org/heat/pumps", "[2]=https://www.example.org/guides/install.pdf", "[3]=https://www.example.org/rules/2024", "[4]=https://www.example.org/files/Annual%20Report%202024.pdf"},
			entries: []string{"https://www.example.org/heat/pumps", "https://www.example.org/guides/install.pdf", "https://www.example.org/rules/2024", "https://www.example.org/files/Annual%20Report%202024.pdf"},
		},
		{
			name:    "a Chinese sub-heading above the list",
			text:    "固态电池的能量密度更高 [1]。试产线良率仍低于六成 [2]。\n\n### 参考资料\n\n关键引用：\n\n[1] QuantumScape 股东信 https://ir.quantumscape.example/letters/q4-2024\n\n[2] 丰田固态电池路线图 https://global.toyota.example/en/newsroom/39241625.html\n",
			inText:  []string{"[1]=https://ir.quantumscape.example/letters/q4-2024", "[2]=https://global.toyota.example/en/newsroom/39241625.html"},
			entries: []string{"https://ir.quantumscape.example/letters/q4-2024", "https://global.toyota.example/en/newsroom/39241625.html"},
		},
		{
			name:    "key citations as a heading of its own",
			text:    "Pilot lines report low yields [1].\n\n关键引用\n- [QuantumScape letter](https://ir.quantumscape.example/letters/q4-2024)\n- [Toyota roadmap](https://global.toyota.example/en/newsroom/39241625.html)\n",
			inText:  []string{"[1]="},
			entries: []string{"https://ir.quantumscape.example/letters/q4-2024", "https://global.toyota.example/en/newsroom/39241625.html"},
		},
		{
			name:    "a CSS declaration left by an export",
			text:    "Heat pumps halve emissions [1]. Grids need upgrades [2].\n\n## Sources\n\ntext-align: center\n\n1. Rosenow, J. (2022). Heating up the global heat pump market. Nature Energy, 7, 901–904.\n2. IEA. The Future of Heat Pumps. Paris, 2022. https://www.iea.org/reports/the-future-of-heat-pumps\n",
			inText:  []string{"[1]=title:Heating up the global heat pump market", "[2]=https://www.iea.org/reports/the-future-of-heat-pumps"},
			entries: []string{"title:Heating up the global heat pump market", "https://www.iea.org/reports/the-future-of-heat-pumps"},
		},
		{
			name:    "remarks in an author-year bibliography",
			text:    "Coral cover fell by a third (De'ath et al., 2012).\n\n## References\n\nNote: all links were checked in March 2025.\n\nDe'ath, G., Fabricius, K. E., Sweatman, H., & Puotinen, M. (2012). The 27-year decline of coral cover on the Great Barrier Reef. PNAS, 109(44), 17995–17999.\n\n注：部分链接需要订阅。\n",
			inText:  []string{"De'ath et al., 2012=title:The 27-year decline of coral cover on the Great Barrier Reef"},
			entries: []string{"title:The 27-year decline of coral cover on the Great Barrier Reef"},
		},
		{
			name:    "a labelled entry is kept whatever it says",
			text:    "See the caveat [2].\n\n## References\n\n[1] https://example.org/a\n[2] Note: the vendor's own figures, 2024.\n",
			inText:  []string{"[2]=title:Note: the vendor's own figures"},
			entries: []string{"https://example.org/a", "title:Note: the vendor's own figures"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := Parse(tt.text)
			if err := checkDocument(tt.text, doc); err != nil {
				t.Fatal(err)
			}
			inText, entries := targets(doc)
			if diff := cmp.Diff(tt.inText, inText); diff != "" {
				t.Errorf("in-text citations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.entries, entries); diff != "" {
				t.Errorf("list entries (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkParseHostileEntries parses reference lists built to make the
// glued-list and broken-URL readers work hardest: 20,000 entries glued
// into one line, a line of 200,000 numbers out of sequence, and a URL
// "broken" 100,000 times. Each must take time linear in its size (about
// 0.1 s for a megabyte here), not quadratic (4 s for the broken URL before
// its joining was bounded).
func BenchmarkParseHostileEntries(b *testing.B) {
	var glued strings.Builder
	glued.WriteString("x [1].\n\nReferences\n")
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&glued, "[%d] A. B, \"T %d,\" 2019, https://a.b/c-%d- d/ ", i, i, i)
	}
	cases := []struct{ name, text string }{
		{"glued", glued.String()},
		{"numbers", "x [1].\n\nReferences\n[1] " + strings.Repeat("2 ", 200000)},
		{"dots", "x [1].\n\nReferences\n1. A " + strings.Repeat("2.x 2 . 22. ", 100000)},
		{"broken-url", "x [1].\n\nReferences\n[1] https://a.b/" + strings.Repeat("a- ", 100000)},
		{"spaced-url", "x [^1].\n\n[^1]: https://a.b/c " + strings.Repeat("d ", 100000) + "e.pdf"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				Parse(c.text)
			}
		})
	}
}
