package biblio

import (
	"strings"
	"testing"
)

func TestTitlesDisagree(t *testing.T) {
	tests := []struct {
		stated, found string
		disagree      bool
	}{
		// Another paper at the URL: the misattribution the test exists for.
		{"Deep radar hallucination networks", "Retrieval for Widgets", true},
		{"Deep Radar Hallucination Networks for Rain Clutter", "Radar Returns Under Heavy Rain: A Field Study", true},
		{"Qwen2 Technical Report", "Qwen2.5 Technical Report", true},
		{"Learning Widgets from Small Data", "Learning Widgets from Small Data II", true},
		{"Deep residual learning", "Deep residual learning for image recognition", true},
		{"Widget Retrieval, Part I: Dense Methods", "Widget Retrieval, Part II: Dense Methods", true},
		// One paper, spelled otherwise.
		{"Attention is all you need", "Attention Is All You Need", false},
		{"Multi-Agent Widget Markets.", "Multiagent widget markets", false},
		{"Semi-Supervised Clasification with Graph Convolutional Networks", "Semi-Supervised Classification with Graph Convolutional Networks", false},
		{"Retrieval-Augmented Generation for Knowledge-Intensive NLP", "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", false},
		{"BERT", "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding", false},
		{"Widgets in the wild: a survey", "Widgets in the Wild", false},
		// A reference list's title that kept the authors or the venue.
		{"Li, B. Dense widget retrieval", "Dense Widget Retrieval", false},
		{"Dense widget retrieval. Journal of Widgets", "Dense Widget Retrieval", false},
		{"Wang, L. Deep radar hallucination networks for widget scenes", "Dense Widget Retrieval", true},
		// Nothing to compare.
		{"", "Retrieval for Widgets", false},
		{"Deep radar hallucination networks", "", false},
		{"...", "Retrieval for Widgets", false},
	}
	for _, tt := range tests {
		if got := TitlesDisagree(tt.stated, tt.found); got != tt.disagree {
			t.Errorf("TitlesDisagree(%q, %q) = %v, want %v", tt.stated, tt.found, got, tt.disagree)
		}
	}
	// The test is not symmetric: a stated title holding the found one whole
	// agrees, a stated title that is only part of it does not.
	if TitlesDisagree("Li, B. Dense widget retrieval", "Dense Widget Retrieval") || !TitlesDisagree("Dense Widget Retrieval", "Li, B. Dense widget retrieval") {
		t.Errorf("containment must count one way only")
	}
}

// FuzzTitlesDisagree: no panic; a title never disagrees with itself.
func FuzzTitlesDisagree(f *testing.F) {
	f.Add("Deep radar hallucination networks", "Retrieval for Widgets")
	f.Add("BERT", "BERT: Pre-training")
	f.Add("a b c d e", "a b c d e f")
	f.Fuzz(func(t *testing.T, a, b string) {
		if TitlesDisagree(a, a) {
			t.Fatalf("%q disagrees with itself", a)
		}
		_ = TitlesDisagree(a, b)
	})
}

// FuzzExternalID: no panic; an id found is one of the kinds, non-empty and
// free of separators.
func FuzzExternalID(f *testing.F) {
	for _, s := range []string{"https://pubmed.ncbi.nlm.nih.gov/31452104/", "https://linkinghub.elsevier.com/retrieve/pii/S0967-0661(12)00105-0",
		"https://openreview.net/forum?id=rJ4km2R5t7", "https://aclanthology.org/2020.acl-main.1.pdf", "https://www.sciencedirect.com/science/article/pii/"} {
		f.Add(s)
	}
	kinds := map[string]bool{IDPubMed: true, IDPMC: true, IDPII: true, IDOpenReview: true, IDACL: true}
	f.Fuzz(func(t *testing.T, s string) {
		x, ok := ExternalID(s)
		if !ok {
			return
		}
		if !kinds[x.Kind] || x.Value == "" || strings.ContainsAny(x.Value, " \t\n/?#&") {
			t.Fatalf("ExternalID(%q) = %+v", s, x)
		}
	})
}
