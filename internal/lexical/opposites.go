package lexical

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

//go:generate go run ./cmd/wordnetgen -out opposites.txt

// oppositesTable is generated from WordNet 3.0 by cmd/wordnetgen: a stem
// a line, then the stems opposed to it.
//
//go:embed opposites.txt
var oppositesTable string

// quantifierOpposites are the opposites among quantifiers, frequency
// words and the prepositions of order, closed classes that WordNet's
// antonyms leave out because most of them are stop words ("most"/"few",
// "more"/"less", "before"/"after"), or miss ("always"/"rarely").
var quantifierOpposites = [][2]string{
	{"before", "after"}, {"above", "below"},
	{"most", "few"}, {"most", "fewest"}, {"most", "least"}, {"many", "few"}, {"more", "less"},
	{"more", "fewer"}, {"all", "none"}, {"majority", "minority"}, {"always", "rarely"},
	{"always", "seldom"}, {"often", "rarely"}, {"often", "seldom"}, {"frequently", "rarely"},
	{"frequently", "seldom"}, {"frequently", "infrequently"}, {"frequent", "rare"},
	{"frequent", "infrequent"}, {"common", "rare"}, {"commonly", "rarely"}, {"usually", "rarely"},
	{"usually", "seldom"}, {"widespread", "rare"}, {"widely", "rarely"},
}

// Opposites is a table of words of opposite meaning, by stem (Stem):
// WordNet's antonyms carried to synonyms, troponyms, derivations and
// inflected forms (cmd/wordnetgen), and the quantifier opposites. It is
// read-only and safe for concurrent use.
type Opposites struct {
	m map[string][]string
}

// OppositeTable returns the shared table, parsed on first use.
func OppositeTable() *Opposites { return sharedOpposites() }

var sharedOpposites = sync.OnceValue(func() *Opposites {
	return parseOpposites(oppositesTable, quantifierOpposites)
})

func parseOpposites(table string, extra [][2]string) *Opposites {
	o := &Opposites{m: make(map[string][]string, 12000)}
	add := func(a, b string) {
		if a == "" || b == "" || a == b {
			return
		}
		if !slices.Contains(o.m[a], b) {
			o.m[a] = append(o.m[a], b)
		}
		if !slices.Contains(o.m[b], a) {
			o.m[b] = append(o.m[b], a)
		}
	}
	for line := range strings.Lines(table) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		for _, b := range f[min(1, len(f)):] {
			add(f[0], b)
		}
	}
	for _, p := range extra {
		add(Stem(p[0]), Stem(p[1]))
	}
	for k := range o.m {
		slices.Sort(o.m[k])
	}
	return o
}

// Of returns the stems opposed to stem, sorted; nil when it has none.
func (o *Opposites) Of(stem string) []string { return o.m[stem] }

// Opposed reports whether two stems are opposites.
func (o *Opposites) Opposed(a, b string) bool {
	_, ok := slices.BinarySearch(o.m[a], b)
	return ok
}

// Len returns the number of stems with at least one opposite.
func (o *Opposites) Len() int { return len(o.m) }
