package report

import (
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

// targets returns, in order, the markers of a document's in-text citations
// with what they resolve to ("[2]=https://…", "[7]=" when dangling), and
// its list entries' targets.
func targets(doc claimtrace.Document) (inText, entries []string) {
	for _, c := range doc.Citations {
		t := c.URL
		if t == "" && c.DOI != "" {
			t = "doi:" + c.DOI
		}
		if t == "" && c.ArXivID != "" {
			t = "arXiv:" + c.ArXivID
		}
		if t == "" && c.Title != "" {
			t = "title:" + c.Title
		}
		if c.Kind == claimtrace.KindListEntry {
			entries = append(entries, t)
		} else {
			inText = append(inText, c.Marker+"="+t)
		}
	}
	return inText, entries
}

// TestExportArtefacts: what chat exports add around a report (logos,
// hidden spans, share trailers, notes, tables, math, markdown escapes) is
// not a citation, and the real reference list still resolves the markers.
// The texts are written for the test in the style of the exports.
func TestExportArtefacts(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		inText  []string
		entries []string
		claims  []string // nil: not checked
	}{
		{
			name: "perplexity logo, hidden marker span, share trailer",
			text: `<img src="https://r2cdn.perplexity.ai/pplx-full-logo-primary-dark%402x.png" style="height:64px;margin-right:32px"/>

# Heat pumps in cold climates

Cold-climate heat pumps keep a COP above 2 in deep frost.[^1_1] Field trials in Maine confirmed it.[^1_2]

<span style="display:none">[^1_1][^1_2]</span>

<div align="center">⁂</div>

[^1_1]: https://www.energy.gov/eere/buildings/cold-climate-heat-pump-challenge

[^1_2]: https://www.example.org/trials?state=maine\&year=2023

---

Answer from Perplexity: pplx.ai/share
`,
			inText:  []string{"[^1_1]=https://www.energy.gov/eere/buildings/cold-climate-heat-pump-challenge", "[^1_2]=https://www.example.org/trials?state=maine&year=2023"},
			entries: []string{"https://www.energy.gov/eere/buildings/cold-climate-heat-pump-challenge", "https://www.example.org/trials?state=maine&year=2023"},
			claims:  []string{"Cold-climate heat pumps keep a COP above 2 in deep frost.[^1_1]", "Field trials in Maine confirmed it.[^1_2]"},
		},
		{
			name:    "share trailer under the sources heading",
			text:    "Tidal power is predictable [1].\n\n## Sources\n\n[1] https://www.example.org/tidal - Tidal energy basics\n\nAnswer from Perplexity: pplx.ai/share\n",
			inText:  []string{"[1]=https://www.example.org/tidal"},
			entries: []string{"https://www.example.org/tidal"},
		},
		{
			name:    "IRIs and escapes inside URLs",
			text:    "LQR is optimal for linear systems [1]. See also https://de.wikipedia.org/wiki/Müller–Lyer-Illusion for the figure and [the notes](https://example.org/a\\_b?x=1\\&y=2).\n\n[1] https://en.wikipedia.org/wiki/Linear–quadratic_regulator\n[2] https://example.org/q?a=1\\&b=2 - Query page\n",
			inText:  []string{"[1]=https://en.wikipedia.org/wiki/Linear–quadratic_regulator", "https://de.wikipedia.org/wiki/Müller–Lyer-Illusion=https://de.wikipedia.org/wiki/Müller–Lyer-Illusion", "[the notes]=https://example.org/a_b?x=1&y=2"},
			entries: []string{"https://en.wikipedia.org/wiki/Linear–quadratic_regulator", "https://example.org/q?a=1&b=2"},
		},
		{
			name:    "a dash after a URL still ends it",
			text:    "The data is public (https://example.org/data – updated weekly) [1].\n\n[1] https://example.org/data—Open data portal\n[2] https://example.org/b\n",
			inText:  []string{"https://example.org/data=https://example.org/data", "[1]=https://example.org/data"},
			entries: []string{"https://example.org/data", "https://example.org/b"},
		},
		{
			name: "notes, a table and body bullets are not a reference list",
			text: `Grid batteries cut peak prices [1]. Storage grew fast [2].

Notes:
1. The 2023 figure excludes pumped hydro, which [3] counts separately.
2. Prices are in 2022 dollars; see [1] for the method.

| Region | Capacity (GW) | Year |
|---|---|---|
| California | 10.4 | 2024 |
| Texas | 5.6 | 2024 |

- Costs fell 80% between 2013 and 2023 [2].
- Lithium prices peaked in 2022 [3].

### Sources
[1] https://www.example.org/batteries - Batteries and peak prices
[2] https://www.example.org/storage - Storage growth
[3] https://www.example.org/hydro - Pumped hydro
`,
			inText:  []string{"[1]=https://www.example.org/batteries", "[2]=https://www.example.org/storage", "[3]=https://www.example.org/hydro", "[1]=https://www.example.org/batteries", "[2]=https://www.example.org/storage", "[3]=https://www.example.org/hydro"},
			entries: []string{"https://www.example.org/batteries", "https://www.example.org/storage", "https://www.example.org/hydro"},
		},
		{
			name:   "a bulleted body section under a notes heading with a link in a bullet",
			text:   "Rates rose [[1]](https://example.org/rates).\n\n## Notes\n\n- The survey covered 2,000 firms in 2024 [[2]](https://example.org/survey).\n- Response rates fell to 31% in 2023 [[3]](https://example.org/response).\n\n## Outlook\n\nGrowth slows.\n",
			inText: []string{"[1]=https://example.org/rates", "[2]=https://example.org/survey", "[3]=https://example.org/response"},
		},
		{
			name:    "a title-only list above the URL list",
			text:    "Wind is cheap [1]. Solar is cheaper [2].\n\n## Further reading\n\n1. Lazard, Levelized Cost of Energy, 2024.\n2. IEA, Renewables 2024.\n\n## References\n\n[1] https://www.example.org/lcoe\n[2] https://www.example.org/renewables-2024\n",
			inText:  []string{"[1]=https://www.example.org/lcoe", "[2]=https://www.example.org/renewables-2024"},
			entries: []string{"title:Lazard, Levelized Cost of Energy", "title:IEA, Renewables", "https://www.example.org/lcoe", "https://www.example.org/renewables-2024"},
		},
		{
			name:    "intervals and math are not markers",
			text:    "The gain lies in [1, 3] for stable plants [2]. For x ∈ [0, 1] the map is monotone, and on the interval [2, 5] it is convex. The set $[1, 4] \\times [2, 3]$ is compact [1].\n\n## References\n\n[1] https://example.org/control\n[2] https://example.org/stability\n",
			inText:  []string{"[1]=https://example.org/control", "[3]=", "[2]=https://example.org/stability", "[1]=https://example.org/control"},
			entries: []string{"https://example.org/control", "https://example.org/stability"},
		},
		{
			name:    "share trailer in a bulleted source list, an HTML link, money",
			text:    "Tidal power is predictable ([Tidal](https://www.example.org/tidal)). Waves are not.\n\nSee <a href=\"https://www.example.org/costs\">the cost page</a> for fees of $5 and $10 a month.\n\n## Sources\n\n- Tidal energy basics: https://www.example.org/tidal\n- Wave power: https://www.example.org/waves\n- Answer from Perplexity: pplx.ai/share\n",
			inText:  []string{"[Tidal]=https://www.example.org/tidal", `<a href="https://www.example.org/costs">=https://www.example.org/costs`},
			entries: []string{"https://www.example.org/tidal", "https://www.example.org/waves"},
			claims: []string{
				"Tidal power is predictable ([Tidal](https://www.example.org/tidal)).",
				"Waves are not.",
				`See <a href="https://www.example.org/costs">the cost page</a> for fees of $5 and $10 a month.`,
			},
		},
		{
			name:    "markers after operators of prose are markers",
			text:    "BasicVSR++ [1] propagates features. It is **fast** [2]. Attribution is hard [1] → mitigate with controls. Orbit errors stay within the 2025 POD ranges [1,2]. Costs of $5 [2] and $10 [1] apply.\n\n[1] https://example.org/vsr\n[2] https://example.org/fast\n",
			inText:  []string{"[1]=https://example.org/vsr", "[2]=https://example.org/fast", "[1]=https://example.org/vsr", "[1]=https://example.org/vsr", "[2]=https://example.org/fast", "[2]=https://example.org/fast", "[1]=https://example.org/vsr"},
			entries: []string{"https://example.org/vsr", "https://example.org/fast"},
		},
		{
			name:    "a list of sources each on a line with a hard break",
			text:    "Shafts are forged [[1]](https://example.org/a).\n\n## Sources cited\n[[1]](https://example.org/a) Skew rolling of hollow shafts (2024).  \n[[2]](https://example.org/b) Flow forming options.  \n",
			inText:  []string{"[1]=https://example.org/a"},
			entries: []string{"https://example.org/a", "https://example.org/b"},
		},
		{
			name:    "title-only sources with their year are entries",
			text:    "## Source notes\n\n- Redeposition-free etching of thin films (2024)\n- Low-loss waveguides with smooth walls (2018)\n",
			entries: []string{"title:Redeposition-free etching of thin films", "title:Low-loss waveguides with smooth walls"},
		},
		{
			name:    "a reference list glued into one paragraph",
			text:    "Transformers dominate [1], [2]. Pretraining helps [3].\n\nReferences\n\n[1] A. Vaswani, N. Shazeer, and N. Parmar, \"Attention is all you need,\" in NeurIPS, 2017. [2] J. Devlin, M. Chang, K. Lee, and K. Toutanova, \"BERT: Pre-training of deep bidirectional transformers,\" in NAACL, 2019. [3] T. Brown et al., \"Language models are few-shot learners,\" in NeurIPS, 2020, arXiv:2005.14165.\n",
			inText:  []string{"[1]=title:Attention is all you need", "[2]=title:BERT: Pre-training of deep bidirectional transformers", "[3]=arXiv:2005.14165"},
			entries: []string{"title:Attention is all you need", "title:BERT: Pre-training of deep bidirectional transformers", "arXiv:2005.14165"},
		},
		{
			name:    "a headerless list above a localised share trailer",
			text:    "Lineage is tracked in the graph [1]. Cypher creates nodes [2].\n\n[1] https://example.org/lineage\n[2] https://example.org/cypher\n\n---\nAntwort von Perplexity: pplx.ai/share\n",
			inText:  []string{"[1]=https://example.org/lineage", "[2]=https://example.org/cypher"},
			entries: []string{"https://example.org/lineage", "https://example.org/cypher"},
			claims:  []string{"Lineage is tracked in the graph [1].", "Cypher creates nodes [2]."},
		},
		{
			name:    "a citations list above a share trailer",
			text:    "Lineage is tracked in the graph [1].\n\nCitations:\n[1] https://example.org/lineage\n\n---\nAnswer from Perplexity: pplx.ai/share\n\nA second answer follows here.\n",
			inText:  []string{"[1]=https://example.org/lineage"},
			entries: []string{"https://example.org/lineage"},
			claims:  []string{"Lineage is tracked in the graph [1].", "A second answer follows here."},
		},
		{
			name:    "a long hidden marker list glued to the paragraph",
			text:    "Spark boxes run large models locally.[^1_1][^1_2]\n<span style=\"display:none\">[^1_3][^1_4][^1_5][^1_6][^1_7][^1_8][^1_9][^1_10][^1_11][^1_12][^1_13][^1_14][^1_15][^1_16][^1_17][^1_18][^1_19][^1_20][^1_21][^1_22][^1_23][^1_24][^1_25][^1_26][^1_27][^1_28][^1_29][^1_30][^1_31][^1_32][^1_33][^1_34][^1_35][^1_36][^1_37][^1_38][^1_39][^1_40][^1_41][^1_42][^1_43][^1_44][^1_45][^1_46][^1_47][^1_48][^1_49][^1_50][^1_51][^1_52][^1_53][^1_54][^1_55][^1_56][^1_57][^1_58][^1_59][^1_60][^1_61][^1_62][^1_63][^1_64][^1_65][^1_66][^1_67][^1_68][^1_69][^1_70][^1_71][^1_72][^1_73][^1_74][^1_75][^1_76][^1_77][^1_78][^1_79][^1_80][^1_81][^1_82][^1_83][^1_84][^1_85][^1_86][^1_87][^1_88][^1_89][^1_90][^1_91][^1_92][^1_93][^1_94][^1_95][^1_96][^1_97][^1_98][^1_99][^1_100][^1_101][^1_102][^1_103][^1_104][^1_105][^1_106][^1_107][^1_108][^1_109][^1_110][^1_111][^1_112][^1_113][^1_114][^1_115][^1_116][^1_117][^1_118][^1_119][^1_120][^1_121][^1_122][^1_123][^1_124][^1_125][^1_126][^1_127][^1_128][^1_129][^1_130][^1_131][^1_132][^1_133][^1_134][^1_135][^1_136][^1_137][^1_138][^1_139][^1_140][^1_141][^1_142][^1_143][^1_144][^1_145][^1_146][^1_147][^1_148][^1_149][^1_150][^1_151][^1_152][^1_153][^1_154][^1_155][^1_156][^1_157][^1_158][^1_159]</span>\n\n<div align=\"center\">⁂</div>\n\n[^1_1]: https://example.org/spark\n\n[^1_2]: https://example.org/models\n",
			inText:  []string{"[^1_1]=https://example.org/spark", "[^1_2]=https://example.org/models"},
			entries: []string{"https://example.org/spark", "https://example.org/models"},
			claims:  []string{"Spark boxes run large models locally.[^1_1][^1_2]"},
		},
		{
			name:    "a thread of two answers, each numbering its own list",
			text:    "Measure the body first [1].\n\nCitations:\n[1] https://example.org/u2net\n\n---\nAnswer from Perplexity: pplx.ai/share\n\nUse one enterprise app for all sites [1][2].\n\nCitations:\n[1] https://example.org/entra\n[2] https://example.org/sharepoint\n\n---\nAnswer from Perplexity: pplx.ai/share\n",
			inText:  []string{"[1]=https://example.org/u2net", "[1]=https://example.org/entra", "[2]=https://example.org/sharepoint"},
			entries: []string{"https://example.org/u2net", "https://example.org/entra", "https://example.org/sharepoint"},
			claims:  []string{"Measure the body first [1].", "Use one enterprise app for all sites [1][2]."},
		},
		{
			name:    "a glued list without a heading",
			text:    "Graph networks generalise [1]. Attention helps [2], [3].\n\n[1] P. Battaglia et al., \"Relational inductive biases,\" arXiv:1806.01261, 2018. [2] A. Vaswani et al., \"Attention is all you need,\" in NeurIPS, 2017. [3] T. Kipf and M. Welling, \"Semi-supervised classification with graph convolutional networks,\" in ICLR, 2017.\n",
			inText:  []string{"[1]=arXiv:1806.01261", "[2]=title:Attention is all you need", "[3]=title:Semi-supervised classification with graph convolutional networks"},
			entries: []string{"arXiv:1806.01261", "title:Attention is all you need", "title:Semi-supervised classification with graph convolutional networks"},
		},
		{
			name:    "numbers out of sequence do not split an entry",
			text:    "Scaling works [1].\n\n## References\n\n[1] J. Kaplan et al., \"Scaling laws [3] revisited,\" 2020, https://example.org/scaling\n\n[2] https://example.org/other\n",
			inText:  []string{"[1]=https://example.org/scaling"},
			entries: []string{"https://example.org/scaling", "https://example.org/other"},
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
			if tt.claims != nil {
				var got []string
				for _, c := range doc.Claims {
					got = append(got, c.Text)
				}
				if diff := cmp.Diff(tt.claims, got); diff != "" {
					t.Errorf("claims (-want +got):\n%s", diff)
				}
			}
			for _, c := range doc.Claims {
				if strings.Contains(c.Text, "<img") || strings.Contains(c.Text, "pplx.ai") {
					t.Errorf("export artefact as a claim: %q", c.Text)
				}
			}
		})
	}
}
