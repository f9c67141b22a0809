package main

import (
	"context"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// graphFromReport builds the provenance graph of a report file through the
// eval pipeline: parse, resolve every cited source (snapshot, page cache,
// web unless offline), judge each (claim, source) pair, build the graph.
// With --detect, contradictions are looked for in the full texts of the
// sources, as eval does, so a report audits to the figures eval gives.
func (a *app) graphFromReport(ctx context.Context, path string, opts auditOptions) (*prov.Graph, error) {
	st, err := a.openStore(ctx, "")
	if err != nil {
		return nil, err
	}
	ff := fetchFlags{snapshot: opts.Snapshot, offline: opts.Offline}
	fetcher, err := a.newFetcher(ff, st)
	if err != nil {
		return nil, err
	}
	v := defaultVerify()
	v.judge, v.tau, v.contradictions = opts.Judge, opts.Tau, "none"
	if opts.Detect {
		v.contradictions = "offline"
	}
	timeout, err := a.fetchTimeout(opts.sources)
	if err != nil {
		return nil, err
	}
	eo := eval.Options{Mode: ff.mode(), Snapshot: opts.Snapshot, Fetcher: fetcher, Store: st, Concurrency: a.cfg.Concurrency,
		MaxReportBytes: a.inputLimit(), FetchTimeout: timeout, SourceProgress: a.sourceProgress(opts.sources)}
	a.cfg.Eval.apply(&eo)
	if s := a.newScholar(ff); s != nil {
		eo.Scholar = s
	}
	rc, err := a.runConfig(nil, false)
	if err != nil {
		return nil, err
	}
	m, err := v.apply(ctx, a, st, &eo, rc)
	if err != nil {
		return nil, err
	}
	ev, err := eval.New(eo)
	if err != nil {
		return nil, err
	}
	run, err := ev.AuditRunID(path)
	if err != nil {
		return nil, err
	}
	m.setRun(run)
	res, g, err := ev.Audit(ctx, path)
	if err == nil && opts.audited != nil {
		*opts.audited = auditedReport{st: st, run: ev.RunID(), task: res.Task, res: res}
	}
	return g, err
}
