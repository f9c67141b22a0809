package lexical

import (
	"strings"
	"testing"
)

// TestOpposites checks the generated table on word pairs written for
// this test: inflected opposites that Snowball's stems keep apart, which
// is why the table holds them, and words of the same direction that must
// not be opposed.
func TestOpposites(t *testing.T) {
	o := OppositeTable()
	if o.Len() < 5000 {
		t.Fatalf("table has %d stems, want thousands: is opposites.txt generated?", o.Len())
	}
	an := NewAnalyzer()
	opposed := [][2]string{
		{"risen", "fallen"}, {"rose", "fell"}, {"grown", "declined"}, {"grew", "shrank"},
		{"expanded", "contracted"}, {"widened", "narrowed"}, {"accelerated", "decelerated"},
		{"strengthened", "weakened"}, {"succeeded", "failed"}, {"approved", "disapproved"},
		{"accepted", "rejected"}, {"higher", "lower"}, {"highest", "lowest"}, {"profit", "loss"},
		{"gained", "lost"}, {"increased", "decreased"}, {"increase", "fell"}, {"raised", "lowered"},
		{"raised", "cut"}, {"improved", "worsened"}, {"wider", "narrower"}, {"legal", "illegal"},
		{"majority", "minority"}, {"most", "few"}, {"often", "rarely"}, {"frequently", "seldom"},
		{"always", "rarely"}, {"many", "few"}, {"more", "fewer"},
	}
	for _, p := range opposed {
		a, b := an.Stem(p[0]), an.Stem(p[1])
		if !o.Opposed(a, b) || !o.Opposed(b, a) {
			t.Errorf("%s/%s (stems %s/%s) not opposed", p[0], p[1], a, b)
		}
	}
	same := [][2]string{
		{"increased", "rose"}, {"grew", "expanded"}, {"reduced", "cut"}, {"declined", "fell"},
		{"higher", "greater"}, {"improved", "enhanced"}, {"rejected", "refused"}, {"profit", "gain"},
		{"often", "frequently"}, {"study", "trial"}, {"patients", "participants"},
	}
	for _, p := range same {
		if a, b := an.Stem(p[0]), an.Stem(p[1]); o.Opposed(a, b) {
			t.Errorf("%s/%s (stems %s/%s) opposed", p[0], p[1], a, b)
		}
	}
	if got := o.Of("no-such-stem"); got != nil {
		t.Errorf("Of(unknown) = %v, want nil", got)
	}
}

// TestParseOppositesGarbage feeds the table parser lines it never wrote:
// blank lines, a lone stem, comments, repeated and self pairs.
func TestParseOppositesGarbage(t *testing.T) {
	o := parseOpposites("# comment\n\nlone\nup down down\nsame same\n   \nx\tup\n", [][2]string{{"", "x"}})
	if !o.Opposed("up", "down") || !o.Opposed("down", "up") || !o.Opposed("x", "up") {
		t.Errorf("pairs lost: %v", o.m)
	}
	if o.Opposed("same", "same") || len(o.Of("lone")) != 0 || len(o.Of("down")) != 1 {
		t.Errorf("garbage kept: %v", o.m)
	}
}

// FuzzParseOpposites: any text parses without panic into a symmetric
// table without self pairs.
func FuzzParseOpposites(f *testing.F) {
	f.Add("increas decreas reduc\nrise fall\n")
	f.Add("# x\n\n a\tb c\n")
	f.Fuzz(func(t *testing.T, s string) {
		o := parseOpposites(s, nil)
		for a, bs := range o.m {
			for _, b := range bs {
				if a == b || !o.Opposed(b, a) || strings.ContainsAny(a+b, " \t\n") {
					t.Fatalf("bad pair %q/%q", a, b)
				}
			}
		}
	})
}
