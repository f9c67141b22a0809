package prov

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// TestCues reads the cues of sentences written for each.
func TestCues(t *testing.T) {
	o := Offline{}.withDefaults()
	for _, tc := range []struct {
		text string
		want cues
	}{
		{"The night ferry to the islands kept its summer timetable all year.", 0},
		{"The council never published the audit of the harbour works.", cueNegation},
		{"Inspectors failed to find cracks in the northern pier of the bridge.", cueNegation},
		{"Non-resident owners of holiday flats pay the higher council rate.", cueNegation | cueUp},
		{"Ticket sales at the maritime museum rose sharply after the refit.", cueUp},
		{"Ticket sales at the maritime museum dropped after the fire last spring.", cueDown},
		{"Harbour dues were raised while berthing fees were cut for fishing boats.", cueUp | cueDown},
		{"The museum counted 41,200 visitors over the whole summer season.", cueNumber},
		{"Two thirds of the berths in the marina were empty over the winter.", cueNumber},
		{"Berthing fees in the old marina doubled within a single season.", cueNumber},
		{"The ferries' fuel bill grew by an order of magnitude in a decade.", cueNumber | cueUp},
		{"The harbour master wouldn't reopen the northern quay before the inspection.", cueNegation},
	} {
		sents := o.analyseChunk([]SourceText{{Text: tc.text}}, 0, true)
		if len(sents) != 1 {
			t.Fatalf("%q: %d sentences, want 1", tc.text, len(sents))
		}
		if got := sents[0].cues; got != tc.want {
			t.Errorf("%q: cues %04b, want %04b", tc.text, got, tc.want)
		}
	}
}

// TestMayConflict: which cues let a pair be compared, for what.
func TestMayConflict(t *testing.T) {
	for _, tc := range []struct {
		a, b              cues
		polarity, numbers bool
		want              bool
	}{
		{0, 0, true, true, false},
		{cueNegation, 0, true, true, true},
		{0, cueNegation, true, false, true},
		{cueNegation, cueNegation, false, true, false},
		{cueUp, cueDown, true, true, true},
		{cueDown, cueUp, true, false, true},
		{cueUp, cueUp, true, true, false},
		{cueUp | cueDown, 0, true, true, false},
		{cueUp, cueDown, false, true, false},
		{cueNumber, cueNumber, false, true, true},
		{cueNumber, cueNumber, true, false, false},
		{cueNumber, cueUp | cueNegation, false, true, false},
	} {
		if got := tc.a.mayConflict(tc.b, tc.polarity, tc.numbers); got != tc.want {
			t.Errorf("%04b with %04b (polarity %v, numbers %v): %v, want %v", tc.a, tc.b, tc.polarity, tc.numbers, got, tc.want)
		}
	}
}

// conflictingPairs are pairs of sentences compare finds a conflict in,
// of each kind and cue.
var conflictingPairs = [][2]string{
	{"Metformin reduced mortality in elderly diabetic patients.", "Metformin did not reduce mortality in elderly diabetic patients."},
	{"The model reached 92% accuracy on the ImageNet validation set.", "The model reached 71% accuracy on the ImageNet validation set."},
	{"Freight on the Danube fell sharply in the dry summer months.", "Freight on the Danube rose sharply in the dry summer months."},
	{"Ridership on the coastal line doubled after the timetable change.", "Ridership on the coastal line halved after the timetable change."},
	{"The vaccine failed to prevent infection among the older trial volunteers.", "The vaccine prevented infection among the older trial volunteers."},
	{"Costs didn't fall after the merger of the regional utilities.", "Costs fell after the merger of the regional utilities."},
}

// TestConflictingPairs: FuzzCuesMayConflict's seeds conflict, so its
// check is exercised.
func TestConflictingPairs(t *testing.T) {
	for _, p := range conflictingPairs {
		found, err := Offline{}.Detect(context.Background(), []SourceText{{ID: "a", Text: p[0]}, {ID: "b", Text: p[1]}})
		if err != nil || len(found) != 1 {
			t.Errorf("%q / %q: %+v (%v), want one conflict", p[0], p[1], found, err)
		}
	}
}

// FuzzCuesMayConflict: compare finds a conflict only between sentences
// whose cues say it may (for polarity, for numbers, for both), so the
// pairs the cues pass over hold none; and a sentence without a number cue
// holds no quantity.
func FuzzCuesMayConflict(f *testing.F) {
	for _, p := range conflictingPairs {
		f.Add(p[0], p[1])
	}
	o := Offline{}.withDefaults()
	an := lexical.NewAnalyzer()
	f.Fuzz(func(t *testing.T, a, b string) {
		sa := o.analyseChunk([]SourceText{{Text: a}}, 0, true)
		sb := o.analyseChunk([]SourceText{{Text: b}}, 0, true)
		for i := range sa {
			x := sa[i].analysis(an)
			if sa[i].cues&cueNumber == 0 && (len(x.qty) > 0 || len(x.values) > 0) {
				t.Fatalf("%q: no number cue, yet amounts %+v and values %+v", x.text, x.qty, x.values)
			}
			for k := range sb {
				y := sb[k].analysis(an)
				for _, flags := range [3][2]bool{{true, true}, {true, false}, {false, true}} {
					kind, _ := compare(x, y, flags[0], flags[1])
					if kind != "" && !sa[i].cues.mayConflict(sb[k].cues, flags[0], flags[1]) {
						t.Fatalf("%q / %q (polarity %v, numbers %v): a %s conflict, cues %04b and %04b say none",
							x.text, y.text, flags[0], flags[1], kind, sa[i].cues, sb[k].cues)
					}
				}
			}
		}
	})
}

// FuzzOfflineIndexOracle: sources added one by one to an index, each
// compared with those before, meet the conflicts the oracle (every pair
// of the texts so far, each completed) finds with them, in its order.
func FuzzOfflineIndexOracle(f *testing.F) {
	f.Add("Metformin reduced mortality in elderly diabetic patients. It did not lower costs for the clinics.",
		"Metformin did not reduce mortality in elderly diabetic patients.", "Costs for the clinics were lowered by metformin.")
	f.Add("The model reached 92% accuracy on the ImageNet validation set.", "The model reached 71% accuracy on the ImageNet validation set.",
		"On the ImageNet validation set the model reached 92% accuracy, the authors wrote.")
	f.Add("Ridership on the coastal line doubled after the timetable change.", "Ridership on the coastal line tripled after the timetable change.",
		"Ridership on the coastal line fell after the timetable change.\nIt didn't fall on the inland line.")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ctx := context.Background()
		o := Offline{}
		ix := o.NewIndex()
		var texts []SourceText
		for k, text := range []string{a, b, c, a + " " + c, strings.ToUpper(b)} {
			id := string(rune('A' + k))
			texts = append(texts, SourceText{ID: id, Text: text})
			all, err := o.detectOracle(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			var want []Conflict
			for _, c := range all {
				if c.B == id {
					want = append(want, c)
				}
			}
			at := o.Analyse(text)
			got, err := ix.Conflicts(ctx, id, at)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.Add(id, at); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("source %s: the index found %+v, the oracle %+v", id, got, want)
			}
		}
	})
}
