package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
)

// AuditRunID returns the id of the run Audit stores path's results under,
// so that callers can label what happens during the audit (LLM calls)
// before it starts.
func (e *Evaluator) AuditRunID(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return e.runID(abs), nil
}

// Audit runs the pipeline on one report file, without a benchmark task:
// claims and citations, resolved sources, verdicts, the provenance graph and
// its AAR metrics. The result is stored like an evaluation's, so a rerun
// resumes; with OutDir set it also writes reports/ and graphs/ files.
func (e *Evaluator) Audit(ctx context.Context, path string) (*Result, *prov.Graph, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	e.run = e.runID(abs)
	params, _ := json.Marshal(map[string]any{"version": Version, "report": abs, "mode": e.opts.Mode, "snapshot": e.opts.Snapshot})
	if err := e.opts.Store.EnsureRun(ctx, e.run, "audit", string(params)); err != nil {
		return nil, nil, err
	}
	if e.opts.OutDir != "" {
		for _, d := range []string{"reports", "graphs"} {
			if err := os.MkdirAll(filepath.Join(e.opts.OutDir, d), 0o755); err != nil {
				return nil, nil, err
			}
		}
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	res, err := e.report(ctx, reportFile{Task: name, Path: path})
	if err != nil {
		return nil, nil, err
	}
	if res.Status != store.StatusDone {
		return res, nil, fmt.Errorf("audit %s: %s", path, res.Error)
	}
	u, ok, err := e.opts.Store.GetUnit(ctx, e.run, unitGraph, name)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("audit %s: graph not stored", path)
	}
	g, err := prov.Unmarshal(u.Data)
	if err != nil {
		return nil, nil, fmt.Errorf("audit %s: stored graph: %w", path, err)
	}
	return res, g, nil
}
