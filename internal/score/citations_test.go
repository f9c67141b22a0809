package score

import (
	"math"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

// keyMatcher matches works by key against a fixed table.
type keyMatcher struct {
	refs     map[string]GTMatch
	distinct int
}

func (m keyMatcher) Match(w claimtrace.Work) (GTMatch, bool) {
	r, ok := m.refs[w.Key]
	return r, ok
}
func (m keyMatcher) Distinct() int { return m.distinct }

func TestScoreCitations(t *testing.T) {
	cutoff := time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)
	m := keyMatcher{distinct: 10, refs: map[string]GTMatch{
		"arxiv:2005.11401":                    {Ref: 0, BibID: "lewis2020", Method: "arxiv_id"},
		"doi:10.18653/v1/2020.emnlp-main.550": {Ref: 2, BibID: "dpr", Method: "doi"},
		"arxiv:2004.04906":                    {Ref: 2, BibID: "dpr", Method: "arxiv_id"}, // preprint of the same paper
	}}
	works := []claimtrace.Work{
		{Key: "arxiv:2005.11401", Kind: claimtrace.WorkPaper, URLs: []string{"https://arxiv.org/abs/2005.11401"}},
		{Key: "doi:10.18653/v1/2020.emnlp-main.550", Kind: claimtrace.WorkPaper, URLs: []string{"https://doi.org/10.18653/v1/2020.emnlp-main.550"}},
		{Key: "arxiv:2004.04906", Kind: claimtrace.WorkPaper, URLs: []string{"https://arxiv.org/pdf/2004.04906"}},
		{Key: "arxiv:2401.00001", Kind: claimtrace.WorkPaper, URLs: []string{"https://arxiv.org/abs/2401.00001"}},
		{Key: "url:https://made-up.example/paper", Kind: claimtrace.WorkUnknown, Status: "http 404", URLs: []string{"https://made-up.example/paper"}},
		{Key: "url:https://blog.example/rag", Kind: claimtrace.WorkWeb, URLs: []string{"https://blog.example/rag"}},
		{Key: "arxiv:2405.00009", Kind: claimtrace.WorkPaper, Published: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), URLs: []string{"https://arxiv.org/abs/2405.00009"}},
		{Key: "arxiv:2301.00005", Kind: claimtrace.WorkPaper, Published: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), URLs: []string{"https://arxiv.org/abs/2301.00005"}},
	}
	s := ScoreCitations(CitationInput{
		Works: works, Matcher: m, Cutoff: cutoff, Dangling: 2,
		IsSurvey: func(w claimtrace.Work) bool { return w.Key == "arxiv:2401.00001" },
	})
	// Papers: lewis, dpr (one work for two URLs), survey, post-cutoff, not-in-GT = 5.
	want := CitationScore{Papers: 5, Web: 1, Unresolvable: 1, PostCutoff: 1, SourceSurvey: 1, NotInGT: 1, Hits: 2, GTHits: 2, GTSize: 10, Refs: 5, Dangling: 2}
	got := s
	got.Matched, got.Unmatched, got.Precision, got.CompatPrecision, got.F1 = nil, nil, nil, nil, nil
	got.Recall = 0
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	approx := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	approx("precision", s.Precision, 2.0/6.0) // the fabricated link counts against the report
	approx("compat_precision", s.CompatPrecision, 2.0/5.0)
	if math.Abs(s.Recall-0.2) > 1e-12 {
		t.Errorf("recall = %v, want 0.2", s.Recall)
	}
	approx("f1", s.F1, 2*(2.0/6)*0.2/((2.0/6)+0.2))
	reasons := map[string]string{}
	for _, u := range s.Unmatched {
		reasons[u.Key] = u.Reason
	}
	wantReasons := map[string]string{
		"arxiv:2401.00001":                  ReasonSourceSurvey,
		"url:https://made-up.example/paper": ReasonUnresolvable,
		"url:https://blog.example/rag":      ReasonNotAPaper,
		"arxiv:2405.00009":                  ReasonPostCutoff,
		"arxiv:2301.00005":                  ReasonNotInGT,
	}
	if diff := cmp.Diff(wantReasons, reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	if len(s.Matched) != 2 {
		t.Fatalf("matched = %+v", s.Matched)
	}
	for _, mt := range s.Matched {
		if mt.BibID == "dpr" && len(mt.URLs) != 2 {
			t.Errorf("dpr urls = %v, want both the DOI and the arXiv URL", mt.URLs)
		}
	}
}

func TestScoreCitationsNoReferences(t *testing.T) {
	s := ScoreCitations(CitationInput{Matcher: keyMatcher{distinct: 7}})
	if s.Precision != nil || s.F1 != nil || s.Recall != 0 || s.GTSize != 7 {
		t.Errorf("score = %+v, want nil precision, recall 0", s)
	}
	var a CitationAggregator
	a.Add("X", s)
	one := 1.0
	a.Add("X", CitationScore{Precision: &one, CompatPrecision: &one, Recall: 0.5, F1: ptr(2.0 / 3), Hits: 1, Papers: 1, GTHits: 1, GTSize: 2, Refs: 1})
	sum := a.Summary()
	if sum.Reports != 2 || sum.ReportsWithoutRefs != 1 || *sum.Precision != 1 || *sum.Recall != 0.25 {
		t.Errorf("summary = %+v: the report without references must be excluded from precision only", sum)
	}
	if *sum.MicroRecall != 1.0/9 || *sum.MicroPrecision != 1 {
		t.Errorf("micro = %v %v", *sum.MicroRecall, *sum.MicroPrecision)
	}
}

func ptr(f float64) *float64 { return &f }

// TestScoreCitationsUnverifiable: a live page that could not be read is
// neither a hit nor a fabrication: out of precision's denominator, counted
// apart, summed by the aggregator.
func TestScoreCitationsUnverifiable(t *testing.T) {
	m := keyMatcher{distinct: 2, refs: map[string]GTMatch{"arxiv:2005.11401": {Ref: 0, BibID: "lewis2020", Method: "arxiv_id"}}}
	s := ScoreCitations(CitationInput{Matcher: m, Works: []claimtrace.Work{
		{Key: "arxiv:2005.11401", Kind: claimtrace.WorkPaper},
		{Key: "url:https://www.sciencedirect.com/x", Kind: claimtrace.WorkUnverifiable, Status: "bot_wall"},
		{Key: "url:https://dead.example/x", Kind: claimtrace.WorkUnknown, Status: "http 404"},
	}})
	if s.Unverifiable != 1 || s.Unresolvable != 1 || s.Papers != 1 || *s.Precision != 0.5 || *s.CompatPrecision != 1 {
		t.Errorf("score = %+v, want precision 1/2 (the dead link), the wall apart", s)
	}
	var a CitationAggregator
	a.Add("", s)
	if sum := a.Summary(); sum.Unverifiable != 1 || *sum.MicroPrecision != 0.5 {
		t.Errorf("summary = %+v", sum)
	}
}
