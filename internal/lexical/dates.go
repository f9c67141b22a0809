package lexical

import (
	"strconv"
	"strings"
	"time"
)

// months maps month names and their abbreviations to month numbers.
var months = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
	"sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

// ordinals are the ordinal words of quarters and halves.
var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}

// dateSpan is a span of days [from, to).
type dateSpan struct{ from, to int }

// dayNumber counts days from 1 January 1970 (negative before).
func dayNumber(y, m, d int) int {
	return int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func monthSpan(y, m int) dateSpan { return dateSpan{dayNumber(y, m, 1), dayNumber(y, m+1, 1)} }

func daySpan(y, m, d int) dateSpan {
	n := dayNumber(y, m, d)
	return dateSpan{n, n + 1}
}

// validDay reports a real calendar day.
func validDay(y, m, d int) bool {
	return m >= 1 && m <= 12 && d >= 1 && d <= 31 && time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Day() == d
}

// readDates reads the calendar dates finer than a year: "March 2021",
// "15 March 2021", "March 15, 2021", "2021-03", "2021-03-15", "03/2021",
// "15/03/2021" (a day/month order is read only where the day is above 12),
// "Q3 2022", "the third quarter of 2022", "H1 2023", "the first half of
// 2023". The year of a date is still read as a year by Quantities; the
// other numbers of a date are marked in read, not quantities of their own.
// A date is a Quantity with Unit UnitDate and Dim DimDate, its Base the
// middle day of its span and BaseTol half the span.
func readDates(text string, toks []Token, read []bool) []Quantity {
	if !hasYear(toks) {
		return nil // every date below is read around a year
	}
	var out []Quantity
	word := func(k int) string {
		if k < 0 || k >= len(toks) {
			return ""
		}
		return strings.ToLower(text[toks[k].Start:toks[k].End])
	}
	year := func(k int) (int, bool) {
		if k < 0 || k >= len(toks) {
			return 0, false
		}
		return yearOf(toks[k])
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

// yearOf reads t as a year of a date: a four-digit number from 1000 to
// 2100.
func yearOf(t Token) (int, bool) {
	if t.Kind != Number || len(t.Term) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(t.Term)
	return y, err == nil && y >= 1000 && y <= 2100
}

// hasYear reports whether any of toks reads as a year (yearOf): a
// sentence or passage without one holds no date readDates reads, and
// most hold none, so they are not scanned word by word.
func hasYear(toks []Token) bool {
	for _, t := range toks {
		if _, ok := yearOf(t); ok {
			return true
		}
	}
	return false
}

// periodSpan is quarter n (kind 'q') or half n (kind 'h') of year y.
func periodSpan(y int, kind byte, n int) dateSpan {
	months := 3
	if kind == 'h' {
		months = 6
	}
	first := (n-1)*months + 1
	return dateSpan{dayNumber(y, first, 1), dayNumber(y, first+months, 1)}
}
