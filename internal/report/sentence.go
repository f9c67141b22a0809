package report

import "github.com/claimtrace/claimtrace/internal/lexical"

// abbreviationBefore reports whether the period at dot ends an abbreviation
// or an initial ("J. Smith"); see lexical.EndsAbbreviation.
func abbreviationBefore(text string, dot int) bool {
	return lexical.EndsAbbreviation(text, dot)
}

// protectedSpans returns the protected regions as the sentence splitter
// takes them.
func protectedSpans(spans []span) []lexical.Protected {
	out := make([]lexical.Protected, len(spans))
	for i, s := range spans {
		out[i] = lexical.Protected{Start: s.start, End: s.end, Cite: s.cite}
	}
	return out
}
