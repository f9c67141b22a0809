package prov

import (
	"context"
	"testing"
)

// TestAlignment feeds the detector pairs of sentences that seem to
// disagree but speak of different things (no conflict), and pairs whose
// disagreement alignment must not hide (a conflict). The sentences are
// written for this test.
func TestAlignment(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		conflict bool
	}{
		// Different things: one side each.
		{"forecast against a current value", "Installed heat-pump capacity in the region is expected to reach 40 GW by 2035.",
			"Installed heat-pump capacity in the region currently stands at 9 GW.", false},
		{"a plan against a fact", "The ferry operator is set to carry 2.1 million passengers on the island route.",
			"The ferry operator carried 1.4 million passengers on the island route.", false},
		{"phase 2 against phase 3", "In the phase 2 study the antibody cleared the infection in 71% of patients.",
			"In the phase 3 study the antibody cleared the infection in 48% of patients.", false},
		{"top-1 against top-5", "The detector reaches 81% top-1 precision on the warehouse benchmark.",
			"The detector reaches 96% top-5 precision on the warehouse benchmark.", false},
		{"a day against the year", "Shares of the shipping group climbed 35% over the whole of the year.",
			"Shares of the shipping group dropped 6% on Friday after the profit warning.", false},
		{"since a date against last year", "Rooftop solar output in the province has tripled since 2019.",
			"Rooftop solar output in the province grew 22% last year.", false},
		{"a division against the group", "The retailer's revenue came to £12 billion in the year.",
			"The retailer's online division had revenue of £3 billion in the year.", false},
		{"shares of different wholes", "Hydropower provides 60% of the country's installed generating capacity.",
			"Hydropower provides 35% of the country's electricity consumption.", false},
		{"figures compared side by side", "Recovery took 9 days vs 14 days with the standard drug in the trial.",
			"Recovery in the trial took 11 days with the new drug.", false},
		{"a share of a share", "Readmission occurred in 40% of patients, of whom 12% needed intensive care.",
			"Readmission occurred in 25% of the patients in the cohort.", false},
		{"some of a set against one member", "The new parser beats its predecessor on 18 of 20 language benchmarks.",
			"On the Finnish benchmark the new parser trails its predecessor.", false},
		{"a reported claim in doubt", "It was claimed that the dam holds 900 million cubic metres of water.",
			"The dam holds 400 million cubic metres of water.", false},
		{"a scenario", "Under the high-growth scenario, demand for copper could reach 50 million tonnes a year.",
			"Demand for copper reached 25 million tonnes a year.", false},
		{"a figure for one country against all", "Across the region, 30% of adults in the survey reported chronic back pain.",
			"In the survey, 18% of adults in Norway reported chronic back pain.", false},
		{"set aside, not denied", "Growth came from higher prices rather than from rising export volumes of the coffee crop.",
			"Export volumes of the coffee crop were rising in the season.", false},
		// The same thing told two ways.
		{"names that open a sentence are still written", "Northwind bought Fabrikam in 2021 for $2.4 billion in cash.",
			"Fabrikam was bought by Northwind in 2021 for about $6 billion.", true},
		{"a level beside a change past a comma", "The utility reported 2023 revenue of $8.2 billion, up 11% on the year before.",
			"For 2023 the utility's revenue came to $5.1 billion.", true},
		{"a figure in its clause", "The survey found 64% support for the congestion charge among city residents.",
			"Support for the congestion charge among city residents in the survey was 31%.", true},
		{"two forecasts", "When complete, the hillside battery plant will store 400 MWh of energy for the grid.",
			"The hillside battery plant will store 150 MWh of energy for the grid once complete.", true},
	}
	// Numbers are read between sentences sharing 3 words and 20% of them
	// here, looser than the shipped 4 and 40%: alignment, not the
	// candidate threshold, must keep the look-alikes apart.
	d := Offline{NumberMinShared: 3, NumberMinOverlap: 0.2}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := d.Detect(context.Background(), []SourceText{{ID: "a", Text: tc.a}, {ID: "b", Text: tc.b}})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(cs) > 0; got != tc.conflict {
				t.Errorf("conflict = %v, want %v (%+v)", got, tc.conflict, cs)
			}
		})
	}
}

// TestAlignmentGarbage reads alignment from text that is not prose, nor
// well formed: it must not panic, and finds nothing to align.
func TestAlignmentGarbage(t *testing.T) {
	for _, s := range []string{"", "%%% of of of", "phase", "-1 @@ top- 5%", "\xff\xfe of 12% of", "of whom", "rather than"} {
		toks := tokenize(s, nil)
		al := alignmentOf(s, toks)
		if al.future || al.doubted || len(al.ids) > 0 {
			t.Errorf("alignmentOf(%q) = %+v: want nothing", s, al)
		}
	}
}
