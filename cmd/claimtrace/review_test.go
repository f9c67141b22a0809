package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/eval"
)

// TestReviewSampleAndEval draws a run's review sample, extends it, labels
// part of it in a file and reruns eval: the summary then carries the
// estimates and the review's progress, and review status prints them.
func TestReviewSampleAndEval(t *testing.T) {
	fx := newAnalyzeFixture(t)
	sum := readSummary(t, fx.judged)
	m := sum.Cited.MatchRatePPI
	if m == nil || m.Estimate.Estimate != nil || m.ReviewsNeeded <= 0 || m.N != sum.Cited.Judged || sum.Review != nil {
		t.Fatalf("before any sample: match_rate_ppi %+v, review %+v; want the judge's rate and a plan over %d pairs", m, sum.Review, sum.Cited.Judged)
	}
	run := sum.Run
	draw := func(args ...string) (units []eval.ReviewUnit, errOut string, code int) {
		out, errOut, code := cli(t, append([]string{"review", "sample", "--run", run, "--store", fx.store, "--json"}, args...)...)
		if code != 0 {
			return nil, errOut, code
		}
		var doc struct {
			Units []eval.ReviewUnit `json:"units"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("review sample --json: %v\n%s", err, out)
		}
		return doc.Units, errOut, code
	}
	first, errOut, code := draw("--size", "10", "--seed", "3")
	if code != 0 || len(first) != 10 {
		t.Fatalf("draw 10: exit %d, %d units: %s", code, len(first), errOut)
	}
	if again, _, _ := draw(); !sameUnits(again, first) {
		t.Errorf("review sample without flags redrew the sample: %v", again)
	}
	if _, errOut, code := draw("--size", "5"); code == 0 || !strings.Contains(errOut, "--replace") {
		t.Errorf("a smaller sample: exit %d, %q; want a refusal naming --replace", code, errOut)
	}
	if _, errOut, code := draw("--seed", "4"); code == 0 || !strings.Contains(errOut, "--replace") {
		t.Errorf("another seed: exit %d, %q; want a refusal naming --replace", code, errOut)
	}
	labelsOut := filepath.Join(t.TempDir(), "sample.jsonl")
	units, _, code := draw("--size", "15", "--out", labelsOut)
	if code != 0 || len(units) != 15 || !sameUnits(units[:10], first) {
		t.Fatalf("extended sample (exit %d): %v; want the 10 drawn before, then 5 more", code, units)
	}

	// Label the first 8 sampled units in a file, as a reviewer would: the
	// judge's own label, except two supported pairs called unsupported.
	judged := map[string]string{}
	for _, u := range units {
		res, err := eval.ReadResult(filepath.Join(fx.judged, "reports", u.Task+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Claims {
			for _, v := range c.Verdicts {
				judged[u.Task+"/"+c.ID+"/"+v.URL] = string(v.Label)
			}
		}
	}
	lines := strings.Split(strings.TrimSpace(readText(t, labelsOut)), "\n")
	var b strings.Builder
	flipped := 0
	for _, l := range lines[:8] {
		var u struct{ ID, Kind string }
		if err := json.Unmarshal([]byte(l), &u); err != nil || u.Kind != eval.ReviewPair {
			t.Fatalf("sample line %s: %v", l, err)
		}
		label := judged[u.ID]
		if label == "supported" && flipped < 2 {
			label, flipped = "unsupported", flipped+1
		}
		b.WriteString(`{"id":` + quote(u.ID) + `,"label":"` + label + "\"}\n")
	}
	reviews := filepath.Join(t.TempDir(), "reviews.jsonl")
	write(t, reviews, b.String())

	out, errOut, code := cli(t, "eval", "--dataset", fx.dataset, "--reports", fx.reports, "--snapshot", filepath.Join(fx.dir, "snapshot"),
		"--offline", "--store", fx.store, "--out", fx.judged, "--judge", "offline", "--reviews", reviews)
	if code != 0 {
		t.Fatalf("eval --reviews: %s", errOut)
	}
	sum = readSummary(t, fx.judged)
	if sum.Run != run {
		t.Fatalf("the rerun is run %s, not %s", sum.Run, run)
	}
	if sum.Review == nil || sum.Review.ReviewProgress == nil || sum.Review.Drawn != 15 || sum.Review.Reviewed != 8 || sum.Review.Next == nil || *sum.Review.Next != units[8] {
		t.Errorf("review section %+v: want 8 of 15 reviewed, next the 9th unit", sum.Review)
	}
	p := sum.AAR.PSndPPI
	if p == nil || p.Estimate.Estimate == nil || p.NReviews != 8 || p.CI == nil || p.HumanCI == nil {
		t.Errorf("psnd_ppi %+v: want an estimate from the 8 reviews", p)
	}
	if m := sum.Cited.MatchRatePPI; m == nil || m.Estimate.Estimate == nil || m.NReviews == 0 {
		t.Errorf("match_rate_ppi %+v: want an estimate", m)
	}
	for _, want := range []string{"review sample: 8 of 15 reviewed · next: report " + units[8].Task, "match rate: judge ", " estimate ", "reviews alone"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval output lacks %q:\n%s", want, out)
		}
	}
	status, errOut, code := cli(t, "review", "status", "--run", run, "--store", fx.store, "--reviews", reviews)
	if code != 0 || !strings.Contains(status, "8 of 15 reviewed") || !strings.Contains(status, "PSnd: judge") {
		t.Errorf("review status (exit %d, %s):\n%s", code, errOut, status)
	}
	if _, errOut, code := cli(t, "review", "status", "--run", "eval-nope", "--store", fx.store); code == 0 || !strings.Contains(errOut, "eval-nope") {
		t.Errorf("unknown run: exit %d, %q", code, errOut)
	}
	write(t, reviews, `{"id":"`+units[0].Task+`","label":"supported"}`)
	if _, errOut, code := cli(t, "review", "status", "--run", run, "--store", fx.store, "--reviews", reviews); code == 0 || !strings.Contains(errOut, "reviews.jsonl:1") {
		t.Errorf("bad reviews file: exit %d, %q", code, errOut)
	}
}

func sameUnits(a, b []eval.ReviewUnit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestLeaderboardReviewed: a reviewed run shows its estimate and interval
// and is ranked on it; overlapping intervals share places.
func TestLeaderboardReviewed(t *testing.T) {
	dir := t.TempDir()
	for name, doc := range map[string]string{
		"alpha": `{"run":"eval-a","reports":10,"cited":{"match_rate":0.9,"match_rate_ppi":{"judge":0.9,"estimate":0.7,"ci":[0.65,0.75],"human_ci":[0.6,0.8],"n_reviews":120,"n":900,"reviews_needed":300}}}`,
		"beta":  `{"run":"eval-b","reports":10,"cited":{"match_rate":0.72,"match_rate_ppi":{"judge":0.72,"estimate":0.74,"ci":[0.69,0.79],"human_ci":[0.66,0.82],"n_reviews":120,"n":900,"reviews_needed":300}}}`,
		"gamma": `{"run":"eval-c","reports":10,"cited":{"match_rate":0.5,"match_rate_ppi":{"judge":0.5,"estimate":null,"ci":null,"human_ci":null,"n_reviews":0,"n":800,"reviews_needed":380}}}`,
	} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		write(t, filepath.Join(dir, name, "summary.json"), doc)
	}
	out, errOut, code := runCLI(t, "leaderboard", "--by", "match", filepath.Join(dir, "gamma"), filepath.Join(dir, "alpha"), filepath.Join(dir, "beta"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	// beta's estimate (74%) is above alpha's (70%, the judge said 90%),
	// their intervals overlap: both are 1–2; gamma, unreviewed, is its
	// raw 50%.
	for i, want := range []string{"1–2    beta", "1–2   alpha", "3   gamma"} {
		if !strings.Contains(lines[i+1], want) {
			t.Errorf("row %d: %q, want %q\n%s", i+1, lines[i+1], want, out)
		}
	}
	for _, want := range []string{"70.0% [65.0, 75.0]", "50.0%", "a bare figure is the judge's raw rate"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
