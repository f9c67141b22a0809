package eval

import (
	"context"
	"iter"
	"sort"
	"time"

	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Summary is OUT/summary.json. Its keys are a contract (docs/design.md); more may
// be added, none renamed.
type Summary struct {
	Run           string    `json:"run"`
	Version       string    `json:"version"`
	Mode          string    `json:"mode"`
	GeneratedAt   time.Time `json:"generated_at"`
	Reports       int       `json:"reports"`
	ReportsFailed int       `json:"reports_failed"`
	Failures      []Failure `json:"failures"`
	// Ignored names the files of the reports folder that are no report
	// (not .json, .md, .txt, .pdf or .docx), so a run that scored nothing
	// can say what it found.
	Ignored []string `json:"ignored_files,omitempty"`

	Citation CitationSection `json:"citation"`
	Cited    CitedSection    `json:"cited"`
	NonCited NonCitedSection `json:"non_cited"`
	AAR      AARSection      `json:"aar"`
	LLM      LLMSection      `json:"llm"`
	// Review is how far the human review of the run's sample is (null
	// before one is drawn): see ReviewedFigures.
	Review *ReviewSection `json:"review,omitempty"`

	// Scores holds each scored report's headline figures, for leaderboards.
	Scores []ReportLine `json:"scores"`
}

// CitationSection is the citation-quality aggregate with its per-domain split.
type CitationSection struct {
	score.CitationSummary
	ByDomain map[string]score.CitationSummary `json:"by_domain"`
}

// CitedSection aggregates cited-statement verification.
type CitedSection struct {
	MatchRate           *float64 `json:"match_rate"`
	MicroMatchRate      *float64 `json:"micro_match_rate"`
	StatementsPerReport *float64 `json:"statements_per_report"`
	PairsPerReport      *float64 `json:"pairs_per_report"`
	PartialWeight       float64  `json:"partial_weight,omitempty"`
	Pairs               int      `json:"pairs"`
	Judged              int      `json:"judged"`
	Unknown             int      `json:"unknown"`
	Judge               string   `json:"judge,omitempty"`
	// MatchRatePPI is the match rate with the judge's error inside it
	// (ReviewedFigures).
	MatchRatePPI *ReviewedFigure `json:"match_rate_ppi,omitempty"`
}

// NonCitedSection aggregates the fact-checking of non-cited statements.
type NonCitedSection struct {
	FactualAccuracy      *float64 `json:"factual_accuracy"`
	MicroFactualAccuracy *float64 `json:"micro_factual_accuracy"`
	StatementsPerReport  *float64 `json:"statements_per_report"`
	Decided              int      `json:"decided"`
	Undecided            int      `json:"undecided"`
	// ReportsFailed counts reports whose non-cited stage failed (their
	// classifier or extraction): they are left out of the means above.
	ReportsFailed int `json:"reports_failed"`
	// FactualAccuracyPPI is the factual accuracy with the fact-checkers'
	// error inside it (ReviewedFigures).
	FactualAccuracyPPI *ReviewedFigure `json:"factual_accuracy_ppi,omitempty"`
}

// AARSection aggregates provenance metrics (macro means over reports).
type AARSection struct {
	Tau       float64  `json:"tau"`
	PCov      *float64 `json:"pcov"`
	MicroPCov *float64 `json:"micro_pcov"`
	PSnd      *float64 `json:"psnd"`
	MicroPSnd *float64 `json:"micro_psnd"`
	// CTran is the mean over reports where sources contradict each other;
	// null when no report has a contradiction.
	CTran                *float64 `json:"ctran"`
	ReportsWithConflicts int      `json:"reports_with_conflicts"`
	// Conflicts are the conflicts between sources found over all reports,
	// SurfacedConflicts those the reports disclose: CTran's counts, so
	// that one conflict (0/1) is not read as a rate. (A report's own aar
	// has them under counts; its aar.conflicts is the list.)
	Conflicts         int      `json:"conflicts_found"`
	SurfacedConflicts int      `json:"conflicts_disclosed"`
	AEffProxy         *float64 `json:"aeff_proxy"`
	// PSndUnverifiable is the mean share of citation pairs without a
	// strength (their source could not be read, or no verdict was given):
	// PSnd counts them unsound, the match rate leaves them out.
	PSndUnverifiable      *float64 `json:"psnd_unverifiable"`
	MicroPSndUnverifiable *float64 `json:"micro_psnd_unverifiable"`
	UnverifiablePairs     int      `json:"unverifiable_pairs"`
	// PSndPPI is PSnd with the judge's error inside it, over the (claim,
	// source) pairs of the verdicts (ReviewedFigures).
	PSndPPI *ReviewedFigure `json:"psnd_ppi,omitempty"`
}

// LLMSection totals the run's model calls.
type LLMSection struct {
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CacheHits    int64   `json:"cache_hits"`
	Failed       int64   `json:"failed"`
	CostUSD      float64 `json:"cost_usd"`
	// Error says why the totals could not be read from the store (they
	// are then zero, not "no calls").
	Error string `json:"error,omitempty"`
}

// LLMTotals reads the model calls of run from st; when they cannot be
// read, the section says why instead of showing zeros.
func LLMTotals(ctx context.Context, st *store.Store, run string) LLMSection {
	t, err := st.LLMTotals(ctx, run)
	if err != nil {
		return LLMSection{Error: err.Error()}
	}
	return LLMSection{Calls: t.Calls, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, CacheHits: t.CacheHits, Failed: t.Failed, CostUSD: t.Cost}
}

// ReportLine is one report's headline figures. Precision is strict;
// PrecisionVerifiable the optimistic bound beside it; Flags say why the
// report's precision deserves a look (score.CitationScore.Flags).
type ReportLine struct {
	Task                string   `json:"task_id"`
	Domain              string   `json:"domain"`
	Precision           *float64 `json:"precision"`
	PrecisionVerifiable *float64 `json:"precision_verifiable"`
	Flags               []string `json:"flags,omitempty"`
	Recall              float64  `json:"recall"`
	Refs                int      `json:"refs"`
	Claims              int      `json:"claims"`
	MatchRate           *float64 `json:"match_rate"`
	PCov                *float64 `json:"pcov"`
	PSnd                *float64 `json:"psnd"`
}

// summarize aggregates the run's results into its Summary: failures,
// citation quality overall and by domain, cited-statement verification,
// non-cited fact-checking and AAR metrics as macro means over the reports
// that were evaluated, with micro ratios over their pooled counts, each
// report's headline figures and the run's model calls. The sums the
// summary shows (pairs judged, claims decided) are the denominators of the
// micro ratios. Results come one at a time, in task order, so a run reads
// them back from its output one by one instead of holding them all.
func (e *Evaluator) summarize(ctx context.Context, results iter.Seq[*Result], fails []Failure) *Summary {
	s := &Summary{Run: e.run, Version: Version, Mode: e.opts.Mode, GeneratedAt: e.opts.Now(), Failures: fails, Scores: []ReportLine{}}
	var agg score.CitationAggregator
	var pcov, psnd, psndUnverifiable, ctran, aeff, citedClaims, pairs, match, nonCited, accuracy score.Mean
	var claims, complete, cpairs, sound, unverifiable int
	var supported, partial, correct int
	review, section := e.startReview(ctx)
	for r := range results {
		if r == nil {
			continue
		}
		review.add(r)
		if r.Status != store.StatusDone {
			s.Failures = append(s.Failures, Failure{Task: r.Task, File: r.File, Err: r.Error})
			continue
		}
		s.Reports++
		agg.Add(r.Domain, *r.Citation)
		citedClaims.AddValue(float64(r.Stats.CitedClaims))
		line := ReportLine{Task: r.Task, Domain: r.Domain, Precision: r.Citation.Precision, PrecisionVerifiable: r.Citation.PrecisionVerifiable,
			Flags: r.Citation.Flags, Recall: r.Citation.Recall, Refs: r.Citation.Refs, Claims: r.Stats.Claims}
		if a := r.AAR; a != nil {
			pcov.Add(a.PCov)
			psnd.Add(a.PSnd)
			psndUnverifiable.Add(a.PSndUnverifiable)
			ctran.Add(a.CTran)
			aeff.Add(a.AEffProxy)
			claims += a.Claims
			complete += a.Counts.CompleteClaims
			cpairs += a.Counts.CitationPairs
			sound += a.Counts.SoundPairs
			unverifiable += a.Counts.UnverifiablePairs
			s.AAR.Conflicts += a.Counts.Conflicts
			s.AAR.SurfacedConflicts += a.Counts.SurfacedConflicts
			line.PCov, line.PSnd = a.PCov, a.PSnd
		}
		if c := r.Cited; c != nil {
			pairs.AddValue(float64(c.Pairs))
			match.Add(c.MatchRate)
			s.Cited.Pairs += c.Pairs
			s.Cited.Judged += c.Judged
			s.Cited.Unknown += c.Unknown
			supported += c.Supported
			partial += c.Partial
			line.MatchRate = c.MatchRate
		}
		if n := r.NonCited; n != nil && n.Error != "" {
			s.NonCited.ReportsFailed++
		} else if n != nil {
			nonCited.AddValue(float64(n.CheckWorthy))
			accuracy.Add(n.Accuracy)
			s.NonCited.Decided += n.True + n.False
			s.NonCited.Undecided += n.Undecided
			correct += n.True
		}
		s.Scores = append(s.Scores, line)
	}
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Task < s.Failures[j].Task })
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
	s.ReportsFailed = len(s.Failures)
	s.Citation = CitationSection{CitationSummary: agg.Summary(), ByDomain: agg.ByDomain()}
	s.Cited.StatementsPerReport = citedClaims.Value()
	s.Cited.PairsPerReport = pairs.Value()
	s.Cited.Judge = e.opts.JudgeName
	if e.opts.Judge != nil {
		s.Cited.MatchRate = match.Value()
		s.Cited.MicroMatchRate = score.Ratio(float64(supported)+e.opts.PartialWeight*float64(partial), float64(s.Cited.Judged))
		s.Cited.PartialWeight = e.opts.PartialWeight
	}
	if e.opts.CheckWorthy != nil {
		s.NonCited.StatementsPerReport = nonCited.Value()
		s.NonCited.FactualAccuracy = accuracy.Value()
		s.NonCited.MicroFactualAccuracy = score.Ratio(float64(correct), float64(s.NonCited.Decided))
	}
	conflicts, surfaced := s.AAR.Conflicts, s.AAR.SurfacedConflicts
	s.AAR = AARSection{Tau: e.opts.Tau, PCov: pcov.Value(), PSnd: psnd.Value(), CTran: ctran.Value(), AEffProxy: aeff.Value(),
		Conflicts: conflicts, SurfacedConflicts: surfaced,
		MicroPCov: score.Ratio(float64(complete), float64(claims)), MicroPSnd: score.Ratio(float64(sound), float64(cpairs)),
		ReportsWithConflicts: ctran.N(), PSndUnverifiable: psndUnverifiable.Value(),
		MicroPSndUnverifiable: score.Ratio(float64(unverifiable), float64(cpairs)), UnverifiablePairs: unverifiable}
	e.finishReview(review, section, s)
	s.LLM = LLMTotals(ctx, e.opts.Store, e.run)
	return s
}
