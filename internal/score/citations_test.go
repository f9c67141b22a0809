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
	want := CitationScore{Works: 7, Papers: 5, Web: 1, Unresolvable: 1, PostCutoff: 1, SourceSurvey: 1, NotInGT: 1, Hits: 2, GTHits: 2, GTSize: 10, Refs: 5, Dangling: 2}
	got := s
	got.Matched, got.Unmatched, got.Precision, got.PrecisionVerifiable, got.CompatPrecision, got.F1 = nil, nil, nil, nil, nil, nil
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
// not a hit and counts in strict precision's denominator; the
// verifiable-only bound leaves it out; the aggregator sums both.
func TestScoreCitationsUnverifiable(t *testing.T) {
	m := keyMatcher{distinct: 2, refs: map[string]GTMatch{"arxiv:2005.11401": {Ref: 0, BibID: "lewis2020", Method: "arxiv_id"}}}
	s := ScoreCitations(CitationInput{Matcher: m, Works: []claimtrace.Work{
		{Key: "arxiv:2005.11401", Kind: claimtrace.WorkPaper},
		{Key: "url:https://www.sciencedirect.com/x", Kind: claimtrace.WorkUnverifiable, Status: "bot_wall"},
		{Key: "url:https://dead.example/x", Kind: claimtrace.WorkUnknown, Status: "http 404"},
	}})
	if s.Unverifiable != 1 || s.Unresolvable != 1 || s.Papers != 1 || *s.Precision != 1.0/3 || *s.PrecisionVerifiable != 0.5 || *s.CompatPrecision != 1 {
		t.Errorf("score = %+v, want strict 1/3 (the dead link and the wall), verifiable 1/2", s)
	}
	var a CitationAggregator
	a.Add("", s)
	if sum := a.Summary(); sum.Unverifiable != 1 || *sum.MicroPrecision != 1.0/3 || *sum.MicroPrecisionVerifiable != 0.5 || *sum.PrecisionVerifiable != 0.5 {
		t.Errorf("summary = %+v", sum)
	}
}

// worksOf builds n works of one kind, keyed apart.
func worksOf(n int, kind claimtrace.WorkKind, prefix string) []claimtrace.Work {
	out := make([]claimtrace.Work, n)
	for i := range out {
		out[i] = claimtrace.Work{Key: "url:https://" + prefix + ".example/p" + string(rune('a'+i)), Kind: kind, Status: "http 403"}
	}
	return out
}

// TestWallsDoNotRaisePrecision is issue 19's first scenario: two
// ground-truth papers cited alone score 1; ten fabricated URLs on walled
// hosts added to them must lower strict precision exactly as ten that
// answer 404 do (2/12), while the verifiable-only bound keeps 1 for the
// walls and the report is flagged.
func TestWallsDoNotRaisePrecision(t *testing.T) {
	m := keyMatcher{distinct: 5, refs: map[string]GTMatch{
		"arxiv:2005.11401": {Ref: 0, BibID: "a", Method: "arxiv_id"},
		"arxiv:2004.04906": {Ref: 1, BibID: "b", Method: "arxiv_id"},
	}}
	two := []claimtrace.Work{{Key: "arxiv:2005.11401", Kind: claimtrace.WorkPaper}, {Key: "arxiv:2004.04906", Kind: claimtrace.WorkPaper}}
	alone := ScoreCitations(CitationInput{Matcher: m, Works: two})
	walls := ScoreCitations(CitationInput{Matcher: m, Works: append(append([]claimtrace.Work{}, two...), worksOf(10, claimtrace.WorkUnverifiable, "walled")...)})
	dead := ScoreCitations(CitationInput{Matcher: m, Works: append(append([]claimtrace.Work{}, two...), worksOf(10, claimtrace.WorkUnknown, "dead")...)})
	if *alone.Precision != 1 || alone.Flagged {
		t.Errorf("two hits alone: precision %v, flags %v; want 1, none", *alone.Precision, alone.Flags)
	}
	if *walls.Precision != 2.0/12 || *dead.Precision != 2.0/12 {
		t.Errorf("strict precision: walls %v, dead links %v; want 2/12 for both", *walls.Precision, *dead.Precision)
	}
	if *walls.PrecisionVerifiable != 1 || *dead.PrecisionVerifiable != 2.0/12 {
		t.Errorf("verifiable-only: walls %v, dead %v; want 1 and 2/12", *walls.PrecisionVerifiable, *dead.PrecisionVerifiable)
	}
	if diff := cmp.Diff([]string{FlagUnverifiable, FlagPrecisionRange}, walls.Flags); diff != "" || !walls.Flagged {
		t.Errorf("walls flags (-want +got):\n%s", diff)
	}
	if dead.Flagged {
		t.Errorf("dead links flagged %v: their precision has no range", dead.Flags)
	}
}

// TestAllUnverifiable: a report citing only walled pages scores 0, not
// null; it stays in the mean, is not a report "without references", and is
// flagged.
func TestAllUnverifiable(t *testing.T) {
	m := keyMatcher{distinct: 3}
	s := ScoreCitations(CitationInput{Matcher: m, Works: worksOf(4, claimtrace.WorkUnverifiable, "shell")})
	if s.Precision == nil || *s.Precision != 0 || s.PrecisionVerifiable != nil || s.F1 == nil || *s.F1 != 0 {
		t.Fatalf("score = %+v: want strict 0, bound undefined, F1 0", s)
	}
	if !s.Flagged {
		t.Errorf("not flagged: %+v", s)
	}
	var a CitationAggregator
	one := 1.0
	a.Add("", s)
	a.Add("", CitationScore{Precision: &one, PrecisionVerifiable: &one, Hits: 1, Papers: 1, Works: 1, GTHits: 1, GTSize: 3})
	sum := a.Summary()
	if *sum.Precision != 0.5 || sum.ReportsWithoutRefs != 0 || sum.ReportsFlagged != 1 || *sum.PrecisionVerifiable != 1 {
		t.Errorf("summary = %+v: the walled report must count 0 in the mean, and be flagged", sum)
	}
}

// TestFlagThresholds: a share of unverifiable works at 20% is not flagged,
// above it is; a gap between the precisions of 0.1 is not, above it is.
func TestFlagThresholds(t *testing.T) {
	m := keyMatcher{distinct: 9, refs: map[string]GTMatch{}}
	hits := func(n int) []claimtrace.Work {
		var ws []claimtrace.Work
		for i := range n {
			k := "arxiv:2101.0000" + string(rune('1'+i))
			m.refs[k] = GTMatch{Ref: i, BibID: k, Method: "arxiv_id"}
			ws = append(ws, claimtrace.Work{Key: k, Kind: claimtrace.WorkPaper})
		}
		return ws
	}
	cat := func(parts ...[]claimtrace.Work) []claimtrace.Work {
		var out []claimtrace.Work
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name  string
		works []claimtrace.Work
		want  []string
	}{
		// 1 hit, 4 papers outside the ground truth, 3 walls, 2 web pages:
		// 30% unverifiable; 1/8 against 1/5, 0.075 apart.
		{"share above", cat(hits(1), worksOf(4, claimtrace.WorkPaper, "paper"), worksOf(3, claimtrace.WorkUnverifiable, "wall"), worksOf(2, claimtrace.WorkWeb, "web")), []string{FlagUnverifiable}},
		// 4 hits and one wall: 20% unverifiable; 0.8 against 1, 0.2 apart.
		{"gap above, share at the bound", cat(hits(4), worksOf(1, claimtrace.WorkUnverifiable, "wall")), []string{FlagPrecisionRange}},
		// 9 hits, 1 wall, 10 web pages: 5%; 0.9 against 1, 0.1 apart.
		{"both at or under", cat(hits(9), worksOf(1, claimtrace.WorkUnverifiable, "wall"), worksOf(10, claimtrace.WorkWeb, "web")), nil},
	}
	for _, tt := range tests {
		s := ScoreCitations(CitationInput{Matcher: m, Works: tt.works})
		if diff := cmp.Diff(tt.want, s.Flags); diff != "" || s.Flagged != (len(tt.want) > 0) {
			t.Errorf("%s: flags (-want +got):\n%s (strict %v, bound %v)", tt.name, diff, deref(s.Precision), deref(s.PrecisionVerifiable))
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestMisattributed: a work whose title is not the one the report gives is
// not a hit even when it is in the ground truth, counts as a paper in both
// precisions and lists both titles.
func TestMisattributed(t *testing.T) {
	m := keyMatcher{distinct: 2, refs: map[string]GTMatch{"doi:10.5555/radar.1": {Ref: 0, BibID: "radar", Method: "doi"}, "arxiv:2005.11401": {Ref: 1, BibID: "rag", Method: "arxiv_id"}}}
	works := []claimtrace.Work{
		{Key: "doi:10.5555/radar.1", Kind: claimtrace.WorkPaper, Title: "Radar Returns Under Rain", URL: "https://journal.example/radar"},
		{Key: "arxiv:2005.11401", Kind: claimtrace.WorkPaper, Title: "Retrieval for Widgets"},
	}
	stated := map[string]string{"doi:10.5555/radar.1": "Deep Radar Hallucination Networks"}
	s := ScoreCitations(CitationInput{Matcher: m, Works: works, Misattributed: func(w claimtrace.Work) (string, bool) {
		t, ok := stated[w.Key]
		return t, ok
	}})
	if s.Hits != 1 || s.GTHits != 1 || s.Misattributed != 1 || s.Papers != 2 || *s.Precision != 0.5 || *s.PrecisionVerifiable != 0.5 {
		t.Errorf("score = %+v: want 1 hit of 2 papers, 1 misattributed", s)
	}
	want := Unmatched{URL: "https://journal.example/radar", Key: "doi:10.5555/radar.1", Title: "Radar Returns Under Rain", StatedTitle: "Deep Radar Hallucination Networks",
		Reason: ReasonMisattributed, Detail: "the report names another title"}
	if len(s.Unmatched) != 1 || !cmp.Equal(want, s.Unmatched[0]) {
		t.Errorf("unmatched = %+v, want %+v", s.Unmatched, want)
	}
	var a CitationAggregator
	a.Add("", s)
	if a.Summary().Misattributed != 1 {
		t.Errorf("summary misattributed = %d, want 1", a.Summary().Misattributed)
	}
}

// TestNotFetched: sources not fetched because the network failed are no
// verdict: out of every denominator, counted, flagged; a report with
// nothing else is not a report "without references".
func TestNotFetched(t *testing.T) {
	m := keyMatcher{distinct: 2, refs: map[string]GTMatch{"arxiv:2005.11401": {Ref: 0, BibID: "rag", Method: "arxiv_id"}}}
	off := []claimtrace.Work{{Key: "url:https://a.example/1", Kind: claimtrace.WorkNotFetched, Status: "no network"}, {Key: "url:https://b.example/2", Kind: claimtrace.WorkNotFetched, Status: "no network"}}
	s := ScoreCitations(CitationInput{Matcher: m, Works: append([]claimtrace.Work{{Key: "arxiv:2005.11401", Kind: claimtrace.WorkPaper}}, off...)})
	if s.NotFetched != 2 || s.Works != 1 || *s.Precision != 1 || s.Unresolvable != 0 || s.Unverifiable != 0 {
		t.Errorf("score = %+v: want 2 not fetched, precision 1 over the one fetched work", s)
	}
	if diff := cmp.Diff([]string{FlagNotFetched}, s.Flags); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	only := ScoreCitations(CitationInput{Matcher: m, Works: off})
	var a CitationAggregator
	a.Add("", only)
	if sum := a.Summary(); only.Precision != nil || sum.ReportsWithoutRefs != 0 || sum.ReportsNotFetched != 1 || sum.NotFetched != 2 {
		t.Errorf("only not fetched: score %+v, summary %+v", only, sum)
	}
}
