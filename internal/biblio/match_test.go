package biblio

import (
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

func testRefs() []claimtrace.Reference {
	return []claimtrace.Reference{
		0:  {BibID: "bert", Title: "{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding", Meta: map[string]string{"journal": "arXiv preprint arXiv:1810.04805"}},
		1:  {BibID: "resnet", Title: "Deep residual learning", Meta: map[string]string{"doi": "10.1109/CVPR.2016.90"}},
		2:  {BibID: "gcn", Title: "Semi-Supervised Classification with Graph Convolutional Networks", Meta: map[string]string{"eprint": "1609.02907", "archiveprefix": "arXiv"}},
		3:  {BibID: "gcn-dup", Title: "Semi-supervised classification with graph convolutional networks", Meta: map[string]string{"year": "2017"}},
		4:  {BibID: "corr", Title: "Adam: A Method for Stochastic Optimization", Meta: map[string]string{"journal": "CoRR", "volume": "abs/1412.6980"}},
		5:  {BibID: "acl", Title: "Findings of the 2016 Conference on Machine Translation (WMT16)", Meta: map[string]string{"url": "https://aclanthology.org/W16-2301"}},
		6:  {BibID: "part1", Title: "Review article: methods for fault detection, diagnostics, and prognostics for building systems—a review, Part I"},
		7:  {BibID: "qwen2", Title: "Qwen2 Technical Report"},
		8:  {BibID: "zhao", Title: "Gender Bias in Coreference Resolution: Evaluation and Debiasing Methods"},
		9:  {BibID: "fl", Title: "A survey on federated learning"},
		10: {BibID: "ma", Title: "Communication-efficient learning for multi-agent reinforcement learning systems"},
		11: {BibID: "arxivdoi", Title: "Some title", Meta: map[string]string{"doi": "10.48550/arXiv.2303.08774"}},
		12: {BibID: "howpub", Title: "A web page", Meta: map[string]string{"howpublished": "r̆lhttps://www.iso.org/committee/6794475.html"}},
		13: {BibID: "vitc", Title: "Randomized trial of vitamin C supplementation in adults"},
		14: {BibID: "bert-twin", Title: "Bidirectional encoders", Meta: map[string]string{"eprint": "arXiv:1810.04805v2"}},
		15: {BibID: "bert4rec", Title: "BERT4Rec: Sequential Recommendation with Bidirectional Encoder\n  Representations from Transformer"},
		16: {BibID: "hidden", Title: "The problem of hidden variables in quantum mechanics"},
		17: {BibID: "valves", Title: "Timed models of valve controllers", Meta: map[string]string{"url": "https://www.sciencedirect.com/science/article/pii/S0967066112001050"}},
		18: {BibID: "sleep", Title: "Sleep and widgets in older adults", Meta: map[string]string{"pmid": "31452104"}},
		19: {BibID: "rev", Title: "Reviewed widgets", Meta: map[string]string{"url": "https://openreview.net/forum?id=rJ4km2R5t7"}},
	}
}

func TestIndexMatch(t *testing.T) {
	ix := NewIndex(testRefs())
	tests := []struct {
		name string
		w    claimtrace.Work
		want Match
		ok   bool
	}{
		{"arxiv url", claimtrace.Work{URL: "https://arxiv.org/pdf/1810.04805v2.pdf"}, Match{0, "bert", MethodArXivID, 1}, true},
		{"arxiv field", claimtrace.Work{ArXivID: "1609.02907"}, Match{2, "gcn", MethodArXivID, 1}, true},
		{"corr volume", claimtrace.Work{URL: "https://arxiv.org/abs/1412.6980"}, Match{4, "corr", MethodArXivID, 1}, true},
		{"arxiv doi in gt", claimtrace.Work{URL: "https://arxiv.org/abs/2303.08774"}, Match{11, "arxivdoi", MethodArXivID, 1}, true},
		{"doi url", claimtrace.Work{URL: "https://doi.org/10.1109/cvpr.2016.90"}, Match{1, "resnet", MethodDOI, 1}, true},
		{"acl anthology id", claimtrace.Work{URL: "http://www.aclanthology.org/W16-2301/"}, Match{5, "acl", MethodExtID, 1}, true},
		{"acl anthology id, old host", claimtrace.Work{URL: "https://www.aclweb.org/anthology/W16-2301.pdf"}, Match{5, "acl", MethodExtID, 1}, true},
		{"pii, other spelling", claimtrace.Work{URL: "https://linkinghub.elsevier.com/retrieve/pii/S0967-0661(12)00105-0"}, Match{17, "valves", MethodExtID, 1}, true},
		{"pii, abstract page", claimtrace.Work{URL: "https://www.sciencedirect.com/science/article/abs/pii/S0967066112001050?via%3Dihub"}, Match{17, "valves", MethodExtID, 1}, true},
		{"pubmed url, pmid field", claimtrace.Work{URL: "https://pubmed.ncbi.nlm.nih.gov/31452104/"}, Match{18, "sleep", MethodExtID, 1}, true},
		{"openreview pdf", claimtrace.Work{URL: "https://openreview.net/pdf?id=rJ4km2R5t7"}, Match{19, "rev", MethodExtID, 1}, true},
		{"another openreview id", claimtrace.Work{URL: "https://openreview.net/forum?id=rJ4km2R5t8"}, Match{}, false},
		{"another pii", claimtrace.Work{URL: "https://www.sciencedirect.com/science/article/pii/S0967066112001062"}, Match{}, false},
		{"mangled howpublished url", claimtrace.Work{URL: "https://iso.org/committee/6794475.html"}, Match{12, "howpub", MethodURL, 1}, true},
		{"exact title", claimtrace.Work{Title: "BERT: Pre-Training of Deep Bidirectional Transformers for Language Understanding."}, Match{0, "bert", MethodTitle, 1}, true},
		{"duplicate title collapses to representative", claimtrace.Work{Title: "Semi Supervised Classification With Graph Convolutional Networks"}, Match{2, "gcn", MethodTitle, 1}, true},
		{"hyphen variants", claimtrace.Work{Title: "Communication efficient learning for multiagent reinforcement learning systems"}, Match{10, "ma", MethodTitle, 1}, true},
		{"typo", claimtrace.Work{Title: "Semi-Supervised Clasification with Graph Convolutional Networks"}, Match{2, "gcn", MethodFuzzyTitle, 1 - 1.0/58}, true},
		{"id wins over title", claimtrace.Work{ArXivID: "1609.02907", Title: "Deep residual learning"}, Match{2, "gcn", MethodArXivID, 1}, true},
		// Rejections.
		{"contains the gt title", claimtrace.Work{Title: "Deep residual learning for image recognition"}, Match{}, false},
		{"gt title plus subtitle", claimtrace.Work{Title: "A survey on federated learning: systems, vision, hype and reality"}, Match{}, false},
		{"subtitle dropped", claimtrace.Work{Title: "Gender Bias in Coreference Resolution"}, Match{}, false},
		{"different part", claimtrace.Work{Title: "Review article: methods for fault detection, diagnostics, and prognostics for building systems—a review, Part II"}, Match{}, false},
		{"different version", claimtrace.Work{Title: "Qwen2.5 Technical Report"}, Match{}, false},
		{"different number", claimtrace.Work{Title: "Findings of the 2018 Conference on Machine Translation (WMT18)"}, Match{}, false},
		{"different letter", claimtrace.Work{Title: "Randomized trial of vitamin D supplementation in adults"}, Match{}, false},
		{"plural of the last word", claimtrace.Work{Title: "BERT4Rec: Sequential Recommendation with Bidirectional Encoder Representations from Transformers"}, Match{15, "bert4rec", MethodFuzzyTitle, 1 - 1.0/87}, true},
		{"extra leading word", claimtrace.Work{Title: "On the problem of hidden variables in quantum mechanics"}, Match{}, false},
		{"two typos in a short title", claimtrace.Work{Title: "Semi-Supervised Clasification with Graph Convolutionl Networks"}, Match{}, false},
		{"unknown id, no title", claimtrace.Work{ArXivID: "2401.00001"}, Match{}, false},
		{"nothing", claimtrace.Work{}, Match{}, false},
	}
	for _, tt := range tests {
		got, ok := ix.Match(tt.w)
		if ok != tt.ok {
			t.Errorf("%s: Match ok = %v, want %v (got %+v)", tt.name, ok, tt.ok, got)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: Match mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestIndexDistinct(t *testing.T) {
	ix := NewIndex(testRefs())
	// 20 references; gcn-dup joins gcn by title, bert-twin joins bert by arXiv id.
	if got, want := ix.Len(), 20; got != want {
		t.Errorf("Len = %d, want %d", got, want)
	}
	if got, want := ix.Distinct(), 18; got != want {
		t.Errorf("Distinct = %d, want %d", got, want)
	}
	m, ok := ix.Match(claimtrace.Work{Title: "Bidirectional encoders"})
	if !ok || m.Ref != 0 {
		t.Errorf("Match(twin title) = %+v, %v; want the group representative 0", m, ok)
	}
	empty := NewIndex(nil)
	if empty.Len() != 0 || empty.Distinct() != 0 {
		t.Errorf("empty index: Len %d, Distinct %d", empty.Len(), empty.Distinct())
	}
	if _, ok := empty.Match(claimtrace.Work{Title: "Anything at all in this title"}); ok {
		t.Error("empty index matched")
	}
}

func TestAmbiguousURLNotUsed(t *testing.T) {
	ix := NewIndex([]claimtrace.Reference{
		{BibID: "a", Title: "First paper on a shared site", Meta: map[string]string{"url": "https://github.com"}},
		{BibID: "b", Title: "Second paper on a shared site", Meta: map[string]string{"url": "https://github.com/"}},
	})
	if m, ok := ix.Match(claimtrace.Work{URL: "https://github.com"}); ok {
		t.Errorf("ambiguous URL matched %+v", m)
	}
}

func TestBoundedLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		k    int
		want int
	}{
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3},
		{"", "abc", 5, 3},
		{"abc", "", 1, 2},
		{"same", "same", 0, 0},
		{"abcdef", "abdcef", 2, 2},
		{"résumé", "resume", 2, 2},
	}
	for _, tt := range tests {
		got := boundedLevenshtein([]rune(tt.a), []rune(tt.b), tt.k)
		if tt.want > tt.k {
			if got <= tt.k {
				t.Errorf("boundedLevenshtein(%q, %q, %d) = %d, want > %d", tt.a, tt.b, tt.k, got, tt.k)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("boundedLevenshtein(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.k, got, tt.want)
		}
	}
}

// TestIndexConcurrent matches from several goroutines (run with -race).
func TestIndexConcurrent(t *testing.T) {
	ix := NewIndex(testRefs())
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			ok := true
			for i := 0; i < 200; i++ {
				m, found := ix.Match(claimtrace.Work{Title: "Semi-Supervised Clasification with Graph Convolutional Networks"})
				ok = ok && found && m.Ref == 2
			}
			done <- ok
		}()
	}
	for g := 0; g < 4; g++ {
		if !<-done {
			t.Error("concurrent Match returned a wrong result")
		}
	}
}
