package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

const (
	aliceToken = "alice-token-0123456789abcdef"
	bobToken   = "bob-token-0123456789abcdef00"
)

// withReviewers serves f's store again with reviewer tokens for alice and
// bob beside the server token.
func withReviewers(t *testing.T, f *fixture) *fixture {
	t.Helper()
	srv, err := New(Options{Store: f.st, Token: testToken, Reviewers: map[string]string{aliceToken: "alice", bobToken: "bob"},
		Now: func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	f.ts = httptest.NewServer(srv)
	t.Cleanup(f.ts.Close)
	return f
}

// TestReviewerCannotOverwriteAnother replays the attack: bob posts a
// review in alice's name, then the server token's holder does. Both are
// refused; the reviews bob and alice post with their own tokens are
// theirs whatever the body says; every version stays, and the history
// shows who wrote what.
func TestReviewerCannotOverwriteAnother(t *testing.T) {
	f := withReviewers(t, demoFixture(t, testToken))
	post := func(token string, body map[string]string) (int, string) {
		b, _ := json.Marshal(body)
		return f.post(t, f.apiPath()+"/reviews", token, string(b))
	}
	if code, resp := post(aliceToken, map[string]string{"claim": "c3", "label": "supported", "note": "read it twice"}); code != http.StatusCreated || decode[Review](t, resp).Reviewer != "alice" {
		t.Fatalf("alice's review: %d %s", code, resp)
	}
	for _, tc := range []struct {
		who, token string
	}{{"bob", bobToken}, {"the server token", testToken}} {
		code, resp := post(tc.token, map[string]string{"claim": "c3", "reviewer": "alice", "label": "contradicted"})
		if code != http.StatusForbidden || !strings.Contains(resp, "alice") {
			t.Errorf("%s posting as alice: %d %s; want 403", tc.who, code, resp)
		}
	}
	if code, resp := post(bobToken, map[string]string{"claim": "c3", "reviewer": "bob", "label": "contradicted"}); code != http.StatusCreated || decode[Review](t, resp).Reviewer != "bob" {
		t.Errorf("bob naming himself: %d %s", code, resp)
	}
	if code, resp := post("wrong-token-0123456789abcdef", map[string]string{"claim": "c3", "label": "unknown"}); code != http.StatusUnauthorized {
		t.Errorf("an unknown token: %d %s", code, resp)
	}
	// alice changes her mind; the server token posts under a name no
	// reviewer token holds.
	post(aliceToken, map[string]string{"claim": "c3", "label": "partial"})
	if code, resp := post(testToken, map[string]string{"claim": "c3", "reviewer": "dana", "label": "supported"}); code != http.StatusCreated {
		t.Errorf("the server token naming dana: %d %s", code, resp)
	}

	code, body, _ := f.get(t, f.apiPath()+"/audit")
	if code != http.StatusOK {
		t.Fatalf("GET audit: %d", code)
	}
	type row struct{ Reviewer, Label string }
	var current []row
	for _, rv := range decode[AuditResponse](t, body).Reviews {
		current = append(current, row{rv.Reviewer, rv.Label})
	}
	if diff := cmp.Diff([]row{{"alice", "partial"}, {"bob", "contradicted"}, {"dana", "supported"}}, current); diff != "" {
		t.Errorf("current reviews of c3 (-want +got):\n%s", diff)
	}

	code, body, _ = f.get(t, f.apiPath()+"/reviews")
	if code != http.StatusOK {
		t.Fatalf("GET review history: %d %s", code, body)
	}
	var history []row
	for _, rv := range decode[ReviewHistory](t, body).Reviews {
		history = append(history, row{rv.Reviewer, rv.Label})
	}
	if diff := cmp.Diff([]row{{"alice", "supported"}, {"bob", "contradicted"}, {"alice", "partial"}, {"dana", "supported"}}, history); diff != "" {
		t.Errorf("review history (-want +got):\n%s", diff)
	}

	_, panel, _ := f.get(t, f.reportPath()+"/claims/c3")
	for _, s := range []string{`data-reviewer="alice" data-label="partial"`, "1 earlier version by alice", `<li class="review-version" data-reviewer="alice" data-label="supported">`, "read it twice"} {
		if !strings.Contains(panel, s) {
			t.Errorf("c3 panel lacks %q", s)
		}
	}
}

// TestReviewerTokensAreChecked refuses reviewer tokens that are short,
// shared with the server token, or given twice to one name.
func TestReviewerTokensAreChecked(t *testing.T) {
	st := openStore(t, t.TempDir())
	for name, rs := range map[string]map[string]string{
		"short":        {"short": "alice"},
		"server token": {testToken: "alice"},
		"two for one":  {aliceToken: "alice", bobToken: "alice"},
		"anonymous":    {aliceToken: "anonymous"},
		"unprintable":  {aliceToken: "al\x07ice"},
	} {
		if _, err := New(Options{Store: st, Token: testToken, Reviewers: rs}); err == nil || !strings.Contains(err.Error(), "reviewer") || !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("%s: %v; want ErrInvalid naming the reviewer", name, err)
		}
	}
	srv, err := New(Options{Store: st, Reviewers: map[string]string{aliceToken: "alice"}})
	if err != nil || !srv.Writable() {
		t.Errorf("reviewer tokens alone: %v, writable %v", err, srv != nil && srv.Writable())
	}
}
