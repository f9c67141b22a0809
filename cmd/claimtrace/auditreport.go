package main

import (
	"context"
	"fmt"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// graphFromReport builds the provenance graph of a report file through the
// eval pipeline (parse, resolve, judge, prov.Build). Placeholder: the eval
// wiring replaces this file.
func (a *app) graphFromReport(ctx context.Context, path string, opts auditOptions) (*prov.Graph, error) {
	return nil, fmt.Errorf("%s: auditing report files arrives with the eval pipeline; audit a provenance graph (claimtrace's graph JSON or PROV-JSON) for now", path)
}
