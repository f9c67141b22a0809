package main

import (
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/report"
)

// EvalConfig bounds the work of one report and of a batch (the [eval]
// table), for eval, audit, gate and parse. Zero values take
// report.DefaultLimits and eval.DefaultMaxInflightBytes.
type EvalConfig struct {
	// MaxClaims, MaxCitations and MaxLineBytes bound one report: one past
	// a limit fails alone, saying which.
	MaxClaims    int `toml:"max_claims"`
	MaxCitations int `toml:"max_citations"`
	MaxLineBytes int `toml:"max_line_bytes"`
	MaxSpans     int `toml:"max_spans"`
	// MaxInflightBytes bounds the bytes of report text evaluated at once.
	MaxInflightBytes int64 `toml:"max_inflight_bytes"`
}

// reportLimits are the limits on one report the configuration asks for.
func (c EvalConfig) reportLimits() report.Limits {
	return report.Limits{Claims: c.MaxClaims, Citations: c.MaxCitations, LineBytes: c.MaxLineBytes, Spans: c.MaxSpans}
}

// apply sets the configured bounds on an evaluation's options.
func (c EvalConfig) apply(o *eval.Options) {
	o.ReportLimits = c.reportLimits()
	o.MaxInflightBytes = c.MaxInflightBytes
}
