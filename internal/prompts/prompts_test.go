package prompts_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// samples is the data each prompt is rendered with in the golden test.
// Every embedded prompt must have an entry.
var samples = map[string]map[string]string{
	"llm/check": {},
	"judge/cited_batch": {
		"Source": "Excerpts of the source, in order (the text between them is left out):\n<excerpt n=\"1\">\nDense Passage Retrieval for Open-Domain Question Answering\n</excerpt>\n<excerpt n=\"2\">\nOur dense retriever outperforms a strong Lucene-BM25 system largely by 9%-19% absolute in terms of top-20 passage retrieval accuracy.\n</excerpt>",
		"Claims": "<statement n=\"1\">Dense passage retrieval outperforms BM25 on open-domain QA.</statement>\n<statement n=\"2\">DPR was trained on 21 million Wikipedia passages.</statement>",
	},
	"judge/cited_reask": {
		"Problems": "- statement 2: the evidence \"DPR is trained on all of Wikipedia\" does not occur in the source",
		"Numbers":  "2",
	},
	"judge/check_worthy": {
		"Claims": "<statement n=\"1\">The first RAG model used a BART-large generator.</statement>\n<statement n=\"2\">Retrieval is an exciting research direction.</statement>",
	},
	"judge/fact_check": {
		"Statement": "The first RAG model used a BART-large generator.",
		"Context":   "## Retrieval-augmented generation\n\nRAG couples a retriever with a generator. The first RAG model used a BART-large generator.",
		"Cutoff":    "2024-01-01",
	},
	"judge/fact_check_search": {
		"Statement": "The first RAG model used a BART-large generator.",
		"Context":   "",
		"Cutoff":    "",
		"Results":   "<result n=\"1\">\nTitle: Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks\nURL: https://arxiv.org/abs/2005.11401\nWe use BART-large as the generator.\n</result>",
	},
	"judge/fact_check_batch": {
		"Statements": "<statement n=\"1\">\nStatement: The first RAG model used a BART-large generator.\n</statement>\n\n<statement n=\"2\">\nStatement: Dense passage retrieval was introduced in 2020.\n</statement>",
		"Cutoff":     "2024-01-01",
	},
	"judge/fact_check_search_batch": {
		"Statements": "<statement n=\"1\">\nStatement: The first RAG model used a BART-large generator.\nSearch results:\n<result n=\"1\">\nTitle: Retrieval-Augmented Generation\nURL: https://arxiv.org/abs/2005.11401\nWe use BART-large as the generator.\n</result>\n</statement>",
		"Cutoff":     "",
	},
	"judge/metadata": {
		"URL":       "https://www.cs.example.edu/~lee/papers/dpr.pdf",
		"PageTitle": "dpr.pdf",
		"Text":      "Dense Passage Retrieval for Open-Domain Question Answering\nVladimir Karpukhin, Barlas Oğuz, Sewon Min\nAbstract\nOpen-domain question answering relies on efficient passage retrieval.",
	},
	"judge/minicheck_system": {},
	"judge/minicheck": {
		"Document": "The Øresund Bridge opened to traffic on 1 July 2000. It carries a motorway and a railway between Copenhagen and Malmö.",
		"Claim":    "The Øresund Bridge carries both road and rail traffic.",
	},
	"judge/entail": {
		"A": "GPT-4 was released in March 2023.",
		"B": "GPT-4 was released in 2022.",
	},
	"analysis/quality": {
		"Prompt": "Please help me research the academic advancements in different radar data representation methods in the field of autonomous driving, and ensure only papers published before April 2025 are referenced.",
		"Report": "# Radar Data Representations for Autonomous Driving\n\n## 1. Point clouds\n\nRadar point clouds are sparse; PointNet-style encoders [1] aggregate them per frame.\n\n[… 5200 characters of the report omitted here …]\n\n## 6. Future directions\n\n4D imaging radar and radar-camera fusion remain open problems.",
		"Note":   "the report is 9400 characters long; to fit the length budget its middle (5200 characters, marked [… omitted here …]) was left out, and its first 3000 and last 1200 characters are shown. Do not penalize the omission itself: judge the report from what is shown.",
	},
	"reportbench/cited_extraction": {
		"Report": "## Retrieval-augmented generation\n\nRAG couples a retriever with a generator ([Lewis et al., 2020](https://arxiv.org/abs/2005.11401)). Dense passage retrieval outperforms BM25 on open-domain QA [2].\n\n[2] https://arxiv.org/abs/2004.04906",
	},
	"reportbench/noncited_extraction": {
		"Report":          "RAG couples a retriever with a generator ([Lewis et al., 2020](https://arxiv.org/abs/2005.11401)). The first RAG model used a BART-large generator.",
		"CitedStatements": "[{\"statement\": \"RAG couples a retriever with a generator.\", \"url\": \"https://arxiv.org/abs/2005.11401\"}]",
	},
	"reportbench/source_extraction": {
		"Statement":  "Dense passage retrieval outperforms BM25 on open-domain QA.",
		"SourceText": "Dense Passage Retrieval for Open-Domain Question Answering\n\nOur dense retriever outperforms a strong Lucene-BM25 system largely by 9%-19% absolute in terms of top-20 passage retrieval accuracy.",
	},
	"reportbench/consistency_verification": {
		"Statement":      "Dense passage retrieval outperforms BM25 on open-domain QA.",
		"SourceSentence": "Our dense retriever outperforms a strong Lucene-BM25 system largely by 9%-19% absolute in terms of top-20 passage retrieval accuracy.",
	},
	"reportbench/web_verification": {
		"Statement": "The Transformer architecture was introduced in 2017.",
	},
	"reportbench/title_extraction": {
		"Response": "Early work on attention [1] led to the Transformer.\n\n[1] Bahdanau, Cho, Bengio. Neural Machine Translation by Jointly Learning to Align and Translate. ICLR 2015.",
	},
}

func TestGolden(t *testing.T) {
	names := prompts.Names()
	if len(names) < 7 {
		t.Fatalf("only %d prompts embedded: %v", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, ok := samples[name]
			if !ok {
				t.Fatalf("no sample data for prompt %s: add it to samples", name)
			}
			p, err := prompts.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Render(data)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", filepath.FromSlash(name)+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("rendered %s (-want +got):\n%s", name, diff)
			}
			for k, v := range data {
				if !strings.Contains(got, v) {
					t.Errorf("rendered prompt lacks the %s data", k)
				}
			}
			if strings.Contains(got, "{{") || strings.HasPrefix(got, "\n") {
				t.Errorf("rendered prompt has template residue: %q", got[:min(len(got), 80)])
			}
		})
	}
}

func TestRenderMissingField(t *testing.T) {
	p, err := prompts.Get("reportbench/noncited_extraction")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Render(map[string]string{"Report": "r"}); err == nil || !strings.Contains(err.Error(), "CitedStatements") {
		t.Errorf("Render without CitedStatements = %v, want an error naming it", err)
	}
	type data struct{ Statement, SourceSentence string }
	if _, err := p.Render(data{}); err == nil {
		t.Errorf("Render with a struct lacking Report succeeded")
	}
}

func TestGetErrors(t *testing.T) {
	for _, name := range []string{"reportbench/nope", "nope", ""} {
		if _, err := prompts.Get(name); !errors.Is(err, claimtrace.ErrNotFound) && !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("Get(%q) = %v, want ErrNotFound or ErrInvalid", name, err)
		}
	}
	for _, name := range []string{"../prompts", "/etc/passwd", `reportbench\x`} {
		if _, err := prompts.Get(name); !errors.Is(err, claimtrace.ErrInvalid) && !errors.Is(err, claimtrace.ErrNotFound) {
			t.Errorf("Get(%q) = %v, want an error", name, err)
		}
	}
}

func TestManifest(t *testing.T) {
	m := prompts.Manifest()
	names := prompts.Names()
	if len(m) != len(names) {
		t.Fatalf("manifest has %d entries, %d prompts", len(m), len(names))
	}
	hashRE := regexp.MustCompile(`^[0-9a-f]{12}$`)
	seen := map[string]string{}
	for _, name := range names {
		p, err := prompts.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if m[name] != p.Hash || !hashRE.MatchString(p.Hash) {
			t.Errorf("%s: manifest %q, prompt hash %q", name, m[name], p.Hash)
		}
		if other, dup := seen[p.Hash]; dup {
			t.Errorf("%s and %s share hash %s", name, other, p.Hash)
		}
		seen[p.Hash] = name
	}
}

// placeholders renders a reportbench prompt with the seed's own {names}.
var placeholders = map[string]string{
	"Report": "{report}", "CitedStatements": "{cited_statements}", "Statement": "{statement}",
	"SourceText": "{source_text}", "SourceSentence": "{source_sentence}", "Response": "{response}",
}

// TestReportBenchVerbatim checks each reportbench prompt against appendix
// A.4 of the seed, up to the corrections documented in the package comment.
func TestReportBenchVerbatim(t *testing.T) {
	seed := filepath.Join(sharedtest.Root(), "..", "seeds", "002_465e28ad3759435d.txt")
	if sharedtest.Root() == "" {
		t.Skip("shared data not found: the seed lives beside it in ../shared/seeds")
	}
	b, err := os.ReadFile(seed)
	if err != nil {
		t.Skipf("seed not available: %v", err)
	}
	sections := seedSections(string(b))
	want := map[string]string{
		"A.4.1": "reportbench/cited_extraction",
		"A.4.2": "reportbench/noncited_extraction",
		"A.4.3": "reportbench/source_extraction",
		"A.4.4": "reportbench/consistency_verification",
		"A.4.5": "reportbench/web_verification",
		"A.4.6": "reportbench/title_extraction",
	}
	if len(sections) != len(want) {
		t.Fatalf("found sections %v in the seed, want A.4.1-A.4.6", keys(sections))
	}
	for sec, name := range want {
		p, err := prompts.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Render(placeholders)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(normalize(sections[sec]), normalize(got)); diff != "" {
			t.Errorf("%s differs from seed %s (-seed +template):\n%s", name, sec, diff)
		}
	}
}

var headingRE = regexp.MustCompile(`(?m)^(?:#+ )?(A\.4\.\d) [A-Z][A-Z -]+$`)

// seedSections splits appendix A.4 into its subsections' bodies.
func seedSections(s string) map[string]string {
	out := map[string]string{}
	locs := headingRE.FindAllStringSubmatchIndex(s, -1)
	for i, l := range locs {
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out[s[l[2]:l[3]]] = s[l[1]:end]
	}
	return out
}

var (
	longFenceRE = regexp.MustCompile("`{4,}")
	spaceRE     = regexp.MustCompile(`\s+`)
)

// normalize applies the documented corrections and folds whitespace.
func normalize(s string) string {
	s = strings.ReplaceAll(s, `\_`, "_")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "```" {
			lines = append(lines, l)
		}
	}
	s = longFenceRE.ReplaceAllString(strings.Join(lines, "\n"), "```")
	return strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
