// Package realdata names the public data the tests and the documented
// figures are measured on — label sets, real deep-research reports, the
// ReportBench release, LaTeX surveys, PROV schemas — each pinned to its
// repository, commit and license, with the path, size and sha256 of every
// file, and downloads them (Pull) into the layout the tests read
// (internal/sharedtest: ../shared/data, or $CLAIMTRACE_SHARED_DATA), so
// that every figure in docs/ can be reproduced from a fresh clone.
//
// The list of files (manifest.json) is written from a copy of the data by
// `go test ./internal/realdata -run TestManifest -update`, and checked
// against that copy, file by file, by the same test without -update.
package realdata

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Set is one data set: a folder of files copied from one commit of one
// public repository.
type Set struct {
	// Name is how --only names it.
	Name string
	// Dir is the set's folder inside the data folder.
	Dir string
	// Repo is the GitHub repository (owner/name) at Commit.
	Repo, Commit string
	// License is the repository's license, as its SOURCE file states it.
	License string
	// About says what the set is and what it serves.
	About string
	// source maps a file's path in Dir to its path in the repository;
	// nil keeps the path.
	source func(p string) string
	// member tells the set's files from another set's in a shared Dir;
	// nil takes them all.
	member func(p string) bool
	// Files are the set's files, from manifest.json.
	Files []File
}

// File is one file of a set.
type File struct {
	// Path is the file's path inside the set's Dir.
	Path string `json:"path"`
	// Source is its path in the repository at the set's commit.
	Source string `json:"source"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// URL returns where f is downloaded from under base (a raw-file host laid
// out as GitHub's: base/OWNER/REPO/COMMIT/PATH), its path escaped.
func (s Set) URL(base string, f File) string {
	parts := strings.Split(f.Source, "/")
	for i, p := range parts {
		parts[i] = pathEscape(p)
	}
	return strings.TrimRight(base, "/") + "/" + s.Repo + "/" + s.Commit + "/" + strings.Join(parts, "/")
}

// pathEscape escapes a path segment as a URL path needs it (spaces, '?',
// '#', newlines and the rest), keeping letters, digits and "-._~:@!$&'()*+,;=".
func pathEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~:@!$&'()*+,;=", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// DefaultBase is where Pull downloads from: GitHub's raw-file host.
const DefaultBase = "https://raw.githubusercontent.com"

//go:embed manifest.json
var manifestJSON []byte

// Sets returns every set, with its files, in a fixed order.
func Sets() ([]Set, error) {
	var files map[string][]File
	if err := json.Unmarshal(manifestJSON, &files); err != nil {
		return nil, fmt.Errorf("realdata: manifest.json: %w", err)
	}
	sets := catalog()
	for i := range sets {
		sets[i].Files = files[sets[i].Name]
	}
	return sets, nil
}

// Select returns the sets named in only (all when only is empty); an
// unknown name is an error that lists the names there are.
func Select(sets []Set, only []string) ([]Set, error) {
	if len(only) == 0 {
		return sets, nil
	}
	var out []Set
	for _, name := range only {
		i := slices.IndexFunc(sets, func(s Set) bool { return s.Name == name })
		if i < 0 {
			names := make([]string, len(sets))
			for k, s := range sets {
				names[k] = s.Name
			}
			return nil, fmt.Errorf("no data set %q; there are %s", name, strings.Join(names, ", "))
		}
		if !slices.ContainsFunc(out, func(s Set) bool { return s.Name == name }) {
			out = append(out, sets[i])
		}
	}
	return out, nil
}

// catalog is where each set comes from, as the SOURCE file of its folder in
// the shared data states it.
func catalog() []Set {
	under := func(dir string) func(string) string {
		return func(p string) string { return path.Join(dir, p) }
	}
	return []Set{
		{Name: "reportbench-v1.1", Dir: "reportbench-v1.1", Repo: "ByteDance-BandAI/ReportBench", Commit: "1826140c57cea89e8c2542ed135881ade39a45c3",
			License: "Apache-2.0 (repository); data CC0 1.0", About: "the released ReportBench: 100 tasks and their ground-truth reference lists"},
		{Name: "attributionbench", Dir: "labels/attributionbench", Repo: "OSU-NLP-Group/AttributionBench", Commit: "b33329b29946b791649cf66d33e10b5a5bbdc44d",
			License: "no LICENSE file (dataset card osunlp/AttributionBench; component data sets carry their own)", About: "1,198 human-labelled claim–evidence pairs (the judge's figures)",
			source: func(p string) string {
				if p == "dev.jsonl" {
					return "data/dev_all_subset_balanced.jsonl"
				}
				return p
			}},
		{Name: "wice", Dir: "labels/wice", Repo: "ryokamoi/wice", Commit: "ddeb6c183665e2a20c5f03c5aa07f03888b9870f",
			License: "see LICENSE.md (Wikipedia text CC BY-SA; Common Crawl terms of use)", About: "349 Wikipedia claims checked against whole pages",
			source: func(p string) string {
				if p == "dev.jsonl" {
					return "data/entailment_retrieval/claim/dev.jsonl"
				}
				return p
			}},
		{Name: "citint", Dir: "labels/citint", Repo: "jedick/MLE-capstone-project", Commit: "667a819",
			License: "the Citation-Integrity corpus's (ScienceNLP-Lab/Citation-Integrity)", About: "Citation-Integrity in the SciFact layout (the citing calibration)",
			source: under("data/citint")},
		{Name: "claude37-drb", Dir: "reports/claude37-drb", Repo: "Ayanami0730/deep_research_bench", Commit: "214741e474a5347ea7f869ab79d27e7c8734ede7",
			License: "Apache-2.0 (LICENSE file)", About: "100 reports of Claude 3.7 Sonnet with web search on DeepResearch Bench"},
		{Name: "onyx-drb", Dir: "reports/onyx-drb", Repo: "onyx-dot-app/onyx_deep_research_bench", Commit: "41f404cc61e287ffff18df0f23ce8456503a94bc",
			License: "MIT", About: "100 reports of the Onyx deep-research agent"},
		{Name: "openai-dr-science-drb", Dir: "reports/openai-dr-science-drb", Repo: "Luke-Guan-FirstPrinciples/deep_research_bench", Commit: "a6f1a09e7eb002171366c64bab18b57a7bee65d7",
			License: "Apache-2.0", About: "OpenAI deep research reports and DRB FACT outputs"},
		{Name: "deepscholar-bench", Dir: "reports/deepscholar-bench", Repo: "guestrin-lab/deepscholar-bench", Commit: "6ff05aa53db6dc5f94e7342084293d36b0153f99",
			License: "MIT", About: "DeepScholar-Bench ground truth and system outputs", source: deepScholarSource},
		{Name: "deepscholar-massgen", Dir: "reports/deepscholar-massgen", Repo: "ncrispino/deepscholar-massgen", Commit: "5dd41186d286b172adf22a36e581ec89e4369f86",
			License: "MIT", About: "63 related-work sections by a multi-agent system"},
		{Name: "arxiv-snapshot-sample", Dir: "arxiv/snapshot-sample", Repo: "wanng-ide/arxivSpider_mnbvc", Commit: "f35ce6d00e5f482a30fa85643a7dc04b25559676",
			License: "MIT (repository); arXiv metadata CC0", About: "200 lines of the arXiv metadata snapshot"},
		{Name: "latex-algorithmic-assurances", Dir: "latex/algorithmic-assurances-survey", Repo: "bisraelsen/Circumspect_survey", Commit: "dbf87d734b2e17b8a5687d09baab5b8d49609bfb",
			License: "MIT", About: "a survey's LaTeX sources and .bib (arXiv 1711.03846)"},
		{Name: "latex-vla-attack", Dir: "latex/vla-attack-survey", Repo: "xtli12/VLA-Attack-Survey", Commit: "bbaca161af7cc16e92b41dd9b5422a2b64ee30c6",
			License: "none stated", About: "a survey's LaTeX sources, .bib and .bbl"},
		{Name: "latex-2206.03237-bib", Dir: "latex/reportbench-2206.03237-bib", Repo: "fstiehle/SLR-blockchain-BP-execution", Commit: "1920bf4adca715b57c1e088bc61e954a6d05bc46",
			License: "none stated", About: "the authors' .bib of ReportBench survey 2206.03237", source: under("data")},
		{Name: "prov-trungdong", Dir: "prov", Repo: "trungdong/prov", Commit: "58800685f63d190dbfa2a2f26ed3114369ebeeba",
			License: "MIT; the W3C schemas and context under the W3C Software and Document License", About: "PROV-JSON and PROV-JSONLD schemas, context and examples", source: trungdongSource,
			member: func(p string) bool { return !strings.Contains(p, "provtoolbox-") }},
		{Name: "prov-toolbox-schema", Dir: "prov", Repo: "lucmoreau/ProvToolbox", Commit: "bbff1d7eecd15175e6be8a055f67d311e40f9f04",
			License: "MIT", About: "ProvToolbox's corrected PROV-JSON schema",
			source: func(string) string {
				return "modules-template/prov-template-compiler/src/main/resources/schema/prov-json-schema-v4.json"
			},
			member: func(p string) bool { return p == "provtoolbox-prov-json-schema-v4.json" }},
		{Name: "prov-toolbox-examples", Dir: "prov", Repo: "lucmoreau/ProvToolbox", Commit: "912a2b12a58eb14724cdd8a24a55e2d802bd1d4a",
			License: "MIT", About: "the PROV-JSON specification's examples",
			source: func(string) string { return "modules-core/prov-jsonld/src/test/resources/prov-json-spec-examples.json" },
			member: func(p string) bool { return p == "examples/provtoolbox-prov-json-spec-examples.json" }},
	}
}

// deepScholarSource maps the four system outputs the shared copy renamed
// (their names hold a newline and a question's text) back to their names
// in the repository.
func deepScholarSource(p string) string {
	renamed := map[string]string{
		"tests/baselines_results/openscholar/0/report.md":       "tests/baselines_results/openscholar/0/TaxAgent: How Large Language Model Designs Fiscal Policy.md",
		"tests/baselines_results/openscholar/1/report.md":       "tests/baselines_results/openscholar/1/KVCache Cache in the Wild: Characterizing and Optimizing KVCache Cache\n  at a Large Cloud Provider.md",
		"tests/baselines_results/search_ai_gpt_4.1/0/report.md": "tests/baselines_results/search_ai_gpt_4.1/0/Your task is to write a Related Works section for an academic paper given the paper's abstract. Your response should provide .md",
		"tests/baselines_results/search_ai_gpt_4.1/1/report.md": "tests/baselines_results/search_ai_gpt_4.1/1/Your task is to write a Related Works section for an academic paper given the paper's abstract. Your response should provide .md",
	}
	if s, ok := renamed[p]; ok {
		return s
	}
	return p
}

// trungdongSource maps the prov folder's files from trungdong/prov.
func trungdongSource(p string) string {
	switch p {
	case "prov-json.schema.json", "prov-jsonld.schema.json":
		return "src/prov/tests/schemas/" + p
	case "prov-jsonld-context.jsonld":
		return "src/prov/serializers/prov-jsonld-context.jsonld"
	case "examples/prov-jsonld-submission-example-3.jsonld":
		return "src/prov/tests/jsonld/submission-example-3.jsonld"
	}
	if name, ok := strings.CutPrefix(p, "examples/trungdong-prov-"); ok {
		return "src/prov/tests/json/" + name
	}
	return p
}

// sourceOf returns the repository path of a file of s.
func (s Set) sourceOf(p string) string {
	if s.source == nil {
		return p
	}
	return s.source(p)
}

// owns reports whether the file at p (relative to s.Dir) is one of s's.
func (s Set) owns(p string) bool {
	return s.member == nil || s.member(p)
}
