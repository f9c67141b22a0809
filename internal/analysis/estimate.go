package analysis

import (
	"context"
	"path/filepath"

	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/llm"
)

// QualityEstimate is what scoring one system's reports on the rubric
// would take: the calls a run would send and their tokens and cost.
type QualityEstimate struct {
	System  string `json:"system"`
	Reports int    `json:"reports"`
	// Cached reports are answered by the cache and cost nothing.
	Cached int `json:"cached"`
	// Truncated reports would be sent cut to the judge's budget.
	Truncated int `json:"truncated"`
	// Unreadable reports would fail without a call.
	Unreadable   int     `json:"unreadable"`
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Cost         float64 `json:"cost_usd"`
	// Unpriced is set when the model has no known price (Cost is then 0).
	Unpriced bool `json:"unpriced,omitempty"`
}

// EstimateOptions configure QualityJudge.Estimate.
type EstimateOptions struct {
	// Load reads a report file's text (default the judge's
	// QualityOptions.Load); the caller passes its own to apply its input
	// checks.
	Load func(path string) (string, error)
	// Cache, if set, holds the answers already paid for.
	Cache llm.Cache
}

// Estimate builds the request ScoreReports would send for every report of
// each reports directory, sends none, and prices the ones the cache has
// not answered (output tokens at the answer cap: an upper bound). An
// unreadable report is counted, not an error.
func (j *QualityJudge) Estimate(ctx context.Context, ds *dataset.Dataset, dirs []string, opt EstimateOptions) ([]QualityEstimate, error) {
	load := opt.Load
	if load == nil {
		load = j.load
	}
	var out []QualityEstimate
	for _, dir := range dirs {
		files, _, err := ReportFiles(ds, dir)
		if err != nil {
			return nil, err
		}
		e := QualityEstimate{System: filepath.Base(filepath.Clean(dir)), Reports: len(files)}
		for _, f := range files {
			text, err := load(f.Path)
			if err != nil {
				e.Unreadable++
				continue
			}
			task, _ := ds.Task(f.Task)
			req, ex, err := j.Request(task, text)
			if err != nil {
				return nil, err
			}
			if ex.Truncated {
				e.Truncated++
			}
			if opt.Cache != nil {
				if _, ok, err := opt.Cache.Get(ctx, j.c.Key(req)); err == nil && ok {
					e.Cached++
					continue
				}
			}
			est := j.c.Estimate(req)
			e.Calls++
			e.InputTokens += est.InputTokens
			e.OutputTokens += est.OutputTokens
			e.Cost += est.Cost
			e.Unpriced = e.Unpriced || !est.Priced
		}
		out = append(out, e)
	}
	return out, nil
}
