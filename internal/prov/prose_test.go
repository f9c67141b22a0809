package prov

import "testing"

// proseCases are sentences written for this test, prose and not.
var proseCases = []struct {
	s    string
	want bool
}{
	{"The Rhine carried 12% more freight in 2023 than a year before.", true},
	{"  Rivers flood more often where the banks are paved.", true},
	{"[12] Smith, J. Rivers of Europe. 2019.", false},
	{"3. Meyer, river traffic in Basel", false},
	{"- a bullet point about barges", false},
	{"See https://example.org/rhine for the figures.", false},
	{"as [the survey](x) says", false},
	{"M. Saffman, T. G. Walker, and K. Mølmer wrote it.", false},
	{"| year | tonnes |", false},
	{"Freight grew in the U.S. and in the E.U. alike.", true},
	{"", true},
}

func TestProse(t *testing.T) {
	for _, tc := range proseCases {
		if got := prose(tc.s); got != tc.want {
			t.Errorf("prose(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// FuzzProse: the quick test in front of the expression never changes its
// answer.
func FuzzProse(f *testing.F) {
	for _, tc := range proseCases {
		f.Add(tc.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := prose(s), !notProse.MatchString(s); got != want {
			t.Fatalf("prose(%q) = %v, the expression says %v", s, got, want)
		}
	})
}
