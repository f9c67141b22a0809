package judge

import "testing"

// cleanClaimAlways is cleanClaim running every expression on every claim.
func cleanClaimAlways(s string) string {
	s = markdownCiteRE.ReplaceAllString(s, " ")
	s = markdownLinkRE.ReplaceAllString(s, "$1")
	s = bracketCiteRE.ReplaceAllString(s, " ")
	s = urlRE.ReplaceAllString(s, " ")
	return placeholderRE.ReplaceAllString(s, " ")
}

func FuzzCleanClaimGuards(f *testing.F) {
	for _, s := range []string{
		"Rainfall fell 12% in 2023 [3](https://example.org/a).",
		"See [the survey](https://example.org/s) and [4, 5].",
		"Output rose 【7†source】 as https://example.org/x reported.",
		"Sales doubled [<|multi_cit|>] (<|other_cit|>).",
		"No markers here at all.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanClaim(s), cleanClaimAlways(s); got != want {
			t.Fatalf("cleanClaim(%q) = %q, every expression run: %q", s, got, want)
		}
	})
}
