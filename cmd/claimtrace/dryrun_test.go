package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/store"
)

func TestEvenly(t *testing.T) {
	for _, tc := range []struct {
		n    int
		rate float64
		want int
	}{{3, 0.3, 1}, {10, 0.3, 3}, {40, 0.25, 10}, {7, 0, 0}, {7, 1, 7}, {1, 0.4, 0}, {2, 0.4, 1}} {
		got := 0
		for i := 1; i <= tc.n; i++ {
			if evenly(i, tc.rate) {
				got++
			}
		}
		if got != tc.want {
			t.Errorf("evenly over %d items at %.2f picks %d, want %d", tc.n, tc.rate, got, tc.want)
		}
	}
}

// TestDryAnswers: the stand-in answers are valid for the real components
// that read them, and say what the dry run assumes: the classifier's
// check-worthy share, votes that agree.
func TestDryAnswers(t *testing.T) {
	claims := []string{"The Rhine is about 1,230 km long.", "It flows into the North Sea.", "Basel lies on the Rhine knee.", "Rivers are wonderful.", "The Danube is longer than the Rhine."}
	dry := &llm.DryRun{Answer: dryAnswers{worthy: 0.4}.answer}
	client := func(model string) *llm.Client {
		return llm.NewClient(llmtest.OfflineClient(llm.OpenAI, model).Endpoint(), nil, llm.Options{DryRun: dry})
	}
	cw, err := factcheck.NewLLMCheckWorthy(client("m1"), factcheck.CheckWorthyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ok, why, err := cw.ClassifyCheckWorthy(t.Context(), claims)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, w := range ok {
		if w {
			n++
		}
		if !strings.Contains(why[i], "dry run at a check-worthy rate of 0.40") {
			t.Errorf("claim %d decided by %q, want the dry run's stand-in", i, why[i])
		}
	}
	if n != 2 {
		t.Errorf("%d of 5 claims check-worthy at a rate of 0.4, want 2", n)
	}
	search := searchAdapter{placeholderSearch{}}
	var checkers []factcheck.Checker
	for _, m := range []string{"m1", "m2"} {
		sc, err := factcheck.NewSearchChecker(client(m), search, "searxng", 5, factcheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkers = append(checkers, sc)
	}
	web, err := factcheck.NewWebChecker(client("m3"), factcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkers = append(checkers, web)
	qs := make([]factcheck.Query, len(claims))
	for i, c := range claims {
		qs[i] = factcheck.Query{Claim: c, Cutoff: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	facts, errs := factcheck.Ensemble{Checkers: checkers, EarlyStop: true, Batch: 5}.CheckAll(t.Context(), qs)
	for i, f := range facts {
		// 3 checkers × 3 votes: a first round of 5 that agrees settles it.
		if errs[i] != nil || f.Label != "true" || len(f.Votes) != 5 {
			t.Errorf("claim %d: %+v, %v; want true on the five votes of a first round", i, f, errs[i])
		}
	}
	if got := dry.Stages()[factcheck.StageVote].Calls; got != 5 {
		t.Errorf("%d fact-check calls priced, want 5 (one a vote of the first round, 5 claims a call)", got)
	}
	// A single-statement vote and the paper's prompt get a verdict too.
	single, _ := factcheck.Ensemble{Checkers: checkers[:1], EarlyStop: true, Votes: 1}.Check(t.Context(), qs[0])
	if single.Label != "true" {
		t.Errorf("single vote: %+v", single)
	}
}

// TestDryWorthyRate: the flag wins, then the store's history of the
// model when it decided enough claims, then the default.
func TestDryWorthyRate(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := dryWorthyRate(t.Context(), st, "openai:m", flagValue[float64]{})
	if err != nil || r.Rate != DefaultWorthyRate || !strings.HasPrefix(r.Source, "assumed") {
		t.Errorf("empty store: %+v, %v", r, err)
	}
	if r, _ := dryWorthyRate(t.Context(), st, "openai:m", flagValue[float64]{value: 0.55, set: true}); r.Rate != 0.55 || r.Source != "--check-worthy-rate" {
		t.Errorf("flag: %+v", r)
	}
	claims := make([]string, 25)
	worthy := make([]bool, 25)
	reasons := make([]string, 25)
	for i := range claims {
		claims[i] = "claim"
		worthy[i] = i%5 == 0
		reasons[i] = "openai:m: reason"
	}
	data, _ := json.Marshal(map[string]any{"claims": claims, "worthy": worthy, "reasons": reasons})
	if err := st.EnsureRun(t.Context(), "run1", "eval", "{}"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutUnit(t.Context(), store.Unit{Run: "run1", Kind: "check_worthy", Key: "t1", Status: store.StatusDone, Data: data}); err != nil {
		t.Fatal(err)
	}
	r, err = dryWorthyRate(t.Context(), st, "openai:m", flagValue[float64]{})
	if err != nil || r.Rate != 0.2 || !strings.Contains(r.Source, "5 of 25") {
		t.Errorf("with history: %+v, %v; want 0.2 measured on 5 of 25", r, err)
	}
}

// TestCheckWorthyRateFlag refuses a share outside [0, 1].
func TestCheckWorthyRateFlag(t *testing.T) {
	for _, bad := range []string{"2", "-0.1", "NaN", "most"} {
		_, errOut, code := runCLI(t, "eval", "--dataset", "d", "--reports", "r", "--out", "o", "--check-worthy-rate", bad)
		if code == 0 || !strings.Contains(errOut, "--check-worthy-rate") {
			t.Errorf("--check-worthy-rate %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
}
