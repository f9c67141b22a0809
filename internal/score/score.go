package score

import (
	"math"
	"sort"
)

// Reasons a cited work does not count as a ground-truth hit.
const (
	ReasonPostCutoff   = "post_cutoff"
	ReasonSourceSurvey = "source_survey"
	ReasonUnresolvable = "unresolvable"
	// ReasonUnverifiable is a live page that could not be read and gave no
	// identity (docs/scoring.md): out of strict precision, counted apart.
	ReasonUnverifiable = "unverifiable"
	ReasonNotAPaper    = "not_a_paper"
	ReasonNotInGT      = "not_in_ground_truth"
)

// Matched is a cited work found in the ground truth.
type Matched struct {
	BibID  string   `json:"bib_id"`
	URL    string   `json:"url"`
	URLs   []string `json:"urls,omitempty"`
	Key    string   `json:"key"`
	Title  string   `json:"title,omitempty"`
	Method string   `json:"method"`
	Score  float64  `json:"score,omitempty"`
}

// Unmatched is a cited work that is not a ground-truth hit, with the reason.
type Unmatched struct {
	URL    string   `json:"url"`
	URLs   []string `json:"urls,omitempty"`
	Key    string   `json:"key"`
	Title  string   `json:"title,omitempty"`
	Reason string   `json:"reason"`
	Detail string   `json:"detail,omitempty"`
}

// CitationScore is the citation-quality result of one report.
//
// Precision follows the paper: matched / (scholarly works + unresolvable
// citations), so dead or fabricated links count against the report. A live
// page that could not be read (unverifiable) is neither: it stays out of
// the denominator, like a web page, and is counted in Unverifiable so a run
// full of walls shows. CompatPrecision follows the released code, which
// silently drops dead links too: matched / scholarly works. Precision is nil for a report without a single
// reference (it is excluded from the mean and counted); recall is then 0.
type CitationScore struct {
	Matched   []Matched   `json:"matched"`
	Unmatched []Unmatched `json:"unmatched"`

	Papers       int `json:"papers"`       // distinct scholarly works (P/R denominator part)
	Web          int `json:"web"`          // distinct web (non-scholarly) citations
	Unresolvable int `json:"unresolvable"` // distinct dead or fabricated citations
	Unverifiable int `json:"unverifiable"` // distinct live citations that could not be read, without identity
	PostCutoff   int `json:"post_cutoff"`
	SourceSurvey int `json:"source_survey"`
	NotInGT      int `json:"not_in_ground_truth"`
	Hits         int `json:"hits"`     // matched works
	GTHits       int `json:"gt_hits"`  // distinct ground-truth references matched
	GTSize       int `json:"gt_size"`  // distinct ground-truth references
	Refs         int `json:"refs"`     // distinct resolved scholarly references (Avg Refs)
	Dangling     int `json:"dangling"` // citation markers that point nowhere

	Precision       *float64 `json:"precision"`
	CompatPrecision *float64 `json:"compat_precision"`
	Recall          float64  `json:"recall"`
	F1              *float64 `json:"f1"`
}

// Finish computes the ratios from the counts.
func (s *CitationScore) Finish() {
	s.Precision, s.CompatPrecision, s.F1 = nil, nil, nil
	if d := s.Papers + s.Unresolvable; d > 0 {
		p := float64(s.Hits) / float64(d)
		s.Precision = &p
	}
	if s.Papers > 0 {
		p := float64(s.Hits) / float64(s.Papers)
		s.CompatPrecision = &p
	}
	s.Recall = 0
	if s.GTSize > 0 {
		s.Recall = float64(s.GTHits) / float64(s.GTSize)
	}
	if s.Precision != nil {
		f := 0.0
		if *s.Precision+s.Recall > 0 {
			f = 2 * *s.Precision * s.Recall / (*s.Precision + s.Recall)
		}
		s.F1 = &f
	}
	sort.Slice(s.Matched, func(i, j int) bool { return s.Matched[i].Key < s.Matched[j].Key })
	sort.Slice(s.Unmatched, func(i, j int) bool { return s.Unmatched[i].Key < s.Unmatched[j].Key })
}

// Mean is a macro average that skips undefined values and says how many it skipped.
type Mean struct {
	sum  float64
	n    int
	null int
}

// Add adds a value; nil counts as undefined.
func (m *Mean) Add(v *float64) {
	if v == nil || math.IsNaN(*v) {
		m.null++
		return
	}
	m.sum += *v
	m.n++
}

// AddValue adds a defined value.
func (m *Mean) AddValue(v float64) { m.Add(&v) }

// Value is the mean, nil when no value was defined.
func (m Mean) Value() *float64 {
	if m.n == 0 {
		return nil
	}
	v := m.sum / float64(m.n)
	return &v
}

// N is the number of defined values; Null the number skipped.
func (m Mean) N() int    { return m.n }
func (m Mean) Null() int { return m.null }

// Ratio returns num/den, nil when den is zero.
func Ratio(num, den float64) *float64 {
	if den == 0 {
		return nil
	}
	v := num / den
	return &v
}
