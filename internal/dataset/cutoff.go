package dataset

import (
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
}

// Precision is how finely a cutoff's date is written.
type Precision int

const (
	PrecisionYear  Precision = iota + 1 // "before 2023"
	PrecisionMonth                      // "before May 2021"
	PrecisionDay                        // "prior to 1 March 2024"
)

// String returns "year", "month" or "day".
func (p Precision) String() string {
	switch p {
	case PrecisionYear:
		return "year"
	case PrecisionMonth:
		return "month"
	case PrecisionDay:
		return "day"
	}
	return "none"
}

// PromptCutoff is a publication cutoff as a prompt states it: a date, how
// finely it is written and whether the period it names is allowed.
type PromptCutoff struct {
	// Date is the first instant of the stated day, month or year (UTC).
	Date      time.Time
	Precision Precision
	// Inclusive reports whether works dated within the stated period are
	// allowed: "on or before May 2021", "in or before 2023", "no later
	// than June 2023", "as of March 2024". "Before May 2021" is exclusive.
	Inclusive bool
	// Text is the clause as written ("on or before May 2021").
	Text string
}

// Bound returns the instant cited works must predate: the start of the
// stated period when the cutoff excludes it, the start of the next period
// when it includes it ("on or before May 2021" gives 2021-06-01, "before
// May 2021" 2021-05-01, "by 31 March 2024" 2024-04-01). A work dated in
// the cutoff month is so judged by comparing its date with one instant,
// the post_cutoff rule of ScoreCitations.
func (c PromptCutoff) Bound() time.Time {
	if !c.Inclusive {
		return c.Date
	}
	switch c.Precision {
	case PrecisionYear:
		return c.Date.AddDate(1, 0, 0)
	case PrecisionMonth:
		return c.Date.AddDate(0, 1, 0)
	}
	return c.Date.AddDate(0, 0, 1)
}

// cutoffWord finds the words that open a cutoff clause. "By" opens one
// only after a verb of publication ("published by June 2023"), so a
// forecast "by 2030" is not a cutoff; "after" and "since" bound the other
// side and are not read.
var cutoffWord = lazyregexp.New(`(?i)\b(on\s+or\s+before|in\s+or\s+before|on\s+or\s+prior\s+to|up\s+to\s+and\s+including|up\s+to|no\s+later\s+than|not\s+later\s+than|not\s+after|before|prior\s+to|earlier\s+than|until|till|through|as\s+of|(?:published|publicly\s+available|available|released|written|dated|appeared|appearing|issued)\s+by)\b`)

// orEarlier finds a date followed by "or earlier", "or before", "or prior":
// "published in 2023 or earlier".
var orEarlier = lazyregexp.New(`(?i)^[\s*_\]]*,?\s*or\s+(?:earlier|before|prior)\b`)

// inDate finds the word that may open "in 2023 or earlier".
var inDate = lazyregexp.New(`(?i)\b(?:in|from|dated)\s+`)

// rangeOpen finds a publication window's opening ("published between");
// without the verb, "between 2019 and 2021" may be the topic's period.
var rangeOpen = lazyregexp.New(`(?i)\b(?:published|publicly\s+available|available|released|written|dated|appeared|appearing|issued)\s+(?:between|from)\s+`)

// rangeJoin joins the two ends of a date range.
var rangeJoin = lazyregexp.New(`(?i)^[\s*_\]]*(?:and|to|through|until|-|–)\s+`)

// ParseCutoff returns the first cutoff clause a prompt states. Later ones
// are restatements or other dates ("… before April 2024 … market size by
// 2030"); the first explicit one wins.
func ParseCutoff(prompt string) (PromptCutoff, bool) {
	best := PromptCutoff{}
	bestAt := -1
	for _, m := range cutoffWord.FindAllStringSubmatchIndex(prompt, -1) {
		word := strings.ToLower(strings.Join(strings.Fields(prompt[m[2]:m[3]]), " "))
		d, p, n, end := readDate(prompt[m[1]:])
		if n == 0 {
			continue
		}
		c := PromptCutoff{Date: d, Precision: p, Text: strings.TrimRight(prompt[m[0]:m[1]+n], "*_] ")}
		switch word {
		case "before", "prior to", "earlier than":
			c.Inclusive = end // "before the end of 2023"
		default:
			c.Inclusive = true
		}
		best, bestAt = c, m[0]
		break
	}
	for _, m := range inDate.FindAllStringIndex(prompt, -1) {
		if bestAt >= 0 && m[0] > bestAt {
			break
		}
		d, p, n, _ := readDate(prompt[m[1]:])
		if n == 0 {
			continue
		}
		if k := orEarlier.FindStringIndex(prompt[m[1]+n:]); k != nil {
			best = PromptCutoff{Date: d, Precision: p, Inclusive: true, Text: prompt[m[0] : m[1]+n+k[1]]}
			bestAt = m[0]
			break
		}
	}
	// "published between 2018 and 2023", "available from May 2020 to June
	// 2023": the upper end, included.
	for _, m := range rangeOpen.FindAllStringIndex(prompt, -1) {
		if bestAt >= 0 && m[0] > bestAt {
			break
		}
		d, _, n, _ := readDate(prompt[m[1]:])
		if n == 0 {
			continue
		}
		rest := prompt[m[1]+n:]
		if k := rangeJoin.FindStringIndex(rest); k != nil {
			if d2, p2, n2, _ := readDate(rest[k[1]:]); n2 > 0 && !d2.Before(d) {
				best = PromptCutoff{Date: d2, Precision: p2, Inclusive: true, Text: prompt[m[0] : m[1]+n+k[1]+n2]}
				bestAt = m[0]
				break
			}
		}
	}
	return best, bestAt >= 0
}

// readDate reads the date at the start of s, after markdown emphasis or
// brackets and "the end of" / "the start of": "May 2021", "May 31, 2024",
// "31 May 2024", "31st of May, 2024", "2024-05-31", "2024-05", "2023". It
// returns the first day of the period, its precision, the bytes read (0
// when s does not start with a date) and whether "the end of" asked for
// the whole period.
func readDate(s string) (time.Time, Precision, int, bool) {
	i := skipDateNoise(s, 0)
	end := false
	low := strings.ToLower(s[i:min(len(s), i+20)])
	for _, lead := range []string{"the end of ", "end of ", "the close of ", "the beginning of ", "the start of ", "beginning of ", "start of "} {
		if strings.HasPrefix(low, lead) {
			end = strings.Contains(lead, "end") || strings.Contains(lead, "close")
			i = skipDateNoise(s, i+len(lead))
			break
		}
	}
	if strings.HasPrefix(strings.ToLower(s[i:min(len(s), i+5)]), "the ") && i+4 < len(s) && s[i+4] >= '0' && s[i+4] <= '9' {
		i += 4 // "the 3rd of June 2022"
	}
	// ISO dates: 2024-05-31, 2024-05.
	if m := isoDate.FindStringSubmatch(s[i:min(len(s), i+12)]); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		if mo >= 1 && mo <= 12 && yearOK(y) {
			if m[3] != "" {
				d, _ := strconv.Atoi(m[3])
				if dayOK(y, time.Month(mo), d) {
					return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC), PrecisionDay, i + len(m[0]), end
				}
				return time.Time{}, 0, 0, false
			}
			return time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC), PrecisionMonth, i + len(m[0]), end
		}
	}
	toks := dateTokens(s[i:min(len(s), i+40)])
	if len(toks) == 0 {
		return time.Time{}, 0, 0, false
	}
	at := func(k int) int { return i + toks[k].end }
	t0 := toks[0]
	switch {
	case t0.month > 0:
		// "May 2021", "May 31, 2024", "May 31st 2024".
		if len(toks) > 1 && toks[1].year > 0 {
			return time.Date(toks[1].year, t0.month, 1, 0, 0, 0, 0, time.UTC), PrecisionMonth, at(1), end
		}
		if len(toks) > 2 && toks[1].day > 0 && toks[2].year > 0 && dayOK(toks[2].year, t0.month, toks[1].day) {
			return time.Date(toks[2].year, t0.month, toks[1].day, 0, 0, 0, 0, time.UTC), PrecisionDay, at(2), end
		}
	case t0.day > 0:
		// "31 May 2024", "1st of March, 2024".
		k := 1
		if k < len(toks) && toks[k].of {
			k++
		}
		if k+1 < len(toks) && toks[k].month > 0 && toks[k+1].year > 0 && dayOK(toks[k+1].year, toks[k].month, t0.day) {
			return time.Date(toks[k+1].year, toks[k].month, t0.day, 0, 0, 0, 0, time.UTC), PrecisionDay, at(k + 1), end
		}
		if t0.year > 0 {
			return time.Date(t0.year, 1, 1, 0, 0, 0, 0, time.UTC), PrecisionYear, at(0), end
		}
	case t0.year > 0:
		return time.Date(t0.year, 1, 1, 0, 0, 0, 0, time.UTC), PrecisionYear, at(0), end
	}
	return time.Time{}, 0, 0, false
}

var isoDate = lazyregexp.New(`^((?:19|20)\d\d)[-/](\d\d)(?:[-/](\d\d))?\b`)

// skipDateNoise skips the blanks, emphasis and brackets prompts put around
// a date ("before **June 2025**", "before [December 2021]").
func skipDateNoise(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\n*_[", s[i]) >= 0 {
		i++
	}
	return i
}

// dateToken is one word of a date: a month name, a day number, a year or
// "of".
type dateToken struct {
	month     time.Month
	day, year int
	of        bool
	end       int // offset after the token
}

// dateTokens splits the start of s into date words, stopping at the first
// word that is none (commas, periods after abbreviations and emphasis are
// separators).
func dateTokens(s string) []dateToken {
	var out []dateToken
	i := 0
	for len(out) < 4 {
		for i < len(s) && strings.IndexByte(" \t,*_", s[i]) >= 0 {
			i++
		}
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
			j++
		}
		if j == i {
			break
		}
		w := strings.ToLower(s[i:j])
		tok := dateToken{end: j}
		switch {
		case months[w] > 0:
			tok.month = months[w]
			if j < len(s) && s[j] == '.' {
				tok.end = j + 1
			}
		case w == "of":
			tok.of = true
		default:
			num := strings.TrimRight(w, "stndrh")
			if !allDigits(num) || len(w) > len(num) && !ordinalSuffix(w[len(num):]) {
				return out
			}
			v, _ := strconv.Atoi(num)
			switch {
			case len(num) == 4 && len(w) == 4 && yearOK(v):
				if j+1 < len(s) && (s[j] == '-' || s[j] == '/') && s[j+1] >= '0' && s[j+1] <= '9' {
					return out // a malformed ISO date ("2024-13-01")
				}
				tok.year = v
			case len(num) <= 2 && v >= 1 && v <= 31:
				tok.day = v
			default:
				return out
			}
		}
		out = append(out, tok)
		i = tok.end
		if tok.year > 0 {
			break
		}
	}
	return out
}

func ordinalSuffix(s string) bool { return s == "st" || s == "nd" || s == "rd" || s == "th" }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func yearOK(y int) bool { return y >= 1900 && y <= 2099 }

// dayOK reports whether d is a day of month m of year y.
func dayOK(y int, m time.Month, d int) bool {
	return d >= 1 && d <= time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// Cutoff returns the instant before which cited works must be published,
// and where it came from: "prompt" when the task's prompt states it (the
// Bound of its first cutoff clause: "…published before April 2025…" gives
// 2025-04-01, "…on or before May 2021…" 2021-06-01), else "last_version"
// (the first day of the month after the survey's last arXiv version), else
// "none" with a zero time.
func Cutoff(t claimtrace.Task) (time.Time, string) {
	if c, ok := ParseCutoff(t.Prompt); ok {
		return c.Bound(), "prompt"
	}
	if d, ok := LastVersion(t); ok {
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0), "last_version"
	}
	return time.Time{}, "none"
}

// LastVersion returns the creation time of the survey's last arXiv version.
func LastVersion(t claimtrace.Task) (time.Time, bool) {
	var last time.Time
	for _, v := range t.Versions {
		d, err := time.Parse("Mon, 2 Jan 2006 15:04:05 MST", v.Created)
		if err != nil {
			continue
		}
		if d.After(last) {
			last = d
		}
	}
	return last.UTC(), !last.IsZero()
}
