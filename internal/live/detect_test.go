package live

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// allPairs is the offline detector behind a type of its own, so the
// service takes its path for other detectors: every earlier source read
// again on each new one.
type allPairs struct{ prov.Offline }

// agentExcerpt writes an excerpt an agent might quote while researching
// one of a few questions: findings with directions, negations and
// figures, so that excerpts of one session overlap and some disagree.
func agentExcerpt(r *rand.Rand) string {
	things := []string{"the hybrid retriever", "query rewriting", "the 70B model", "chain-of-thought prompting", "self-consistency decoding", "the distilled reader"}
	moves := []string{"raised", "cut", "did not change", "increased", "decreased", "never improved", "improved", "lowered", "failed to raise"}
	measures := []string{"exact-match scores on HotpotQA", "the rate of unsupported sentences", "median answer latency", "recall at ten passages", "calibration error on medical questions"}
	amounts := []string{"", " by 3 points", " by 12%", " by 40%", " from 51% to 58%", " to 220 ms"}
	var b strings.Builder
	for range 1 + r.IntN(6) {
		fmt.Fprintf(&b, "In our experiments %s %s %s%s. ", things[r.IntN(len(things))], moves[r.IntN(len(moves))], measures[r.IntN(len(measures))], amounts[r.IntN(len(amounts))])
		if r.IntN(4) == 0 {
			b.WriteString("See Table 2 for details.\n")
		}
	}
	return b.String()
}

// TestDetectIndexMatchesAllPairs records the same random sessions in two
// services, one comparing each new source with the earlier ones through
// the session's index, the other reading them all as before, and checks
// that every answer's conflicts and every graph's conflicts agree; halfway
// through, each service is made anew on its store, so the index is built
// again from the stored session.
func TestDetectIndexMatchesAllPairs(t *testing.T) {
	ctx := context.Background()
	dsnIndexed, dsnAll := storetest.SQLiteDSN(t), storetest.SQLiteDSN(t)
	stIndexed, stAll := openStore(t, dsnIndexed), openStore(t, dsnAll)
	indexed := newService(t, stIndexed, Options{Detector: prov.Offline{}})
	all := newService(t, stAll, Options{Detector: allPairs{}})
	found := 0
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 6))
		sid := fmt.Sprintf("detect-%d", seed)
		mustOpen(t, indexed, sid)
		mustOpen(t, all, sid)
		n := 5 + r.IntN(40)
		for k := range n {
			if k == n/2 {
				indexed = newService(t, stIndexed, Options{Detector: prov.Offline{}})
				all = newService(t, stAll, Options{Detector: allPairs{}})
			}
			in := SourceInput{Title: fmt.Sprintf("paper %d", k), Excerpt: agentExcerpt(r)}
			if k%9 == 4 {
				in = SourceInput{URL: fmt.Sprintf("https://example.org/unread/%d", k)} // no text: not compared
			}
			got := mustSource(t, indexed, sid, in)
			want := mustSource(t, all, sid, in)
			if diff := cmp.Diff(want.Conflicts, got.Conflicts); diff != "" {
				t.Fatalf("session %s, source %d: conflicts with the index (+) and all pairs (-):\n%s", sid, k+1, diff)
			}
			found += len(got.Conflicts)
		}
		gi, err := indexed.Graph(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		ga, err := all.Graph(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ga.Conflicts, gi.Conflicts); diff != "" {
			t.Errorf("session %s: graph conflicts with the index (+) and all pairs (-):\n%s", sid, diff)
		}
	}
	if found < 50 {
		t.Errorf("%d conflicts in all: the sessions do not exercise the detector", found)
	}
}
