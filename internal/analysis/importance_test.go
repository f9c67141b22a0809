package analysis_test

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/score"
)

func TestQuartiles(t *testing.T) {
	tests := []struct {
		name   string
		counts []int
		want   []int
		cuts   [3]float64
	}{
		{"eight distinct", []int{10, 70, 30, 50, 20, 80, 40, 60}, []int{1, 4, 2, 3, 1, 4, 2, 3}, [3]float64{27.5, 45, 62.5}},
		{"four", []int{4, 1, 3, 2}, []int{4, 1, 3, 2}, [3]float64{1.75, 2.5, 3.25}},
		{"five", []int{5, 4, 3, 2, 1}, []int{4, 3, 2, 1, 1}, [3]float64{2, 3, 4}},
		// Equal counts share a quartile: the four uncited papers all fall
		// in Q1, and Q2 stays empty.
		{"ties at zero", []int{0, 40, 0, 12, 0, 9, 5, 0}, []int{1, 4, 1, 4, 1, 3, 3, 1}, [3]float64{0, 2.5, 9.75}},
		{"all equal", []int{7, 7, 7, 7, 7}, []int{1, 1, 1, 1, 1}, [3]float64{7, 7, 7}},
		{"a tie across the median", []int{1, 2, 5, 5, 5, 9}, []int{1, 1, 2, 2, 2, 4}, [3]float64{2.75, 5, 5}},
		{"one", []int{3}, []int{1}, [3]float64{3, 3, 3}},
		{"none", nil, nil, [3]float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cuts := analysis.Quartiles(tt.counts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("quartiles (-want +got):\n%s", diff)
			}
			if cuts != tt.cuts {
				t.Errorf("cuts = %v, want %v", cuts, tt.cuts)
			}
		})
	}
}

// TestQuartilesOrderFree: a count's quartile depends on the counts, not
// on their order, and quartiles never decrease with the count.
func TestQuartilesOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 200 {
		n := 1 + rng.IntN(40)
		counts := make([]int, n)
		for i := range counts {
			counts[i] = rng.IntN(6) * rng.IntN(50) // many ties and zeros
		}
		q, _ := analysis.Quartiles(counts)
		perm := rng.Perm(n)
		shuffled := make([]int, n)
		for i, p := range perm {
			shuffled[i] = counts[p]
		}
		qs, _ := analysis.Quartiles(shuffled)
		for i, p := range perm {
			if qs[i] != q[p] {
				t.Fatalf("trial %d: count %d is Q%d in one order, Q%d in another", trial, counts[p], q[p], qs[i])
			}
		}
		for i := range counts {
			for j := range counts {
				if counts[i] < counts[j] && q[i] > q[j] || counts[i] == counts[j] && q[i] != q[j] {
					t.Fatalf("trial %d: count %d in Q%d, count %d in Q%d", trial, counts[i], q[i], counts[j], q[j])
				}
			}
		}
		if n%4 == 0 && len(distinct(counts)) == n {
			sizes := map[int]int{}
			for _, k := range q {
				sizes[k]++
			}
			for k := 1; k <= 4; k++ {
				if sizes[k] != n/4 {
					t.Fatalf("trial %d: %d distinct counts, Q%d holds %d", trial, n, k, sizes[k])
				}
			}
		}
	}
}

func distinct(xs []int) map[int]bool {
	m := map[int]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// gtSurvey is a realistic ground truth: identifiers spelled the ways the
// released GT files spell them, a duplicated entry, a reference with no
// title.
var gtSurvey = []claimtrace.Reference{
	{BibID: "vaswani2017attention", Title: "Attention Is All You Need", Author: "Vaswani, Ashish and others", Meta: map[string]string{"year": "2017", "journal": "arXiv preprint arXiv:1706.03762"}},
	{BibID: "he2016deep", Title: "Deep Residual Learning for Image Recognition", Author: "He, Kaiming", Meta: map[string]string{"year": "2016", "doi": "10.1109/CVPR.2016.90", "booktitle": "CVPR"}},
	{BibID: "he2016resnet", Title: "Deep residual learning for image recognition", Author: "He, Kaiming", Meta: map[string]string{"year": "2016", "pages": "770--778"}},
	{BibID: "devlin2018bert", Title: "{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding", Meta: map[string]string{"journal": "CoRR", "volume": "abs/1810.04805"}},
	{BibID: "karpukhin2020dense", Title: "Dense Passage Retrieval for Open-Domain Question Answering", Meta: map[string]string{"doi": "10.48550/arXiv.2004.04906"}},
	{BibID: "lewis2020rag", Title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", Meta: map[string]string{"url": "https://arxiv.org/abs/2005.11401"}},
	{BibID: "smith2019note", Title: "A Workshop Note on Sparse Retrieval", Meta: map[string]string{"booktitle": "Workshop on Retrieval"}},
	{BibID: "lee2018study", Title: "Another Small Study of Sparse Retrievers", Meta: map[string]string{"year": "2018"}},
	{BibID: "anon2015report", Title: "An Unindexed Technical Report on Indexes", Meta: map[string]string{"howpublished": "Technical report"}},
	{BibID: "misc1", Title: "", Meta: map[string]string{"note": "personal communication"}},
}

func TestNewSurvey(t *testing.T) {
	s := analysis.NewSurvey("2101.00001", gtSurvey)
	got := map[string]analysis.RefQuery{}
	for _, r := range s.Refs {
		got[r.BibID] = r.Query
	}
	want := map[string]analysis.RefQuery{
		"vaswani2017attention": {ArXivID: "1706.03762", Title: gtSurvey[0].Title},
		"he2016deep":           {DOI: "10.1109/cvpr.2016.90", Title: gtSurvey[1].Title},
		"devlin2018bert":       {ArXivID: "1810.04805", Title: gtSurvey[3].Title},
		"karpukhin2020dense":   {ArXivID: "2004.04906", Title: gtSurvey[4].Title},
		"lewis2020rag":         {ArXivID: "2005.11401", Title: gtSurvey[5].Title},
		"smith2019note":        {Title: gtSurvey[6].Title},
		"lee2018study":         {Title: gtSurvey[7].Title},
		"anon2015report":       {Title: gtSurvey[8].Title},
		"misc1":                {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("distinct references (-want +got):\n%s", diff)
	}
	// The distinct references are what the evaluation's recall counts.
	if n := len(s.Refs); n != 9 {
		t.Errorf("%d distinct references, want 9 (the two ResNet entries are one)", n)
	}
	keys := map[string]string{}
	for _, r := range s.Refs {
		keys[r.BibID] = r.Key
		if r.Key != r.Query.Key() {
			t.Errorf("%s: key %q, query key %q", r.BibID, r.Key, r.Query.Key())
		}
	}
	if keys["he2016deep"] != "doi:10.1109/cvpr.2016.90" || keys["lewis2020rag"] != "arxiv:2005.11401" ||
		keys["lee2018study"] != "title:anothersmallstudyofsparseretrievers" || keys["misc1"] != "" {
		t.Errorf("keys = %v", keys)
	}
}

// counted returns the counts of a survey's references by bib_id.
func counted(s *analysis.Survey, byBib map[string]int, notFound ...string) map[string]analysis.CountEntry {
	out := map[string]analysis.CountEntry{}
	for _, r := range s.Refs {
		if n, ok := byBib[r.BibID]; ok {
			out[r.Key] = analysis.CountEntry{Key: r.Key, Status: analysis.CountFound, CitedBy: n, Source: "openalex"}
		}
		for _, b := range notFound {
			if b == r.BibID {
				out[r.Key] = analysis.CountEntry{Key: r.Key, Status: analysis.CountNotFound}
			}
		}
	}
	return out
}

func TestStratify(t *testing.T) {
	big := analysis.NewSurvey("2101.00001", gtSurvey)
	small := analysis.NewSurvey("2101.00002", []claimtrace.Reference{
		{BibID: "s1", Title: "First Paper of a Short Survey"},
		{BibID: "s2", Title: "Second Paper of a Short Survey"},
		{BibID: "s3", Title: "Third Paper of a Short Survey"},
	})
	counts := counted(big, map[string]int{
		"vaswani2017attention": 150000, "he2016deep": 200000, "devlin2018bert": 90000,
		"karpukhin2020dense": 3000, "lewis2020rag": 5000, "smith2019note": 3, "lee2018study": 3,
	}, "anon2015report")
	for k, v := range counted(small, map[string]int{"s1": 10, "s2": 20, "s3": 30}) {
		counts[k] = v
	}
	dir := t.TempDir()
	a, err := analysis.LoadRun(writeRun(t, filepath.Join(dir, "deep-research"), []report{
		// Hits: Q4 ×2, Q2 ×1, Q1 ×1, a bib_id not in the ground truth.
		{task: "2101.00001", gt: 9, matched: []string{"vaswani2017attention", "he2016deep", "lewis2020rag", "smith2019note", "not-a-bib-id"}},
		{task: "2101.00002", gt: 3, matched: []string{"s2"}},
		{task: "2109.99999", gt: 4, matched: []string{"x"}},
	}, true))
	if err != nil {
		t.Fatal(err)
	}
	b, err := analysis.LoadRun(writeRun(t, filepath.Join(dir, "base-model"), []report{
		{task: "2101.00002", gt: 3, matched: []string{"s1", "s3"}},
	}, true))
	if err != nil {
		t.Fatal(err)
	}
	imp, err := analysis.Stratify([]*analysis.Survey{big, small}, counts, []*analysis.Run{a, b}, analysis.ImportanceOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// Counts sorted: 3 3 3000 5000 90000 150000 200000.
	wantSurveys := []analysis.SurveyQuartiles{
		{Task: "2101.00001", Refs: 9, Counted: 7, Cuts: &[3]float64{1501.5, 5000, 120000}, Sizes: &[4]int{2, 2, 1, 2}},
		{Task: "2101.00002", Refs: 3, Counted: 3},
	}
	if diff := cmp.Diff(wantSurveys, imp.Surveys); diff != "" {
		t.Errorf("surveys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"2101.00002"}, imp.SmallSurveys); diff != "" {
		t.Errorf("small surveys (-want +got):\n%s", diff)
	}
	refs := imp.References
	if refs.Total != 12 || refs.Found != 10 || refs.NotFound != 1 || refs.NoQuery != 1 || refs.Missing != 0 || refs.Failed != 0 {
		t.Errorf("references = %+v", refs)
	}

	st := func(refs, hits int) analysis.Stratum {
		s := analysis.Stratum{Refs: refs, Hits: hits}
		if refs > 0 {
			s.Recall = f(float64(hits) / float64(refs))
		}
		return s
	}
	want := []analysis.SystemRecall{
		{
			System: "deep-research", Dir: a.Dir, Tasks: 2,
			Quartiles: [4]analysis.Stratum{st(2, 1), st(2, 1), st(1, 0), st(2, 2)},
			// The unindexed report and the untitled entry, and the short
			// survey's three references.
			Unranked: st(5, 1), All: st(12, 5), UnknownBibIDs: 1, MissingTasks: []string{"2109.99999"},
		},
		{System: "base-model", Dir: b.Dir, Tasks: 1, Unranked: st(3, 2), All: st(3, 2)},
	}
	if diff := cmp.Diff(want, imp.Systems); diff != "" {
		t.Errorf("systems (-want +got):\n%s", diff)
	}

	// The pooled strata add up to the overall recall of the pooled tasks.
	for _, s := range imp.Systems {
		refs, hits := s.Unranked.Refs, s.Unranked.Hits
		for _, q := range s.Quartiles {
			refs += q.Refs
			hits += q.Hits
		}
		if refs != s.All.Refs || hits != s.All.Hits {
			t.Errorf("%s: strata hold %d refs, %d hits; all %d, %d", s.System, refs, hits, s.All.Refs, s.All.Hits)
		}
	}

	if _, err := analysis.Stratify(nil, nil, nil, analysis.ImportanceOptions{MinCounted: 2}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("min counted 2: %v", err)
	}
}

// TestStratifySharedBibID: the released ground truth reuses a bib_id for
// two different papers; a hit goes to the one whose title was cited.
func TestStratifySharedBibID(t *testing.T) {
	s := analysis.NewSurvey("2306.05817", []claimtrace.Reference{
		{BibID: "ma2023large", Title: "Large Language Models are Not Stable Recommender Systems"},
		{BibID: "ma2023large", Title: "Large Language Model Is Not a Good Few-shot Information Extractor, but a Good Reranker for Hard Samples!"},
		{BibID: "x1", Title: "Filler Paper One"},
		{BibID: "x2", Title: "Filler Paper Two"},
	})
	counts := counted(s, map[string]int{"x1": 1, "x2": 2})
	counts[s.Refs[0].Query.Key()] = analysis.CountEntry{Key: s.Refs[0].Query.Key(), Status: analysis.CountFound, CitedBy: 50, Source: "openalex"}
	counts[s.Refs[1].Query.Key()] = analysis.CountEntry{Key: s.Refs[1].Query.Key(), Status: analysis.CountFound, CitedBy: 500, Source: "openalex"}
	res := report{task: "2306.05817", gt: 4}.result()
	res.Citation.Matched = []score.Matched{{BibID: "ma2023large", Title: "Large language model is not a good few-shot information extractor, but a good reranker for hard samples!", Method: "title"}}
	run := &analysis.Run{Name: "sys", Reports: []*eval.Result{res}}
	imp, err := analysis.Stratify([]*analysis.Survey{s}, counts, []*analysis.Run{run}, analysis.ImportanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := imp.Systems[0].Quartiles
	if q[3].Hits != 1 || q[2].Hits != 0 {
		t.Errorf("quartiles = %+v, want the hit on the most-cited paper (Q4), not its bib_id twin (Q3)", q)
	}
}
