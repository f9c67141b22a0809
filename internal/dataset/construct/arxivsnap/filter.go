package arxivsnap

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Default filter settings: ReportBench §2.1.1. The comments pattern matches
// word stems ("Accept by ICCV", "acceptance", "publishing"): it keeps all
// 100 released tasks, where the literal \b(published|accepted)\b keeps 96.
const (
	DefaultSince    = "2020-01-01"
	DefaultTitle    = `(?i)\b(survey|review)`
	DefaultComments = `(?i)(publish|accept)`
)

// DefaultLicenses is the permissive allow-list: CC BY 4.0, CC BY-SA 4.0,
// CC0 1.0 and arXiv's non-exclusive distribution licence.
var DefaultLicenses = []string{
	"http://creativecommons.org/licenses/by/4.0/",
	"http://creativecommons.org/licenses/by-sa/4.0/",
	"http://creativecommons.org/publicdomain/zero/1.0/",
	"http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
}

// Reason names the filter a record failed.
type Reason string

// Reasons, in the order filters are applied (cheapest first).
const (
	ReasonDate     Reason = "date"     // first version before Since (or not before Until), or no date
	ReasonLicense  Reason = "license"  // licence not in the allow-list
	ReasonCategory Reason = "category" // none of the wanted categories
	ReasonTitle    Reason = "title"    // title does not match
	ReasonComments Reason = "comments" // comments do not match
)

// FilterSpec says which snapshot records are kept, in text form as flags
// and manifests carry it. An empty field does not filter.
type FilterSpec struct {
	// Since keeps records whose first version was created on or after this
	// day (YYYY-MM-DD, UTC); Until, when set, keeps those created before it.
	Since string `json:"since"`
	Until string `json:"until,omitempty"`
	// Title and Comments are regular expressions (RE2 syntax) the record's
	// title and comments must match.
	Title    string `json:"title"`
	Comments string `json:"comments"`
	// Licenses is the allow-list of licence URLs, compared without scheme,
	// "www." or trailing slash, ignoring case. A record without a licence
	// fails a non-empty list.
	Licenses []string `json:"licenses"`
	// Categories keeps records listing one of them: "cs.CL" matches that
	// category, "cs" the whole archive.
	Categories []string `json:"categories,omitempty"`
}

// DefaultSpec returns the paper's filter.
func DefaultSpec() FilterSpec {
	return FilterSpec{
		Since:    DefaultSince,
		Title:    DefaultTitle,
		Comments: DefaultComments,
		Licenses: append([]string(nil), DefaultLicenses...),
	}
}

// Filter is a compiled FilterSpec. It is safe for concurrent use.
type Filter struct {
	spec            FilterSpec
	since, until    int // yyyymmdd, 0 when unset
	title, comments *regexp.Regexp
	licenses        map[string]bool
}

// Compile checks the spec and builds its Filter.
func (s FilterSpec) Compile() (*Filter, error) {
	f := &Filter{spec: s}
	for _, d := range []struct {
		name, value string
		dst         *int
	}{{"since", s.Since, &f.since}, {"until", s.Until, &f.until}} {
		if d.value == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, d.value)
		if err != nil {
			return nil, fmt.Errorf("filter %s %q: want YYYY-MM-DD: %w", d.name, d.value, err)
		}
		*d.dst = t.Year()*10000 + int(t.Month())*100 + t.Day()
	}
	var err error
	if s.Title != "" {
		if f.title, err = regexp.Compile(s.Title); err != nil {
			return nil, fmt.Errorf("filter title %q: %w", s.Title, err)
		}
	}
	if s.Comments != "" {
		if f.comments, err = regexp.Compile(s.Comments); err != nil {
			return nil, fmt.Errorf("filter comments %q: %w", s.Comments, err)
		}
	}
	if len(s.Licenses) > 0 {
		f.licenses = make(map[string]bool, len(s.Licenses))
		for _, l := range s.Licenses {
			f.licenses[normLicense(l)] = true
		}
	}
	return f, nil
}

// Spec returns the spec the filter was compiled from.
func (f *Filter) Spec() FilterSpec { return f.spec }

// normLicense reduces a licence URL to a comparable form.
func normLicense(l string) string {
	return string(trimLicense([]byte(strings.ToLower(strings.TrimSpace(l)))))
}

// trimLicense strips the scheme, "www." and a trailing slash, without
// copying.
func trimLicense(b []byte) []byte {
	b = bytes.TrimSpace(b)
	b = bytes.TrimPrefix(b, []byte("https://"))
	b = bytes.TrimPrefix(b, []byte("http://"))
	b = bytes.TrimPrefix(b, []byte("www."))
	return bytes.TrimSuffix(b, []byte("/"))
}

// licenseOK looks the licence up without allocating when it is already
// lowercase, as in the snapshot.
func (f *Filter) licenseOK(l []byte) bool {
	t := trimLicense(l)
	if f.licenses[string(t)] {
		return true
	}
	if bytes.IndexFunc(t, unicode.IsUpper) < 0 {
		return false
	}
	return f.licenses[string(bytes.ToLower(t))]
}

// Keep reports whether the record passes, and otherwise the first filter it
// failed.
func (f *Filter) Keep(r *Fields) (bool, Reason) {
	return f.keep(r.raw())
}

func (f *Filter) keep(r *raw) (bool, Reason) {
	for _, check := range checks {
		if !check.ok(f, r) {
			return false, check.reason
		}
	}
	return true, ""
}

// Explain returns every filter the record fails, in application order.
func (f *Filter) Explain(r *Fields) []Reason {
	var out []Reason
	rr := r.raw()
	for _, check := range checks {
		if !check.ok(f, rr) {
			out = append(out, check.reason)
		}
	}
	return out
}

// raw returns the fields as byte slices.
func (r *Fields) raw() *raw {
	return &raw{
		id: []byte(r.ID), title: []byte(r.Title), comments: []byte(r.Comments), license: []byte(r.License),
		categories: []byte(r.Categories), abstract: []byte(r.Abstract),
		firstCreated: []byte(r.FirstCreated), lastCreated: []byte(r.LastCreated),
	}
}

// checks are the filters, cheapest first.
var checks = []struct {
	reason Reason
	ok     func(*Filter, *raw) bool
}{
	{ReasonDate, func(f *Filter, r *raw) bool {
		if f.since == 0 && f.until == 0 {
			return true
		}
		d := firstDay(r.firstCreated, r.id)
		return d != 0 && (f.since == 0 || d >= f.since) && (f.until == 0 || d < f.until)
	}},
	{ReasonLicense, func(f *Filter, r *raw) bool {
		return f.licenses == nil || f.licenseOK(r.license)
	}},
	{ReasonCategory, func(f *Filter, r *raw) bool {
		return len(f.spec.Categories) == 0 || hasCategory(r.categories, f.spec.Categories)
	}},
	{ReasonTitle, func(f *Filter, r *raw) bool {
		return f.title == nil || f.title.Match(r.title)
	}},
	{ReasonComments, func(f *Filter, r *raw) bool {
		return f.comments == nil || f.comments.Match(r.comments)
	}},
}

func hasCategory(list []byte, want []string) bool {
	for c := range bytes.FieldsSeq(list) {
		for _, w := range want {
			if string(c) == w || (!strings.Contains(w, ".") && len(c) > len(w) && c[len(w)] == '.' && string(c[:len(w)]) == w) {
				return true
			}
		}
	}
	return false
}

var monthNumbers = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// FirstDay returns the day (yyyymmdd) the record's first version was
// created, from versions[0].created, or from a new-style identifier
// (YYMM.NNNNN, month precision) when the record has no dates; 0 when
// neither is known.
func FirstDay(r *Fields) int {
	return firstDay([]byte(r.FirstCreated), []byte(r.ID))
}

func firstDay(created, id []byte) int {
	if d := parseCreated(created); d != 0 {
		return d
	}
	return idMonth(id)
}

// ParseCreated reads an arXiv version date ("Mon, 2 Apr 2007 19:18:42
// GMT") as yyyymmdd, or 0.
func ParseCreated(s string) int { return parseCreated([]byte(s)) }

func parseCreated(s []byte) int {
	// Skip the weekday.
	if i := bytes.IndexByte(s, ','); i >= 0 {
		s = s[i+1:]
	}
	var parts [3][]byte
	n := 0
	for p := range bytes.FieldsSeq(s) {
		if n == 3 {
			break
		}
		parts[n] = p
		n++
	}
	if n < 3 {
		return 0
	}
	day, ok1 := atoi(parts[0])
	month := 0
	if len(parts[1]) >= 3 {
		var m [3]byte
		for i := range m {
			m[i] = parts[1][i] | 0x20 // ASCII lowercase
		}
		month = monthNumbers[string(m[:])]
	}
	year, ok2 := atoi(parts[2])
	if !ok1 || !ok2 || month == 0 || day < 1 || day > 31 || year < 1900 || year > 9999 {
		return 0
	}
	return year*10000 + month*100 + day
}

// atoi reads a short unsigned decimal number.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// idMonth reads the month of a new-style arXiv identifier as yyyymm01.
func idMonth(id []byte) int {
	if len(id) < 9 || id[4] != '.' {
		return 0
	}
	yy, ok1 := atoi(id[:2])
	mm, ok2 := atoi(id[2:4])
	if !ok1 || !ok2 || mm < 1 || mm > 12 || yy < 7 {
		return 0
	}
	return (2000+yy)*10000 + mm*100 + 1
}
