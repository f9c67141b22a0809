package web

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
	"github.com/claimtrace/claimtrace/internal/store"
)

// RunsResponse is the body of GET /api/runs.
type RunsResponse struct {
	Runs []store.Run `json:"runs"`
	// Writable says whether the write API is enabled.
	Writable bool `json:"writable"`
}

// ReportsResponse is the body of GET /api/runs/{run}/reports: each
// report's headline figures and the run's pooled empirical AEff.
type ReportsResponse struct {
	Run     store.Run    `json:"run"`
	Reports []ReportLine `json:"reports"`
	Effort  AuditEffort  `json:"audit_effort"`
	// Agreement pools the reviews of the run's reports.
	Agreement Agreement `json:"review_agreement"`
}

// AuditResponse is the body of GET /api/runs/{run}/reports/{task}/audit and
// of a successful timing post: the report's stored timings and reviews (on
// its current text; every reviewer's latest review of each claim, claim by
// claim), its empirical AEff and how the reviews agree with the pipeline.
type AuditResponse struct {
	Task         string      `json:"task_id"`
	ReportSHA256 string      `json:"report_sha256"`
	Effort       AuditEffort `json:"audit_effort"`
	Timings      []Timing    `json:"timings"`
	Reviews      []Review    `json:"reviews"`
	Agreement    Agreement   `json:"review_agreement"`
}

// ReviewsResponse is the body of GET /api/runs/{run}/reviews: the reviews
// of the run's reports (on their current texts) and how they agree with
// the pipeline, pooled and by report.
type ReviewsResponse struct {
	Run       string          `json:"run"`
	Agreement Agreement       `json:"review_agreement"`
	Reports   []ReportReviews `json:"reports"`
}

// ReportReviews is one reviewed report in a ReviewsResponse.
type ReportReviews struct {
	Task         string    `json:"task_id"`
	ReportSHA256 string    `json:"report_sha256"`
	Agreement    Agreement `json:"review_agreement"`
	Reviews      []Review  `json:"reviews"`
}

func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) error {
	runs, err := s.st.Runs(r.Context())
	if err != nil {
		return err
	}
	if runs == nil {
		runs = []store.Run{}
	}
	s.writeJSON(w, r, http.StatusOK, RunsResponse{Runs: runs, Writable: s.Writable()})
	return nil
}

func (s *Server) apiReports(w http.ResponseWriter, r *http.Request) error {
	id, err := runName(r)
	if err != nil {
		return err
	}
	run, err := s.findRun(r.Context(), id)
	if err != nil {
		return err
	}
	fig, err := s.reportLines(r.Context(), id)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, ReportsResponse{Run: run, Reports: fig.Lines, Effort: effort(fig.Timings), Agreement: fig.Agreement})
	return nil
}

// apiReport serves a report's result exactly as the pipeline stored it (the
// shape of OUT/reports/<task>.json), streamed from the stored unit: the
// server holds the unit once, neither decoded nor copied, and waits for
// room (Options.MaxResponseBytes) before loading a large one.
func (s *Server) apiReport(w http.ResponseWriter, r *http.Request) error {
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	result, release, err := s.storedMember(r.Context(), run, unitReport, task, "result", "report")
	if err != nil {
		return err
	}
	defer release()
	s.streamJSON(w, r, "application/json; charset=utf-8", result)
	return nil
}

func (s *Server) apiAudit(w http.ResponseWriter, r *http.Request) error {
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	return s.writeAudit(w, r, run, task, http.StatusOK)
}

// writeAudit answers with the report's audit records.
func (s *Server) writeAudit(w http.ResponseWriter, r *http.Request, run, task string, status int) error {
	l, ts, reviews, err := s.loadAudit(r.Context(), run, task)
	if err != nil {
		return err
	}
	out := AuditResponse{Task: task, ReportSHA256: l.Res.SHA256, Effort: effort(ts), Timings: ts,
		Reviews: inClaimOrder(l.Res, reviews), Agreement: agreement(reviewedClaims(l.Res, reviews))}
	if out.Timings == nil {
		out.Timings = []Timing{}
	}
	s.writeJSON(w, r, status, out)
	return nil
}

// graphFormats are the ?format= values of the graph endpoint.
var graphFormats = []string{"native", "prov", "jsonld"}

// apiGraph serves a report's provenance graph: the native aar-graph/1 JSON
// (default), PROV-JSON (?format=prov) or PROV-JSONLD (?format=jsonld).
func (s *Server) apiGraph(w http.ResponseWriter, r *http.Request) error {
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "native"
	}
	if !slices.Contains(graphFormats, format) {
		return fmt.Errorf("graph format %q: want native, prov or jsonld: %w", clip(format, 40), claimtrace.ErrInvalid)
	}
	if format == "native" {
		// The stored graph as it is, streamed (see apiReport).
		raw, release, err := s.storedMember(r.Context(), run, unitGraph, task, "", "graph of report")
		if err != nil {
			return err
		}
		defer release()
		s.streamJSON(w, r, "application/json; charset=utf-8", raw)
		return nil
	}
	size, _, err := s.st.UnitSize(r.Context(), run, unitGraph, task)
	if err != nil {
		return err
	}
	// Decoded and exported: about four times the stored size at once.
	release, err := s.admitResponse(r.Context(), 4*size)
	if err != nil {
		return err
	}
	defer release()
	_, g, err := s.loadGraph(r.Context(), run, task)
	if err != nil {
		return err
	}
	if format != "native" {
		if err := g.Validate(); err != nil {
			return fmt.Errorf("graph of report %q in run %q: %w", task, run, err)
		}
	}
	var ev *provjson.Evaluation
	if format != "native" {
		if ev, err = s.evaluation(r.Context(), run, task); err != nil {
			return err
		}
	}
	var data []byte
	switch format {
	case "prov":
		data, err = provjson.MarshalWith(g, ev)
	case "jsonld":
		data, err = provjson.MarshalLDWith(g, ev)
		w.Header().Set("Content-Type", "application/ld+json")
	}
	if err != nil {
		return fmt.Errorf("graph of report %q in run %q: %w", task, run, err)
	}
	if format == "jsonld" {
		w.WriteHeader(http.StatusOK)
		w.Write(append(data, '\n'))
		return nil
	}
	s.writeRawJSON(w, http.StatusOK, data)
	return nil
}

// apiPostTimings stores a reading session's seconds per claim and answers
// with the report's audit records. An empty list only checks the token.
func (s *Server) apiPostTimings(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.authorize(r); err != nil {
		return err
	}
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	var p timingPost
	if err := decodeBody(w, r, &p, timingBody); err != nil {
		return err
	}
	l, err := s.loadReport(r.Context(), run, task)
	if err != nil {
		return err
	}
	if err := s.putTimings(r.Context(), run, l.Res, p); err != nil {
		return err
	}
	return s.writeAudit(w, r, run, task, http.StatusOK)
}

// apiPostReview appends a reviewer's verdict on a claim: the reviewer is
// the token's (see reviewerOf).
func (s *Server) apiPostReview(w http.ResponseWriter, r *http.Request) error {
	who, err := s.authorize(r)
	if err != nil {
		return err
	}
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	var p reviewPost
	if err := decodeBody(w, r, &p, reviewBody); err != nil {
		return err
	}
	l, err := s.loadReport(r.Context(), run, task)
	if err != nil {
		return err
	}
	reviewer, err := s.reviewerOf(who, p.Reviewer)
	if err != nil {
		return err
	}
	postedWith := PostedServerToken
	if who.reviewer != "" {
		postedWith = PostedReviewerToken
	}
	rv, err := s.putReview(r.Context(), run, l.Res, reviewer, postedWith, p)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusCreated, rv)
	return nil
}

// apiReviews serves the reviews of a run's reports and their agreement
// with the pipeline.
func (s *Server) apiReviews(w http.ResponseWriter, r *http.Request) error {
	run, err := runName(r)
	if err != nil {
		return err
	}
	if _, err := s.findRun(r.Context(), run); err != nil {
		return err
	}
	reviewed, err := s.runReviews(r.Context(), run)
	if err != nil {
		return err
	}
	out := ReviewsResponse{Run: run, Reports: []ReportReviews{}}
	var byTask map[string]Agreement
	out.Agreement, byTask = runAgreement(reviewed)
	for _, rr := range reviewed {
		out.Reports = append(out.Reports, ReportReviews{Task: rr.Task, ReportSHA256: rr.Res.SHA256, Agreement: byTask[rr.Task], Reviews: inClaimOrder(rr.Res, rr.Reviews)})
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// ReviewHistory is every version of the reviews of one report, oldest
// first: who wrote what, and when.
type ReviewHistory struct {
	Run     string   `json:"run"`
	Task    string   `json:"task"`
	Reviews []Review `json:"reviews"`
}

// apiReviewHistory serves every version of a report's reviews, those
// written on earlier texts of the report included.
func (s *Server) apiReviewHistory(w http.ResponseWriter, r *http.Request) error {
	run, task, err := reportNames(r)
	if err != nil {
		return err
	}
	if _, err := s.loadRaw(r.Context(), run, task); err != nil {
		return err
	}
	rvs, err := s.reviewsOf(r.Context(), run, task)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, ReviewHistory{Run: run, Task: task, Reviews: orEmptyReviews(rvs)})
	return nil
}

func orEmptyReviews(rvs []Review) []Review {
	if rvs == nil {
		return []Review{}
	}
	return rvs
}
