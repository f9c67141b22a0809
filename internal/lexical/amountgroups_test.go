package lexical

import "testing"

// TestAmountGroups checks the group-number constants against the
// expression: a group added or moved in amountRE must move them too.
func TestAmountGroups(t *testing.T) {
	for name, want := range map[string]int{
		"sign": reSign, "cur": reCur, "lo": reLo, "suf1": reSuf1, "spaced": reSpaced,
		"sign2": reSign2, "hi": reHi, "suf2": reSuf2, "scale": reScale, "unit": reUnit,
	} {
		if got := amountRE.SubexpIndex(name); got != want {
			t.Errorf("group %q is number %d in amountRE, the constant says %d", name, got, want)
		}
	}
	if n := amountRE.Regexp().NumSubexp(); n != reUnit {
		t.Errorf("amountRE has %d groups, the constants name %d", n, reUnit)
	}
}
