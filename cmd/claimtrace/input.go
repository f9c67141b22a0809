package main

import "github.com/claimtrace/claimtrace/internal/report"

// inputLimit is the size limit on every input file a command reads:
// reports (parse, eval, audit, gate, snapshot, analyze), provenance graphs
// (audit, gate, prov) and provider responses (import). One limit for all,
// report.MaxReportBytes, so that no command reads into memory what another
// refuses; tests lower it through app.maxInput.
func (a *app) inputLimit() int64 {
	if a.maxInput > 0 {
		return min(a.maxInput, report.MaxReportBytes)
	}
	return report.MaxReportBytes
}

// readInput reads an input file named by the user: only a regular file,
// its size checked before reading (report.ReadFile).
func (a *app) readInput(path string) ([]byte, error) {
	return report.ReadFile(path, a.inputLimit())
}

// loadReport reads a report file's text under the input limit.
func (a *app) loadReport(path string) (string, error) {
	return report.LoadMax(path, a.inputLimit())
}
