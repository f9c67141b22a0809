package web

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

// evaluation describes how a stored report was evaluated, for its PROV
// export: the run (its pipeline version and mode), the judges named in its
// verdicts (a name "offline+citing" is the offline judge with the citing
// calibration, "openai:gpt-4o-mini" a model behind a provider), τ, and as
// times the run's start and when the report's result was stored. nil when
// the report has no readable stored result.
func (s *Server) evaluation(ctx context.Context, run, task string) (*provjson.Evaluation, error) {
	u, ok, err := s.st.GetUnit(ctx, run, unitReport, task)
	if err != nil || !ok {
		return nil, err
	}
	sr, err := decodeRaw(run, task, u.Data)
	if err != nil {
		return nil, nil
	}
	l, err := decodeReport(run, task, sr)
	if err != nil {
		return nil, nil
	}
	r, err := s.findRun(ctx, run)
	if err != nil {
		return nil, err
	}
	var params struct {
		Version string `json:"version"`
		Mode    string `json:"mode"`
	}
	json.Unmarshal([]byte(r.Params), &params) // params are the pipeline's; a bad one leaves them empty
	ev := &provjson.Evaluation{Run: run, Tool: "claimtrace", Version: params.Version, Mode: params.Mode,
		Tau: prov.DefaultTau, Started: r.Created, Ended: u.Updated}
	if l.Res.AAR != nil && l.Res.AAR.Tau > 0 {
		ev.Tau = l.Res.AAR.Tau
	}
	var judges []string
	for _, c := range l.Res.Claims {
		for _, v := range c.Verdicts {
			if v.Judge != "" && !slices.Contains(judges, v.Judge) {
				judges = append(judges, v.Judge)
			}
		}
	}
	slices.Sort(judges)
	ev.Judge = strings.Join(judges, ", ")
	if len(judges) == 1 {
		ev.Model, ev.Calibration = judgeSettings(judges[0])
	}
	return ev, nil
}

// judgeSettings reads a judge name as the pipeline writes it: "offline",
// "offline+CALIBRATION", "PROVIDER:MODEL".
func judgeSettings(name string) (model, calibration string) {
	name, calibration, _ = strings.Cut(name, "+")
	if _, m, ok := strings.Cut(name, ":"); ok {
		model = m
	}
	return model, calibration
}
