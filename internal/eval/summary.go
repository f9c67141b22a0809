package eval

import (
	"context"
	"sort"
	"time"

	"github.com/claimtrace/claimtrace/internal/bench"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Summary is OUT/summary.json. Its keys are a contract (DESIGN.md); more may
// be added, none renamed.
type Summary struct {
	Run           string    `json:"run"`
	Version       string    `json:"version"`
	Mode          string    `json:"mode"`
	GeneratedAt   time.Time `json:"generated_at"`
	Reports       int       `json:"reports"`
	ReportsFailed int       `json:"reports_failed"`
	Failures      []Failure `json:"failures"`

	Citation CitationSection `json:"citation"`
	Cited    CitedSection    `json:"cited"`
	NonCited NonCitedSection `json:"non_cited"`
	AAR      AARSection      `json:"aar"`
	LLM      LLMSection      `json:"llm"`

	// Scores holds each scored report's headline figures, for leaderboards.
	Scores []ReportLine `json:"scores"`
}

// CitationSection is the citation-quality aggregate with its per-domain split.
type CitationSection struct {
	bench.CitationSummary
	ByDomain map[string]bench.CitationSummary `json:"by_domain"`
}

// CitedSection aggregates cited-statement verification.
type CitedSection struct {
	MatchRate           *float64 `json:"match_rate"`
	MicroMatchRate      *float64 `json:"micro_match_rate"`
	StatementsPerReport *float64 `json:"statements_per_report"`
	Pairs               int      `json:"pairs"`
	Judged              int      `json:"judged"`
	Unknown             int      `json:"unknown"`
	Judge               string   `json:"judge,omitempty"`
}

// NonCitedSection aggregates the fact-checking of non-cited statements.
type NonCitedSection struct {
	FactualAccuracy      *float64 `json:"factual_accuracy"`
	MicroFactualAccuracy *float64 `json:"micro_factual_accuracy"`
	StatementsPerReport  *float64 `json:"statements_per_report"`
	Decided              int      `json:"decided"`
	Undecided            int      `json:"undecided"`
}

// AARSection aggregates provenance metrics (macro means over reports).
type AARSection struct {
	PCov      *float64 `json:"pcov"`
	MicroPCov *float64 `json:"micro_pcov"`
	PSnd      *float64 `json:"psnd"`
	CTran     *float64 `json:"ctran"`
	AEffProxy *float64 `json:"aeff_proxy"`
}

// LLMSection totals the run's model calls.
type LLMSection struct {
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CacheHits    int64   `json:"cache_hits"`
	Failed       int64   `json:"failed"`
	CostUSD      float64 `json:"cost_usd"`
}

// ReportLine is one report's headline figures.
type ReportLine struct {
	Task      string   `json:"task_id"`
	Domain    string   `json:"domain"`
	Precision *float64 `json:"precision"`
	Recall    float64  `json:"recall"`
	Refs      int      `json:"refs"`
	Claims    int      `json:"claims"`
	PCov      *float64 `json:"pcov"`
}

func (e *Evaluator) summarize(ctx context.Context, results []*Result, fails []Failure) *Summary {
	s := &Summary{Run: e.run, Version: Version, Mode: e.opts.Mode, GeneratedAt: e.opts.Now(), Failures: fails, Scores: []ReportLine{}}
	var agg bench.CitationAggregator
	var pcov, cited bench.Mean
	claims, complete := 0, 0
	for _, r := range results {
		if r == nil {
			continue
		}
		if r.Status != store.StatusDone {
			s.Failures = append(s.Failures, Failure{Task: r.Task, File: r.File, Err: r.Error})
			continue
		}
		s.Reports++
		agg.Add(r.Domain, *r.Citation)
		pcov.Add(r.AAR.PCov)
		claims += r.AAR.Claims
		complete += r.AAR.Complete
		cited.AddValue(float64(r.Stats.CitedClaims))
		s.Scores = append(s.Scores, ReportLine{Task: r.Task, Domain: r.Domain, Precision: r.Citation.Precision,
			Recall: r.Citation.Recall, Refs: r.Citation.Refs, Claims: r.Stats.Claims, PCov: r.AAR.PCov})
	}
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Task < s.Failures[j].Task })
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
	s.ReportsFailed = len(s.Failures)
	s.Citation = CitationSection{CitationSummary: agg.Summary(), ByDomain: agg.ByDomain()}
	s.Cited.StatementsPerReport = cited.Value()
	s.AAR.PCov = pcov.Value()
	s.AAR.MicroPCov = bench.Ratio(float64(complete), float64(claims))
	if t, err := e.opts.Store.LLMTotals(ctx, e.run); err == nil {
		s.LLM = LLMSection{Calls: t.Calls, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, CacheHits: t.CacheHits, Failed: t.Failed, CostUSD: t.Cost}
	}
	return s
}
