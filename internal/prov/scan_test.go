package prov

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The expressions the scanners of scan.go replaced, kept here as their
// specification: each scanner must match exactly what its expression
// matches, which the fuzz tests below check on any input.
var (
	notProseRE = regexp.MustCompile(`^\s*(?:\[\d+\]|\d+\.\s+[A-Z][a-z]+,|[-*#|>])|https?://|\]\(|\b[A-Z]\.\s?[A-Z]?\.?\s?[A-Z][a-z]+,.*\b[A-Z]\.\s?[A-Z][a-z]+|\|\s*\|`)
	idRE       = regexp.MustCompile(`\b([A-Za-z]{2,})(?:-|@)?(\d{1,4})\b`)
	labelRE    = regexp.MustCompile(`(?i)\b(phase|stage|tier|level|grade|type|class|generation|gen|version|series|model|wave|round|cohort|arm|season|chapter|article|section|figure|table|cop|block|line|unit|reactor|terminal|runway|flight|route|lot)\s+(\d{1,4}|[IVX]{1,4})\b`)
)

// idsByRE is what alignmentOf took from the two expressions: the words
// glued to numbers, then the labels, lowercased.
func idsByRE(s string) [][2]string {
	var out [][2]string
	for _, re := range []*regexp.Regexp{idRE, labelRE} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			out = append(out, [2]string{strings.ToLower(m[1]), strings.ToLower(m[2])})
		}
	}
	return out
}

// scanCases are lines written for these tests: sentences, reference
// entries, markup, and the edges of each pattern (the ASCII classes,
// line breaks, Unicode case folding, invalid UTF-8).
var scanCases = []string{
	"The harbour handled 4.1 million containers in 2022, slightly fewer than in 2021.",
	"[7] Okafor, N. Tidal energy in estuaries. 2020.",
	"[7 Okafor, not closed",
	"12. Lindqvist, harbour dredging and silt",
	"12. lindqvist, lower case after the number",
	"12.Lindqvist, no space after the dot",
	"\t\n > quoted reply",
	"# A heading",
	"see http://example.com and https://example.org/x",
	"httpx://not a scheme",
	"the [harbour map](maps/harbour.png) shows it",
	"R. Okafor, D. J. Lindqvist and P. Ng wrote the survey.",
	"R. Okafor, then\nD. Lindqvist on the next line",
	"R.\nOkafor, and D.\nLindqvist across breaks",
	"RR. Okafor, D. Lindqvist: two capitals before the dot",
	"R. O. Okafor, D.Lindqvist glued",
	"D. Lindqvist first, then R. Okafor, alone",
	"R. Okafor, P. Ng",
	"| berth | depth |",
	"|   |",
	"a | b | c",
	"Built by the U.S. Army Corps in the 1950s.",
	"GPT-4 beat GPT-3.5 on 7 of 10 tasks; Llama-70 and COP26 came up too.",
	"recall@20 rose, recall@12345 did not count, top-1 and top-5 did.",
	"COVID-19_variant, x-12, ab-1a, _ab12, ab12cd, AB1234, AB12345",
	"In the Phase 3 trial and the STAGE II cohort, version 2 of model 3.",
	"phase  IV, phase\t12, phase IIa, phase VIIII, level 10000, gen 5, generation 4",
	"ſtage 2 and \u017fection 4 after a word: xſtage 2",
	"bloc\u212a 7 and Bloc\u212a IV",
	"Ré-12 and éab-12 and naïve-3",
	"invalid \xff\xfe bytes R. Ok\xc5, D. Lindqvist phase \xc5 3",
	"",
	"   ",
}

// TestNotProse: lines that are not statements, and statements that only
// look like them.
func TestNotProse(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"[3] Banerjee, A. Monsoon variability. 2018.", true},
		{"4. Castellanos, coastal erosion in Chile", true},
		{"* a bullet about the monsoon", true},
		{"Data at https://example.net/rain.", true},
		{"P. Banerjee, K. Osei, and L. Castellanos.", true},
		{"| region | mm |", true},
		{"The monsoon brought 20% less rain to Kerala in 2023.", false},
		{"Rain fell in the U.K. for 40 days.", false},
		{"4.5 million people live in the delta.", false},
		{"P. Banerjee, writing alone.", false},
	} {
		if got := notProse(tc.s); got != tc.want {
			t.Errorf("notProse(%q) = %v, want %v", tc.s, got, tc.want)
		}
		if got := notProseRE.MatchString(tc.s); got != tc.want {
			t.Errorf("the expression on %q: %v, want %v (the case is wrong)", tc.s, got, tc.want)
		}
	}
	for _, s := range scanCases {
		if got, want := notProse(s), notProseRE.MatchString(s); got != want {
			t.Errorf("notProse(%q) = %v, the expression says %v", s, got, want)
		}
	}
}

// TestAlignmentIDs: labels and words glued to numbers, as the expressions
// read them.
func TestAlignmentIDs(t *testing.T) {
	got := appendLabels(appendIDs(nil, "The Phase 3 arm of GPT-4 beat COP26 at recall@20, stage IV."), "The Phase 3 arm of GPT-4 beat COP26 at recall@20, stage IV.")
	want := [][2]string{{"gpt", "4"}, {"cop", "26"}, {"recall", "20"}, {"phase", "3"}, {"stage", "iv"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, s := range scanCases {
		if got, want := appendLabels(appendIDs(nil, s), s), idsByRE(s); !slices.Equal(got, want) {
			t.Errorf("on %q: scanners %q, expressions %q", s, got, want)
		}
	}
}

// FuzzNotProse: the scanner matches where the expression does, and the
// quick test in front of it (prose) never changes the answer.
func FuzzNotProse(f *testing.F) {
	for _, s := range scanCases {
		f.Add(s)
	}
	for _, tc := range proseCases {
		f.Add(tc.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := notProseRE.MatchString(s)
		if got := notProse(s); got != want {
			t.Fatalf("notProse(%q) = %v, the expression says %v", s, got, want)
		}
		if got := prose(s); got != !want {
			t.Fatalf("prose(%q) = %v, the expression says not prose: %v", s, got, want)
		}
	})
}

// FuzzAlignmentIDs: the scanners find the expressions' matches, in their
// order, with the same words and numbers.
func FuzzAlignmentIDs(f *testing.F) {
	for _, s := range scanCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendLabels(appendIDs(nil, s), s), idsByRE(s); !slices.Equal(got, want) {
			t.Fatalf("on %q: scanners %q, expressions %q", s, got, want)
		}
	})
}
