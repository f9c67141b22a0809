package prov

import (
	"slices"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// The detector's word tables as maps, and appendTokens, as they were
// before they became switches and a byte scan: the oracles
// FuzzWordTablesOracle and FuzzAppendTokensOracle hold the new code to.

var directionsOracle = map[string]int{
	"increas": 1, "rise": 1, "grow": 1, "rais": 1, "boost": 1, "improv": 1, "higher": 1, "outperform": 1, "accel": 1,
	"decreas": -1, "declin": -1, "fall": -1, "drop": -1, "reduc": -1, "lower": -1, "worsen": -1, "degrad": -1,
	"hurt": -1, "underperform": -1, "shrink": -1, "shrank": -1, "cut": -1, "slash": -1,
}

var irregularOracle = map[string]string{
	"held": "hold", "holds": "hold", "found": "find", "shown": "show", "showed": "show",
	"rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "grew": "grow",
	"grown": "grow", "made": "make", "led": "lead", "gave": "give", "given": "give",
	"took": "take", "taken": "take", "saw": "see", "seen": "see", "went": "go", "gone": "go",
	"began": "begin", "begun": "begin", "won": "win", "lost": "lose", "beat": "beat",
	"outperformed": "outperform", "outperforms": "outperform", "better": "good", "worse": "bad",
}

var topiclessOracle = lexical.WordSet(`et al across use used uses using`)

// appendTokensOracle is appendTokens with its maps and strings.ContainsAny.
func appendTokensOracle(out []token, s string, toks []lexical.Token) []token {
	stemOf := func(w, term string, stop bool) string {
		if len(w) < 2 || stop || lexical.IsNegation(w) || topiclessOracle[w] || isNumberWord(w) {
			return ""
		}
		if l, ok := irregularOracle[w]; ok {
			return l
		}
		return term
	}
	prevEnd := 0
	for _, t := range toks {
		if t.Kind == lexical.CJK {
			continue
		}
		brk := strings.ContainsAny(s[prevEnd:t.Start], ",;:()[]—–")
		prevEnd = t.End
		orig := s[t.Start:t.End]
		w := strings.ReplaceAll(strings.ToLower(orig), "’", "'")
		caps := len(orig) > 1 && w != orig && upperCase(orig)
		if base, ok := strings.CutSuffix(w, "n't"); ok && base != "" {
			switch base {
			case "ca":
				base = "can"
			case "wo":
				base = "will"
			}
			out = append(out, token{word: base, stem: stemOf(base, lexical.Stem(base), lexical.IsStopWord(base)), pos: t.Start, brk: brk, caps: caps})
			out = append(out, token{word: "not", pos: t.Start, caps: caps})
			continue
		}
		out = append(out, token{word: w, stem: stemOf(w, t.Term, t.Stop), pos: t.Start, brk: brk, caps: caps})
	}
	return out
}

func TestWordTablesAsMaps(t *testing.T) {
	for w, d := range directionsOracle {
		if direction(w) != d {
			t.Errorf("direction(%q) = %d, want %d", w, direction(w), d)
		}
	}
	for w, l := range irregularOracle {
		if irregular(w) != l {
			t.Errorf("irregular(%q) = %q, want %q", w, irregular(w), l)
		}
	}
	for w := range topiclessOracle {
		if !topicless(w) {
			t.Errorf("topicless(%q) = false", w)
		}
	}
	for _, w := range []string{"", "the", "rises", "increase", "cuts", "holding", "lose", "using ", "Use"} {
		if direction(w) != 0 || irregular(w) != "" || topicless(w) {
			t.Errorf("%q: direction %d, irregular %q, topicless %v; want none", w, direction(w), irregular(w), topicless(w))
		}
	}
}

// FuzzWordTablesOracle: the switches answer as the maps for any word.
func FuzzWordTablesOracle(f *testing.F) {
	for _, w := range []string{"rise", "shrank", "held", "better", "al", "using", "increased", ""} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if direction(w) != directionsOracle[w] || irregular(w) != irregularOracle[w] || topicless(w) != topiclessOracle[w] {
			t.Fatalf("%q: direction %d, irregular %q, topicless %v; the maps %d, %q, %v", w,
				direction(w), irregular(w), topicless(w), directionsOracle[w], irregularOracle[w], topiclessOracle[w])
		}
	})
}

func TestBreaks(t *testing.T) {
	for gap, want := range map[string]bool{
		"": false, " ": false, ", ": true, " (": true, ") ": true, " — ": true, "–": true, " ’": false, "\u00a0": false,
		"é;": true, "\xe2\x80": false, "\xe2—": true, " \" ": false, "…": false, "]": true, "\t:\n": true,
	} {
		if got := breaks(gap); got != want {
			t.Errorf("breaks(%q) = %v, want %v", gap, got, want)
		}
	}
}

// FuzzAppendTokensOracle: appendTokens gives the tokens the oracle gives,
// after tokens already in the slice.
func FuzzAppendTokensOracle(f *testing.F) {
	for _, s := range []string{
		"The ferry didn't carry 1.2 million passengers (in 2021), the Harbour Board said — it WON'T.",
		"Costs rose; profits fell: the firm’s results were worse – or better [see note].",
		"Cumulative sales held at 3,000 units across the region, et al. using the usual method.",
		"延迟在更改后下降了, latency can't fall\u2014ever.",
	} {
		f.Add(s)
	}
	an := lexical.NewAnalyzer()
	f.Fuzz(func(t *testing.T, s string) {
		ltoks := an.Tokenize(s)
		prefix := []token{{word: "x"}}
		got := appendTokens(slices.Clone(prefix), s, ltoks)
		want := appendTokensOracle(slices.Clone(prefix), s, ltoks)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: tokens %+v, the oracle %+v", s, got, want)
		}
	})
}
