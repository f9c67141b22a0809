package construct

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSentencesOf(t *testing.T) {
	got := sentencesOf("We extend the model of Belle et al. (2005) with work by B. Sagan. Does it hold? We show it does, e.g. for rings ")
	want := []string{"We extend the model of Belle et al. (2005) with work by B. Sagan.", "Does it hold.", "We show it does, e.g. for rings."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
