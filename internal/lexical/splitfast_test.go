package lexical

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// splitByRune is Splitter.Split as first written, reading every rune: the
// version that passes over plain ASCII runs must split the same.
func splitByRune(sp Splitter, text string, start, end int, protected []Protected) []Span {
	var out []Span
	spans := protected
	si := sort.Search(len(spans), func(k int) bool { return spans[k].End > start })
	sentStart := start
	var quotes quoteCount // straight quotes seen in the current sentence
	i := start
	for i < end {
		for si < len(spans) && spans[si].End <= i {
			si++
		}
		if si < len(spans) && spans[si].Start <= i {
			i = spans[si].End
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		j := i + size
		boundary := false
		quotes.see(text, i, r)
		switch r {
		case '。', '！', '？', '!', '?', '.', '…':
			j = absorbClosers(text, j, end, &quotes)
			switch r {
			case '。', '！', '？':
				boundary = true
			case '!', '?', '…':
				boundary = sp.endsSentence(text, i, j, end, spans, si, false)
			case '.':
				boundary = sp.endsSentence(text, i, j, end, spans, si, true)
			}
		case '\n':
			// A line ending in a colon introduces what follows.
			p := strings.TrimRight(text[sentStart:i], " \t\r")
			boundary = strings.HasSuffix(p, ":") || strings.HasSuffix(p, "：")
		}
		if !boundary {
			i = j
			continue
		}
		j = absorbCitations(text, j, end, spans)
		out = append(out, Span{sentStart, j})
		sentStart, i = j, j
		quotes = quoteCount{}
	}
	if sentStart < end {
		out = append(out, Span{sentStart, end})
	}
	return out
}

func FuzzSplitPlainRuns(f *testing.F) {
	for _, s := range []string{
		"Tide gauges rose 4.2 cm. Residents, however, were told in March! Were they? \"Yes.\" 'No.' It's fine…",
		"Steps:\nfirst line\nsecond line. [3] Next one.",
		"句子一。Second sentence.Third glued.",
		"See Fig. 3 and e.g. J. Smith et al. 2019.",
	} {
		f.Add(s, 10, 4)
	}
	f.Fuzz(func(t *testing.T, text string, ps, pl int) {
		var prot []Protected
		if ps >= 0 && pl > 0 && ps+pl <= len(text) && utf8.RuneStart(text[ps]) && (ps+pl == len(text) || utf8.RuneStart(text[ps+pl])) {
			prot = []Protected{{Start: ps, End: ps + pl, Cite: true}}
		}
		for _, sp := range []Splitter{{}, {LowerStarts: true}, {GluedStarts: true}} {
			got, want := sp.Split(text, 0, len(text), prot), splitByRune(sp, text, 0, len(text), prot)
			if !slices.Equal(got, want) {
				t.Fatalf("%+v split %q (protected %v): %v, by rune %v", sp, text, prot, got, want)
			}
		}
	})
}

// BenchmarkSplitPlainRuns compares Split with the rune-by-rune version on
// page prose:
//
//	go test ./internal/lexical -run '^$' -bench SplitPlainRuns
func BenchmarkSplitPlainRuns(b *testing.B) {
	text := strings.Repeat("The harbour authority reported that mean tide levels rose by 4.2 cm over the decade (see Fig. 3). "+
		"Residents were told in March; the council's plan, which Dr. Ames drafted, was \"not final.\" ", 100)
	sp := Splitter{GluedStarts: true}
	for _, v := range []struct {
		name string
		fn   func() []Span
	}{
		{"plain-runs", func() []Span { return sp.Split(text, 0, len(text), nil) }},
		{"by-rune", func() []Span { return splitByRune(sp, text, 0, len(text), nil) }},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				v.fn()
			}
		})
	}
}
