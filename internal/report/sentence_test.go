package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnitBeforeFootnote: a capital letter after a number is a unit, not
// an initial, so the sentence ends at its period and keeps its footnote.
func TestUnitBeforeFootnote(t *testing.T) {
	text := "Seeds survived at -15 C.[^1] Field trials followed in spring.\n\n[^1]: https://example.com/frost\n"
	doc := Parse(text)
	var got []string
	for _, c := range doc.Claims {
		got = append(got, c.Text)
	}
	want := []string{"Seeds survived at -15 C.[^1]", "Field trials followed in spring."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got)\n%s", diff)
	}
	if len(doc.Claims) > 0 && len(doc.Claims[0].Citations) != 1 {
		t.Errorf("first claim cites %v, want the footnote", doc.Claims[0].Citations)
	}
}
