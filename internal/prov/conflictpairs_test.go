package prov

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// conflictPair is one line of testdata/conflictpairs: two passages about
// one subject, as two sources would state them, and whether they
// contradict each other on a fact. The suite was written by a second
// author who had not seen the detector: 40 true conflicts (different
// figures for one quantity, opposite findings, different dates of one
// event) and 60 pairs that only look like conflicts (another year, region
// or subgroup, compatible negations such as "without significant
// degradation" beside "can significantly enhance", overlapping ranges,
// rounded figures, hedges, units). Its dev half was read to find causes;
// the held-out half was not.
type conflictPair struct {
	ID       string `json:"id"`
	A        string `json:"a"`
	B        string `json:"b"`
	Conflict bool   `json:"conflict"`
	Entity   string `json:"entity"`
	Note     string `json:"note"`
}

func readConflictPairs(tb testing.TB, half string) []conflictPair {
	tb.Helper()
	return readConflictPairsFile(tb, "conflictpairs", "conflict_pairs_"+half+".jsonl")
}

// readConflictPairsFile reads one file of conflict pairs under testdata.
func readConflictPairsFile(tb testing.TB, dir, name string) []conflictPair {
	tb.Helper()
	half := name
	f, err := os.Open(filepath.Join("testdata", dir, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []conflictPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p conflictPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			tb.Fatalf("%s half: %v", half, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// conflictScore is the detector's record on conflict pairs: Found of the
// pairs it says conflict, Right of them true conflicts, out of Conflicts.
type conflictScore struct{ Pairs, Conflicts, Found, Right int }

func scoreConflictPairs(tb testing.TB, d Offline, pairs []conflictPair) conflictScore {
	tb.Helper()
	var s conflictScore
	for _, p := range pairs {
		cs, err := d.Detect(context.Background(), []SourceText{{ID: "a", Text: p.A}, {ID: "b", Text: p.B}})
		if err != nil {
			tb.Fatal(err)
		}
		s.Pairs++
		if p.Conflict {
			s.Conflicts++
		}
		if len(cs) > 0 {
			s.Found++
			if p.Conflict {
				s.Right++
			} else if testing.Verbose() {
				tb.Logf("%s: false conflict (%s %q): %s", p.ID, cs[0].Kind, cs[0].Entity, p.Note)
			}
		}
	}
	return s
}

// conflictFloors are what the shipped detector measured on each half
// (docs/judges.md): at least minRight conflicts found right, at most
// maxFalse found where there is none. Before this suite, on the same
// halves: dev 1 right of 4 found, held-out 3 of 6; after issue 20, 2 of 2
// and 3 of 6; after entity alignment (align.go, issue 19 item 5), 5 of 5
// and 6 of 6 with numbers compared between sentences sharing 3 words and
// 20% of them; with the shipped 4 and 40% (precision first: see
// Offline.NumberMinShared), 2 of 2 and 3 of 3. Both halves were read while
// tuning that work: they are dev data, and the fresh figure is
// conflictpairs3's (TestFreshConflictPairs).
var conflictFloors = map[string]struct{ minRight, maxFalse int }{
	"dev":     {2, 0},
	"heldout": {3, 0},
}

// TestConflictPairs measures the offline detector on both halves of the
// independent conflict suite, logs the figures docs/judges.md quotes, and
// holds it to them.
func TestConflictPairs(t *testing.T) {
	for _, half := range []string{"dev", "heldout"} {
		s := scoreConflictPairs(t, Offline{}, readConflictPairs(t, half))
		t.Logf("%s: %d pairs, %d conflicts; the detector found %d, right %d", half, s.Pairs, s.Conflicts, s.Found, s.Right)
		fl := conflictFloors[half]
		if s.Pairs < 50 || s.Conflicts < 20 {
			t.Errorf("%s: %d pairs, %d conflicts: the suite is incomplete", half, s.Pairs, s.Conflicts)
		}
		if s.Right < fl.minRight || s.Found-s.Right > fl.maxFalse {
			t.Errorf("%s: %d right, %d false; want at least %d right and at most %d false", half, s.Right, s.Found-s.Right, fl.minRight, fl.maxFalse)
		}
	}
}
