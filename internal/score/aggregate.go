package score

import "sort"

// CitationSummary aggregates citation scores over reports. Macro figures are
// means over reports where the figure is defined; micro figures pool the
// counts of all reports.
//
// Precision is strict (CitationScore); PrecisionVerifiable, the mean of the
// reports' verifiable-only bounds, and MicroPrecisionVerifiable give the
// run's range beside it. ReportsFlagged counts reports with a flag.
type CitationSummary struct {
	Reports                  int      `json:"reports"`
	Precision                *float64 `json:"precision"`
	PrecisionVerifiable      *float64 `json:"precision_verifiable"`
	Recall                   *float64 `json:"recall"`
	F1                       *float64 `json:"f1"`
	MicroPrecision           *float64 `json:"micro_precision"`
	MicroPrecisionVerifiable *float64 `json:"micro_precision_verifiable"`
	MicroRecall              *float64 `json:"micro_recall"`
	MicroF1                  *float64 `json:"micro_f1"`
	CompatPrecision          *float64 `json:"compat_precision"`
	CompatMicroPrecision     *float64 `json:"compat_micro_precision"`
	RefsPerReport            *float64 `json:"refs_per_report"`
	ReportsWithoutRefs       int      `json:"reports_without_refs"`
	ReportsFlagged           int      `json:"reports_flagged"`
	// ReportsNotFetched counts reports some of whose sources were not
	// fetched (the network failed).
	ReportsNotFetched int `json:"reports_not_fetched"`

	Papers        int `json:"papers"`
	Web           int `json:"web"`
	Unresolvable  int `json:"unresolvable"`
	Unverifiable  int `json:"unverifiable"`
	Misattributed int `json:"misattributed"`
	NotFetched    int `json:"not_fetched"`
	PostCutoff    int `json:"post_cutoff"`
	SourceSurvey  int `json:"source_survey"`
	NotInGT       int `json:"not_in_ground_truth"`
	Hits          int `json:"hits"`
	GTHits        int `json:"gt_hits"`
	GTSize        int `json:"gt_size"`
	Dangling      int `json:"dangling"`
}

// CitationAggregator accumulates CitationScores overall and per domain.
type CitationAggregator struct {
	all      citationAcc
	byDomain map[string]*citationAcc
}

type citationAcc struct {
	s                           CitationSummary
	precision, recall, f1, refs Mean
	compat, verifiable          Mean
}

// Add accumulates one report's score under its domain ("" for none).
func (a *CitationAggregator) Add(domain string, s CitationScore) {
	a.all.add(s)
	if domain == "" {
		domain = "Unknown"
	}
	if a.byDomain == nil {
		a.byDomain = map[string]*citationAcc{}
	}
	d := a.byDomain[domain]
	if d == nil {
		d = &citationAcc{}
		a.byDomain[domain] = d
	}
	d.add(s)
}

func (c *citationAcc) add(s CitationScore) {
	c.s.Reports++
	c.precision.Add(s.Precision)
	c.verifiable.Add(s.PrecisionVerifiable)
	c.compat.Add(s.CompatPrecision)
	c.recall.AddValue(s.Recall)
	c.f1.Add(s.F1)
	c.refs.AddValue(float64(s.Refs))
	if s.Precision == nil && s.NotFetched == 0 {
		// Nothing scholarly cited (only web pages, or nothing at all); a
		// report whose sources were not fetched is not one of them.
		c.s.ReportsWithoutRefs++
	}
	if s.Flagged {
		c.s.ReportsFlagged++
	}
	if s.NotFetched > 0 {
		c.s.ReportsNotFetched++
	}
	c.s.Papers += s.Papers
	c.s.Web += s.Web
	c.s.Unresolvable += s.Unresolvable
	c.s.Unverifiable += s.Unverifiable
	c.s.Misattributed += s.Misattributed
	c.s.NotFetched += s.NotFetched
	c.s.PostCutoff += s.PostCutoff
	c.s.SourceSurvey += s.SourceSurvey
	c.s.NotInGT += s.NotInGT
	c.s.Hits += s.Hits
	c.s.GTHits += s.GTHits
	c.s.GTSize += s.GTSize
	c.s.Dangling += s.Dangling
}

func (c *citationAcc) summary() CitationSummary {
	s := c.s
	s.Precision = c.precision.Value()
	s.Recall = c.recall.Value()
	s.F1 = c.f1.Value()
	s.PrecisionVerifiable = c.verifiable.Value()
	s.CompatPrecision = c.compat.Value()
	s.RefsPerReport = c.refs.Value()
	s.MicroPrecision = Ratio(float64(s.Hits), float64(s.Papers+s.Unresolvable+s.Unverifiable))
	s.MicroPrecisionVerifiable = Ratio(float64(s.Hits), float64(s.Papers+s.Unresolvable))
	s.CompatMicroPrecision = Ratio(float64(s.Hits), float64(s.Papers))
	s.MicroRecall = Ratio(float64(s.GTHits), float64(s.GTSize))
	if s.MicroPrecision != nil && s.MicroRecall != nil {
		p, r := *s.MicroPrecision, *s.MicroRecall
		f := 0.0
		if p+r > 0 {
			f = 2 * p * r / (p + r)
		}
		s.MicroF1 = &f
	}
	return s
}

// Summary returns the overall aggregate.
func (a *CitationAggregator) Summary() CitationSummary { return a.all.summary() }

// ByDomain returns the aggregate of each domain.
func (a *CitationAggregator) ByDomain() map[string]CitationSummary {
	out := make(map[string]CitationSummary, len(a.byDomain))
	for k, v := range a.byDomain {
		out[k] = v.summary()
	}
	return out
}

// Domains returns the domain names in order.
func (a *CitationAggregator) Domains() []string {
	out := make([]string, 0, len(a.byDomain))
	for k := range a.byDomain {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
