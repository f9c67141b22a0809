package prov

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// TestCues reads the cues and negation heads of sentences written for
// each.
func TestCues(t *testing.T) {
	o := Offline{}.withDefaults()
	for _, tc := range []struct {
		text  string
		want  cues
		heads []string
	}{
		{"The night ferry to the islands kept its summer timetable all year.", 0, nil},
		{"The council never published the audit of the harbour works.", 0, []string{"publish"}},
		{"Inspectors failed to find cracks in the northern pier of the bridge.", 0, []string{"find"}},
		{"Non-resident owners of holiday flats pay the higher council rate.", cueUp, []string{"resid"}},
		{"Not only the ferries but the buses ran late all through the strike.", 0, nil},
		{"Ticket sales at the maritime museum rose sharply after the refit.", cueUp, nil},
		{"Ticket sales at the maritime museum dropped after the fire last spring.", cueDown, nil},
		{"Harbour dues were raised while berthing fees were cut for fishing boats.", cueUp | cueDown, nil},
		{"The museum counted 41,200 visitors over the whole summer season.", cueNumber, nil},
		{"Two thirds of the berths in the marina were empty over the winter.", cueNumber, nil},
		{"Berthing fees in the old marina doubled within a single season.", cueNumber, nil},
		{"The ferries' fuel bill grew by an order of magnitude in a decade.", cueNumber | cueUp, nil},
		{"The harbour master wouldn't reopen the northern quay, nor repair it.", 0, []string{"reopen"}},
	} {
		sents := o.analyseChunk([]SourceText{{Text: tc.text}}, 0, true)
		if len(sents) != 1 {
			t.Fatalf("%q: %d sentences, want 1", tc.text, len(sents))
		}
		if got := sents[0]; got.cues != tc.want || !slices.Equal(got.heads, tc.heads) {
			t.Errorf("%q: cues %03b and heads %q, want %03b and %q", tc.text, got.cues, got.heads, tc.want, tc.heads)
		}
	}
}

// TestMayConflict: which cues and heads let a pair be compared, for what.
func TestMayConflict(t *testing.T) {
	stems := []string{"ferri", "harbour", "publish", "quay"}
	for _, tc := range []struct {
		a, b              indexed
		polarity, numbers bool
		want              bool
	}{
		{indexed{stems: stems}, indexed{stems: stems}, true, true, false},
		{indexed{stems: stems, heads: []string{"publish"}}, indexed{stems: stems}, true, true, true},
		{indexed{stems: stems}, indexed{stems: stems, heads: []string{"quay"}}, true, false, true},
		{indexed{stems: stems}, indexed{stems: []string{"ferri", "harbour", "reopen"}, heads: []string{"reopen"}}, true, true, false},
		{indexed{stems: stems, heads: []string{"publish"}}, indexed{stems: stems}, false, true, false},
		{indexed{stems: stems, cues: cueUp}, indexed{stems: stems, cues: cueDown}, true, true, true},
		{indexed{stems: stems, cues: cueDown}, indexed{stems: stems, cues: cueUp}, true, false, true},
		{indexed{stems: stems, cues: cueUp}, indexed{stems: stems, cues: cueUp}, true, true, false},
		{indexed{stems: stems, cues: cueUp | cueDown}, indexed{stems: stems}, true, true, false},
		{indexed{stems: stems, cues: cueUp}, indexed{stems: stems, cues: cueDown}, false, true, false},
		{indexed{stems: stems, cues: cueNumber}, indexed{stems: stems, cues: cueNumber}, false, true, true},
		{indexed{stems: stems, cues: cueNumber}, indexed{stems: stems, cues: cueNumber}, true, false, false},
		{indexed{stems: stems, cues: cueNumber}, indexed{stems: stems, cues: cueUp}, false, true, false},
	} {
		if got := mayConflict(&tc.a, &tc.b, tc.polarity, tc.numbers); got != tc.want {
			t.Errorf("%+v with %+v (polarity %v, numbers %v): %v, want %v", tc.a, tc.b, tc.polarity, tc.numbers, got, tc.want)
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
					if kind != "" && !mayConflict(&sa[i], &sb[k], flags[0], flags[1]) {
						t.Fatalf("%q / %q (polarity %v, numbers %v): a %s conflict, cues %03b and %03b, heads %q and %q say none",
							x.text, y.text, flags[0], flags[1], kind, sa[i].cues, sb[k].cues, sa[i].heads, sb[k].heads)
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
