package judge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

func TestQuantities(t *testing.T) {
	tests := []struct {
		text string
		want []quantity
	}{
		{"holds more than 260,000 volumes", []quantity{{lit: "260,000", value: 260000, unit: "volum", tol: 26000}}},
		{"fell to 41.3 % in 2016", []quantity{{lit: "41.3", value: 41.3, unit: "%", tol: 0.05}, {lit: "2016", value: 2016, unit: unitYear, tol: 0.5}}},
		{"revenue of $4.1 million", []quantity{{lit: "4.1", value: 4.1e6, unit: "$", tol: 0.05e6}}},
		{"about 3 billion people", []quantity{{lit: "3", value: 3e9, unit: "peopl", tol: 0.5e9}}},
		{"about 300 people", []quantity{{lit: "300", value: 300, unit: "peopl", tol: 30}}},
		{"the 2016 Grammy-nominated film", []quantity{{lit: "2016", value: 2016, unit: unitYear, tol: 0.5}}},
		{"a room with two exits", []quantity{{lit: "two", value: 2, unit: "exit", tol: 0.5}}},
		{"aged 10-24 year old", []quantity{{lit: "10", value: 10, tol: 0.5}, {lit: "24", value: 24, unit: "year", tol: 0.5}}},
		{"12 percent of votes", []quantity{{lit: "12", value: 12, unit: "%", tol: 0.5}}},
		{"version 1.2.3 and one more", nil},
		{"人口超过2100万，2016年", []quantity{{lit: "2100", value: 2.1e7, tol: 5e3}, {lit: "2016", value: 2016, unit: unitYear, tol: 0.5}}},
		{"no numbers at all", nil},
	}
	for _, tt := range tests {
		got := quantities(tt.text, passage.Tokenize(tt.text))
		// The context fields (tok, unit2, lead, scale, rangeTo) are tested
		// with the contradiction cues.
		ctx := cmpopts.IgnoreFields(quantity{}, "tok", "unit2", "lead", "scale", "rangeTo")
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(quantity{}), ctx, cmpopts.EquateApprox(1e-9, 1e-6), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("quantities(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestCheckNumbers(t *testing.T) {
	q := func(s string) []quantity { return quantities(s, passage.Tokenize(s)) }
	tests := []struct {
		claim, evidence string
		want            numberCheck
	}{
		{"over 260,000 volumes", "its 262,000 volumes", numberCheck{total: 1, matched: 1}},
		{"260,000 volumes", "its 262,000 volumes", numberCheck{total: 1, conflict: "260,000 vs 262,000"}},
		{"married in 2012", "they married in 2013", numberCheck{total: 1, conflict: "2012 vs 2013"}},
		{"41.3% of voters", "Hindu (41.3%)", numberCheck{total: 1, matched: 1}},
		{"4.1 million people", "4,134,000 residents", numberCheck{total: 1, matched: 1}},
		{"4.1 million people", "4,200,000 residents", numberCheck{total: 1}},
		{"5% growth", "6 people", numberCheck{total: 1}},
		{"24 year old", "in 2012", numberCheck{total: 1}},
		{"two exits", "at least 2 exits", numberCheck{total: 1, matched: 1}},
		{"no numbers", "12 numbers", numberCheck{}},
	}
	for _, tt := range tests {
		got := checkNumbers(q(tt.claim), q(tt.evidence))
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(numberCheck{})); diff != "" {
			t.Errorf("checkNumbers(%q, %q) mismatch (-want +got):\n%s", tt.claim, tt.evidence, diff)
		}
	}
}
