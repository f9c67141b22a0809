package analysis

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
)

// LeaderRow is one system on the leaderboard: the headline figures of an
// evaluation's summary.json, the system named by its output directory.
// Precision is strict and ranks; Verifiable, the optimistic bound over
// verifiable citations, shows the range beside it; Flagged counts the
// reports whose precision walls could move.
type LeaderRow struct {
	System     string   `json:"system"`
	Dir        string   `json:"dir"`
	Reports    int      `json:"reports"`
	Failed     int      `json:"failed"`
	Precision  *float64 `json:"precision"`
	Verifiable *float64 `json:"precision_verifiable"`
	Flagged    int      `json:"reports_flagged"`
	Compat     *float64 `json:"compat_precision"`
	Recall     *float64 `json:"recall"`
	F1         *float64 `json:"f1"`
	Refs       *float64 `json:"refs_per_report"`
	MatchRate  *float64 `json:"match_rate"`
	CitedPer   *float64 `json:"cited_statements_per_report"`
	Factual    *float64 `json:"factual_accuracy"`
	NonCited   *float64 `json:"non_cited_statements_per_report"`
	PCov       *float64 `json:"pcov"`
	PSnd       *float64 `json:"psnd"`
	CTran      *float64 `json:"ctran"`
	// Conflicts and SurfacedConflicts are CTran's counts over the run.
	Conflicts         int     `json:"conflicts_found"`
	SurfacedConflicts int     `json:"conflicts_disclosed"`
	Cost              float64 `json:"llm_cost_usd"`
	Judge             string  `json:"judge"`
	Mode              string  `json:"mode"`
	// CI holds the bootstrap intervals of the macro metrics, when asked.
	CI []Interval `json:"ci,omitempty"`
	// MatchRatePPI, FactualPPI and PSndPPI are the summary's figures with
	// the judge's error inside them (eval.ReviewedFigures): estimates and
	// 95% intervals once the run's review sample has reviews.
	MatchRatePPI *eval.ReviewedFigure `json:"match_rate_ppi,omitempty"`
	FactualPPI   *eval.ReviewedFigure `json:"factual_accuracy_ppi,omitempty"`
	PSndPPI      *eval.ReviewedFigure `json:"psnd_ppi,omitempty"`
	// Rank is the places the row can take on the metric it is sorted by
	// (RankRange), set by Leaderboard.
	Rank *RankRange `json:"rank,omitempty"`
}

// NewLeaderRow is the row of the evaluation output directory dir whose
// summary is s.
func NewLeaderRow(dir string, s *eval.Summary) LeaderRow {
	c := s.Citation
	return LeaderRow{
		System: filepath.Base(filepath.Clean(dir)), Dir: dir, Reports: s.Reports, Failed: s.ReportsFailed,
		Precision: c.Precision, Verifiable: c.PrecisionVerifiable, Flagged: c.ReportsFlagged, Compat: c.CompatPrecision, Recall: c.Recall, F1: c.F1, Refs: c.RefsPerReport,
		MatchRate: s.Cited.MatchRate, CitedPer: s.Cited.StatementsPerReport,
		Factual: s.NonCited.FactualAccuracy, NonCited: s.NonCited.StatementsPerReport,
		PCov: s.AAR.PCov, PSnd: s.AAR.PSnd, CTran: s.AAR.CTran, Conflicts: s.AAR.Conflicts, SurfacedConflicts: s.AAR.SurfacedConflicts, Cost: s.LLM.CostUSD, Judge: s.Cited.Judge, Mode: s.Mode,
		MatchRatePPI: s.Cited.MatchRatePPI, FactualPPI: s.NonCited.FactualAccuracyPPI, PSndPPI: s.AAR.PSndPPI,
	}
}

// leaderKeys are the metrics a leaderboard sorts by.
var leaderKeys = map[string]func(r LeaderRow) *float64{
	"precision":  func(r LeaderRow) *float64 { return r.Precision },
	"verifiable": func(r LeaderRow) *float64 { return r.Verifiable },
	"recall":     func(r LeaderRow) *float64 { return r.Recall },
	"f1":         func(r LeaderRow) *float64 { return r.F1 },
	"match":      func(r LeaderRow) *float64 { return r.MatchRate },
	"factual":    func(r LeaderRow) *float64 { return r.Factual },
	"pcov":       func(r LeaderRow) *float64 { return r.PCov },
	"psnd":       func(r LeaderRow) *float64 { return r.PSnd },
}

// LeaderKeys returns the names a leaderboard sorts by, sorted.
func LeaderKeys() []string {
	names := make([]string, 0, len(leaderKeys))
	for k := range leaderKeys {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// SortLeaderRows orders rows by the metric named by, highest first; rows
// without it come last, and ties keep their order. A metric the judge
// feeds is sorted by its prediction-powered estimate where the run's
// sample was reviewed (leaderValue), and each row's Rank says which
// places its interval allows.
func SortLeaderRows(rows []LeaderRow, by string) error {
	if _, ok := leaderKeys[by]; !ok {
		return fmt.Errorf("leaderboard: sort by %q: want one of %s: %w", by, strings.Join(LeaderKeys(), ", "), claimtrace.ErrInvalid)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		x, _, _, okx := leaderValue(rows[i], by)
		y, _, _, oky := leaderValue(rows[j], by)
		switch {
		case !okx:
			return false
		case !oky:
			return true
		}
		return x > y
	})
	rankRows(rows, by)
	return nil
}

// LeaderboardOptions configure Leaderboard.
type LeaderboardOptions struct {
	// By names the metric rows are sorted by (LeaderKeys).
	By string
	// Summary reads an evaluation output directory's summary.
	Summary func(dir string) (*eval.Summary, error)
	// CI adds bootstrap intervals of the macro metrics (Metrics) over the
	// reports of each run, read by LoadRun (default: LoadRun).
	CI        bool
	LoadRun   func(dir string) (*Run, error)
	Bootstrap BootstrapOptions
}

// Leaderboard builds one row per evaluation output directory, sorted by
// opt.By. Errors from opt.Summary and opt.LoadRun are returned as they
// are, so the caller says which input was wrong.
func Leaderboard(dirs []string, opt LeaderboardOptions) ([]LeaderRow, error) {
	if _, ok := leaderKeys[opt.By]; !ok {
		return nil, SortLeaderRows(nil, opt.By)
	}
	if opt.Summary == nil {
		return nil, fmt.Errorf("leaderboard: no summary reader: %w", claimtrace.ErrInvalid)
	}
	load := opt.LoadRun
	if load == nil {
		load = LoadRun
	}
	var rows []LeaderRow
	for _, dir := range dirs {
		s, err := opt.Summary(dir)
		if err != nil {
			return nil, err
		}
		r := NewLeaderRow(dir, s)
		if opt.CI {
			run, err := load(dir)
			if err != nil {
				return nil, err
			}
			if r.CI, err = Intervals(run.Reports, Metrics(), opt.Bootstrap); err != nil {
				return nil, err
			}
		}
		rows = append(rows, r)
	}
	return rows, SortLeaderRows(rows, opt.By)
}
