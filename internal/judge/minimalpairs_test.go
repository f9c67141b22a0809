package judge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// minimalPair is one line of testdata/minimalpairs/pairs.jsonl: an
// evidence text, a claim it supports, and (except for the paraphrase
// controls) the same claim with one number, negation, direction word or
// entity changed so that the evidence contradicts it. The sentences are
// written for this suite; none comes from a labelled set.
type minimalPair struct {
	ID           string `json:"id"`
	Category     string `json:"category"`
	Evidence     string `json:"evidence"`
	Supported    string `json:"supported"`
	Contradicted string `json:"contradicted"`
}

func readMinimalPairs(tb testing.TB) []minimalPair {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "minimalpairs", "pairs.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []minimalPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p minimalPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// minimalPairFloor is the share of changed claims the shipped judge must
// call contradicted, per category; minimalPairKeep the share of supported
// claims (originals and paraphrase controls) it must not call
// contradicted. Entities have a lower floor, stated rather than hidden:
// the judge compares names only (capitalized words, or words with digits
// or inner capitals), so a common noun replaced in the same frame
// ("metformin" / "insulin", "liver" / "kidney") is not caught — in real
// text such swaps are synonyms as often as substitutes — nor is a name
// that the source states in another frame.
var minimalPairFloor = map[string]float64{"number": 0.9, "negation": 0.9, "direction": 0.9, "entity": 0.85}

const minimalPairKeep = 0.95

// TestMinimalPairs holds the shipped offline judge to the minimal-pair
// suite: per category (number, negation, direction, entity) at least
// minimalPairFloor of the changed claims contradicted, and at most
// 1-minimalPairKeep of the claims the evidence supports (the originals
// and the paraphrase controls) contradicted. Every category has at least
// 25 pairs.
func TestMinimalPairs(t *testing.T) {
	pairs := readMinimalPairs(t)
	j, err := NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	type tally struct{ flips, caught, kept, keptOK, supported int }
	by := make(map[string]*tally)
	for _, p := range pairs {
		tl := by[p.Category]
		if tl == nil {
			tl = &tally{}
			by[p.Category] = tl
		}
		claims := []string{p.Supported}
		if p.Contradicted != "" {
			claims = append(claims, p.Contradicted)
		}
		vs, err := j.JudgeSource(ctx, p.Evidence, claims)
		if err != nil {
			t.Fatal(err)
		}
		tl.kept++
		if vs[0].Label != claimtrace.Contradicted {
			tl.keptOK++
		} else {
			t.Logf("%s: supported claim called contradicted: %q (%s)", p.ID, p.Supported, vs[0].Reason)
		}
		if vs[0].Label == claimtrace.Supported {
			tl.supported++
		}
		if len(vs) > 1 {
			tl.flips++
			if vs[1].Label == claimtrace.Contradicted {
				tl.caught++
			} else {
				t.Logf("%s: changed claim called %s: %q (%s)", p.ID, vs[1].Label, p.Contradicted, vs[1].Reason)
			}
		}
	}
	cats := make([]string, 0, len(by))
	for c := range by {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		tl := by[c]
		caught := ratio(tl.caught, tl.flips)
		kept := ratio(tl.keptOK, tl.kept)
		t.Logf("%-10s changed claims contradicted %2d/%2d (%.2f); supported claims not contradicted %2d/%2d (%.2f), labelled supported %2d",
			c, tl.caught, tl.flips, caught, tl.keptOK, tl.kept, kept, tl.supported)
		if tl.kept < 25 {
			t.Errorf("%s: %d pairs, want at least 25", c, tl.kept)
		}
		if tl.flips > 0 && caught < minimalPairFloor[c] {
			t.Errorf("%s: %d of %d changed claims contradicted (%.2f), want at least %.2f", c, tl.caught, tl.flips, caught, minimalPairFloor[c])
		}
		if kept < minimalPairKeep {
			t.Errorf("%s: %d of %d supported claims not contradicted (%.2f), want at least %.2f", c, tl.keptOK, tl.kept, kept, minimalPairKeep)
		}
	}
}

// TestOfflineDeterministic judges the suite as one report citing one
// source (every evidence text) twice, with two judges, and requires the
// verdicts to be the same byte for byte: no map order may reach a label,
// a reason or a quote.
func TestOfflineDeterministic(t *testing.T) {
	pairs := readMinimalPairs(t)
	// Two reversed words in one claim: a judge that walks a map of them
	// names either in its reason.
	pairs = append(pairs, minimalPair{ID: "two-cues", Evidence: "The larger firm paid higher wages than its rivals in every year of the survey.",
		Supported: "The larger firm paid higher wages than its rivals.", Contradicted: "The smaller firm paid lower wages than its rivals."})
	var source strings.Builder
	var claims []string
	for _, p := range pairs {
		source.WriteString(p.Evidence + "\n\n")
		claims = append(claims, p.Supported)
		if p.Contradicted != "" {
			claims = append(claims, p.Contradicted)
		}
	}
	run := func() []byte {
		j, err := NewDefaultOffline()
		if err != nil {
			t.Fatal(err)
		}
		var out []claimtrace.Verdict
		for _, p := range pairs { // one source a claim pair, as the pipeline judges them
			vs, err := j.JudgeSource(context.Background(), p.Evidence, []string{p.Supported, p.Contradicted})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, vs...)
		}
		vs, err := j.JudgeSource(context.Background(), source.String(), claims) // and all against all
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(append(out, vs...))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := run()
	for i := range 20 {
		if got := run(); !bytes.Equal(first, got) {
			t.Fatalf("run %d differs from the first:\n%s\n%s", i+2, first, got)
		}
	}
}
