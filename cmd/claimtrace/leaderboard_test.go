package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
)

// TestRunLeaderboardWithoutCobra calls the command's run function on its
// own: it prints what the command prints, and reads summaries under the
// input limit every command applies.
func TestRunLeaderboardWithoutCobra(t *testing.T) {
	fx := newAnalyzeFixture(t)
	want, errOut, code := cli(t, "leaderboard", "--by", "match", fx.unjudged, fx.judged)
	if code != 0 {
		t.Fatalf("leaderboard: %s", errOut)
	}
	var out bytes.Buffer
	a := &app{stdout: &out}
	f := leaderboardFlags{by: "match", bootstrap: bootstrapFlags{resamples: analysis.DefaultResamples, seed: analysis.DefaultSeed, level: analysis.DefaultLevel}}
	if err := a.runLeaderboard(f, []string{fx.unjudged, fx.judged}); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("runLeaderboard printed\n%s\nthe command prints\n%s", out.String(), want)
	}

	a = &app{stdout: &out, maxInput: 16}
	if err := a.runLeaderboard(f, []string{fx.judged}); !errors.Is(err, claimtrace.ErrTooLarge) || !strings.Contains(err.Error(), "summary.json") {
		t.Errorf("a summary over the input limit: %v", err)
	}
	f.by = "cost"
	if err := a.runLeaderboard(f, []string{fx.judged}); err == nil || !strings.Contains(err.Error(), `--by "cost"`) {
		t.Errorf("--by cost: %v", err)
	}
}
