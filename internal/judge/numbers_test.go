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
		{"holds more than 260,000 volumes", []quantity{{Lit: "260,000", Value: 260000, Unit: "volum", Tol: 26000}}},
		{"fell to 41.3 % in 2016", []quantity{{Lit: "41.3", Value: 41.3, Unit: "%", Tol: 0.05}, {Lit: "2016", Value: 2016, Unit: unitYear, Tol: 0.5}}},
		{"revenue of $4.1 million", []quantity{{Lit: "4.1", Value: 4.1e6, Unit: "$", Tol: 0.05e6}}},
		{"about 3 billion people", []quantity{{Lit: "3", Value: 3e9, Unit: "peopl", Tol: 0.5e9}}},
		{"about 300 people", []quantity{{Lit: "300", Value: 300, Unit: "peopl", Tol: 30}}},
		{"the 2016 Grammy-nominated film", []quantity{{Lit: "2016", Value: 2016, Unit: unitYear, Tol: 0.5}}},
		{"a room with two exits", []quantity{{Lit: "two", Value: 2, Unit: "exit", Tol: 0.5}}},
		{"aged 10-24 year old", []quantity{{Lit: "10", Value: 10, Unit: "year", Tol: 0.5}, {Lit: "24", Value: 24, Unit: "year", Tol: 0.5}}}, // the low end takes the unit of the high end
		{"12 percent of votes", []quantity{{Lit: "12", Value: 12, Unit: "%", Tol: 0.5}}},
		{"version 1.2.3 and one more", nil},
		{"人口超过2100万，2016年", []quantity{{Lit: "2100", Value: 2.1e7, Tol: 5e3}, {Lit: "2016", Value: 2016, Unit: unitYear, Tol: 0.5}}},
		{"no numbers at all", nil},
	}
	for _, tt := range tests {
		got := quantities(tt.text, passage.Tokenize(tt.text))
		// The context fields (Tok, Unit2, Lead, Scale, RangeTo) are tested
		// with the contradiction cues, the unit model (Last, Dim, Base,
		// BaseTol, Change) in package lexical.
		ctx := cmpopts.IgnoreFields(quantity{}, "Tok", "Unit2", "Lead", "Scale", "RangeTo", "Last", "Dim", "Base", "BaseTol", "Change")
		if diff := cmp.Diff(tt.want, got, ctx, cmpopts.EquateApprox(1e-9, 1e-6), cmpopts.EquateEmpty()); diff != "" {
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
