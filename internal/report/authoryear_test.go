package report

import (
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

// apaRefs is an APA reference list the author–year tests cite.
const apaRefs = `

## References

Lewis, P., Perez, E., Piktus, A., & Kiela, D. (2020). Retrieval-augmented generation for knowledge-intensive NLP tasks. NeurIPS. https://arxiv.org/abs/2005.11401

Karpukhin, V., Oguz, B., & Yih, W. (2020). Dense passage retrieval for open-domain question answering. EMNLP. https://doi.org/10.18653/v1/2020.emnlp-main.550

Izacard, G., & Grave, E. (2021). Leveraging passage retrieval with generative models for open domain question answering. EACL.

Smith, J., & Jones, K. (2020a). Beta results on sparse retrieval. Journal of Retrieval.

Smith, J., & Jones, K. (2020b). Gamma results on dense retrieval. Journal of Retrieval.

van der Aalst, W. M. P. (2016). Process mining: Data science in action. Springer.

De Cock, M., Dowsley, R., & Horst, C. (2019). Efficient and private scoring of decision trees. IEEE TDSC.

O’Brien, T. (2018). Privacy in the age of data. MIT Press.

García-Márquez, L. (2017). Multilingual retrieval without parallel data. TACL.

Zhang, W., Li, M., & Wang, F. (2021). A survey of Chinese open-domain question answering. ACL.

Lee, K. (n.d.). Notes on retrieval evaluation. https://example.org/lee-notes
`

// Targets of the entries above, as the citations resolving to them carry.
var (
	citeLewis     = cite{URL: "https://arxiv.org/abs/2005.11401", ArXivID: "2005.11401", Title: "Retrieval-augmented generation for knowledge-intensive NLP tasks"}
	citeKarpukhin = cite{URL: "https://doi.org/10.18653/v1/2020.emnlp-main.550", DOI: "10.18653/v1/2020.emnlp-main.550", Title: "Dense passage retrieval for open-domain question answering"}
	citeIzacard   = cite{Title: "Leveraging passage retrieval with generative models for open domain question answering"}
	citeSmithA    = cite{Title: "Beta results on sparse retrieval"}
	citeSmithB    = cite{Title: "Gamma results on dense retrieval"}
	citeAalst     = cite{Title: "Process mining: Data science in action"}
	citeDeCock    = cite{Title: "Efficient and private scoring of decision trees"}
	citeOBrien    = cite{Title: "Privacy in the age of data"}
	citeGarcia    = cite{Title: "Multilingual retrieval without parallel data"}
	citeZhang     = cite{Title: "A survey of Chinese open-domain question answering"}
	citeLee       = cite{URL: "https://example.org/lee-notes", Title: "Notes on retrieval evaluation"}
)

// ay returns the author–year citation with marker m and the target of t.
func ay(m string, t cite) cite {
	t.Kind, t.Marker, t.Span = claimtrace.KindAuthorYear, m, m
	return t
}

// dangling returns an author–year citation with marker m and no target.
func dangling(m string) cite {
	return cite{Kind: claimtrace.KindAuthorYear, Marker: m, Span: m}
}

// authorYearCites projects the in-text citations of a document, checking
// that every author–year span is its marker.
func authorYearCites(t *testing.T, text string, doc claimtrace.Document) []cite {
	t.Helper()
	var out []cite
	_, cites := project(text, doc)
	for _, c := range cites {
		if c.Kind == claimtrace.KindListEntry {
			continue
		}
		if c.Kind == claimtrace.KindAuthorYear && c.Span != c.Marker {
			t.Errorf("marker %q spans %q", c.Marker, c.Span)
		}
		out = append(out, c)
	}
	return out
}

func TestAuthorYear(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		claims []claim // nil: not checked
		cites  []cite  // the in-text citations
	}{
		{
			name: "parenthetical forms",
			text: "A holds (Lewis et al., 2020). B holds (Lewis et al. 2020). C holds (Lewis, 2020). D holds (Lewis 2020). E holds (Izacard and Grave, 2021). F holds (Izacard & Grave, 2021)." + apaRefs,
			claims: []claim{
				{"A holds (Lewis et al., 2020).", []string{"Lewis et al., 2020"}},
				{"B holds (Lewis et al. 2020).", []string{"Lewis et al. 2020"}},
				{"C holds (Lewis, 2020).", []string{"Lewis, 2020"}},
				{"D holds (Lewis 2020).", []string{"Lewis 2020"}},
				{"E holds (Izacard and Grave, 2021).", []string{"Izacard and Grave, 2021"}},
				{"F holds (Izacard & Grave, 2021).", []string{"Izacard & Grave, 2021"}},
			},
			cites: []cite{
				ay("Lewis et al., 2020", citeLewis),
				ay("Lewis et al. 2020", citeLewis),
				ay("Lewis, 2020", citeLewis),
				ay("Lewis 2020", citeLewis),
				ay("Izacard and Grave, 2021", citeIzacard),
				ay("Izacard & Grave, 2021", citeIzacard),
			},
		},
		{
			name: "several in one parenthesis, lead-ins and locators",
			text: "Retrieval helps (Lewis et al., 2020; Karpukhin et al., 2020). It is reviewed elsewhere (see Izacard & Grave, 2021, p. 4). Examples abound (e.g., Lewis et al., 2020; cf. Zhang et al., 2021: 12-14)." + apaRefs,
			claims: []claim{
				{"Retrieval helps (Lewis et al., 2020; Karpukhin et al., 2020).", []string{"Lewis et al., 2020", "Karpukhin et al., 2020"}},
				{"It is reviewed elsewhere (see Izacard & Grave, 2021, p. 4).", []string{"Izacard & Grave, 2021, p. 4"}},
				{"Examples abound (e.g., Lewis et al., 2020; cf. Zhang et al., 2021: 12-14).", []string{"Lewis et al., 2020", "Zhang et al., 2021: 12-14"}},
			},
			cites: []cite{
				ay("Lewis et al., 2020", citeLewis),
				ay("Karpukhin et al., 2020", citeKarpukhin),
				ay("Izacard & Grave, 2021, p. 4", citeIzacard),
				ay("Lewis et al., 2020", citeLewis),
				ay("Zhang et al., 2021: 12-14", citeZhang),
			},
		},
		{
			name: "narrative forms",
			text: "Lewis et al. (2020) coined the term. Izacard and Grave (2021) read many passages. As Izacard & Grave (2021, p. 3) note, cost grows. Later, Smith and Jones (2020a, 2020b) compared both." + apaRefs,
			claims: []claim{
				{"Lewis et al. (2020) coined the term.", []string{"Lewis et al. (2020)"}},
				{"Izacard and Grave (2021) read many passages.", []string{"Izacard and Grave (2021)"}},
				{"As Izacard & Grave (2021, p. 3) note, cost grows.", []string{"Izacard & Grave (2021, p. 3)"}},
				{"Later, Smith and Jones (2020a, 2020b) compared both.", []string{"Smith and Jones (2020a, 2020b)", "Smith and Jones (2020a, 2020b)"}},
			},
			cites: []cite{
				ay("Lewis et al. (2020)", citeLewis),
				ay("Izacard and Grave (2021)", citeIzacard),
				ay("Izacard & Grave (2021, p. 3)", citeIzacard),
				ay("Smith and Jones (2020a, 2020b)", citeSmithA),
				ay("Smith and Jones (2020a, 2020b)", citeSmithB),
			},
		},
		{
			name: "surnames with particles, apostrophes, accents, hyphens and romanised CJK names",
			text: "Process mining matured (van der Aalst, 2016). As van der Aalst (2016) shows, logs suffice. Scoring can be private (De Cock et al., 2019). Privacy erodes (O'Brien, 2018). Without parallel data (Garcia-Marquez, 2017) it still works. Chinese QA is surveyed by Zhang et al. (2021)." + apaRefs,
			cites: []cite{
				ay("van der Aalst, 2016", citeAalst),
				ay("van der Aalst (2016)", citeAalst),
				ay("De Cock et al., 2019", citeDeCock),
				ay("O'Brien, 2018", citeOBrien),
				ay("Garcia-Marquez, 2017", citeGarcia),
				ay("Zhang et al. (2021)", citeZhang),
			},
		},
		{
			name: "case, n.d. and a URL target",
			text: "Evaluation is hard (LEE, n.d.). Rankings vary (Lee, n.d.)." + apaRefs,
			cites: []cite{
				ay("LEE, n.d.", citeLee),
				ay("Lee, n.d.", citeLee),
			},
		},
		{
			name: "letter suffixes must agree; no suffix between 2020a and 2020b is ambiguous",
			text: "Sparse wins (Smith & Jones, 2020a). Dense wins (Smith & Jones, 2020b). Both win (Smith & Jones, 2020). Neither wins (Smith & Jones, 2020c)." + apaRefs,
			claims: []claim{
				{"Sparse wins (Smith & Jones, 2020a).", []string{"Smith & Jones, 2020a"}},
				{"Dense wins (Smith & Jones, 2020b).", []string{"Smith & Jones, 2020b"}},
				{"Both win (Smith & Jones, 2020).", []string{"Smith & Jones, 2020"}},
				{"Neither wins (Smith & Jones, 2020c).", []string{"Smith & Jones, 2020c"}},
			},
			cites: []cite{
				ay("Smith & Jones, 2020a", citeSmithA),
				ay("Smith & Jones, 2020b", citeSmithB),
				dangling("Smith & Jones, 2020"),
				dangling("Smith & Jones, 2020c"),
			},
		},
		{
			name: "second author and author count disambiguate; duplicate entries are one work",
			text: "One (Chen & Park, 2022). Two (Chen & Wu, 2022). Three (Chen, 2022). Four (Chen et al., 2022). Five (Rossi, 2018).\n\n## References\n\n- Chen, L., & Wu, Y. (2022). Wu paper. Venue.\n- Chen, L., & Park, S. (2022). Park paper. Venue.\n- Chen, L. (2022). Solo paper. Venue.\n- Chen, L., Wu, Y., & Park, S. (2022). Trio paper. Venue.\n- Rossi, M. (2018). Repeated paper. https://example.org/rossi\n- Rossi, M. (2018). Repeated paper. https://example.org/rossi\n",
			cites: []cite{
				ay("Chen & Park, 2022", cite{Title: "Park paper"}),
				ay("Chen & Wu, 2022", cite{Title: "Wu paper"}),
				ay("Chen, 2022", cite{Title: "Solo paper"}),
				ay("Chen et al., 2022", cite{Title: "Trio paper"}),
				ay("Rossi, 2018", cite{URL: "https://example.org/rossi", Title: "Repeated paper"}),
			},
		},
		{
			name: "unresolved markers are dangling only in an author-year report and in a citation's form",
			text: "Known (Lewis et al., 2020). Unknown (Nobody et al., 2021). Unknown pair (Nobody & Else, 2021). Unknown comma (Nobody, 2021). Weak form (Nobody 2021). Weak narrative Nobody (2021) said. Strong narrative Nobody et al. (2021) said. Wrong year (Lewis et al., 2019)." + apaRefs,
			claims: []claim{
				{"Known (Lewis et al., 2020).", []string{"Lewis et al., 2020"}},
				{"Unknown (Nobody et al., 2021).", []string{"Nobody et al., 2021"}},
				{"Unknown pair (Nobody & Else, 2021).", []string{"Nobody & Else, 2021"}},
				{"Unknown comma (Nobody, 2021).", []string{"Nobody, 2021"}},
				{"Weak form (Nobody 2021).", nil},
				{"Weak narrative Nobody (2021) said.", nil},
				{"Strong narrative Nobody et al. (2021) said.", []string{"Nobody et al. (2021)"}},
				{"Wrong year (Lewis et al., 2019).", []string{"Lewis et al., 2019"}},
			},
			cites: []cite{
				ay("Lewis et al., 2020", citeLewis),
				dangling("Nobody et al., 2021"),
				dangling("Nobody & Else, 2021"),
				dangling("Nobody, 2021"),
				dangling("Nobody et al. (2021)"),
				dangling("Lewis et al., 2019"),
			},
		},
		{
			name: "no reference list: nothing is recorded",
			text: "Retrieval helps (Lewis et al., 2020). Lewis et al. (2020) agree.",
			claims: []claim{
				{"Retrieval helps (Lewis et al., 2020).", nil},
				{"Lewis et al. (2020) agree.", nil},
			},
			cites: nil,
		},
		{
			name:  "no entry matches: nothing is recorded",
			text:  "Retrieval helps (Nobody et al., 2020). Nobody and Else (2020) agree.\n\n## References\n\n- Lewis, P. (2019). Another paper. Venue.\n",
			cites: nil,
		},
		{
			name: "false positives in an author-year report",
			text: "In 2020, Lewis showed more (March 2020). Cases rose (COVID-19, 2020). We used v2.0 (2020) and version 2020.1 (Python 3.8, 2020). See Figure 3 (2020) and (Table 2, 2021). Satellite Phasing and Tasking (2025) is a title. Published at (NeurIPS 2020) and (Spring 2021). Data from arXiv:2012.12345 (Lewis et al., 2020)." + apaRefs,
			cites: []cite{
				{Kind: claimtrace.KindArXiv, Marker: "arXiv:2012.12345", Span: "arXiv:2012.12345", ArXivID: "2012.12345"},
				ay("Lewis et al., 2020", citeLewis),
			},
		},
		{
			name: "parentheses holding links, identifiers or nested parentheses are left to the other detectors",
			text: "Retrieval helps (Lewis et al., 2020, https://arxiv.org/abs/2005.11401). It helps (Lewis et al., 2020 (preprint)). Also (Lewis et al., 2020, doi:10.1000/xyz)." + apaRefs,
			cites: []cite{
				{Kind: claimtrace.KindBareURL, Marker: "https://arxiv.org/abs/2005.11401", Span: "https://arxiv.org/abs/2005.11401", URL: "https://arxiv.org/abs/2005.11401", ArXivID: "2005.11401"},
				{Kind: claimtrace.KindDOI, Marker: "doi:10.1000/xyz", Span: "doi:10.1000/xyz", DOI: "10.1000/xyz"},
			},
		},
		{
			name: "a narrative citation starts its sentence; a parenthesis after a sentence end joins it",
			text: "Dense retrieval is strong. Karpukhin et al. (2020) showed it. Sparse retrieval holds up. (Smith & Jones, 2020a)\nNext line here." + apaRefs,
			claims: []claim{
				{"Dense retrieval is strong.", nil},
				{"Karpukhin et al. (2020) showed it.", []string{"Karpukhin et al. (2020)"}},
				{"Sparse retrieval holds up. (Smith & Jones, 2020a)", []string{"Smith & Jones, 2020a"}},
				{"Next line here.", nil},
			},
			cites: []cite{
				ay("Karpukhin et al. (2020)", citeKarpukhin),
				ay("Smith & Jones, 2020a", citeSmithA),
			},
		},
		{
			name: "a narrative citation inside a parenthesis; a lead-in starting like n.d.",
			text: "Retrieval helps (as shown by Karpukhin et al. (2020)). It is old (not new; Smith & Jones, 2020a)." + apaRefs,
			cites: []cite{
				ay("Karpukhin et al. (2020)", citeKarpukhin),
				ay("Smith & Jones, 2020a", citeSmithA),
			},
		},
		{
			name: "names broken across lines and emphasised",
			text: "Retrieval helps (Lewis et\nal., 2020). **Izacard and Grave** (2021) agree." + apaRefs,
			cites: []cite{
				ay("Lewis et\nal., 2020", citeLewis),
				ay("Izacard and Grave** (2021)", citeIzacard),
			},
		},
		{
			name: "comma-separated parts and several years of one author",
			text: "Both agree (Lewis et al., 2020, Izacard & Grave, 2021). Twice (Smith & Jones, 2020a, 2020b). Again (Smith & Jones, 2020a, b). Smith and Jones (2020a, b) agree." + apaRefs,
			cites: []cite{
				ay("Lewis et al., 2020", citeLewis),
				ay("Izacard & Grave, 2021", citeIzacard),
				ay("Smith & Jones, 2020a, 2020b", citeSmithA),
				ay("Smith & Jones, 2020a, 2020b", citeSmithB),
				ay("Smith & Jones, 2020a, b", citeSmithA),
				ay("Smith & Jones, 2020a, b", citeSmithB),
				ay("Smith and Jones (2020a, b)", citeSmithA),
				ay("Smith and Jones (2020a, b)", citeSmithB),
			},
		},
		{
			name: "numbered IEEE and ACM lists resolve narrative citations too",
			text: "Lewis et al. (2020) introduced RAG [1]. Guu et al. (2020) pre-trained the retriever [2]. Karpukhin et al. (2020) used dense vectors [3].\n\n## References\n\n[1] P. Lewis, E. Perez, A. Piktus, et al., “Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks,” in Proc. NeurIPS, 2020.\n[2] Kelvin Guu, Kenton Lee, Zora Tung, Panupong Pasupat and Ming-Wei Chang. 2020. REALM: Retrieval-Augmented Language Model Pre-Training. In ICML.\n[3] Karpukhin V, Oguz B, Min S. Dense passage retrieval for open-domain question answering. EMNLP 2020.\n",
			cites: []cite{
				ay("Lewis et al. (2020)", cite{Title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks"}),
				{Kind: claimtrace.KindNumbered, Marker: "[1]", Span: "[1]", Title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks"},
				ay("Guu et al. (2020)", cite{Title: "REALM: Retrieval-Augmented Language Model Pre-Training"}),
				{Kind: claimtrace.KindNumbered, Marker: "[2]", Span: "[2]", Title: "REALM: Retrieval-Augmented Language Model Pre-Training"},
				ay("Karpukhin et al. (2020)", cite{Title: "Dense passage retrieval for open-domain question answering"}),
				{Kind: claimtrace.KindNumbered, Marker: "[3]", Span: "[3]", Title: "Dense passage retrieval for open-domain question answering"},
			},
		},
		{
			name: "entries opening with a link, with 'Name et al. (year)' or with the title",
			text: "Tasking is predictive (Tomita 2023). Atlas is few-shot (Izacard et al., 2022). Retrieval is old (Chen et al., 2017).\n\n## Sources\n\n1. [Tomita et al., 2023, Multi-Spacecraft Predictive Sensor Tasking](https://arxiv.org/pdf/2310.04894.pdf)\n2. **Izacard et al. (2022)** Atlas: Few-shot learning with retrieval augmented language models. https://arxiv.org/abs/2208.03299\n3. Reading Wikipedia to answer open-domain questions. Chen et al., ACL 2017.\n",
			cites: []cite{
				ay("Tomita 2023", cite{URL: "https://arxiv.org/pdf/2310.04894.pdf", ArXivID: "2310.04894", Title: "Multi-Spacecraft Predictive Sensor Tasking"}),
				ay("Izacard et al., 2022", cite{URL: "https://arxiv.org/abs/2208.03299", ArXivID: "2208.03299", Title: "Atlas: Few-shot learning with retrieval augmented language models"}),
				ay("Chen et al., 2017", cite{Title: "Reading Wikipedia to answer open-domain questions"}),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := Parse(tt.text)
			if err := checkDocument(tt.text, doc); err != nil {
				t.Fatalf("invariant: %v", err)
			}
			got := authorYearCites(t, tt.text, doc)
			if diff := cmp.Diff(tt.cites, got, cmpCites); diff != "" {
				t.Errorf("citations mismatch (-want +got):\n%s", diff)
			}
			if tt.claims != nil {
				claims, _ := project(tt.text, doc)
				if diff := cmp.Diff(tt.claims, claims, cmpClaims); diff != "" {
					t.Errorf("claims mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestAuthorYearSpans checks that every author–year marker is the text it
// spans, inside the claim listing it, in a report mixing the forms.
func TestAuthorYearSpans(t *testing.T) {
	text := "Über (Müller & Ødegård, 2019). Die Arbeit von Müller und Ødegård zeigt (Müller et al., 2019, S. 4) mehr. 中文说明（见 Zhang et al., 2021）。Zhang et al. (2021) 也指出。" + apaRefs + "\nMüller, A., Ødegård, B., & Ng, C. (2019). Ein Titel über Retrieval. Verlag.\n"
	doc := Parse(text)
	if err := checkDocument(text, doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, c := range doc.Citations {
		if c.Kind != claimtrace.KindAuthorYear {
			continue
		}
		n++
		if text[c.Start:c.End] != c.Marker {
			t.Errorf("citation %d: marker %q spans %q", i, c.Marker, text[c.Start:c.End])
		}
		if !c.HasTarget() {
			t.Errorf("citation %d (%q) has no target", i, c.Marker)
		}
		in := 0
		for _, cl := range doc.Claims {
			for _, k := range cl.Citations {
				if k == i {
					in++
				}
			}
		}
		if in != 1 {
			t.Errorf("citation %d (%q) is listed by %d claims, want 1", i, c.Marker, in)
		}
	}
	if n != 3 {
		t.Errorf("got %d author–year citations, want 3 (the full-width parenthesis is not read)", n)
	}
}

func TestEntryAuthorKey(t *testing.T) {
	tests := []struct {
		entry   string
		first   string // words joined by spaces; "" for no key
		second  string
		authors int
		years   string // years joined by spaces, suffix included
	}{
		{"Lewis, P., Perez, E., Piktus, A., & Kiela, D. (2020). Retrieval-augmented generation. NeurIPS.", "lewis", "perez", 4, "2020"},
		{"Izacard, G., & Grave, E. (2021a). Leveraging passage retrieval. In EACL, 2021.", "izacard", "grave", 2, "2021a 2021"},
		{"Y. Wang, R. Skerry-Ryan, and R. A. Saurous, “Tacotron,” in Proc. Interspeech, 2017.", "wang", "skerry ryan", 3, "2017"},
		{"Aaron van den Oord and Sander Dieleman. 2016. WaveNet: A Generative Model for Raw Audio. In SSW.", "aaron van den oord", "sander dieleman", 2, "2016"},
		{"Kipf TN, Welling M. Semi-supervised classification with graph convolutional networks. ICLR 2017.", "kipf", "", 1, "2017"},
		{"Smith, J. and Jones, K. (2019) Harvard style title. Journal.", "smith", "jones", 2, "2019"},
		{"**Lewis et al. (2020)** Retrieval-augmented generation.", "lewis", "", 3, "2020"},
		{"van der Aalst, W. M. P. (2016). Process mining. Springer.", "van der aalst", "", 1, "2016"},
		{"O’Brien, T. (n.d.). Undated. Blog.", "obrien", "", 1, "n.d."},
		{"World Health Organization. (2020). Global report. WHO.", "world health organization", "", 1, "2020"},
		{"Reading Wikipedia to answer open-domain questions. Chen et al., ACL 2017.", "chen", "", 3, "2017"},
		{"Attention Is All You Need (2017) https://arxiv.org/abs/1706.03762", "", "", 0, ""},
		{"Horizontal gene transfer in plants (2006): https://pubmed.ncbi.nlm.nih.gov/17030541/", "", "", 0, ""},
		{"Lewis, P. Retrieval without a year. NeurIPS.", "", "", 0, ""},
		{"Lewis, P. (2020). Title. arXiv:2012.12345. Accessed 2024-05-01.", "lewis", "", 1, "2020"},
	}
	for _, tt := range tests {
		links := findEntryURLs(tt.entry)
		k := entryAuthorKey(tt.entry, links)
		var first, second, years string
		authors := 0
		if k != nil {
			first, second, authors = strings.Join(k.first, " "), strings.Join(k.second, " "), k.authors
			var ys []string
			for _, y := range k.years {
				s := y.year
				if y.suffix != 0 {
					s += string(y.suffix)
				}
				ys = append(ys, s)
			}
			years = strings.Join(ys, " ")
		}
		if first != tt.first || second != tt.second || authors != tt.authors || years != tt.years {
			t.Errorf("entryAuthorKey(%q) = first %q, second %q, %d authors, years %q; want %q, %q, %d, %q",
				tt.entry, first, second, authors, years, tt.first, tt.second, tt.authors, tt.years)
		}
	}
}
