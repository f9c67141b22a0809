package web

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/store"
)

func TestReviewerName(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"", anonymous, true},
		{"   ", anonymous, true},
		{"  Ada Lovelace ", "Ada Lovelace", true},
		{"renée.o'brien@lab", "renée.o'brien@lab", true},
		{"评审员一号", "评审员一号", true},
		{strings.Repeat("é", maxReviewer), strings.Repeat("é", maxReviewer), true},
		{strings.Repeat("x", maxReviewer+1), "", false},
		{"bell\x07", "", false},
		{"two\nlines", "", false},
		{"tab\tbed", "", false},
		{"right\u202eto left", "", false}, // a bidi override: a format character
		{"zero\u200bwidth", "", false},
		{"nb\u00a0space", "", false},
	}
	for _, tt := range tests {
		got, err := reviewerName(tt.in)
		if tt.ok && (err != nil || got != tt.want) {
			t.Errorf("reviewerName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if !tt.ok && !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("reviewerName(%q) = %q, %v; want ErrInvalid", tt.in, got, err)
		}
	}
}

// postReview posts a review and fails the test unless it is stored.
func (f *fixture) postReview(t *testing.T, body map[string]string) Review {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	code, resp := f.post(t, f.apiPath()+"/reviews", testToken, string(b))
	if code != http.StatusCreated {
		t.Fatalf("POST review %s: %d %s", b, code, resp)
	}
	return decode[Review](t, resp)
}

// TestReviewersKeepTheirOwnReviews stores reviews of one claim by two
// reviewers, one of whom changes their mind, and reads reviews stored as
// units before reviews kept their history (no reviewer, key
// "<task>/<claim>").
func TestReviewersKeepTheirOwnReviews(t *testing.T) {
	f := demoFixture(t, testToken)
	ctx := context.Background()
	l, err := f.srv.loadReport(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	f.postReview(t, map[string]string{"claim": "c3", "reviewer": "alice", "label": "supported"})
	f.postReview(t, map[string]string{"claim": "c3", "reviewer": " bob ", "label": "contradicted", "note": "The abstract says otherwise."})
	// alice changes her mind: her new review is the current one, bob's
	// stays, and her first is kept as history.
	got := f.postReview(t, map[string]string{"claim": "c3", "reviewer": "alice", "label": "partial"})
	if got.Reviewer != "alice" || got.Label != "partial" {
		t.Errorf("posted review = %+v", got)
	}
	// No name: anonymous.
	if got := f.postReview(t, map[string]string{"claim": "c5", "label": "supported"}); got.Reviewer != anonymous {
		t.Errorf("review without a name: reviewer %q, want %q", got.Reviewer, anonymous)
	}
	// Every version is kept, with its author.
	versions, err := f.st.Reviews(ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	type version struct{ Claim, Reviewer, Label string }
	var vs []version
	for _, v := range versions {
		var rv Review
		json.Unmarshal(v.Data, &rv)
		vs = append(vs, version{v.Claim, v.Reviewer, rv.Label})
	}
	wantVersions := []version{{"c3", "alice", "supported"}, {"c3", "bob", "contradicted"}, {"c3", "alice", "partial"}, {"c5", anonymous, "supported"}}
	if diff := cmp.Diff(wantVersions, vs); diff != "" {
		t.Errorf("stored review versions (-want +got):\n%s", diff)
	}

	// A review stored by the previous version, on the current text.
	old := func(claim, label string, at time.Time) {
		t.Helper()
		data, _ := json.Marshal(map[string]any{"task": f.task, "claim": claim, "label": label, "report_sha256": l.Res.SHA256, "at": at})
		if err := f.st.PutUnit(ctx, store.Unit{Run: f.run, Kind: UnitReview, Key: f.task + "/" + claim, Status: store.StatusDone, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	old("c2", "unsupported", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	// An old anonymous review of c5, older than the new anonymous one: the
	// same reviewer, so only the newer counts.
	old("c5", "contradicted", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

	code, body, _ := f.get(t, f.apiPath()+"/audit")
	if code != http.StatusOK {
		t.Fatalf("GET audit: %d %s", code, body)
	}
	audit := decode[AuditResponse](t, body)
	type row struct{ Claim, Reviewer, Label string }
	var rows []row
	for _, rv := range audit.Reviews {
		rows = append(rows, row{rv.Claim, rv.Reviewer, rv.Label})
	}
	// Claim by claim in the report's order, oldest first within a claim;
	// the fixture's clock is fixed, so alice and bob's are by name.
	wantRows := []row{{"c2", anonymous, "unsupported"}, {"c3", "alice", "partial"}, {"c3", "bob", "contradicted"}, {"c5", anonymous, "supported"}}
	if diff := cmp.Diff(wantRows, rows); diff != "" {
		t.Errorf("reviews (-want +got):\n%s", diff)
	}
	if e := audit.Reviews[1].Earlier; len(e) != 1 || e[0].Label != "supported" || e[0].Reviewer != "alice" {
		t.Errorf("alice's current review of c3: earlier versions %+v, want her first (supported)", e)
	}

	// The page: c3 is disputed (alice partial, bob contradicted) and keeps
	// the pipeline's colour; c2 shows the old review; c5 the new one.
	_, page, _ := f.get(t, f.reportPath())
	classes := claimClasses(page)
	for id, want := range map[string]string{"c2": "claim st-unsupported reviewed", "c3": "claim st-supported reviewed disputed", "c5": "claim st-supported reviewed"} {
		if classes[id] != want {
			t.Errorf("class of %s = %q, want %q", id, classes[id], want)
		}
	}
	if !strings.Contains(page, `<span class="claim disputed">disputed</span> 1</li>`) {
		t.Errorf("legend does not count the disputed claim")
	}
	_, panel, _ := f.get(t, f.reportPath()+"/claims/c3")
	for _, s := range []string{`data-disputed="true"`, `<span class="badge disputed">disputed</span> 2 reviewers disagree`, "the pipeline said: supported",
		`<li class="review-item" data-reviewer="alice" data-label="partial" data-url="">`,
		`<li class="review-item" data-reviewer="bob" data-label="contradicted" data-url="">`, "The abstract says otherwise.", `id="review-reviewer"`} {
		if !strings.Contains(panel, s) {
			t.Errorf("c3 panel lacks %q", s)
		}
	}
	// A third reviewer makes a majority.
	f.postReview(t, map[string]string{"claim": "c3", "reviewer": "carol", "label": "contradicted"})
	_, page, _ = f.get(t, f.reportPath())
	if c := claimClasses(page)["c3"]; c != "claim st-contradicted reviewed" {
		t.Errorf("c3 with a majority: class %q, want the majority's label", c)
	}
	_, panel, _ = f.get(t, f.reportPath()+"/claims/c3")
	if !strings.Contains(panel, `Reviewed <span class="badge st-contradicted">contradicted</span> by a majority of 3 reviewers`) {
		t.Errorf("c3 panel does not show the majority")
	}

	// Bad names are refused, and nothing is stored.
	for _, name := range []string{"bell\x07", "right\u202eleft", strings.Repeat("n", 65)} {
		b, _ := json.Marshal(map[string]string{"claim": "c3", "reviewer": name, "label": "supported"})
		if code, resp := f.post(t, f.apiPath()+"/reviews", testToken, string(b)); code != http.StatusBadRequest || !strings.Contains(resp, "want 1 to 64 printable characters") {
			t.Errorf("reviewer %q: %d %s, want 400", name, code, resp)
		}
	}
	if versions, _ := f.st.Reviews(ctx, f.run); len(versions) != 5 {
		t.Errorf("%d review versions, want 5", len(versions))
	}
}

func TestConsensus(t *testing.T) {
	rv := func(labels ...string) []Review {
		var out []Review
		for _, l := range labels {
			out = append(out, Review{Label: l})
		}
		return out
	}
	tests := []struct {
		reviews  []Review
		label    string
		disputed bool
	}{
		{nil, "", false},
		{rv("partial"), "partial", false},
		{rv("partial", "partial"), "partial", false},
		{rv("partial", "supported"), "", true},
		{rv("supported", "partial", "supported"), "supported", false},
		{rv("supported", "partial", "unknown"), "", true},
		{rv("true", "false", "true", "false"), "", true},
		{rv("true", "false", "true", "true"), "true", false},
	}
	for _, tt := range tests {
		label, disputed := consensus(tt.reviews)
		if label != tt.label || disputed != tt.disputed {
			t.Errorf("consensus(%v) = %q, %v; want %q, %v", tt.reviews, label, disputed, tt.label, tt.disputed)
		}
	}
}

func ptr(v float64) *float64 { return &v }

// approx compares figures to 1e-9.
var approx = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })

func TestAgreement(t *testing.T) {
	r := func(reviewer, label, pipeline string) comparedReview {
		return comparedReview{reviewer, label, pipeline}
	}
	tests := []struct {
		name   string
		claims []reviewedClaim
		want   Agreement
	}{
		{
			name:   "no reviews",
			claims: nil,
			want:   Agreement{Reviewers: []string{}, Confusion: map[string]map[string]int{}},
		},
		{
			name:   "one review, no fact label to compare with",
			claims: []reviewedClaim{{Key: "t/c1", Reviews: []comparedReview{r("ann", "true", "")}}},
			want:   Agreement{ClaimsReviewed: 1, Reviews: 1, Reviewers: []string{"ann"}, Confusion: map[string]map[string]int{}},
		},
		{
			// Agreement 3/4; c2 and c3 twice reviewed, c2 unanimous, c3
			// split 1–1 (disputed). κ over c2, c3: p_o = 1/2; ann gives
			// partial, supported; ben partial, unsupported: p_e = 1·1/4;
			// κ = (1/2 − 1/4) / (3/4) = 1/3.
			name: "two reviewers",
			claims: []reviewedClaim{
				{Key: "t/c1", Reviews: []comparedReview{r("ann", "supported", "supported")}},
				{Key: "t/c2", Reviews: []comparedReview{r("ann", "partial", "partial"), r("ben", "partial", "partial")}},
				{Key: "t/c3", Reviews: []comparedReview{r("ben", "unsupported", "supported"), r("ann", "supported", "supported")}},
				{Key: "t/c4", Reviews: []comparedReview{r("ben", "false", "")}},
			},
			want: Agreement{ClaimsReviewed: 4, Reviews: 6, Reviewers: []string{"ann", "ben"}, Compared: 5, Agreed: 4, Rate: ptr(0.8),
				Confusion:     map[string]map[string]int{"supported": {"supported": 2}, "partial": {"partial": 2}, "unsupported": {"supported": 1}},
				MultiReviewed: 2, Unanimous: 1, Disputed: 1, InterReviewer: ptr(0.5), Kappa: ptr(1.0 / 3), KappaReviewers: []string{"ann", "ben"}},
		},
		{
			// ann s s u u, ben s u u u: p_o = 3/4, p_e = (2·1 + 2·3)/16 = 1/2,
			// κ = 1/2.
			name: "kappa one half",
			claims: []reviewedClaim{
				{Key: "a/c1", Reviews: []comparedReview{r("ann", "supported", "supported"), r("ben", "supported", "supported")}},
				{Key: "a/c2", Reviews: []comparedReview{r("ann", "supported", "supported"), r("ben", "unsupported", "supported")}},
				{Key: "b/c1", Reviews: []comparedReview{r("ann", "unsupported", "partial"), r("ben", "unsupported", "partial")}},
				{Key: "b/c2", Reviews: []comparedReview{r("ann", "unsupported", "unknown"), r("ben", "unsupported", "unknown")}},
			},
			want: Agreement{ClaimsReviewed: 4, Reviews: 8, Reviewers: []string{"ann", "ben"}, Compared: 8, Agreed: 3, Rate: ptr(3.0 / 8),
				Confusion:     map[string]map[string]int{"supported": {"supported": 3}, "unsupported": {"supported": 1, "partial": 2, "unknown": 2}},
				MultiReviewed: 4, Unanimous: 3, Disputed: 1, InterReviewer: ptr(0.75), Kappa: ptr(0.5), KappaReviewers: []string{"ann", "ben"}},
		},
		{
			// Both always say supported: chance agreement is certain, κ is
			// undefined.
			name: "kappa undefined",
			claims: []reviewedClaim{
				{Key: "t/c1", Reviews: []comparedReview{r("ann", "supported", "supported"), r("ben", "supported", "supported")}},
				{Key: "t/c2", Reviews: []comparedReview{r("ann", "supported", "partial"), r("ben", "supported", "partial")}},
			},
			want: Agreement{ClaimsReviewed: 2, Reviews: 4, Reviewers: []string{"ann", "ben"}, Compared: 4, Agreed: 2, Rate: ptr(0.5),
				Confusion:     map[string]map[string]int{"supported": {"supported": 2, "partial": 2}},
				MultiReviewed: 2, Unanimous: 2, InterReviewer: ptr(1), KappaReviewers: []string{"ann", "ben"}},
		},
		{
			// Three reviewers on the shared claims: no κ. 2–1 is a majority.
			name: "three reviewers",
			claims: []reviewedClaim{
				{Key: "t/c1", Reviews: []comparedReview{r("ann", "true", "true"), r("ben", "true", "true"), r("cy", "false", "true")}},
				{Key: "t/c2", Reviews: []comparedReview{r("ann", "partial", "partial"), r("cy", "partial", "partial")}},
			},
			want: Agreement{ClaimsReviewed: 2, Reviews: 5, Reviewers: []string{"ann", "ben", "cy"}, Compared: 5, Agreed: 4, Rate: ptr(0.8),
				Confusion:     map[string]map[string]int{"true": {"true": 2}, "false": {"true": 1}, "partial": {"partial": 2}},
				MultiReviewed: 2, Unanimous: 1, InterReviewer: ptr(0.5)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, agreement(tt.claims), approx); diff != "" {
				t.Errorf("agreement (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAgreementCells(t *testing.T) {
	a := Agreement{Confusion: map[string]map[string]int{"true": {"undecided": 1}, "unsupported": {"supported": 2, "partial": 1}, "supported": {"supported": 4}}}
	want := []confusionCell{{"supported", "supported", 4}, {"unsupported", "supported", 2}, {"unsupported", "partial", 1}, {"true", "undecided", 1}}
	if diff := cmp.Diff(want, a.Cells()); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

// TestPipelineLabel checks what a review is compared with.
func TestPipelineLabel(t *testing.T) {
	cited := eval.ClaimResult{Cited: true, Citations: []string{"u1", "u2", "u3"}, Verdicts: []claimtrace.Verdict{{URL: "u1", Label: claimtrace.Unsupported}, {URL: "u2", Label: claimtrace.Partial}}}
	uncited := eval.ClaimResult{Fact: &claimtrace.Fact{Label: claimtrace.FactFalse}}
	tests := []struct {
		c    eval.ClaimResult
		url  string
		want string
	}{
		{cited, "", "partial"}, // the claim's status: its best verdict
		{cited, "u1", "unsupported"},
		{cited, "u2", "partial"},
		{cited, "u3", "unknown"}, // cited, not judged
		{uncited, "", "false"},
		{eval.ClaimResult{}, "", ""}, // not fact-checked: nothing to compare with
	}
	for _, tt := range tests {
		if got := pipelineLabel(tt.c, tt.url); got != tt.want {
			t.Errorf("pipelineLabel(%+v, %q) = %q, want %q", tt.c, tt.url, got, tt.want)
		}
	}
}

func TestRunAgreementPoolsReports(t *testing.T) {
	res := func(task string) *eval.Result {
		return &eval.Result{Task: task, Claims: []eval.ClaimResult{
			{ID: "c1", Cited: true, Verdicts: []claimtrace.Verdict{{URL: "u", Label: claimtrace.Supported}}},
			{ID: "c2", Fact: &claimtrace.Fact{Label: claimtrace.FactTrue}},
		}}
	}
	reports := []reviewedReport{
		{loaded: &loaded{Task: "a", Res: res("a")}, Reviews: map[string][]Review{
			"c1": {{Reviewer: "ann", Label: "supported"}, {Reviewer: "ben", Label: "supported"}},
			"c2": {{Reviewer: "ann", Label: "false"}},
		}},
		{loaded: &loaded{Task: "b", Res: res("b")}, Reviews: map[string][]Review{
			"c1": {{Reviewer: "ann", Label: "partial"}, {Reviewer: "ben", Label: "unsupported"}},
		}},
	}
	all, by := runAgreement(reports)
	// Pooled: a/c1, a/c2, b/c1 are three claims; 2 of 5 reviews agree; κ
	// over a/c1 and b/c1: p_o = 1/2, ann s p, ben s u: p_e = 1/4, κ = 1/3.
	want := Agreement{ClaimsReviewed: 3, Reviews: 5, Reviewers: []string{"ann", "ben"}, Compared: 5, Agreed: 2, Rate: ptr(0.4),
		Confusion:     map[string]map[string]int{"supported": {"supported": 2}, "false": {"true": 1}, "partial": {"supported": 1}, "unsupported": {"supported": 1}},
		MultiReviewed: 2, Unanimous: 1, Disputed: 1, InterReviewer: ptr(0.5), Kappa: ptr(1.0 / 3), KappaReviewers: []string{"ann", "ben"}}
	if diff := cmp.Diff(want, all, approx); diff != "" {
		t.Errorf("pooled (-want +got):\n%s", diff)
	}
	if a, b := by["a"], by["b"]; a.ClaimsReviewed != 2 || *a.Rate != 2.0/3 || b.ClaimsReviewed != 1 || *b.Rate != 0 {
		t.Errorf("by report: a %+v, b %+v", a, b)
	}
}

// demoReviews posts reviews of the demo report whose figures are worked
// out by hand in TestReviewAgreementAPI.
func demoReviews(t *testing.T, f *fixture) {
	t.Helper()
	for _, rv := range []map[string]string{
		{"claim": "c3", "reviewer": "alice", "label": "supported"},                                               // pipeline supported
		{"claim": "c3", "reviewer": "bob", "label": "contradicted"},                                              // pipeline supported
		{"claim": "c2", "reviewer": "alice", "label": "partial", "url": "https://arxiv.org/abs/2005.11401"},      // verdict partial
		{"claim": "c2", "reviewer": "bob", "label": "partial"},                                                   // pipeline partial
		{"claim": "c8", "reviewer": "alice", "label": "unknown"},                                                 // pipeline unknown, no evidence
		{"claim": "c1", "reviewer": "alice", "label": "true"},                                                    // not fact-checked
		{"claim": "c27", "reviewer": "bob", "label": "false"},                                                    // fact undecided
		{"claim": "c5", "reviewer": "carol", "label": "contradicted", "url": "https://arxiv.org/abs/2004.04906"}, // verdict supported
	} {
		f.postReview(t, rv)
	}
}

// TestReviewAgreementAPI checks the figures of the audit, reports and
// reviews endpoints and of the pages against a hand count. Reviews: c2
// alice partial (url), bob partial; c3 alice supported, bob contradicted;
// c5 carol contradicted (url); c8 alice unknown; c1 alice true; c27 bob
// false. Compared: all but c1 (no fact label): 7, agreeing: c2 ×2, c3
// alice, c8: 4. Twice reviewed: c2 (unanimous), c3 (split, disputed). κ
// between alice and bob over c2, c3: p_o = 1/2; alice partial, supported,
// bob partial, contradicted: p_e = 1/4; κ = 1/3.
func TestReviewAgreementAPI(t *testing.T) {
	f := demoFixture(t, testToken)
	demoReviews(t, f)
	want := Agreement{ClaimsReviewed: 6, Reviews: 8, Reviewers: []string{"alice", "bob", "carol"}, Compared: 7, Agreed: 4, Rate: ptr(4.0 / 7),
		Confusion: map[string]map[string]int{"supported": {"supported": 1}, "contradicted": {"supported": 2}, "partial": {"partial": 2},
			"unknown": {"unknown": 1}, "false": {"undecided": 1}},
		MultiReviewed: 2, Unanimous: 1, Disputed: 1, InterReviewer: ptr(0.5), Kappa: ptr(1.0 / 3), KappaReviewers: []string{"alice", "bob"}}

	code, body, _ := f.get(t, f.apiPath()+"/audit")
	if code != http.StatusOK {
		t.Fatalf("GET audit: %d %s", code, body)
	}
	audit := decode[AuditResponse](t, body)
	if diff := cmp.Diff(want, audit.Agreement, approx); diff != "" {
		t.Errorf("audit agreement (-want +got):\n%s", diff)
	}
	if len(audit.Reviews) != 8 || audit.Reviews[0].Claim != "c1" || audit.Reviews[0].Reviewer != "alice" {
		t.Errorf("audit reviews = %+v", audit.Reviews)
	}

	code, body, _ = f.get(t, "/api/runs/"+f.run+"/reviews")
	if code != http.StatusOK {
		t.Fatalf("GET run reviews: %d %s", code, body)
	}
	rr := decode[ReviewsResponse](t, body)
	if diff := cmp.Diff(want, rr.Agreement, approx); diff != "" {
		t.Errorf("run agreement (-want +got):\n%s", diff)
	}
	if rr.Run != f.run || len(rr.Reports) != 1 || rr.Reports[0].Task != f.task || len(rr.Reports[0].Reviews) != 8 || rr.Reports[0].ReportSHA256 == "" {
		t.Errorf("run reviews = %+v", rr)
	} else if diff := cmp.Diff(want, rr.Reports[0].Agreement, approx); diff != "" {
		t.Errorf("report agreement (-want +got):\n%s", diff)
	}

	code, body, _ = f.get(t, "/api/runs/"+f.run+"/reports")
	if code != http.StatusOK {
		t.Fatalf("GET reports: %d %s", code, body)
	}
	reports := decode[ReportsResponse](t, body)
	if diff := cmp.Diff(want, reports.Agreement, approx); diff != "" {
		t.Errorf("reports agreement (-want +got):\n%s", diff)
	}
	if l := reports.Reports[0]; l.ClaimsReviewed != 6 || l.ReviewAgreement == nil || math.Abs(*l.ReviewAgreement-4.0/7) > 1e-9 {
		t.Errorf("report line: %d claims reviewed, agreement %v", l.ClaimsReviewed, l.ReviewAgreement)
	}

	// The pages show the headline figures.
	headline := "Human review: 8 reviews of 6 claims by 3 reviewers. Agreement with the pipeline: <strong>57.1%</strong> (4 of 7 reviews compared). " +
		"Between reviewers: <strong>50.0%</strong> of 2 claims reviewed more than once unanimous, 1 disputed; Cohen's κ between alice and bob: 0.33."
	_, page, _ := f.get(t, f.reportPath())
	if !strings.Contains(page, headline) || !strings.Contains(page, `<tr><td>contradicted</td><td>supported</td><td class="num">2</td></tr>`) {
		t.Errorf("audit view lacks the agreement figures")
	}
	_, page, _ = f.get(t, "/runs/"+f.run)
	if !strings.Contains(page, headline) || !strings.Contains(page, `57.1% <span class="small">(6)</span>`) {
		t.Errorf("run page lacks the agreement figures")
	}

	// The static export shows the reviews and the figures, with no form.
	out, err := f.srv.Export(context.Background(), f.run, t.TempDir(), nil)
	if err != nil || len(out.Reports) != 1 {
		t.Fatalf("export = %+v, %v", out, err)
	}
	static, err := os.ReadFile(out.Reports[0])
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(out.Index)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(static), headline) || !strings.Contains(string(index), headline) ||
		!strings.Contains(string(static), `<li class="review-item" data-reviewer="carol" data-label="contradicted"`) || strings.Contains(string(static), "<form") {
		t.Errorf("the static export does not show the reviews as it should")
	}

	// Unknown runs are 404s.
	for _, p := range []string{"/api/runs/nope/reviews", "/api/runs/nope/reviews.jsonl"} {
		if code, _, _ := f.get(t, p); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
}

// TestReviewPairsRoundTrip exports the demo's reviews as labelled pairs and
// reads them back with the judge's label reader.
func TestReviewPairsRoundTrip(t *testing.T) {
	f := demoFixture(t, testToken)
	ctx := context.Background()
	l, err := f.srv.loadReport(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	// Empty: no line, nothing skipped.
	code, body, hdr := f.get(t, "/api/runs/"+f.run+"/reviews.jsonl")
	if code != http.StatusOK || body != "" || hdr.Get(skippedHeader) != "0" {
		t.Errorf("no reviews: %d %q, skipped %q", code, body, hdr.Get(skippedHeader))
	}

	demoReviews(t, f)
	// c8 cites a source whose verdict quotes nothing: skipped, like the
	// unknown label above.
	f.postReview(t, map[string]string{"claim": "c8", "reviewer": "bob", "label": "supported"})
	code, body, hdr = f.get(t, "/api/runs/"+f.run+"/reviews.jsonl")
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/x-ndjson") || hdr.Get("Cache-Control") != "no-store" {
		t.Fatalf("GET reviews.jsonl: %d %q %q", code, hdr.Get("Content-Type"), hdr.Get("Cache-Control"))
	}
	// Reviews of cited claims: c2 ×2, c3 ×2, c5, c8 ×2; c8's are skipped.
	if got := hdr.Get(skippedHeader); got != "2" {
		t.Errorf("%s = %q, want 2", skippedHeader, got)
	}
	pairs, err := labels.Read(strings.NewReader(body), "reviews.jsonl")
	if err != nil {
		t.Fatalf("the label reader refuses the export: %v\n%s", err, body)
	}
	claim := func(id string) eval.ClaimResult {
		for _, c := range l.Res.Claims {
			if c.ID == id {
				return c
			}
		}
		t.Fatalf("no claim %s", id)
		return eval.ClaimResult{}
	}
	pair := func(line int, id, reviewer string, label claimtrace.Label) labels.Pair {
		c := claim(id)
		return labels.Pair{ID: "review:" + f.run + "/" + f.task + "/" + id + "/" + reviewer, Dataset: reviewsDataset, Claim: c.Text,
			Evidence: c.Verdicts[0].Evidence, Label: label, Format: labels.FormatPlain, Line: line}
	}
	want := []labels.Pair{
		pair(1, "c2", "alice", claimtrace.Partial),
		pair(2, "c2", "bob", claimtrace.Partial),
		pair(3, "c3", "alice", claimtrace.Supported),
		pair(4, "c3", "bob", claimtrace.Contradicted),
		pair(5, "c5", "carol", claimtrace.Contradicted),
	}
	if diff := cmp.Diff(want, pairs); diff != "" {
		t.Errorf("pairs read back (-want +got):\n%s", diff)
	}
	// The extra fields, line by line.
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	type extra struct{ Task, ClaimID, Reviewer, URL, Scope, Pipeline, Dataset string }
	var got []extra
	for _, line := range lines {
		p := decode[LabelledPair](t, line)
		if p.Run != f.run || p.ReportSHA256 != l.Res.SHA256 || p.At.IsZero() {
			t.Errorf("line %s: run, sha or time missing", line)
		}
		got = append(got, extra{p.Task, p.ClaimID, p.Reviewer, p.URL, p.Scope, p.PipelineLabel, p.SourceDataset})
	}
	u2, u5 := "https://arxiv.org/abs/2005.11401", "https://arxiv.org/abs/2004.04906"
	wantExtra := []extra{
		{f.task, "c2", "alice", u2, "source", "partial", reviewsDataset},
		{f.task, "c2", "bob", u2, "claim", "partial", reviewsDataset},
		{f.task, "c3", "alice", u2, "claim", "supported", reviewsDataset},
		{f.task, "c3", "bob", u2, "claim", "supported", reviewsDataset},
		{f.task, "c5", "carol", u5, "source", "supported", reviewsDataset},
	}
	if diff := cmp.Diff(wantExtra, got); diff != "" {
		t.Errorf("extra fields (-want +got):\n%s", diff)
	}
}
