package eval

import (
	"encoding/json"
	"testing"
)

// TestAARReadsStoredShapes: a result stored before the AAR figures took
// audit's shape (conflicts a number, the list beside it) still reads, and
// the current shape round-trips.
func TestAARReadsStoredShapes(t *testing.T) {
	old := `{"tau":0.5,"claims":4,"complete":3,"pcov":0.75,"psnd":0.5,"ctran":0,"aeff_proxy":2,"aeff_words":40,
		"citation_pairs":6,"sound_pairs":3,"conflicts":1,"surfaced_conflicts":0,
		"conflict_list":[{"a":"s1","b":"s2","entity":"accuracy","surfaced":false}],"graph":"graphs/x.json"}`
	var a AAR
	if err := json.Unmarshal([]byte(old), &a); err != nil {
		t.Fatal(err)
	}
	if a.Counts.CompleteClaims != 3 || a.Counts.CitationPairs != 6 || a.Counts.SoundPairs != 3 || a.Counts.Conflicts != 1 ||
		len(a.Conflicts) != 1 || a.Conflicts[0].Entity != "accuracy" || *a.PCov != 0.75 || a.Graph != "graphs/x.json" {
		t.Errorf("old shape read as %+v", a)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var again AAR
	if err := json.Unmarshal(b, &again); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(again)
	if string(b) != string(b2) {
		t.Errorf("round trip:\n%s\n%s", b, b2)
	}
	var top map[string]json.RawMessage
	json.Unmarshal(b, &top)
	for _, k := range []string{"tau", "claims", "pcov", "psnd", "ctran", "aeff_proxy", "aeff_words", "psnd_unverifiable", "counts", "conflicts", "graph"} {
		if _, ok := top[k]; !ok {
			t.Errorf("key %q missing from %s", k, b)
		}
	}
	if string(top["conflicts"])[0] != '[' {
		t.Errorf("conflicts = %s, want the list", top["conflicts"])
	}
}
