package construct

import (
	"math/rand/v2"
	"slices"
)

// Candidate is a survey eligible for sampling.
type Candidate struct {
	ID     string
	Domain string
}

// Pick is one sampled task and the prompt level drawn for it.
type Pick struct {
	ID     string
	Domain string
	Level  string
}

// Sample draws up to perDomain candidates from each of the ten domains
// (Unknown Category is never drawn) and one prompt level for each drawn
// task. It is deterministic: the generator is math/rand/v2's PCG seeded
// with (seed, 0); for each domain in Domains order, the domain's candidates
// sorted by id are shuffled (Fisher–Yates, rand.Shuffle), the first
// perDomain are taken, and a level is drawn for each in that order
// (rand.IntN(3) over sentence, paragraph, detail). A domain with fewer
// candidates contributes all of them.
func Sample(cands []Candidate, perDomain int, seed uint64) []Pick {
	rng := rand.New(rand.NewPCG(seed, 0))
	byDomain := make(map[string][]string)
	for _, c := range cands {
		byDomain[c.Domain] = append(byDomain[c.Domain], c.ID)
	}
	var picks []Pick
	for _, d := range Domains {
		ids := slices.Clone(byDomain[d])
		slices.Sort(ids)
		ids = slices.Compact(ids)
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		for _, id := range ids[:min(perDomain, len(ids))] {
			picks = append(picks, Pick{ID: id, Domain: d, Level: Levels[rng.IntN(len(Levels))]})
		}
	}
	return picks
}
