package confusable

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKey(t *testing.T) {
	alike := [][]string{
		{"alice", "ALICE", "Alice", "\u0430lice", "ａｌｉｃｅ", " alice ", "ɑlice"},
		{"bob", "ВОВ", "b\u043eb", "𝐛𝐨𝐛"},
		{"paypal", "𝔭𝒶ỿ𝕡𝕒ℓ"},
		{"José", "Jose\u0301", "JOSÉ"},
		{"straße", "STRASSE"},
	}
	for _, group := range alike {
		for _, name := range group[1:] {
			if !Same(group[0], name) {
				t.Errorf("%q and %q look alike: keys %q, %q", group[0], name, Key(group[0]), Key(name))
			}
		}
	}
	for _, pair := range [][2]string{{"alice", "alicia"}, {"bob", "rob"}, {"alice", "anonymous"}, {"李明", "李朋"}, {"José", "Josef"}} {
		if Same(pair[0], pair[1]) {
			t.Errorf("%q and %q do not look alike, but share the key %q", pair[0], pair[1], Key(pair[0]))
		}
	}
}

func TestRestricted(t *testing.T) {
	for name, ok := range map[string]bool{
		"alice":             true,
		"Zoë O'Brien-Smith": true,
		"李明":                true,
		"Tanaka 田中 たなか":     true, // Latin, Han and kana
		"Kim 김민준":           true,
		"Алиса":             true,  // all Cyrillic
		"\u0430lice":        false, // Cyrillic a among Latin letters
		"bοb":               false, // Greek omicron
		"Алиса alice":       false,
		"김민준 たなか":           false, // Hangul with kana
		"reviewer 2":        true,
	} {
		err := Restricted(name)
		if (err == nil) != ok {
			t.Errorf("Restricted(%q) = %v, want ok %v", name, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "scripts") {
			t.Errorf("Restricted(%q): %v does not name the scripts", name, err)
		}
	}
}

// FuzzKey: no panic; the key is valid UTF-8, stable (a name's key is its
// key's key, up to the skeleton's own fixed point) and case-blind.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"alice", "ａｌｉｃｅ", "\u0430lice", "ß", "İstanbul", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := Key(s)
		if !utf8.ValidString(k) {
			t.Fatalf("Key(%q) = %q is not UTF-8", s, k)
		}
		up, low := strings.ToUpper(s), strings.ToLower(s)
		roundTrips := strings.ToUpper(low) == up
		if utf8.ValidString(s) && roundTrips && Key(up) != Key(low) {
			// Upper and lower forms that round-trip must look alike.
			t.Fatalf("Key(%q) != Key(%q)", up, low)
		}
		Restricted(s)
	})
}
