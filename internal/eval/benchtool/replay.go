package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/factcheck"
)

// replayResult is the early stop replayed on a run's recorded votes.
type replayResult struct {
	// Claims counts the fact-checked claims with every vote recorded.
	Claims int `json:"claims"`
	// Agree counts those whose early-stopped label is the full vote's.
	Agree int `json:"agree"`
	// VotesFull and VotesEarly are the votes cast in all.
	VotesFull  int `json:"votes_full"`
	VotesEarly int `json:"votes_early"`
	// ConfidenceDiff is the mean absolute difference of the confidences.
	ConfidenceDiff float64 `json:"confidence_diff"`
	// Labels counts the full votes' labels.
	Labels map[claimtrace.FactLabel]int `json:"labels"`
}

// replay reads the report files of an eval run made with every vote cast
// (--early-stop=false) and casts the same votes again through the
// ensemble with the early stop, in its order (alternating checkers): the
// label it gives is compared with the full vote's. The recorded answers
// stand in for the models, so the comparison is of the decision rule on
// the same votes.
func replay(ctx context.Context, out string) (*replayResult, error) {
	files, err := filepath.Glob(filepath.Join(out, "reports", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s: no report files (%v)", out, err)
	}
	r := &replayResult{Labels: map[claimtrace.FactLabel]int{}}
	for _, f := range files {
		res, err := eval.ReadResult(f)
		if err != nil {
			return nil, err
		}
		for _, c := range res.Claims {
			if c.Fact == nil || len(c.Fact.Votes) == 0 {
				continue
			}
			var names []string
			byChecker := map[string][]claimtrace.Vote{}
			for _, v := range c.Fact.Votes {
				if _, ok := byChecker[v.Checker]; !ok {
					names = append(names, v.Checker)
				}
				byChecker[v.Checker] = append(byChecker[v.Checker], v)
			}
			n := len(byChecker[names[0]])
			full := true
			var checkers []factcheck.Checker
			for _, name := range names {
				full = full && len(byChecker[name]) == n
				checkers = append(checkers, recorded{name: name, votes: byChecker[name]})
			}
			if !full || len(names) < 2 || n < 2 {
				continue // not a full vote of several checkers
			}
			early, _ := factcheck.Ensemble{Checkers: checkers, Votes: n, EarlyStop: true}.Check(ctx, factcheck.Query{Claim: c.Text})
			again := factcheck.Aggregate(c.Fact.Votes)
			r.Claims++
			r.Labels[again.Label]++
			if early.Label == again.Label {
				r.Agree++
			}
			r.VotesFull += len(c.Fact.Votes)
			r.VotesEarly += len(early.Votes)
			d := early.Confidence - again.Confidence
			r.ConfidenceDiff += max(d, -d)
		}
	}
	if r.Claims > 0 {
		r.ConfidenceDiff /= float64(r.Claims)
	}
	return r, nil
}

// recorded answers vote k of a checker with its k-th recorded vote.
type recorded struct {
	name  string
	votes []claimtrace.Vote
}

func (c recorded) Check(_ context.Context, q factcheck.Query) (claimtrace.Vote, error) {
	if q.Vote < 1 || q.Vote > len(c.votes) {
		return claimtrace.Vote{Checker: c.name}, fmt.Errorf("no recorded vote %d", q.Vote)
	}
	v := c.votes[q.Vote-1]
	if v.Err != "" {
		return claimtrace.Vote{Checker: c.name}, fmt.Errorf("%s", v.Err)
	}
	return v, nil
}

func (r *replayResult) print(w io.Writer) {
	fmt.Fprintf(w, "replayed %d fully voted claims: the early stop gives the full vote's label for %d (%.1f%%), casting %d votes instead of %d (%.2f a claim instead of %.2f); confidence differs by %.3f on average\n",
		r.Claims, r.Agree, 100*float64(r.Agree)/float64(max(r.Claims, 1)), r.VotesEarly, r.VotesFull,
		float64(r.VotesEarly)/float64(max(r.Claims, 1)), float64(r.VotesFull)/float64(max(r.Claims, 1)), r.ConfidenceDiff)
	var parts []string
	for l, n := range r.Labels {
		parts = append(parts, fmt.Sprintf("%s %d", l, n))
	}
	fmt.Fprintf(w, "full-vote labels: %s\n", strings.Join(parts, ", "))
}
