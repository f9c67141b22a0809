package web

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/confusable"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Review is a human reviewer's verdict on a claim: a verdict label
// (supported, partial, unsupported, contradicted, unknown) for a cited
// claim, a fact label (true, false, undecided) for a non-cited one, and a
// note. URL optionally names the source the review is about. Reviews are
// appended, never replaced: a reviewer's latest review of a claim is the
// current one, and Earlier holds the versions it replaced.
type Review struct {
	Task         string    `json:"task"`
	Claim        string    `json:"claim"`
	Reviewer     string    `json:"reviewer"`
	Label        string    `json:"label"`
	Note         string    `json:"note,omitempty"`
	URL          string    `json:"url,omitempty"`
	ReportSHA256 string    `json:"report_sha256"`
	At           time.Time `json:"at"`
	// Version orders the versions of the run's reviews (the store's id);
	// 0 for a review stored before reviews kept their history.
	Version int64 `json:"version,omitempty"`
	// PostedWith says whose token posted the review: PostedReviewerToken
	// (the reviewer's own) or PostedServerToken; empty for a review stored
	// before reviews recorded it.
	PostedWith string `json:"posted_with,omitempty"`
	// Verified is true when the review is a configured reviewer's, posted
	// with that reviewer's own token. NotCounted is true when agreement
	// figures leave it out: when reviewers are configured, a review that
	// is not verified (unless the server counts other reviewers). Both are
	// decided when reviews are read, never stored.
	Verified   bool `json:"verified_reviewer"`
	NotCounted bool `json:"not_counted,omitempty"`
	// Earlier are the reviewer's earlier reviews of the claim, oldest
	// first, in the current view.
	Earlier []Review `json:"earlier,omitempty"`
}

// anonymous is the reviewer of a review that names none: posted without
// a name, or stored before reviews named their reviewer.
const anonymous = "anonymous"

// Values of Review.PostedWith.
const (
	PostedReviewerToken = "reviewer_token"
	PostedServerToken   = "server_token"
)

// maxReviewer caps a reviewer name, in characters.
const maxReviewer = 64

// reviewPost is the body of POST …/reviews.
type reviewPost struct {
	Claim    string `json:"claim"`
	Reviewer string `json:"reviewer"`
	Label    string `json:"label"`
	Note     string `json:"note"`
	URL      string `json:"url"`
}

// reviewerName trims and validates a reviewer name: 1 to 64 printable
// characters (letters, marks, numbers, punctuation, symbols and spaces; no
// control, format or other invisible characters). Blank is anonymous.
func reviewerName(v string) (string, error) {
	name := strings.TrimSpace(v)
	if name == "" {
		return anonymous, nil
	}
	ok := utf8.ValidString(name) && utf8.RuneCountInString(name) <= maxReviewer &&
		!strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) })
	if !ok {
		return "", fmt.Errorf("reviewer %q: want 1 to %d printable characters: %w", clip(name, 80), maxReviewer, claimtrace.ErrInvalid)
	}
	return name, nil
}

// verdictLabels and factLabels are the labels a review may give a cited and
// a non-cited claim.
var (
	verdictLabels = []string{string(claimtrace.Supported), string(claimtrace.Partial), string(claimtrace.Unsupported), string(claimtrace.Contradicted), string(claimtrace.Unknown)}
	factLabels    = []string{string(claimtrace.FactTrue), string(claimtrace.FactFalse), string(claimtrace.FactUndecided)}
)

// putReview validates a review by reviewer and appends it to the run's
// reviews: the reviewer's earlier reviews stay, as history.
func (s *Server) putReview(ctx context.Context, run string, res *eval.Result, reviewer, postedWith string, p reviewPost) (Review, error) {
	if err := checkClaimID(p.Claim); err != nil {
		return Review{}, err
	}
	i := slices.IndexFunc(res.Claims, func(c eval.ClaimResult) bool { return c.ID == p.Claim })
	if i < 0 {
		return Review{}, fmt.Errorf("review: report %q has no claim %q: %w", res.Task, p.Claim, claimtrace.ErrInvalid)
	}
	c := res.Claims[i]
	allowed, kind := factLabels, "not cited"
	if c.Cited {
		allowed, kind = verdictLabels, "cited"
	}
	if !slices.Contains(allowed, p.Label) {
		return Review{}, fmt.Errorf("review: claim %s is %s: label %q, want one of %s: %w", p.Claim, kind, clip(p.Label, 40), strings.Join(allowed, ", "), claimtrace.ErrInvalid)
	}
	note := strings.TrimSpace(p.Note)
	if len(note) > maxNote {
		return Review{}, fmt.Errorf("review: note of %d bytes, at most %d: %w", len(note), maxNote, claimtrace.ErrInvalid)
	}
	if p.URL != "" && !slices.Contains(c.Citations, p.URL) {
		return Review{}, fmt.Errorf("review: claim %s does not cite %q: %w", p.Claim, clip(p.URL, 120), claimtrace.ErrInvalid)
	}
	rv := Review{Task: res.Task, Claim: p.Claim, Reviewer: reviewer, Label: p.Label, Note: note, URL: p.URL, ReportSHA256: res.SHA256, At: s.now(), PostedWith: postedWith}
	data, err := json.Marshal(rv)
	if err != nil {
		return Review{}, err
	}
	err = s.st.AppendReview(ctx, store.Review{Run: run, Task: res.Task, Claim: p.Claim, Reviewer: reviewer, Data: data})
	s.judgeReview(&rv)
	return rv, err
}

// judgeReview decides whether a review read back is a configured
// reviewer's own and whether agreement figures count it.
func (s *Server) judgeReview(rv *Review) {
	rv.Verified = rv.PostedWith == PostedReviewerToken && s.names[rv.Reviewer]
	rv.NotCounted = len(s.names) > 0 && !rv.Verified && !s.countOthers
}

// identity is who a review is by for "each reviewer's latest": names that
// look alike (confusable.Key) are one reviewer, and a configured
// reviewer's own reviews are apart from any others under a look-alike
// name.
func identity(rv Review) string {
	if rv.Verified {
		return "verified:" + confusable.Key(rv.Reviewer)
	}
	return "other:" + confusable.Key(rv.Reviewer)
}

// reviewsOf reads every version of the reviews of a run (of one report
// when task is not empty), oldest first: those stored as units before
// reviews kept their history, then the appended ones.
func (s *Server) reviewsOf(ctx context.Context, run, task string) ([]Review, error) {
	units, err := s.st.Units(ctx, run, UnitReview)
	if err != nil {
		return nil, err
	}
	var out []Review
	for _, u := range units {
		if rv, ok := decodeReview(u); ok && (task == "" || rv.Task == task) {
			s.judgeReview(&rv)
			out = append(out, rv)
		}
	}
	rows, err := s.st.Reviews(ctx, run)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		var rv Review
		if (task != "" && row.Task != task) || json.Unmarshal(row.Data, &rv) != nil || rv.Task != row.Task || rv.Claim != row.Claim {
			continue
		}
		rv.Reviewer, rv.Version, rv.Earlier = row.Reviewer, row.ID, nil
		s.judgeReview(&rv)
		out = append(out, rv)
	}
	return out, nil
}

// decodeReview reads a review unit, old ("<task>/<claim>", no reviewer:
// anonymous) or new ("<task>/<claim>/<reviewer>"). It refuses data that
// does not match its key.
func decodeReview(u store.Unit) (Review, bool) {
	var rv Review
	if json.Unmarshal(u.Data, &rv) != nil || rv.Task == "" || rv.Claim == "" {
		return Review{}, false
	}
	if rv.Reviewer == "" {
		rv.Reviewer = anonymous
	}
	claim := rv.Task + "/" + rv.Claim
	if u.Key != claim && u.Key != claim+"/"+rv.Reviewer {
		return Review{}, false
	}
	return rv, true
}

// currentReviews keeps the reviews made on res's current text of claims it
// has, each reviewer's latest once per claim with the versions it replaced
// in Earlier (an anonymous review stored under the old key and one under
// the new are the same reviewer's), and groups them by claim id, oldest
// first. rvs are in the order they were written (reviewsOf).
func currentReviews(res *eval.Result, rvs []Review) map[string][]Review {
	ids := claimIDs(res)
	latest := map[[2]string]Review{}
	for _, rv := range rvs {
		if rv.Task != res.Task || rv.ReportSHA256 != res.SHA256 || !ids[rv.Claim] {
			continue
		}
		k := [2]string{rv.Claim, identity(rv)}
		old, ok := latest[k]
		if ok && old.At.After(rv.At) {
			continue
		}
		if ok {
			rv.Earlier = append(old.Earlier, Review{Task: old.Task, Claim: old.Claim, Reviewer: old.Reviewer, Label: old.Label,
				Note: old.Note, URL: old.URL, ReportSHA256: old.ReportSHA256, At: old.At, Version: old.Version,
				PostedWith: old.PostedWith, Verified: old.Verified, NotCounted: old.NotCounted})
			old.Earlier = nil
		}
		latest[k] = rv
	}
	out := map[string][]Review{}
	for _, rv := range latest {
		out[rv.Claim] = append(out[rv.Claim], rv)
	}
	for _, list := range out {
		slices.SortFunc(list, func(a, b Review) int {
			if c := a.At.Compare(b.At); c != 0 {
				return c
			}
			return strings.Compare(a.Reviewer, b.Reviewer)
		})
	}
	return out
}

// inClaimOrder lists the reviews of a report claim by claim, in the
// report's order.
func inClaimOrder(res *eval.Result, reviews map[string][]Review) []Review {
	out := []Review{}
	for _, c := range res.Claims {
		out = append(out, reviews[c.ID]...)
	}
	return out
}

// consensus sums up the reviews of a claim: the label more than half of
// them give (a lone review is its own majority), or disputed when no label
// has a majority.
func consensus(rvs []Review) (label string, disputed bool) {
	if len(rvs) == 0 {
		return "", false
	}
	n := map[string]int{}
	for _, rv := range rvs {
		n[rv.Label]++
		if 2*n[rv.Label] > len(rvs) {
			return rv.Label, false
		}
	}
	return "", true
}

// pipelineLabel is the pipeline's label a review of claim c is compared
// with: for a cited claim, the verdict on the source the review names
// (unknown when that source was not judged), else the claim's status; for
// a non-cited one, its fact label. "" means there is none to compare with
// (a non-cited claim that was not fact-checked).
func pipelineLabel(c eval.ClaimResult, url string) string {
	if !c.Cited {
		if c.Fact == nil {
			return ""
		}
		return string(c.Fact.Label)
	}
	if url == "" {
		return claimStatus(c)
	}
	for _, v := range c.Verdicts {
		if v.URL == url {
			return string(v.Label)
		}
	}
	return string(claimtrace.Unknown)
}

// reviewView is one review as the claim panel lists it.
type reviewView struct {
	Review
	Status   string // the status the label amounts to (reviewedStatus)
	Pipeline string // the pipeline's label it is compared with, "" for none
}

// Agrees reports whether the review gives the pipeline's label.
func (v reviewView) Agrees() bool { return v.Pipeline != "" && v.Pipeline == v.Label }

func newReviewViews(c eval.ClaimResult, rvs []Review) []reviewView {
	out := make([]reviewView, len(rvs))
	for i, rv := range rvs {
		out[i] = reviewView{Review: rv, Status: reviewedStatus(rv.Label), Pipeline: pipelineLabel(c, rv.URL)}
	}
	return out
}

// reviewedReport is a report of a run with the reviews of its current
// text, by claim id.
type reviewedReport struct {
	*loaded
	Reviews map[string][]Review
}

// runReviews reads the reviews stored in a run and the reports they
// review, in task order, keeping the reviews of each report's current
// text. A report that is gone, or whose stored result is unreadable, is
// left out with its reviews: the run page lists it with its error.
func (s *Server) runReviews(ctx context.Context, run string) ([]reviewedReport, error) {
	rvs, err := s.reviewsOf(ctx, run, "")
	if err != nil {
		return nil, err
	}
	byTask := map[string][]Review{}
	for _, rv := range rvs {
		byTask[rv.Task] = append(byTask[rv.Task], rv)
	}
	tasks := slices.Sorted(maps.Keys(byTask))
	var out []reviewedReport
	for _, task := range tasks {
		u, ok, err := s.st.GetUnit(ctx, run, unitReport, task)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		sr, err := decodeRaw(run, task, u.Data)
		if err != nil {
			continue
		}
		l, err := decodeReport(run, task, sr)
		if err != nil {
			continue
		}
		if cur := currentReviews(l.Res, byTask[task]); len(cur) > 0 {
			out = append(out, reviewedReport{loaded: l, Reviews: cur})
		}
	}
	return out, nil
}
