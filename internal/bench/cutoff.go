package bench

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
)

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
}

// cutoffRe finds "before April 2025", "prior to August 2023", "earlier than
// 2024", "no later than March 2024", "up to May 2023", "until 2022".
var cutoffRe = regexp.MustCompile(`(?i)\b(before|prior\s+to|earlier\s+than|no\s+later\s+than|not\s+later\s+than|up\s+to|until|till|by)[\s*_\[]+(?:the\s+end\s+of\s+)?(?:(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?,?\s+)?((?:19|20)\d\d)\b`)

// Cutoff returns the instant before which cited works must be published,
// and where it came from: "prompt" when the task's prompt states it
// ("…published before April 2025…" gives 2025-04-01), else "last_version"
// (the first day of the month after the survey's last arXiv version), else
// "none" with a zero time.
//
// "Before M Y" excludes month M; "up to / until / no later than M Y" includes
// it, so the cutoff is the first day of the following month.
func Cutoff(t claimtrace.Task) (time.Time, string) {
	if m := cutoffRe.FindAllStringSubmatch(t.Prompt, -1); len(m) > 0 {
		last := m[len(m)-1]
		word := strings.ToLower(strings.Join(strings.Fields(last[1]), " "))
		year, _ := strconv.Atoi(last[3])
		inclusive := word != "before" && word != "prior to" && word != "earlier than"
		if last[2] == "" {
			if inclusive {
				return time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC), "prompt"
			}
			return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), "prompt"
		}
		mon := months[strings.ToLower(last[2])]
		c := time.Date(year, mon, 1, 0, 0, 0, 0, time.UTC)
		if inclusive {
			c = c.AddDate(0, 1, 0)
		}
		return c, "prompt"
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
