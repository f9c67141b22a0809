package judge

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

func TestClaimText(t *testing.T) {
	tests := map[string]string{
		"Revenue reached $527 billion in 2023 [[2]](https://www.semiconductors.org/x).":       "Revenue reached $527 billion in 2023.",
		"BERT uses\n  masked language modelling [3] , see https://arxiv.org/abs/1810.04805 .": "BERT uses masked language modelling, see.",
		"  ":     "",
		"[1][2]": "",
	}
	for in, want := range tests {
		if got := ClaimText(in); got != want {
			t.Errorf("ClaimText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExportedReaders: the exported claim readers are the offline judge's.
func TestExportedReaders(t *testing.T) {
	claim := "The WHO and Médecins Sans Frontières reported 120 cases in Kinshasa [4]."
	if got, want := CleanClaim(claim), cleanClaim(claim); got != want {
		t.Errorf("CleanClaim = %q, want %q", got, want)
	}
	toks := passage.Tokenize(claim)
	if diff := cmp.Diff(entities(claim, toks), Entities(claim, toks)); diff != "" || len(Entities(claim, toks)) == 0 {
		t.Errorf("Entities (-offline +exported):\n%s", diff)
	}
}
