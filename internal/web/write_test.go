package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store"
)

func TestWritesNeedTheToken(t *testing.T) {
	ro := demoFixture(t, "")
	rw := demoFixture(t, testToken)
	const ok = `{"session": "session-0001", "claims": [{"claim": "c3", "seconds": 12}]}`
	tests := []struct {
		name   string
		f      *fixture
		header string // the Authorization header, verbatim
		code   int
		want   string
	}{
		{"read-only server", ro, "Bearer " + testToken, http.StatusForbidden, "read-only server"},
		{"no header", rw, "", http.StatusUnauthorized, "no bearer token"},
		{"wrong token", rw, "Bearer " + testToken + "x", http.StatusUnauthorized, "wrong token"},
		{"token prefix", rw, "Bearer " + testToken[:MinTokenBytes], http.StatusUnauthorized, "wrong token"},
		{"basic scheme", rw, "Basic " + testToken, http.StatusUnauthorized, "no bearer token"},
		{"token alone", rw, testToken, http.StatusUnauthorized, "no bearer token"},
		{"right token", rw, "Bearer " + testToken, http.StatusOK, `"claims_audited": 1`},
		{"scheme in lower case", rw, "bearer " + testToken, http.StatusOK, `"claims_audited": 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/timings", "/reviews"} {
				body := ok
				if path == "/reviews" {
					body = `{"claim": "c3", "label": "partial"}`
					tt.want = strings.ReplaceAll(tt.want, `"claims_audited": 1`, `"label": "partial"`)
				}
				req, _ := http.NewRequest(http.MethodPost, tt.f.ts.URL+tt.f.apiPath()+path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if tt.header != "" {
					req.Header.Set("Authorization", tt.header)
				}
				resp, err := tt.f.ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got := readAll(t, resp)
				code := resp.StatusCode
				if tt.code == http.StatusOK && path == "/reviews" {
					tt.code = http.StatusCreated
				}
				if code != tt.code || !strings.Contains(got, tt.want) {
					t.Errorf("POST %s: %d %s, want %d with %q", path, code, got, tt.code, tt.want)
				}
				if code == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("401 without WWW-Authenticate")
				}
				if strings.Contains(got, testToken) {
					t.Errorf("the response shows the token")
				}
			}
		})
	}
	// Nothing was stored by refused requests on the read-only server.
	units, err := ro.st.Units(context.Background(), ro.run, UnitAuditTime)
	if err != nil || len(units) != 0 {
		t.Errorf("read-only server stored %d timing units (%v)", len(units), err)
	}
}

func TestTimingsMakeTheEmpiricalAEff(t *testing.T) {
	f := demoFixture(t, testToken)
	ctx := context.Background()
	post := func(body string) AuditResponse {
		t.Helper()
		code, resp := f.post(t, f.apiPath()+"/timings", testToken, body)
		if code != http.StatusOK {
			t.Fatalf("POST timings %s: %d %s", body, code, resp)
		}
		return decode[AuditResponse](t, resp)
	}
	post(`{"session": "s-one-0001", "claims": [{"claim": "c3", "seconds": 90}, {"claim": "c4", "seconds": 30}]}`)
	// A late, smaller cumulative total does not lower the stored one.
	got := post(`{"session": "s-one-0001", "claims": [{"claim": "c3", "seconds": 60}]}`)
	if m := got.Effort.MinutesPerClaim; m == nil || *m != 1 || got.Effort.ClaimsAudited != 2 || got.Effort.Sessions != 1 {
		t.Errorf("after one session: %+v; want 2 claims, 1 minute per claim", got.Effort)
	}
	// A second session adds to c3: T_c3 = 90 + 30 s, T_c4 = 30 s.
	got = post(`{"session": "s-two-0002", "claims": [{"claim": "c3", "seconds": 30}]}`)
	want := AuditEffort{ClaimsAudited: 2, Sessions: 2, Seconds: 150, PerClaim: map[string]float64{"c3": 120, "c4": 30}}
	m := 1.25
	want.MinutesPerClaim = &m
	if diff := cmp.Diff(want, got.Effort); diff != "" {
		t.Errorf("effort (-want +got):\n%s", diff)
	}
	// Stored as units of the run, one per (claim, session).
	u, found, err := f.st.GetUnit(ctx, f.run, UnitAuditTime, f.task+"/c3/s-one-0001")
	if err != nil || !found {
		t.Fatalf("timing unit: found %v, %v", found, err)
	}
	var tm Timing
	if err := json.Unmarshal(u.Data, &tm); err != nil || tm.Seconds != 90 || tm.ReportSHA256 == "" {
		t.Errorf("stored timing %+v (%v); want 90 s on the report's sha256", tm, err)
	}
	// The pages show it.
	_, page, _ := f.get(t, f.reportPath())
	if !strings.Contains(page, "1.25 minutes per claim audited") || !strings.Contains(page, "2 claims of 31 audited, 2 sessions, 2 min 30 s in all") {
		t.Errorf("audit view does not show the empirical AEff")
	}
	_, page, _ = f.get(t, "/runs/"+f.run)
	if !strings.Contains(page, "1.25 minutes per claim audited") || !strings.Contains(page, `1.25 <span class="small">(2)</span>`) {
		t.Errorf("run page does not show the empirical AEff")
	}
	_, panel, _ := f.get(t, f.reportPath()+"/claims/c3")
	if !strings.Contains(panel, "2 min 00 s stored") {
		t.Errorf("claim panel does not show the stored time on c3")
	}
	// An empty list only checks the token.
	if got := post(`{"session": "", "claims": []}`); got.Effort.ClaimsAudited != 2 {
		t.Errorf("token check changed the effort: %+v", got.Effort)
	}

	bad := []struct {
		name, body string
		code       int
		want       string
	}{
		{"unknown claim", `{"session": "s-one-0001", "claims": [{"claim": "c999", "seconds": 1}]}`, http.StatusBadRequest, `has no claim \"c999\"`},
		{"bad claim id", `{"session": "s-one-0001", "claims": [{"claim": "<c1>", "seconds": 1}]}`, http.StatusBadRequest, "claim id"},
		{"negative seconds", `{"session": "s-one-0001", "claims": [{"claim": "c3", "seconds": -1}]}`, http.StatusBadRequest, "want 0 to 86400"},
		{"more than a day", `{"session": "s-one-0001", "claims": [{"claim": "c3", "seconds": 90000}]}`, http.StatusBadRequest, "want 0 to 86400"},
		{"short session", `{"session": "s1", "claims": [{"claim": "c3", "seconds": 1}]}`, http.StatusBadRequest, "session"},
		{"session with a slash", `{"session": "s-one/0001", "claims": [{"claim": "c3", "seconds": 1}]}`, http.StatusBadRequest, "session"},
		{"unknown field", `{"session": "s-one-0001", "claims": [], "admin": true}`, http.StatusBadRequest, "unknown field"},
		{"not JSON", `seconds=5`, http.StatusBadRequest, "request body"},
		{"trailing data", `{"session": "s-one-0001", "claims": []} {}`, http.StatusBadRequest, "data after"},
		{"too large", `{"session": "` + strings.Repeat("x", maxBody) + `"}`, http.StatusRequestEntityTooLarge, "over 65536 bytes"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			code, resp := f.post(t, f.apiPath()+"/timings", testToken, tt.body)
			if code != tt.code || !strings.Contains(resp, tt.want) {
				t.Errorf("%d %s, want %d with %q", code, resp, tt.code, tt.want)
			}
		})
	}
	// Form posts are refused: the API takes JSON only.
	req, _ := http.NewRequest(http.MethodPost, f.ts.URL+f.apiPath()+"/timings", strings.NewReader("session=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("form post: %d, want 415", resp.StatusCode)
	}
	// Nothing bad was stored.
	units, err := f.st.Units(ctx, f.run, UnitAuditTime)
	if err != nil || len(units) != 3 {
		t.Errorf("%d timing units stored (%v), want 3", len(units), err)
	}
}

func TestReviewsOverrideTheShownStatus(t *testing.T) {
	f := demoFixture(t, testToken)
	ctx := context.Background()
	for _, tt := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"fact label on a cited claim", `{"claim": "c3", "label": "true"}`, http.StatusBadRequest, "claim c3 is cited"},
		{"verdict label on an uncited claim", `{"claim": "c1", "label": "supported"}`, http.StatusBadRequest, "claim c1 is not cited"},
		{"unknown label", `{"claim": "c3", "label": "great"}`, http.StatusBadRequest, "want one of supported, partial"},
		{"a source the claim does not cite", `{"claim": "c3", "label": "partial", "url": "https://example.org/x"}`, http.StatusBadRequest, "does not cite"},
		{"unknown claim", `{"claim": "c0", "label": "partial"}`, http.StatusBadRequest, "has no claim"},
		{"long note", `{"claim": "c3", "label": "partial", "note": "` + strings.Repeat("n", maxNote+1) + `"}`, http.StatusBadRequest, "note of 4001 bytes"},
		{"cited", `{"claim": "c3", "label": "contradicted", "note": "The paper reports a different result.", "url": "https://arxiv.org/abs/2005.11401"}`, http.StatusCreated, `"label": "contradicted"`},
		{"uncited", `{"claim": "c1", "label": "true"}`, http.StatusCreated, `"label": "true"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, resp := f.post(t, f.apiPath()+"/reviews", testToken, tt.body)
			if code != tt.code || !strings.Contains(resp, tt.want) {
				t.Errorf("%d %s, want %d with %q", code, resp, tt.code, tt.want)
			}
		})
	}
	_, page, _ := f.get(t, f.reportPath())
	classes := claimClasses(page)
	if classes["c3"] != "claim st-contradicted reviewed" || classes["c1"] != "claim st-supported reviewed" || classes["c2"] != "claim st-partial" {
		t.Errorf("classes c1 %q, c3 %q, c2 %q; want the reviews shown, c2 untouched", classes["c1"], classes["c3"], classes["c2"])
	}
	_, panel, _ := f.get(t, f.reportPath()+"/claims/c3")
	for _, s := range []string{"Reviewed <span class=\"badge st-contradicted\">contradicted</span>", "the pipeline said: supported", "The paper reports a different result.",
		`<li class="review-item" data-reviewer="anonymous" data-label="contradicted" data-url="https://arxiv.org/abs/2005.11401">`} {
		if !strings.Contains(panel, s) {
			t.Errorf("panel lacks %q", s)
		}
	}
	code, body, _ := f.get(t, f.apiPath()+"/audit")
	audit := decode[AuditResponse](t, body)
	if code != http.StatusOK || len(audit.Reviews) != 2 || audit.Reviews[0].Claim != "c1" || audit.Reviews[1].Note != "The paper reports a different result." {
		t.Errorf("audit reviews = %+v", audit.Reviews)
	}
	// A review made on another text of the report (a rerun changed it) is
	// not shown against this one.
	stale, _ := json.Marshal(Review{Task: f.task, Claim: "c2", Label: "unsupported", ReportSHA256: "0123"})
	if err := f.st.PutUnit(ctx, store.Unit{Run: f.run, Kind: UnitReview, Key: f.task + "/c2", Status: store.StatusDone, Data: stale}); err != nil {
		t.Fatal(err)
	}
	_, page, _ = f.get(t, f.reportPath())
	if c := claimClasses(page)["c2"]; c != "claim st-partial" {
		t.Errorf("stale review shown: c2 %q", c)
	}
}

func TestStatusTable(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{fmt.Errorf("report x: %w", claimtrace.ErrNotFound), http.StatusNotFound},
		{fmt.Errorf("claim id: %w", claimtrace.ErrInvalid), http.StatusBadRequest},
		{fmt.Errorf("big: %w", claimtrace.ErrTooLarge), http.StatusRequestEntityTooLarge},
		{&http.MaxBytesError{Limit: 1}, http.StatusRequestEntityTooLarge},
		{fmt.Errorf("write: %w", errUnauthorized), http.StatusUnauthorized},
		{errReadOnly, http.StatusForbidden},
		{fmt.Errorf("body: %w", errMediaType), http.StatusUnsupportedMediaType},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), http.StatusServiceUnavailable},
		{errors.New("disk on fire"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		if got := statusOf(tt.err); got != tt.want {
			t.Errorf("statusOf(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestNewRefusesAShortToken(t *testing.T) {
	st := openStore(t, t.TempDir())
	_, err := New(Options{Store: st, Token: "short"})
	if !errors.Is(err, claimtrace.ErrInvalid) || strings.Contains(err.Error(), "short") {
		t.Errorf("New with a 5-byte token: %v; want ErrInvalid not quoting the token", err)
	}
	if _, err := New(Options{}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("New without a store: %v", err)
	}
}
