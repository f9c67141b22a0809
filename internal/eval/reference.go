package eval

import "math"

// ReferenceCalls estimates the LLM calls the released ReportBench code
// would make for the same reports (REFERENCE.md A2), an upper bound:
// 2B + 2C + U + 6N, with B blocks of 16 KiB of report text (cited and
// non-cited extraction, one call each), C (claim, URL) pairs (match and
// verify), U unique URLs (paper classification) and N check-worthy
// non-cited claims (six web fact-check calls each).
type ReferenceCalls struct {
	Calls    int `json:"calls"`
	Blocks   int `json:"blocks"`
	Pairs    int `json:"pairs"`
	URLs     int `json:"urls"`
	NonCited int `json:"non_cited"`
}

// ReferenceEstimate counts ReferenceCalls over results; nil results (reports
// that failed to load) count nothing.
func ReferenceEstimate(results []*Result) ReferenceCalls {
	var rc ReferenceCalls
	for _, r := range results {
		if r == nil {
			continue
		}
		rc.Blocks += int(math.Ceil(float64(r.Stats.Bytes) / 16384))
		rc.URLs += r.Stats.DistinctURLs
		for _, c := range r.Claims {
			rc.Pairs += len(c.Citations)
		}
		if r.NonCited != nil {
			rc.NonCited += r.NonCited.CheckWorthy
		}
	}
	rc.Calls = 2*rc.Blocks + 2*rc.Pairs + rc.URLs + 6*rc.NonCited
	return rc
}
