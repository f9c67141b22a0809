package judge

import (
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// The quantity reader is lexical's, shared with the other text readers.
type quantity = lexical.Quantity

const unitYear = lexical.UnitYear

func quantities(text string, toks []passage.Token) []quantity { return lexical.Quantities(text, toks) }

// numberCheck compares the claim's quantities with a passage's.
type numberCheck struct {
	total, matched int
	// conflict is set when a claim number is absent from the passage while
	// the passage states a different number of the same unit.
	conflict string
}

func checkNumbers(claim, evidence []quantity) numberCheck {
	nc := numberCheck{total: len(claim)}
	for _, q := range claim {
		found := lexical.StatedIn(q, evidence, false)
		var rival *quantity
		for k := range evidence {
			if e := &evidence[k]; !found && rival == nil && q.Unit != "" && e.Unit == q.Unit {
				rival = e
			}
		}
		switch {
		case found:
			nc.matched++
		case rival != nil && nc.conflict == "":
			nc.conflict = q.Lit + " vs " + rival.Lit
		}
	}
	return nc
}
