package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Unit kinds the server writes into a run, beside the pipeline's.
const (
	// UnitAuditTime holds the seconds one reading session spent on one
	// claim; key "<task>/<claim>/<session>".
	UnitAuditTime = "audit_time"
	// UnitReview held one reviewer's latest verdict on one claim (key
	// "<task>/<claim>/<reviewer>"; before reviews named their reviewer,
	// "<task>/<claim>", read as reviewer "anonymous") until reviews kept
	// their history in the store's reviews table. Such units are still
	// read, as the first version of their reviewer's review; none is
	// written.
	UnitReview = "review"
)

// Limits of the write API.
const (
	maxBody        = 64 << 10
	maxNote        = 4000
	maxTimingBatch = 2000
	// maxClaimSeconds caps one session's time on one claim: a day.
	maxClaimSeconds = 24 * 60 * 60
)

// Timing is the time one reading session spent on one claim of a report:
// seconds while the claim was selected, the page visible and focused and
// the reader active. ReportSHA256 ties it to the report text it was
// measured on.
type Timing struct {
	Task         string    `json:"task"`
	Claim        string    `json:"claim"`
	Session      string    `json:"session"`
	Seconds      float64   `json:"seconds"`
	ReportSHA256 string    `json:"report_sha256"`
	Updated      time.Time `json:"updated"`
}

// AuditEffort is the empirical AEff of a report (AAR): the mean over the
// claims audited of T_c, the minutes spent verifying claim c, summed over
// reading sessions.
type AuditEffort struct {
	ClaimsAudited   int                `json:"claims_audited"`
	Sessions        int                `json:"sessions"`
	Seconds         float64            `json:"seconds"`
	MinutesPerClaim *float64           `json:"minutes_per_claim"`
	PerClaim        map[string]float64 `json:"per_claim_seconds"`
}

// effort aggregates timings into the empirical AEff.
func effort(ts []Timing) AuditEffort {
	a := AuditEffort{PerClaim: map[string]float64{}}
	sessions := map[string]bool{}
	for _, t := range ts {
		if t.Seconds <= 0 {
			continue
		}
		a.PerClaim[t.Claim] += t.Seconds
		a.Seconds += t.Seconds
		sessions[t.Session] = true
	}
	a.ClaimsAudited, a.Sessions = len(a.PerClaim), len(sessions)
	if a.ClaimsAudited > 0 {
		m := a.Seconds / 60 / float64(a.ClaimsAudited)
		a.MinutesPerClaim = &m
	}
	return a
}

// loadAudit loads a report with the timings and reviews stored for its
// current text: what every audit page, panel and export shows.
func (s *Server) loadAudit(ctx context.Context, run, task string) (*loaded, []Timing, map[string][]Review, error) {
	l, err := s.loadReport(ctx, run, task)
	if err != nil {
		return nil, nil, nil, err
	}
	ts, reviews, err := s.auditRecords(ctx, run, l.Res)
	if err != nil {
		return nil, nil, nil, err
	}
	return l, ts, reviews, nil
}

// auditRecords returns the timings and reviews stored for a report,
// keeping only those measured on its current text (sha256). Reviews are
// by claim id, each reviewer's latest once (see currentReviews).
func (s *Server) auditRecords(ctx context.Context, run string, res *eval.Result) ([]Timing, map[string][]Review, error) {
	tus, err := s.st.Units(ctx, run, UnitAuditTime)
	if err != nil {
		return nil, nil, err
	}
	prefix := res.Task + "/"
	var ts []Timing
	for _, u := range tus {
		var t Timing
		if !strings.HasPrefix(u.Key, prefix) || json.Unmarshal(u.Data, &t) != nil || t.Task != res.Task || t.ReportSHA256 != res.SHA256 {
			continue
		}
		ts = append(ts, t)
	}
	rvs, err := s.reviewsOf(ctx, run, res.Task)
	if err != nil {
		return nil, nil, err
	}
	return ts, currentReviews(res, rvs), nil
}

// runEffort returns the timings stored in a run, by task; callers keep
// those measured on each report's current text.
func (s *Server) runEffort(ctx context.Context, run string) (map[string][]Timing, error) {
	tus, err := s.st.Units(ctx, run, UnitAuditTime)
	if err != nil {
		return nil, err
	}
	out := map[string][]Timing{}
	for _, u := range tus {
		var t Timing
		if json.Unmarshal(u.Data, &t) == nil && t.Task != "" {
			out[t.Task] = append(out[t.Task], t)
		}
	}
	return out, nil
}

// timingPost is the body of POST …/timings: the cumulative seconds a
// session spent on each claim. An empty list checks the token.
type timingPost struct {
	Session string        `json:"session"`
	Claims  []claimSecond `json:"claims"`
}

type claimSecond struct {
	Claim   string  `json:"claim"`
	Seconds float64 `json:"seconds"`
}

// checkSession validates a reading session id: 8 to 64 ASCII letters,
// digits, '-' or '_' (the page makes a random UUID).
func checkSession(v string) error {
	ok := len(v) >= 8 && len(v) <= 64
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
	}
	if !ok {
		return fmt.Errorf("session %q: want 8 to 64 letters, digits, - or _: %w", clip(v, 80), claimtrace.ErrInvalid)
	}
	return nil
}

// putTimings stores a session's cumulative seconds per claim. Seconds only
// grow: a late, smaller total from a reordered request is ignored.
func (s *Server) putTimings(ctx context.Context, run string, res *eval.Result, p timingPost) error {
	if len(p.Claims) == 0 {
		return nil
	}
	if err := checkSession(p.Session); err != nil {
		return err
	}
	if len(p.Claims) > maxTimingBatch {
		return fmt.Errorf("timings: %d claims in one request, at most %d: %w", len(p.Claims), maxTimingBatch, claimtrace.ErrInvalid)
	}
	ids := claimIDs(res)
	for _, c := range p.Claims {
		if err := checkClaimID(c.Claim); err != nil {
			return err
		}
		if !ids[c.Claim] {
			return fmt.Errorf("timings: report %q has no claim %q: %w", res.Task, c.Claim, claimtrace.ErrInvalid)
		}
		if math.IsNaN(c.Seconds) || c.Seconds < 0 || c.Seconds > maxClaimSeconds {
			return fmt.Errorf("timings: claim %s: %v seconds, want 0 to %d: %w", c.Claim, c.Seconds, maxClaimSeconds, claimtrace.ErrInvalid)
		}
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	for _, c := range p.Claims {
		key := res.Task + "/" + c.Claim + "/" + p.Session
		t := Timing{Task: res.Task, Claim: c.Claim, Session: p.Session, Seconds: c.Seconds, ReportSHA256: res.SHA256, Updated: s.now()}
		u, ok, err := s.st.GetUnit(ctx, run, UnitAuditTime, key)
		if err != nil {
			return err
		}
		var old Timing
		if ok && json.Unmarshal(u.Data, &old) == nil && old.ReportSHA256 == t.ReportSHA256 && old.Seconds >= t.Seconds {
			continue
		}
		data, err := json.Marshal(t)
		if err != nil {
			return err
		}
		if err := s.st.PutUnit(ctx, store.Unit{Run: run, Kind: UnitAuditTime, Key: key, Status: store.StatusDone, Data: data}); err != nil {
			return err
		}
	}
	return nil
}

func claimIDs(res *eval.Result) map[string]bool {
	ids := make(map[string]bool, len(res.Claims))
	for _, c := range res.Claims {
		ids[c.ID] = true
	}
	return ids
}

// bodyShape describes the JSON body an endpoint takes, for its errors:
// a client that sent a form, or a field that does not exist, is told what
// to send.
type bodyShape struct {
	// Fields lists the fields, with what each holds.
	Fields string
	// Example is a body that works.
	Example string
	// Hints maps a field name people try to the field they mean.
	Hints map[string]string
}

// Bodies of the write API.
var (
	timingBody = bodyShape{Fields: `session (8 to 64 letters, digits, - or _), claims (a list of {"claim": ID, "seconds": N})`,
		Example: `{"session": "s-0001-abcd", "claims": [{"claim": "c1", "seconds": 12.5}]}`}
	reviewBody = bodyShape{Fields: "claim (required: a claim id such as c12), label (required: supported, partial, unsupported, contradicted or unknown for a cited claim; true, false or undecided for a non-cited one), reviewer (your name; a reviewer's own token sets it), note (text), url (one of the claim's citations, when the review is about that source)",
		Example: `{"claim": "c1", "label": "supported", "note": "the abstract says so"}`,
		Hints:   map[string]string{"verdict": "label", "status": "label", "claim_id": "claim", "id": "claim", "comment": "note", "name": "reviewer", "source": "url"}}
)

// unknownField reads the field name out of encoding/json's error.
var unknownField = lazyregexp.New(`^json: unknown field "(.*)"$`)

// decodeBody reads a JSON request body of at most maxBody bytes into v,
// refusing other media types, unknown fields and trailing data; errors
// name the fields shape describes.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, shape bodyShape) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return fmt.Errorf("request body: Content-Type %q, want application/json: send a JSON object such as %s (header Content-Type: application/json); fields: %s: %w",
			clip(r.Header.Get("Content-Type"), 80), shape.Example, shape.Fields, errMediaType)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if statusOf(err) == http.StatusRequestEntityTooLarge {
			return fmt.Errorf("request body: over %d bytes: %w", maxBody, err)
		}
		if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
			hint := ""
			if to, ok := shape.Hints[m[1]]; ok {
				hint = fmt.Sprintf(" (%q goes in %q)", m[1], to)
			}
			return fmt.Errorf("request body: unknown field %q%s; the fields are %s; example: %s: %w", clip(m[1], 40), hint, shape.Fields, shape.Example, claimtrace.ErrInvalid)
		}
		return fmt.Errorf("request body: %v; example: %s: %w", err, shape.Example, claimtrace.ErrInvalid)
	}
	if dec.More() {
		return fmt.Errorf("request body: data after the JSON object: %w", claimtrace.ErrInvalid)
	}
	return nil
}
