package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgeEstimate runs judge eval --verdicts, then judge estimate on
// reviews of three of its six pairs, in both output forms.
func TestJudgeEstimate(t *testing.T) {
	dir := t.TempDir()
	verdicts := filepath.Join(dir, "verdicts.jsonl")
	if _, errOut, code := runCLI(t, "judge", "eval", "--labels", filepath.Join(labelFixtures, "plain.jsonl"), "--split", "all", "--verdicts", verdicts); code != 0 {
		t.Fatalf("judge eval: exit %d: %s", code, errOut)
	}
	reviews := filepath.Join(dir, "reviews.jsonl")
	write(t, reviews, `{"id":"p1","label":"supported"}
{"id":"p2","label":"partial"}
{"id":"p6","label":"unsupported"}
`)
	out, errOut, code := runCLI(t, "judge", "estimate", "--verdicts", verdicts, "--reviews", reviews, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not the documented JSON: %v\n%s", err, out)
	}
	if len(doc) != 1 || doc["labels"] == nil {
		t.Fatalf("top level: want only \"labels\":\n%s", out)
	}
	sup, ok := doc["labels"]["supported"]
	if !ok {
		t.Fatalf("no supported rate:\n%s", out)
	}
	var keys []string
	for k := range sup {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if d := cmp.Diff([]string{"ci", "estimate", "human_ci", "judge", "n", "n_reviews"}, keys); d != "" {
		t.Errorf("keys (-want +got):\n%s", d)
	}
	var ci [2]float64
	var n, nr int
	if json.Unmarshal(sup["ci"], &ci) != nil || json.Unmarshal(sup["n"], &n) != nil || json.Unmarshal(sup["n_reviews"], &nr) != nil {
		t.Fatalf("supported: %s", out)
	}
	if n != 6 || nr != 3 || ci[0] > ci[1] || ci[0] < 0 || ci[1] > 1 {
		t.Errorf("supported: n %d, n_reviews %d, ci %v: want 6, 3 and an interval in [0, 1]", n, nr, ci)
	}

	out, errOut, code = runCLI(t, "judge", "estimate", "--verdicts", verdicts, "--reviews", reviews)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"6 judged pairs, 3 reviewed", "supported", "humans only", "3/6", "from 3 reviews of 6 pairs"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJudgeEstimateBadInput(t *testing.T) {
	dir := t.TempDir()
	verdicts := filepath.Join(dir, "verdicts.jsonl")
	write(t, verdicts, `{"id":"a","predicted":"supported"}
{"id":"b","predicted":"unsupported"}
`)
	for name, c := range map[string]struct{ reviews, want string }{
		"unknown id":   {`{"id":"zz","label":"supported"}`, `"zz"`},
		"garbage":      {"<html>", "reviews.jsonl:1"},
		"bad label":    {`{"id":"a","label":"sort of"}`, "reviews.jsonl:1"},
		"reviewed two": {"{\"id\":\"a\",\"label\":\"supported\"}\n{\"id\":\"a\",\"label\":\"partial\"}", "reviews.jsonl:2"},
	} {
		reviews := filepath.Join(dir, "reviews.jsonl")
		write(t, reviews, c.reviews)
		_, errOut, code := runCLI(t, "judge", "estimate", "--verdicts", verdicts, "--reviews", reviews)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q: want a failure naming %s", name, code, errOut, c.want)
		}
	}
	_, errOut, code := runCLI(t, "judge", "estimate", "--verdicts", filepath.Join(dir, "missing.jsonl"), "--reviews", verdicts)
	if code == 0 || !strings.Contains(errOut, "missing.jsonl") {
		t.Errorf("missing verdicts: exit %d, %q", code, errOut)
	}
}

// TestJudgeEstimateNoReviews: an empty reviews file leaves the judge's
// raw rates and says how many reviews would give ±0.05.
func TestJudgeEstimateNoReviews(t *testing.T) {
	dir := t.TempDir()
	verdicts := filepath.Join(dir, "verdicts.jsonl")
	var b strings.Builder
	for i := range 400 {
		l := "supported"
		if i%4 == 0 {
			l = "unsupported"
		}
		b.WriteString(`{"id":"q` + strings.Repeat("x", i%3) + string(rune('A'+i%26)) + string(rune('A'+i/26)) + `","predicted":"` + l + "\"}\n")
	}
	write(t, verdicts, b.String())
	reviews := filepath.Join(dir, "reviews.jsonl")
	write(t, reviews, "")
	out, errOut, code := runCLI(t, "judge", "estimate", "--verdicts", verdicts, "--reviews", reviews)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Planned with the judge's own variance 0.75·0.25 over 400 pairs:
	// 1.96²·0.1875/0.05² = 288.1, /(1 + 288.1/400) = 167.5.
	if !strings.Contains(out, "supported: the judge's raw rate, no human review yet; about 168 reviewed pairs of 400 would give ±0.05") {
		t.Errorf("output:\n%s", out)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
