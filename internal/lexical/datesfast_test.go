package lexical

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readDatesRef is readDates as it was before it skipped token runs
// without a year (it tested the whole text for a digit instead): the
// reference the guarded one must agree with.
func readDatesRef(text string, toks []Token, read []bool) []Quantity {
	if !strings.ContainsAny(text, "0123456789") {
		return nil
	}
	var out []Quantity
	word := func(k int) string {
		if k < 0 || k >= len(toks) {
			return ""
		}
		return strings.ToLower(text[toks[k].Start:toks[k].End])
	}
	year := func(k int) (int, bool) {
		if k < 0 || k >= len(toks) || toks[k].Kind != Number || len(toks[k].Term) != 4 {
			return 0, false
		}
		y, err := strconv.Atoi(toks[k].Term)
		return y, err == nil && y >= 1000 && y <= 2100
	}
	small := func(k int) (int, bool) { // a day or month number: "15", "03", "15th"
		if k < 0 || k >= len(toks) {
			return 0, false
		}
		w := strings.TrimRight(word(k), "stndrh")
		if len(w) == 0 || len(w) > 2 || toks[k].Kind == Word && w == word(k) {
			return 0, false
		}
		n, err := strconv.Atoi(w)
		return n, err == nil && n >= 1 && n <= 31
	}
	gap := func(a, b int) string { return text[toks[a].End:toks[b].Start] }
	add := func(first, last, yearTok int, sp dateSpan) {
		q := Quantity{Lit: text[toks[first].Start:toks[last].End], Unit: UnitDate, Tok: first, Last: last, Dim: DimDate}
		q.Base = float64(sp.from+sp.to-1) / 2
		q.BaseTol = float64(sp.to-sp.from) / 2
		q.Value, q.Tol = q.Base, q.BaseTol
		q.Lead = leadWords(text, toks, first)
		out = append(out, q)
		for k := first; k <= last; k++ {
			if k != yearTok {
				read[k] = true
			}
		}
	}
	for i := 0; i < len(toks); i++ {
		if read[i] {
			continue
		}
		w := word(i)
		if m, ok := months[strings.TrimSuffix(w, ".")]; ok && toks[i].Kind == Word {
			// "March 2021", "March of 2021", "March 15, 2021"
			if y, ok := year(i + 1); ok && strings.TrimSpace(strings.TrimPrefix(gap(i, i+1), ".")) == "" {
				first := i
				if d, ok := small(i - 1); ok && validDay(y, m, d) && strings.TrimSpace(gap(i-1, i)) == "" {
					first = i - 1 // "15 March 2021"
					add(first, i+1, i+1, daySpan(y, m, d))
				} else if w != "may" || first > 0 && word(first-1) == "in" {
					add(first, i+1, i+1, monthSpan(y, m))
				}
				i++
				continue
			}
			if word(i+1) == "of" {
				if y, ok := year(i + 2); ok {
					add(i, i+2, i+2, monthSpan(y, m))
					i += 2
					continue
				}
			}
			if d, ok := small(i + 1); ok {
				if y, ok := year(i + 2); ok && validDay(y, m, d) && strings.Trim(gap(i+1, i+2), " ,") == "" {
					add(i, i+2, i+2, daySpan(y, m, d))
					i += 2
					continue
				}
			}
			continue
		}
		if y, ok := year(i); ok && i+1 < len(toks) && toks[i+1].Kind == Number {
			// "2021-03", "2021-03-15", "2021/03/15"
			sep := gap(i, i+1)
			if (sep == "-" || sep == "/") && len(toks[i+1].Term) == 2 {
				m, _ := strconv.Atoi(toks[i+1].Term)
				if m < 1 || m > 12 || m > y%100 && toks[i+1].Term[0] != '0' {
					continue // "2018-19" is a span of years
				}
				if i+2 < len(toks) && toks[i+2].Kind == Number && gap(i+1, i+2) == sep && len(toks[i+2].Term) == 2 {
					if d, _ := strconv.Atoi(toks[i+2].Term); validDay(y, m, d) {
						add(i, i+2, i, daySpan(y, m, d))
						i += 2
						continue
					}
				}
				add(i, i+1, i, monthSpan(y, m))
				i++
				continue
			}
		}
		if a, ok := small(i); ok && toks[i].Kind == Number && i+1 < len(toks) && gap(i, i+1) == "/" {
			if y, ok := year(i + 1); ok && a <= 12 { // "03/2021"
				add(i, i+1, i+1, monthSpan(y, a))
				i++
				continue
			}
			if b, ok := small(i + 1); ok && i+2 < len(toks) && gap(i+1, i+2) == "/" {
				if y, ok := year(i + 2); ok {
					switch {
					case a > 12 && validDay(y, b, a): // "15/03/2021"
						add(i, i+2, i+2, daySpan(y, b, a))
					case b > 12 && validDay(y, a, b): // "03/15/2021"
						add(i, i+2, i+2, daySpan(y, a, b))
					case a == b && validDay(y, a, b):
						add(i, i+2, i+2, daySpan(y, a, b))
					default: // "03/04/2021": the order is unknown, the year is still read
						read[i], read[i+1] = true, true
					}
					i += 2
					continue
				}
			}
		}
		// "Q3 2022", "H1 2023"
		if len(w) == 2 && (w[0] == 'q' || w[0] == 'h') && w[1] >= '1' && w[1] <= '4' && toks[i].Kind == Word {
			n := int(w[1] - '0')
			k := i + 1
			if word(k) == "of" {
				k++
			}
			if y, ok := year(k); ok && (w[0] == 'q' || n <= 2) {
				add(i, k, k, periodSpan(y, w[0], n))
				i = k
				continue
			}
		}
		// "the third quarter of 2022", "third-quarter 2022", "the first half of 2023"
		if n, ok := ordinals[w]; ok {
			p := word(i + 1)
			if p != "quarter" && p != "half" || p == "half" && n > 2 {
				continue
			}
			k := i + 2
			if word(k) == "of" {
				k++
			}
			if y, ok := year(k); ok {
				add(i, k, k, periodSpan(y, p[0], n))
				i = k
			}
		}
	}
	return out
}

// FuzzReadDatesGuard holds readDates equal to readDatesRef, dates and
// read marks both, on any text and on every sentence-sized run of its
// tokens (the judge reads a sentence's tokens against the whole source).
func FuzzReadDatesGuard(f *testing.F) {
	for _, s := range []string{
		"Sales rose in March 2021 and again on 15 March 2021.",
		"The survey ran from 2021-03-15 to 03/2021; Q3 2022 was flat.",
		"In the third quarter of 2022 output fell, unlike the first half of 2023.",
		"May 2020 is a date, may 2020 is not. 12/11/2019 and 15/03/2021.",
		"The ward had 2018-19 figures of 1999 beds and 42 nurses.",
		"No years here: 3 of 4 doctors, 12 patients, sixty days.",
		"H1 2023 and h2 of 2023 and Q5 2021; March of 2021.",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		toks := Tokenize(text)
		check := func(toks []Token) {
			gotRead, wantRead := make([]bool, len(toks)), make([]bool, len(toks))
			gq := readDates(text, toks, gotRead)
			wq := readDatesRef(text, toks, wantRead)
			if d := cmp.Diff(wq, gq); d != "" {
				t.Fatalf("readDates(%q) differs from the reference (-want +got):\n%s", text, d)
			}
			if d := cmp.Diff(wantRead, gotRead); d != "" {
				t.Fatalf("readDates(%q) marks differ from the reference (-want +got):\n%s", text, d)
			}
		}
		check(toks)
		for from := 0; from < len(toks); from += 3 {
			check(toks[from:min(len(toks), from+5)])
		}
	})
}
