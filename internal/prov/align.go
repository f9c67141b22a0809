package prov

import (
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// This file holds entity alignment: the tests that two sentences which
// seem to disagree speak of one quantity, at one time, in one place, for
// one group, in one sense. Two sources more often state two different
// facts in similar words than one fact two ways: the revenue of a group
// and of its division, a forecast and a current value, a flash estimate
// and its revision, the share of capacity and of generation, a phase 2
// and a phase 3 trial, the year's change and a day's. The detector
// prefers no conflict to a false one, so any of these differences on
// both sides (or, for a forecast, on one) makes the two sentences about
// different things.

// alignment is what a sentence says about what its figures are of,
// beyond its names and years: its identifiers, its time frame, whether it
// forecasts, whether it reports a claim it doubts, and the words after
// "of" that say what a share is a share of.
type alignment struct {
	// words are the sentence's lowercased words, sorted and unique: a name
	// the other sentence writes anywhere (even opening it) is not one it
	// lacks.
	words []string
	// ids are labels with a number ("phase 3", "top-1", "COP26"): word and
	// number, lowercased.
	ids [][2]string
	// frames are the words that set a figure's time frame or basis
	// ("since", "Tuesday", "year-on-year"), lowercased.
	frames []string
	// days are the day-level frames ("Tuesday", "overnight"): a day's
	// move is not the year's, whether or not the other sentence names a
	// period.
	days []string
	// parts are the words that make a figure a part's or a subgroup's
	// ("division", "segment", "among", "aged").
	parts []string
	// shareOf are the content stems after "of" following a percentage
	// ("12% of the country's installed capacity"): what it is a share of.
	shareOf []string
	// compares is true for a sentence that sets figures side by side
	// ("32% vs 8%", "14.6% and 11.1% … respectively", "compared with
	// placebo", "ranged from 1.5% to 19%") or lists more than two: its
	// numbers are about several groups, and which one a figure of the
	// other sentence is about cannot be read from words.
	compares bool
	// future is true for a forecast, a plan or a target ("is expected to
	// reach", "will"); doubted for a claim the sentence reports without
	// asserting it ("claimed", "a myth").
	future, doubted bool
}

// alignmentOf reads a sentence's alignment; toks are the detector's tokens
// of text.
func alignmentOf(text string, toks []token) alignment {
	var al alignment
	for i, t := range toks {
		w := strings.TrimSuffix(strings.TrimSuffix(t.word, "'s"), "’s")
		al.words = append(al.words, w)
		switch {
		case futureWords[w]:
			al.future = true
		case doubtWords[w]:
			al.doubted = true
		case dayWords[w]:
			al.days = append(al.days, w)
			al.frames = append(al.frames, w)
		case frameWords[w]:
			al.frames = append(al.frames, w)
		case partWords[w]:
			al.parts = append(al.parts, w)
		case w == "vs" || w == "versus" || w == "respectively" || w == "ranged" || w == "ranging" || w == "ranges":
			al.compares = true
		case w == "of" && i > 0 && i+1 < len(toks) && isNumberWord(toks[i-1].word) && isNumberWord(toks[i+1].word):
			al.compares = true // "on 30 of 32 benchmarks": a count out of a total, some but not all
		case (w == "whom" || w == "which") && i > 0 && toks[i-1].word == "of":
			al.compares = true // "46% of patients, of whom 21% …": a share of a share
		case w == "compared" || w == "relative" || w == "comparison":
			if i+1 < len(toks) && (toks[i+1].word == "with" || toks[i+1].word == "to") {
				al.compares = true
			}
		case w == "set" || w == "due" || w == "going":
			// "is set to reach", "is due to open", "is going to": a plan.
			if i+1 < len(toks) && toks[i+1].word == "to" && i > 0 && beVerbs[toks[i-1].word] {
				al.future = true
			}
		case w == "last" || w == "previous" || w == "next" || w == "same":
			// "last year", "the previous quarter": a relative frame.
			if i+1 < len(toks) && periodWords[toks[i+1].word] {
				al.frames = append(al.frames, w+" "+toks[i+1].word)
			}
		}
	}
	slices.Sort(al.words)
	al.words = slices.Compact(al.words)
	al.shareOf = shareComplement(text, toks)
	// Words glued to a number ("GPT-4", "COP26"), then labels with their
	// number ("phase 3", "stage II"): scan.go.
	al.ids = appendLabels(appendIDs(al.ids, text), text)
	return al
}

// dayWords are the time frames of a day.
var dayWords = lexical.WordSet(`monday tuesday wednesday thursday friday saturday sunday today yesterday tonight
overnight intraday hourly`)

// partWords make a figure a part's or a subgroup's: a division of a group,
// a state of a country, a segment of a market, the people of an age.
var partWords = lexical.WordSet(`division divisions segment segments subsidiary subsidiaries branch branches unit units
region regions regional state states province provinces county counties district districts section sections subgroup
subgroups subset among aged excluding except domestic international northern southern eastern western rural urban`)

// shareComplement returns the run of content stems, up to three, after
// the "of" that follows a percentage ("12% of the country's installed
// generating capacity": countri, instal, generat).
func shareComplement(text string, toks []token) []string {
	var out []string
	for i := 0; i+1 < len(toks); i++ {
		end := toks[i].pos + len(toks[i].word)
		pct := end < len(text) && text[end] == '%' || toks[i].word == "percent"
		if !pct || toks[i+1].word != "of" {
			continue
		}
		for k := i + 2; k < len(toks) && len(out) < 3; k++ {
			if toks[k].brk {
				break
			}
			if toks[k].stem == "" {
				if len(out) > 0 {
					break // "of the vote in the 2022 election": the share ends at "in"
				}
				continue
			}
			out = append(out, toks[k].stem)
		}
		break
	}
	return out
}

// futureWords mark a forecast, projection, plan or target.
var futureWords = lexical.WordSet(`will 'll shall expected expects expect projected projects projection projections forecast
forecasts forecasted predicted predicts prediction planned plans target targets targeted aims aim aimed goal goals outlook
scheduled anticipated envisaged envisioned`)

// doubtWords report a claim without asserting it, or reject it, or say
// what would or could happen under a scenario: "warming could reach
// 4.4 °C under a very high emissions scenario" is no statement of fact
// that "would be limited to 1.8 °C under a low one" denies.
var doubtWords = lexical.WordSet(`claimed claims alleged allegedly purported purportedly rumoured rumored rumour rumor myth
myths misconception misconceptions falsely erroneously wrongly debunked mistakenly supposedly reportedly
would could scenario scenarios hypothetical`)

// frameWords set a figure's time frame or basis: the change since a date,
// over a day, against another period.
var frameWords = lexical.WordSet(`since monday tuesday wednesday thursday friday saturday sunday today yesterday tonight
weekly daily hourly overnight intraday year-on-year quarter-on-quarter month-on-month year-over-year quarter-over-quarter
cumulative cumulatively lifetime ytd year-to-date decade`)

// periodWords are the periods of "last year", "the previous quarter".
var periodWords = lexical.WordSet(`year years quarter quarters month months week weeks day days decade season`)

var beVerbs = lexical.WordSet(`is are was were be been`)

// differentAlignment reports that two sentences speak of different
// things by their alignment: a forecast beside a statement of fact, a
// claim reported in doubt, labels with one word and two numbers ("phase 2"
// / "phase 3"), or each a time frame the other lacks ("since 2020" /
// "last year").
func differentAlignment(a, b *alignment) bool {
	if a.future != b.future || a.doubted || b.doubted {
		return true
	}
	for _, x := range a.ids {
		for _, y := range b.ids {
			if x[0] == y[0] && x[1] != y[1] {
				return true
			}
		}
	}
	if len(a.days) > 0 != (len(b.days) > 0) {
		return true
	}
	return eachLacks(a.frames, b.frames) || eachLacks(a.shareOf, b.shareOf)
}

// partLacking reports a part word of a (align.partWords) that b does not
// write: "the energy division's revenue" is not the group's.
func partLacking(a, b *analysed) bool {
	for _, w := range a.align.parts {
		if _, ok := slices.BinarySearch(b.align.words, w); !ok {
			return true
		}
	}
	return false
}

// eachLacks reports that each list holds a word the other does not.
func eachLacks(a, b []string) bool {
	only := func(x, y []string) bool {
		for _, n := range x {
			if !slices.Contains(y, n) {
				return true
			}
		}
		return false
	}
	return only(a, b) && only(b, a)
}

// namesLacking reports whether a has a name that b does not write
// anywhere, in any case.
func namesLacking(a, b *analysed) bool {
	for _, n := range a.names {
		if _, ok := slices.BinarySearch(b.align.words, n); !ok {
			return true
		}
	}
	return false
}

// differentNamesAnywhere reports that each sentence names something the
// other does not write anywhere: two subjects, not one told twice.
// "Microsoft agreed to acquire LinkedIn" / "LinkedIn was bought by
// Microsoft" name the same two companies, though each opens one sentence.
func differentNamesAnywhere(a, b *analysed) bool {
	return namesLacking(a, b) && namesLacking(b, a)
}
