package judge

import (
	"context"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// TestNotContradicted holds pairs whose evidence differs from the claim in
// a number, a negation or a name without denying it: an overlapping
// range, a year that sets a time frame, rates over different periods, a
// negated bound, a list that names other members. The judge must not say
// contradicted; a control beside each says it where the evidence does
// deny the claim. The sentences are written for this test.
func TestNotContradicted(t *testing.T) {
	j, err := NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, claim, evidence string
		contradicted          bool
	}{
		{"overlapping ranges", "Adult otters in the estuary weigh about 7–9 kg.",
			"Adult otters in the estuary weigh from 8 to 11 kg, depending on the season.", false},
		{"a time frame", "Coastal erosion on the island has accelerated since 2005.",
			"Survey maps show the island's coastal erosion has removed 40 metres of shoreline since 1960.", false},
		{"rates over different periods", "The startup's user base has tripled each year since its launch.",
			"The startup's user base has doubled roughly every four months since its launch.", false},
		{"a negated bound", "During the heatwave, night temperatures in the city stayed at 25 °C or higher.",
			"Night temperatures in the city never fell below 25 °C during the heatwave.", false},
		{"a list with other members", "The app is widely used in Chile, Peru and Bolivia.",
			"Markets where the app is widely used include Chile, Peru and Ecuador.", false},
		{"control: a number denied", "The bridge's main span is 1,200 metres long.",
			"The bridge's main span is 850 metres long.", true},
		{"control: a negation denied", "The council approved the new cycle lanes on the ring road.",
			"The council did not approve the new cycle lanes on the ring road.", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := j.Judge(context.Background(), tc.claim, tc.evidence)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Label == claimtrace.Contradicted; got != tc.contradicted {
				t.Errorf("contradicted = %v, want %v: %s", got, tc.contradicted, v.Reason)
			}
		})
	}
}
