package prov

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOfflineDetector(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string
		kind   ConflictKind // "" for no conflict
		entity string
	}{
		{"negated verb", "Metformin reduced mortality in elderly diabetic patients.",
			"Metformin did not reduce mortality in elderly diabetic patients.", ConflictPolarity, "mortality"},
		{"n't contraction", "The vaccine prevents infection in children under five.",
			"The vaccine doesn't prevent infection in children under five.", ConflictPolarity, "infection"},
		{"never", "Remote workers reported higher productivity in the 2023 survey.",
			"Remote workers never reported higher productivity in the 2023 survey.", ConflictPolarity, "productivity"},
		{"fail to", "The new protocol improved recall on the benchmark.",
			"The new protocol failed to improve recall on the benchmark.", ConflictPolarity, "recall"},
		{"opposite direction on the same object", "Median latency increased after the cache change on the API servers.",
			"Median latency decreased after the cache change on the API servers.", ConflictPolarity, "median latency"},
		{"numbers far apart", "The model reached 92% accuracy on the ImageNet validation set.",
			"The model reached 71% accuracy on the ImageNet validation set.", ConflictNumber, "accuracy"},
		{"scaled counts", "The study enrolled 1.2 million patients across European hospitals.",
			"The study enrolled 300 thousand patients across European hospitals.", ConflictNumber, "patients"},
		{"currency", "Global spending on cloud services reached $600 billion in 2023.",
			"Global spending on cloud services reached $270 billion in 2023.", ConflictNumber, "cloud services"},

		{"agreeing sentences", "Metformin reduced mortality in elderly diabetic patients.",
			"In elderly diabetic patients, metformin reduced mortality.", "", ""},
		{"not only is not a negation", "The treatment not only reduced pain but improved sleep in adults.",
			"The treatment reduced pain and improved sleep in adults.", "", ""},
		{"no more than is not a negation", "Patients took no more than 20 mg of the drug daily.",
			"Patients took 20 mg of the drug daily.", "", ""},
		{"both negated", "The drug did not lower blood pressure in the trial.",
			"The drug did not lower blood pressure in the second trial.", "", ""},
		{"different topics", "Solar panels did not reduce energy bills in the north.",
			"The committee reduced the budget for the festival.", "", ""},
		{"close numbers", "The model reached 92% accuracy on the ImageNet validation set.",
			"The model reached 90.5% accuracy on the ImageNet validation set.", "", ""},
		{"overlapping ranges", "Gains ranged from 14-18% on long-form answer accuracy.",
			"Gains of 16% on long-form answer accuracy were observed.", "", ""},
		{"change vs level", "Accuracy rose by 5% on the held-out answer set.",
			"Accuracy on the held-out answer set was 85%.", "", ""},
		{"bare numbers are ignored", "The survey of 2019 covered 120 firms in the textile sector.",
			"The survey of 2021 covered 80 firms in the textile sector.", "", ""},
		{"numbers inside names", "GPT-4 scored well on the bar exam in the 2023 evaluation.",
			"GPT-3 scored well on the bar exam in the 2023 evaluation.", "", ""},
		// Issue 19: the one conflict found on 15 real reports, and false.
		{"without significant degradation is no denial of a significant gain", "Position interpolation can significantly enhance the long-context performance of the base model.",
			"Position interpolation extends the context window of the base model without significant performance degradation.", "", ""},
		{"a condition is not an assertion", "If the ice shelf collapsed, the glacier would not slow its flow into the bay.",
			"The glacier did slow its flow into the bay after the ice shelf collapsed.", "", ""},
		{"different years", "Malaria deaths in the region rose sharply in 2020 across rural districts.",
			"Malaria deaths in the region fell sharply in 2015 across rural districts.", "", ""},
		{"different names in one frame", "Sea-ice extent in the Arctic reached a record low of 3.4 million square kilometres in September.",
			"Sea-ice extent in the Antarctic reached a record low of 1.9 million square kilometres in September.", "", ""},
		{"different statistics", "Household income in the region was $97,000 on average in the latest census.",
			"Household income in the region was $74,000 at the median in the latest census.", "", ""},
		{"a value the other states elsewhere", "Prevalence was 14.6% in high-income countries and 11.1% in the other countries surveyed.",
			"Prevalence was 11.1% in the other countries surveyed, against 14.6% in high-income countries.", "", ""},
		{"an upper bound met", "The supplement cut migraine attacks by up to 30% in adults with chronic migraine.",
			"The supplement cut migraine attacks by 22% in adults with chronic migraine.", "", ""},
		{"units of one length", "The flood barrier rises 2.5 kilometres along the northern estuary bank.",
			"The flood barrier rises 2,500 metres along the northern estuary bank.", "", ""},
		{"converted units that differ", "The wait for elective hip replacement in the region was 10 months in 2023.",
			"The wait for elective hip replacement in the region was 4 months in 2023.", ConflictNumber, "region"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Offline{}.Detect(context.Background(), []SourceText{{ID: "A", Text: tt.a}, {ID: "B", Text: tt.b}})
			if err != nil {
				t.Fatal(err)
			}
			var want []Conflict
			if tt.kind != "" {
				want = []Conflict{{A: "A", B: "B", Entity: tt.entity, SnippetA: tt.a, SnippetB: tt.b, Kind: tt.kind, Detector: "offline"}}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOfflineDetectorScope(t *testing.T) {
	// Sentences of one source never conflict with each other; sentences of
	// two sources are found whatever their position in the texts.
	texts := []SourceText{
		{ID: "A", Text: "Intro text here. Metformin reduced mortality in elderly diabetic patients. Metformin did not reduce mortality in elderly diabetic patients."},
		{ID: "B", Text: "Unrelated.\nAnother line about trains and weather today.\n\nMetformin did not reduce mortality in elderly diabetic patients."},
	}
	got, err := Offline{}.Detect(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].A != "A" || got[0].B != "B" {
		t.Fatalf("got %+v, want one conflict A ↔ B", got)
	}
	if !strings.HasPrefix(got[0].SnippetA, "Metformin reduced") {
		t.Errorf("snippet A = %q", got[0].SnippetA)
	}
}

func TestOfflineDetectorCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Offline{}.Detect(ctx, []SourceText{{ID: "A", Text: "a b c d."}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// fakeEntailer says "contradiction" for pairs where exactly one side
// contains "not", both ways, and counts calls.
type fakeEntailer struct {
	calls  int
	oneWay bool // only premise-with-"not" → hypothesis contradicts
}

func (f *fakeEntailer) Entail(_ context.Context, p, h string) (Entailment, error) {
	f.calls++
	pn, hn := strings.Contains(p, " not "), strings.Contains(h, " not ")
	if pn != hn && (!f.oneWay || pn) {
		return Entailment{Contradict: 0.9, Neutral: 0.05, Entail: 0.05}, nil
	}
	return Entailment{Entail: 0.8, Neutral: 0.2}, nil
}

func TestTwoWay(t *testing.T) {
	texts := []SourceText{
		{ID: "A", Text: "Vitamin D supplements lowered fracture risk in older women."},
		{ID: "B", Text: "Vitamin D supplements did not lower fracture risk in older women."},
		{ID: "C", Text: "Vitamin D supplements lowered fracture risk in older women over five years."},
	}
	f := &fakeEntailer{}
	got, err := TwoWay{Entailer: f}.Detect(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, c := range got {
		pairs = append(pairs, c.A+"-"+c.B+":"+string(c.Kind))
	}
	if diff := cmp.Diff([]string{"A-B:entailment", "B-C:entailment"}, pairs); diff != "" {
		t.Errorf("pairs (-want +got):\n%s", diff)
	}
	if f.calls != 5 { // A-B both ways, B-C both ways, A-C one way (entails)
		t.Errorf("calls = %d, want 5", f.calls)
	}

	// One-way contradiction is not enough.
	got, err = TwoWay{Entailer: &fakeEntailer{oneWay: true}}.Detect(context.Background(), texts)
	if err != nil || len(got) != 0 {
		t.Errorf("one-way: got %v, %v; want none", got, err)
	}
	if _, err := (TwoWay{}).Detect(context.Background(), texts); err == nil {
		t.Error("no entailer: want an error")
	}
}

func TestMergeConflicts(t *testing.T) {
	a := []Conflict{{A: "s1", B: "s2", Entity: "Dose"}}
	b := []Conflict{{A: "s2", B: "s1", Entity: "dose "}, {A: "s1", B: "s2", Entity: "cost"}}
	want := []Conflict{{A: "s1", B: "s2", Entity: "Dose"}, {A: "s1", B: "s2", Entity: "cost"}}
	if diff := cmp.Diff(want, MergeConflicts(a, b...)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFindContradictionsFiltersUnknownSources(t *testing.T) {
	g := &Graph{Sources: []Source{{ID: "A"}, {ID: "B"}}, Claims: []Claim{}}
	texts := []SourceText{
		{ID: "A", Text: "Metformin reduced mortality in elderly diabetic patients."},
		{ID: "X", Text: "Metformin did not reduce mortality in elderly diabetic patients."},
	}
	got, err := FindContradictions(context.Background(), g, texts, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v; want nothing (X is not a source of the graph)", got, err)
	}
}

func TestSplitSentences(t *testing.T) {
	text := "Smith et al. found 3.5 times more cases (Fig. 2). Is it real? Yes!\nNew line here。下一句"
	var got []string
	for _, s := range splitSentences(text) {
		got = append(got, text[s.start:s.end])
	}
	want := []string{"Smith et al. found 3.5 times more cases (Fig. 2).", "Is it real?", "Yes!", "New line here。", "下一句"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCountWords(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{{"", 0}, {"one two  three", 3}, {"don't long-form", 2}, {"3.5 times", 3}, {"中文字", 3}, {"RAG（检索）helps", 4}} {
		if got := CountWords(tt.s); got != tt.want {
			t.Errorf("CountWords(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func FuzzOfflineDetector(f *testing.F) {
	f.Add("Metformin reduced mortality in elderly diabetic patients.", "Metformin did not reduce mortality in elderly diabetic patients.")
	f.Add("The model reached 92% accuracy on the ImageNet validation set.", "The model reached 71% accuracy on the ImageNet validation set.")
	f.Add("Spending reached $600 billion in 2023 on cloud services.", "Spending reached $1.2-1.5 trillion in 2023 on cloud services.")
	f.Add("Latency rose after the change. 延迟在更改后下降了。", "Latency fell after the change; it wasn't 3x lower.")
	f.Add("In the phase 2 study, 40% of patients, of whom 12% relapsed, responded; sales are expected to reach $3bn.",
		"Shares fell 5% on Tuesday rather than rising since 2020 in the northern division, 18 of 20 vs 9.")
	f.Add("Rail carried 31% of the freight tonnage, it was claimed, under a scenario.", "Rail will carry 12% of the freight tonnage by 2040 (top-1, COP28).")
	f.Fuzz(func(t *testing.T, a, b string) {
		got, err := Offline{}.Detect(context.Background(), []SourceText{{ID: "A", Text: a}, {ID: "B", Text: b}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got {
			if c.A != "A" || c.B != "B" || c.Entity == "" {
				t.Fatalf("conflict %+v", c)
			}
			if !strings.Contains(a, strings.TrimSuffix(c.SnippetA, "…")) || !strings.Contains(b, strings.TrimSuffix(c.SnippetB, "…")) {
				t.Fatalf("snippets are not from the texts: %+v", c)
			}
		}
	})
}
