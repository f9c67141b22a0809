package factcheck

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

func TestAggregate(t *testing.T) {
	yes := claimtrace.Vote{Checker: "a", Label: claimtrace.FactTrue}
	no := claimtrace.Vote{Checker: "b", Label: claimtrace.FactFalse}
	failed := claimtrace.Vote{Checker: "c", Err: "http 429 after 3 attempts"}
	failedWithLabel := claimtrace.Vote{Checker: "c", Label: claimtrace.FactFalse, Err: "parse error"}
	abstain := claimtrace.Vote{Checker: "d", Label: claimtrace.FactUndecided}
	tests := []struct {
		name  string
		votes []claimtrace.Vote
		label claimtrace.FactLabel
		conf  float64
	}{
		{"paper default 2 models x 3 votes, 5-1", []claimtrace.Vote{yes, yes, yes, yes, yes, no}, claimtrace.FactTrue, 5.0 / 6},
		{"majority false", []claimtrace.Vote{no, no, yes}, claimtrace.FactFalse, 2.0 / 3},
		{"unanimous", []claimtrace.Vote{yes, yes, yes}, claimtrace.FactTrue, 1},
		{"3-3 tie is undecided", []claimtrace.Vote{yes, yes, yes, no, no, no}, claimtrace.FactUndecided, 0.5},
		{"errors are not votes", []claimtrace.Vote{yes, failed, failed, failed}, claimtrace.FactTrue, 1},
		{"an error with a label is still not a vote", []claimtrace.Vote{yes, failedWithLabel}, claimtrace.FactTrue, 1},
		{"errors do not turn a tie into false", []claimtrace.Vote{yes, no, failed, failed}, claimtrace.FactUndecided, 0.5},
		{"abstentions are not votes", []claimtrace.Vote{no, abstain, abstain}, claimtrace.FactFalse, 1},
		{"only errors", []claimtrace.Vote{failed, failed}, claimtrace.FactUndecided, 0},
		{"no votes", nil, claimtrace.FactUndecided, 0},
	}
	for _, tt := range tests {
		got := Aggregate(tt.votes)
		want := claimtrace.Fact{Label: tt.label, Confidence: tt.conf, Votes: append([]claimtrace.Vote{}, tt.votes...)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Aggregate mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestAggregateCopiesVotes(t *testing.T) {
	votes := []claimtrace.Vote{{Checker: "a", Label: claimtrace.FactTrue}}
	f := Aggregate(votes)
	votes[0].Label = claimtrace.FactFalse
	if f.Votes[0].Label != claimtrace.FactTrue {
		t.Errorf("Aggregate kept a reference to the caller's slice")
	}
}
