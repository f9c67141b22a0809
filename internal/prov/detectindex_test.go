package prov

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

// randomSource writes a source text of a few sentences about a small set
// of topics, with negations, change words and numbers, so that sentences
// of different sources share stems and some contradict each other.
func randomSource(r *rand.Rand, topics []string) string {
	subjects := []string{"retrieval augmentation", "the reranker", "answer accuracy", "the larger model", "hallucination rate",
		"latency of the pipeline", "the dense retriever", "citation precision", "the baseline system", "training cost"}
	verbs := []string{"improved", "increased", "reduced", "lowered", "raised", "did not improve", "never reduced",
		"failed to improve", "boosted", "degraded", "held", "matched"}
	objects := []string{"answer accuracy on long-form questions", "factual precision in medical answers", "the recall of cited passages",
		"error rates on multi-hop questions", "latency per query", "the share of supported statements", "hallucination rate in summaries"}
	tails := []string{"", " by %d%%", " by %d%% over the baseline", " in %d of the benchmarks", " to %d milliseconds"}
	var b strings.Builder
	for range 1 + r.IntN(8) {
		topic := topics[r.IntN(len(topics))]
		tail := tails[r.IntN(len(tails))]
		if strings.Contains(tail, "%d") {
			tail = fmt.Sprintf(tail, 1+r.IntN(60))
		}
		fmt.Fprintf(&b, "In %s, %s %s %s%s. ", topic, subjects[r.IntN(len(subjects))], verbs[r.IntN(len(verbs))], objects[r.IntN(len(objects))], tail)
		if r.IntN(5) == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestOfflineIndexMatchesDetect checks, on many random sessions, that the
// index finds for each new source exactly the conflicts Detect over all
// the sources so far finds between it and an earlier one, in the same
// order: with few sources (every shared stem counts) and with many
// sentences sharing stems (common stems left out of the candidate pairs).
func TestOfflineIndexMatchesDetect(t *testing.T) {
	ctx := context.Background()
	found, commonStems := 0, 0
	for seed := range 60 {
		r := rand.New(rand.NewPCG(uint64(seed), 21))
		topics := []string{"open-domain QA", "clinical triage", "legal search", "code generation", "news summarisation"}[:1+r.IntN(5)]
		o := Offline{}
		if seed%7 == 3 {
			o = Offline{MinShared: 1, MinOverlap: 0.2}
		}
		n := 2 + r.IntN(45)
		ix := o.NewIndex()
		var texts []SourceText
		for k := range n {
			texts = append(texts, SourceText{ID: fmt.Sprintf("s%d", k+1), Text: randomSource(r, topics)})
			// The index is held to the oracle, the detector before its
			// sentences were compact and gated on asserting; so is Detect.
			all, err := o.detectOracle(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			if detected, err := o.Detect(ctx, texts); err != nil || !slices.Equal(detected, all) {
				t.Fatalf("seed %d, source %d of %d: Detect found %+v (%v), the oracle %+v", seed, k+1, n, detected, err, all)
			}
			var want []Conflict
			for _, c := range all {
				if c.A == texts[k].ID || c.B == texts[k].ID {
					want = append(want, c)
				}
			}
			a := o.Analyse(texts[k].Text)
			got, err := ix.Conflicts(ctx, texts[k].ID, a)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.Add(texts[k].ID, a); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("seed %d, source %d of %d: index (+) and all pairs (-) differ:\n%s", seed, k+1, n, diff)
			}
			found += len(got)
		}
		for _, p := range ix.post {
			if len(p) > max(24, len(ix.sents)/200) {
				commonStems++
			}
		}
	}
	t.Logf("%d conflicts, %d common stems", found, commonStems)
	if found < 100 || commonStems == 0 {
		t.Errorf("%d conflicts found, %d stems too common to count: the sessions do not exercise the detector", found, commonStems)
	}
}

// TestOfflineIndexCancelled: a cancelled context stops the comparison.
func TestOfflineIndexCancelled(t *testing.T) {
	o := Offline{}
	ix := o.NewIndex()
	if err := ix.Add("a", o.Analyse("Retrieval augmentation improved answer accuracy on long-form questions by 14%.")); err != nil {
		t.Fatal(err)
	}
	b := o.Analyse("Retrieval augmentation did not improve answer accuracy on long-form questions.")
	if got, err := ix.Conflicts(context.Background(), "b", b); err != nil || len(got) != 1 {
		t.Fatalf("Conflicts = %+v, %v; want the polarity conflict", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Conflicts(ctx, "b", b); err == nil {
		t.Error("Conflicts on a cancelled context: no error")
	}
}

// TestOfflineIndexRefusesOtherSettings: a text analysed by a detector of
// other settings is neither compared nor added (its stems would not be
// chosen by the same rule).
func TestOfflineIndexRefusesOtherSettings(t *testing.T) {
	ix := Offline{}.NewIndex()
	other := Offline{MaxWords: 12}.Analyse("Retrieval augmentation improved answer accuracy on long-form questions.")
	if _, err := ix.Conflicts(context.Background(), "x", other); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("Conflicts with other settings: err = %v, want ErrInvalid", err)
	}
	if err := ix.Add("x", other); !errors.Is(err, claimtrace.ErrInvalid) || ix.Len() != 0 {
		t.Errorf("Add with other settings: err = %v, %d texts; want ErrInvalid and none", err, ix.Len())
	}
}
