package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLookAlikeReviewers replays issue 23 item 3: alice, the only
// configured reviewer of a claim, says supported; the server token posts
// contradicted as "ALICE", Cyrillic "аlice", full-width "ａｌｉｃｅ" and
// "anonymous" to out-vote her. Names that look like alice's are refused;
// what the server token may still post is listed as not counted, and the
// agreement figures count alice alone. With every reviewer counted
// (CountOtherReviewers), anonymous counts, but look-alikes never do.
func TestLookAlikeReviewers(t *testing.T) {
	f := withReviewers(t, demoFixture(t, testToken))
	post := func(token, reviewer, label string) (int, string) {
		b, _ := json.Marshal(map[string]string{"claim": "c3", "reviewer": reviewer, "label": label})
		return f.post(t, f.apiPath()+"/reviews", token, string(b))
	}
	if code, resp := post(aliceToken, "", "supported"); code != http.StatusCreated {
		t.Fatalf("alice: %d %s", code, resp)
	}
	for _, name := range []string{"ALICE", "\u0430lice", "ａｌｉｃｅ", "Alice ", "ɑlice"} {
		if code, resp := post(testToken, name, "contradicted"); code != http.StatusForbidden || !strings.Contains(resp, "alice") {
			t.Errorf("the server token as %q: %d %s; want 403 naming alice", name, code, resp)
		}
	}
	for _, name := range []string{"b\u043eb2", "ΑΝΟΝΥΜΟUS"} { // mixed scripts; a Greek look-alike of anonymous
		if code, resp := post(testToken, name, "contradicted"); code != http.StatusBadRequest {
			t.Errorf("the server token as %q: %d %s; want 400", name, code, resp)
		}
	}
	// Alice's token naming herself in capitals is alice.
	if code, resp := post(aliceToken, "ALICE", "supported"); code != http.StatusCreated || decode[Review](t, resp).Reviewer != "alice" {
		t.Errorf("alice's token naming ALICE: %d %s", code, resp)
	}
	for _, name := range []string{"", "carol"} {
		if code, resp := post(testToken, name, "contradicted"); code != http.StatusCreated {
			t.Fatalf("the server token as %q: %d %s", name, code, resp)
		}
	}

	audit := func(f *fixture) AuditResponse {
		code, body, _ := f.get(t, f.apiPath()+"/audit")
		if code != http.StatusOK {
			t.Fatalf("audit: %d %s", code, body)
		}
		return decode[AuditResponse](t, body)
	}
	a := audit(f)
	var counted, listed []string
	for _, rv := range a.Reviews {
		if rv.Claim != "c3" {
			continue
		}
		listed = append(listed, rv.Reviewer)
		if !rv.NotCounted {
			counted = append(counted, rv.Reviewer)
		}
		if (rv.Reviewer == "alice") != (rv.Verified && rv.PostedWith == PostedReviewerToken) {
			t.Errorf("%s: verified %v, posted with %q", rv.Reviewer, rv.Verified, rv.PostedWith)
		}
	}
	slices.Sort(listed)
	if !slices.Equal(counted, []string{"alice"}) || !slices.Equal(listed, []string{"alice", "anonymous", "carol"}) {
		t.Errorf("reviews of c3: listed %v, counted %v; want alice, anonymous and carol listed, alice alone counted", listed, counted)
	}
	if a.Agreement.Reviewers == nil || !slices.Equal(a.Agreement.Reviewers, []string{"alice"}) || a.Agreement.NotCounted != 2 {
		t.Errorf("agreement: reviewers %v, %d not counted; want alice and 2", a.Agreement.Reviewers, a.Agreement.NotCounted)
	}

	all, err := New(Options{Store: f.st, Token: testToken, Reviewers: map[string]string{aliceToken: "alice", bobToken: "bob"}, CountOtherReviewers: true,
		Now: func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	g := *f
	g.srv = all
	g.ts = httptest.NewServer(all)
	defer g.ts.Close()
	if a := audit(&g); a.Agreement.NotCounted != 0 || !slices.Equal(a.Agreement.Reviewers, []string{"alice", "anonymous", "carol"}) {
		t.Errorf("counting others: reviewers %v, %d not counted", a.Agreement.Reviewers, a.Agreement.NotCounted)
	}
}

// TestLookAlikeNamesWithoutReviewers: with no reviewer configured every
// review counts, but names that look alike are one reviewer: the latest
// of "dana", "DANA" and "ｄａｎａ" on a claim is the current one, so one
// person cannot out-vote another under variants of one name.
func TestLookAlikeNamesWithoutReviewers(t *testing.T) {
	f := demoFixture(t, testToken)
	for i, name := range []string{"dana", "DANA", "ｄａｎａ"} {
		f.postReview(t, map[string]string{"claim": "c3", "reviewer": name, "label": []string{"supported", "partial", "contradicted"}[i]})
	}
	f.postReview(t, map[string]string{"claim": "c3", "reviewer": "eve", "label": "supported"})
	code, body, _ := f.get(t, f.apiPath()+"/audit")
	if code != http.StatusOK {
		t.Fatal(code, body)
	}
	a := decode[AuditResponse](t, body)
	var cur []string
	for _, rv := range a.Reviews {
		if rv.Claim == "c3" {
			cur = append(cur, rv.Reviewer+":"+rv.Label)
		}
	}
	slices.Sort(cur)
	if !slices.Equal(cur, []string{"eve:supported", "ｄａｎａ:contradicted"}) || a.Agreement.NotCounted != 0 {
		t.Errorf("current reviews of c3: %v (%d not counted); want dana's latest and eve's", cur, a.Agreement.NotCounted)
	}
}

// TestConfiguredReviewersMustDiffer: two configured reviewers whose names
// look alike, or one that looks like anonymous, are refused at start.
func TestConfiguredReviewersMustDiffer(t *testing.T) {
	st := openStore(t, t.TempDir())
	for _, names := range [][2]string{{"alice", "ALICE"}, {"alice", "\u0430lice"}, {"anonymous", "bob"}, {"ＡＮＯＮＹＭＯＵＳ", "bob"}} {
		_, err := New(Options{Store: st, Reviewers: map[string]string{aliceToken: names[0], bobToken: names[1]}})
		if err == nil {
			t.Errorf("reviewers %q and %q: no error", names[0], names[1])
		}
	}
}

// TestNotCountedShownInPanel: the claim panel says which reviews are not
// a configured reviewer's.
func TestNotCountedShownInPanel(t *testing.T) {
	f := withReviewers(t, demoFixture(t, testToken))
	b, _ := json.Marshal(map[string]string{"claim": "c3", "reviewer": "carol", "label": "contradicted"})
	if code, resp := f.post(t, f.apiPath()+"/reviews", testToken, string(b)); code != http.StatusCreated {
		t.Fatal(code, resp)
	}
	code, body, _ := f.get(t, f.reportPath()+"/claims/c3")
	if code != http.StatusOK || !strings.Contains(body, "carol</span> <span class=\"small not-counted\">(not posted by a configured reviewer: not counted)") {
		t.Errorf("claim panel %d does not mark carol's review as not counted:\n%.2000s", code, body)
	}
}
