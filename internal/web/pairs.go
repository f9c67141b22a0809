package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
)

// reviewsDataset names the reviews exported as labelled pairs.
const reviewsDataset = "claimtrace-reviews"

// skippedHeader carries how many reviews of cited claims an export of
// labelled pairs left out, so the JSONL body stays pure.
const skippedHeader = "X-Claimtrace-Skipped"

// LabelledPair is one line of GET /api/runs/{run}/reviews.jsonl: a review
// of a cited claim as a labelled claim–evidence pair in the plain JSONL
// format `claimtrace judge eval --labels` reads (id, claim, evidence,
// label, source), with where it comes from.
type LabelledPair struct {
	ID       string `json:"id"`
	Claim    string `json:"claim"`
	Evidence string `json:"evidence"`
	Label    string `json:"label"`
	// Source is the dataset name the label reader gives the pair;
	// SourceDataset repeats it for readers of other formats.
	Source        string `json:"source"`
	SourceDataset string `json:"source_dataset"`
	Run           string `json:"run"`
	Task          string `json:"task"`
	ClaimID       string `json:"claim_id"`
	Reviewer      string `json:"reviewer"`
	// URL is the source whose evidence passage the pair holds. Scope says
	// what the reviewer judged: "source", that source (the review named
	// it), or "claim", the claim as a whole (the evidence is then that of
	// the claim's first verdict quoting any).
	URL   string `json:"url"`
	Scope string `json:"scope"`
	// PipelineLabel is the pipeline's label the review is compared with
	// (see Agreement).
	PipelineLabel string    `json:"pipeline_label"`
	Note          string    `json:"note,omitempty"`
	ReportSHA256  string    `json:"report_sha256"`
	At            time.Time `json:"reviewed_at"`
}

// pairLabels are the review labels a labelled pair can carry: a judge is
// measured on these, never on unknown.
var pairLabels = []string{string(claimtrace.Supported), string(claimtrace.Partial), string(claimtrace.Unsupported), string(claimtrace.Contradicted)}

// labelledPairs turns the reviews of cited claims into labelled pairs, and
// counts those it skips: labelled unknown, with no evidence passage to
// pair the claim with, or not counted (not a configured reviewer's).
func labelledPairs(run string, reports []reviewedReport) (pairs []LabelledPair, skipped int) {
	for _, r := range reports {
		for _, c := range r.Res.Claims {
			if !c.Cited {
				continue
			}
			for _, rv := range r.Reviews[c.ID] {
				evidence, url, ok := pairEvidence(c, rv.URL)
				if !ok || !slices.Contains(pairLabels, rv.Label) || rv.NotCounted {
					skipped++
					continue
				}
				scope := "claim"
				if rv.URL != "" {
					scope = "source"
				}
				pairs = append(pairs, LabelledPair{
					ID: "review:" + run + "/" + r.Task + "/" + c.ID + "/" + rv.Reviewer, Claim: c.Text, Evidence: evidence, Label: rv.Label,
					Source: reviewsDataset, SourceDataset: reviewsDataset, Run: run, Task: r.Task, ClaimID: c.ID, Reviewer: rv.Reviewer,
					URL: url, Scope: scope, PipelineLabel: pipelineLabel(c, rv.URL), Note: rv.Note, ReportSHA256: rv.ReportSHA256, At: rv.At,
				})
			}
		}
	}
	return pairs, skipped
}

// pairEvidence is the evidence passage a review of claim c is paired with,
// and its source: the verdict's on the source the review names, else the
// first verdict quoting any.
func pairEvidence(c eval.ClaimResult, url string) (evidence, from string, ok bool) {
	for _, v := range c.Verdicts {
		if strings.TrimSpace(v.Evidence) == "" || (url != "" && v.URL != url) {
			continue
		}
		return v.Evidence, v.URL, true
	}
	return "", "", false
}

// apiReviewPairs serves the reviews of a run's cited claims as JSONL
// labelled pairs, one review a line; the X-Claimtrace-Skipped header says
// how many reviews of cited claims were left out.
func (s *Server) apiReviewPairs(w http.ResponseWriter, r *http.Request) error {
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
	pairs, skipped := labelledPairs(run, reviewed)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, p := range pairs {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.Header().Set(skippedHeader, strconv.Itoa(skipped))
	w.WriteHeader(http.StatusOK)
	_, err = buf.WriteTo(w)
	return ignoreClientGone(err)
}
