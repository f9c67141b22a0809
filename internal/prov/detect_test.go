package prov

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDetectConflicts checks that the detected conflicts are added once:
// a graph that records them keeps its list, one that does not gains them,
// after the conflicts it already had.
func TestDetectConflicts(t *testing.T) {
	g := readGraph(t, filepath.Join("testdata", "figure4-blackbox.json"))
	recorded := g.Conflicts
	if len(recorded) == 0 {
		t.Fatal("fixture records no conflict")
	}
	if err := DetectConflicts(t.Context(), g); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recorded, g.Conflicts); diff != "" {
		t.Errorf("recorded conflicts repeated or changed (-want +got):\n%s", diff)
	}
	other := Conflict{A: recorded[0].A, B: recorded[0].B, Entity: "another entity", Detector: "agent"}
	g.Conflicts = []Conflict{other}
	if err := DetectConflicts(t.Context(), g); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append([]Conflict{other}, recorded...), g.Conflicts); diff != "" {
		t.Errorf("conflicts after detection (-want +got):\n%s", diff)
	}
}
