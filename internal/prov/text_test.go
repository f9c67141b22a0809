package prov

import (
	"strings"
	"testing"
)

// FuzzUpperCase: upperCase says what comparing with strings.ToUpper says,
// on ASCII, other scripts and invalid UTF-8.
func FuzzUpperCase(f *testing.F) {
	for _, s := range []string{"NASA", "NASA-2", "Nasa", "ÉTÉ", "Été", "ǅ", "ß", "\xffA", "A\xff", "", "42"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := upperCase(s), strings.ToUpper(s) == s; got != want {
			t.Fatalf("upperCase(%q) = %v, strings.ToUpper says %v", s, got, want)
		}
	})
}
