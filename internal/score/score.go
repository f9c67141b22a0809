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
	// ReasonUnverifiable is a live page that could not be read and whose
	// identity nothing established (docs/scoring.md): in strict
	// precision's denominator, out of the verifiable-only bound.
	ReasonUnverifiable = "unverifiable"
	// ReasonMisattributed is a cited work whose resolved title is not the
	// title the report gives it: a real URL for another paper. Not a hit,
	// in both precisions' denominators.
	ReasonMisattributed = "misattributed"
	// ReasonNotFetched is a source the run could not fetch because the
	// network failed, not the link: no verdict on the report, out of both
	// precisions, and fetched again by the next run.
	ReasonNotFetched = "not_fetched"
	ReasonNotAPaper  = "not_a_paper"
	ReasonNotInGT    = "not_in_ground_truth"
)

// Flags raised on a report whose precision the walls it cites could move
// (docs/scoring.md).
const (
	// FlagUnverifiable: more than FlagUnverifiableShare of its cited works
	// are unverifiable.
	FlagUnverifiable = "unverifiable_share"
	// FlagPrecisionRange: its strict and verifiable-only precisions differ
	// by more than FlagPrecisionGap.
	FlagPrecisionRange = "precision_range"
	// FlagNotFetched: some of its sources were not fetched (the network
	// failed); its figures are incomplete until a run fetches them.
	FlagNotFetched = "not_fetched"
)

// The thresholds of the flags above.
const (
	FlagUnverifiableShare = 0.2
	FlagPrecisionGap      = 0.1
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
// Title is the title the work resolved to; StatedTitle, for a misattributed
// work, the one the report gives it.
type Unmatched struct {
	URL         string   `json:"url"`
	URLs        []string `json:"urls,omitempty"`
	Key         string   `json:"key"`
	Title       string   `json:"title,omitempty"`
	StatedTitle string   `json:"stated_title,omitempty"`
	Reason      string   `json:"reason"`
	Detail      string   `json:"detail,omitempty"`
}

// CitationScore is the citation-quality result of one report.
//
// Precision, the strict figure that ranks reports, follows the paper and
// assumes nothing a report could game: matched / (scholarly works +
// unresolvable + unverifiable citations). Every cited work whose identity
// could not be established counts against the report: dead, fabricated,
// or alive behind a wall that hides what it is. A misattributed work (the
// report names one paper, its URL is another) is a scholarly work that is
// not a hit. PrecisionVerifiable is the optimistic bound beside it: the same
// over the citations that could be verified (unverifiable ones left out),
// so each report shows a range. CompatPrecision follows the released code,
// which silently drops dead links too: matched / scholarly works.
// Precision is nil only for a report that cites no scholarly work and no
// link that could be one (it is excluded from the mean and counted);
// recall is then 0. A report whose every citation is unverifiable has
// precision 0. Sources not fetched because the network failed are out of
// every figure, counted, and flag the report.
type CitationScore struct {
	Matched   []Matched   `json:"matched"`
	Unmatched []Unmatched `json:"unmatched"`

	Works         int `json:"works"`         // distinct cited works scored
	Papers        int `json:"papers"`        // distinct scholarly works (P/R denominator part)
	Web           int `json:"web"`           // distinct web (non-scholarly) citations
	Unresolvable  int `json:"unresolvable"`  // distinct dead or fabricated citations
	Unverifiable  int `json:"unverifiable"`  // distinct live citations that could not be read, without identity
	Misattributed int `json:"misattributed"` // distinct works whose title is not the one the report gives (among Papers)
	NotFetched    int `json:"not_fetched"`   // distinct sources not fetched: the network failed
	PostCutoff    int `json:"post_cutoff"`
	SourceSurvey  int `json:"source_survey"`
	NotInGT       int `json:"not_in_ground_truth"`
	Hits          int `json:"hits"`     // matched works
	GTHits        int `json:"gt_hits"`  // distinct ground-truth references matched
	GTSize        int `json:"gt_size"`  // distinct ground-truth references
	Refs          int `json:"refs"`     // distinct resolved scholarly references (Avg Refs)
	Dangling      int `json:"dangling"` // citation markers that point nowhere

	Precision           *float64 `json:"precision"`
	PrecisionVerifiable *float64 `json:"precision_verifiable"`
	CompatPrecision     *float64 `json:"compat_precision"`
	Recall              float64  `json:"recall"`
	F1                  *float64 `json:"f1"`

	// Flags say why the report's precision deserves a look (FlagUnverifiable,
	// FlagPrecisionRange, FlagNotFetched); Flagged is set when there is one.
	Flagged bool     `json:"flagged"`
	Flags   []string `json:"flags,omitempty"`
}

// StrictDenominator is the number of cited works strict precision divides
// by: scholarly works, unresolvable and unverifiable citations.
func (s *CitationScore) StrictDenominator() int { return s.Papers + s.Unresolvable + s.Unverifiable }

// VerifiableDenominator is the number of cited works the verifiable-only
// bound divides by: scholarly works and unresolvable citations.
func (s *CitationScore) VerifiableDenominator() int { return s.Papers + s.Unresolvable }

// Finish computes the ratios and the flags from the counts.
func (s *CitationScore) Finish() {
	s.Precision = Ratio(float64(s.Hits), float64(s.StrictDenominator()))
	s.PrecisionVerifiable = Ratio(float64(s.Hits), float64(s.VerifiableDenominator()))
	s.CompatPrecision = Ratio(float64(s.Hits), float64(s.Papers))
	s.F1 = nil
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
	s.Flags = nil
	if s.Works > 0 && float64(s.Unverifiable) > FlagUnverifiableShare*float64(s.Works) {
		s.Flags = append(s.Flags, FlagUnverifiable)
	}
	if s.Precision != nil && precisionGap(s.Precision, s.PrecisionVerifiable) > FlagPrecisionGap+1e-9 {
		s.Flags = append(s.Flags, FlagPrecisionRange)
	}
	if s.NotFetched > 0 {
		s.Flags = append(s.Flags, FlagNotFetched)
	}
	s.Flagged = len(s.Flags) > 0
	sort.Slice(s.Matched, func(i, j int) bool { return s.Matched[i].Key < s.Matched[j].Key })
	sort.Slice(s.Unmatched, func(i, j int) bool { return s.Unmatched[i].Key < s.Unmatched[j].Key })
}

// precisionGap is how far the verifiable-only bound lies above strict
// precision; a report without a verifiable citation (the bound undefined)
// has the whole range, 1, open.
func precisionGap(strict, verifiable *float64) float64 {
	if verifiable == nil {
		return 1
	}
	return *verifiable - *strict
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
