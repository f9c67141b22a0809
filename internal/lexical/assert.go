package lexical

import "strings"

// Asserted reports whether a clause (toks, tokens of src) asserts what it
// says: not a conditional or a hypothesis ("if the ice sheet were to
// melt, sea level would rise 7 m", "were the dam to fail", "unless",
// "suppose", "in the event"),
// nor a possibility ("may reduce", "might"). "Could" is left alone: as
// often the past of "can" ("participants could not distinguish") as a
// possibility. The judge and the contradiction detector read nothing
// against a claim or a source in a clause that is not asserted.
func Asserted(src string, toks []Token) bool {
	for i, t := range toks {
		if t.Kind != Word {
			continue
		}
		w := src[t.Start:t.End]
		next := ""
		if i+1 < len(toks) {
			next = strings.ToLower(src[toks[i+1].Start:toks[i+1].End])
		}
		switch strings.ToLower(w) {
		case "if", "unless", "suppose", "supposing", "hypothetically", "hypothetical":
			return false
		case "were", "had", "should":
			// "were to fail"; an inverted condition opening the clause:
			// "Were the dam to fail", "Had the bank acted", "Should prices fall".
			if next == "to" && w == "were" || i == 0 && !strings.HasSuffix(strings.TrimSpace(src), "?") {
				return false
			}
		case "event":
			if i > 0 && strings.EqualFold(src[toks[i-1].Start:toks[i-1].End], "the") && i > 1 && strings.EqualFold(src[toks[i-2].Start:toks[i-2].End], "in") {
				return false
			}
		case "may":
			if w == "may" { // "May 2023" is a month
				return false
			}
		case "might":
			return false
		}
	}
	return true
}
