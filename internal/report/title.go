package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

var (
	// accessedRE cuts access notes that follow a reference: "Accessed …",
	// "Retrieved …", "檢索日期：…", "[Online]", "Available:".
	accessedRE  = lazyregexp.New(`(?i)[,.;]?\s*(?:\(?(?:last\s+)?accessed\b|retrieved\b|檢索日期|检索日期|访问日期|訪問日期|\[online\]|available\s*(?:at|from|online)?\s*:).*$`)
	doiPrefixRE = lazyregexp.New(`\b10\.\d{4}`)
	idTagRE     = lazyregexp.New(`(?i)\*?\b(?:arxiv(?:\s+preprint)?\s*(?:arxiv)?\s*[:：]?\s*(?:\d{4}\.[\dx]{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?|doi\s*[:：]?\s*10\.\S+|\b10\.\d{4,9}/\S+)\*?`)
	// ieeeQuoted finds a title in quotes: IEEE “Title,” and plain "Title".
	ieeeQuoted = lazyregexp.New(`[“"]([^”"]{4,400}?)[,.]?[”"]`)
	// apaYear finds "(2020)." or "(2020a)," after the authors (APA, Harvard).
	apaYear = lazyregexp.New(`\((?:19|20)\d\d[a-z]?(?:,\s*[^)]{1,30})?\)[.,:]?\s+`)
	// acmYear finds ". 2020. " after the authors (ACM).
	acmYear = lazyregexp.New(`\.\s+(?:19|20)\d\d[a-z]?\.\s+`)
	// trailingYear cuts " (2023)" or ", 2023." at the end of a title.
	trailingYear = lazyregexp.New(`[\s,.(]*\(?(?:19|20)\d\d[a-z]?\)?[.,]?\s*$`)
	// authorYearPrefix cuts "Richards et al., 2012, " before a link's title.
	authorYearPrefix = lazyregexp.New(`^[^,]{1,80}?(?:et al\.?)?,\s*(?:19|20)\d\d[a-z]?,\s*`)
	// authorDateLabel matches link texts that name a source by author and
	// date ("Stephan Zheng' 2021-08-05", "Smith et al., 2020").
	authorDateLabel = lazyregexp.New(`^[^,()]{1,60}?(?:et al\.?)?[,'’]?\s*\(?(?:19|20)\d\d(?:-\d\d(?:-\d\d)?)?[a-z]?\)?$`)
	domainLike      = lazyregexp.New(`^(?i)(?:[a-z0-9-]+\.)+[a-z]{2,}(?:/\S*)?$`)
)

// siteNames are publisher and site names that pages append to their titles
// ("Horizontal gene transfer - Wikipedia").
var siteNames = map[string]bool{
	"wikipedia": true, "sciencedirect": true, "pubmed": true, "pmc": true, "ncbi": true, "arxiv": true,
	"researchgate": true, "semantic scholar": true, "ieee xplore": true, "acm digital library": true,
	"springerlink": true, "springer": true, "nature": true, "mdpi": true, "biorxiv": true, "medrxiv": true,
	"frontiers": true, "wiley online library": true, "taylor & francis online": true, "jstor": true,
	"openreview": true, "google scholar": true, "medium": true, "github": true, "youtube": true,
	"reuters": true, "bloomberg": true, "forbes": true, "the guardian": true, "bbc": true, "cnn": true,
	"statista": true, "mckinsey": true, "deloitte": true, "pwc": true, "linkedin": true, "reddit": true,
	"quora": true, "zhihu": true, "知乎": true, "百度百科": true, "维基百科": true, "plos": true,
	"oxford academic": true, "cambridge core": true, "sage journals": true, "science": true, "cell": true,
	"the lancet": true, "bmj": true, "nejm": true, "jama": true, "pnas": true, "iopscience": true,
}

// entryTitle extracts the title of a bibliography entry from its content
// (URLs already replaced by their link texts in brackets, or removed).
// It returns "" when the entry holds no recognisable title (a bare URL, a
// domain, a passage of text).
func entryTitle(s string, links []entryLink) string {
	t := extractTitle(s, links)
	if len(strings.Fields(t)) > 30 {
		return "" // a passage of text, not a title
	}
	return t
}

// mdEscape matches a Markdown backslash escape ("\-", "\_", "\*").
var mdEscape = lazyregexp.New(`\\([!-/:-@\[-` + "`" + `{-~])`)

func extractTitle(s string, links []entryLink) string {
	if strings.Contains(s, `\`) {
		s = mdEscape.ReplaceAllString(s, "$1")
	}
	for _, l := range links {
		if t := strings.TrimSpace(mdEscape.ReplaceAllString(l.text, "$1")); t != "" && !looksLikeURL(t) && !isNumber(strings.Trim(t, "[]^ ")) && utf8.RuneCountInString(t) >= 8 && !authorDateLabel.MatchString(t) {
			t = authorYearPrefix.ReplaceAllString(t, "")
			return cleanTitle(t)
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "[]", "")
	if ls := strings.ToLower(s); strings.Contains(ls, "access") || strings.Contains(ls, "retriev") || strings.Contains(ls, "online") || strings.Contains(ls, "available") || strings.Contains(s, "日期") {
		s = accessedRE.ReplaceAllString(s, "")
	}
	if ls := strings.ToLower(s); strings.Contains(ls, "arxiv") || strings.Contains(ls, "doi") || doiPrefixRE.MatchString(s) {
		s = idTagRE.ReplaceAllString(s, " ")
	}
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "[]-–—|:： ")
	s = strings.TrimSpace(s)
	// "**Title** (Publisher, 2016) notes…": a bold lead is the title,
	// unless it names the authors and year ("**Izacard et al. (2022)**
	// Atlas: …"), which then lose their emphasis.
	for _, m := range []string{"**", "__"} {
		if strings.HasPrefix(s, m) {
			if e := strings.Index(s[len(m):], m); e > 0 && strings.Contains(s[len(m):len(m)+e], " ") {
				lead := s[len(m) : len(m)+e]
				if !authorYearLead(lead) {
					return cleanTitle(lead)
				}
				s = strings.TrimSpace(lead + " " + s[len(m)+e+len(m):])
			}
		}
	}
	if s == "" || utf8.RuneCountInString(s) > 400 {
		return ""
	}
	if loc := ieeeQuoted.FindStringSubmatchIndex(s); loc != nil {
		q := s[loc[2]:loc[3]]
		// One quoted word is a title only right after the authors
		// ('Y. Xiao et al., "SmoothQuant," arXiv…').
		if strings.Contains(strings.TrimSpace(q), " ") || authorLike(strings.TrimRight(s[:loc[0]], " ,")) {
			return cleanTitle(q)
		}
	}
	if loc := apaYear.FindStringIndex(s); loc != nil && loc[0] > 0 && !startsLower(s[loc[1]:]) {
		return cleanTitle(firstSentence(s[loc[1]:]))
	}
	if loc := acmYear.FindStringIndex(s); loc != nil && (authorLike(s[:loc[0]]) || nameWords(s[:loc[0]])) {
		return cleanTitle(firstSentence(s[loc[1]:]))
	}
	// "Authors. Title. Venue, year." or "Title. Venue, year."
	segs := sentenceSegments(s)
	if len(segs) >= 2 && authorLike(segs[0]) && len(strings.Fields(segs[1])) >= 2 && hasLetter(segs[1]) {
		return cleanTitle(segs[1])
	}
	t := segs[0]
	if len(segs) == 1 {
		// Only the tail can hold the year; keep the regexp off long input.
		cut := max(0, len(t)-24)
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut] + trailingYear.ReplaceAllString(t[cut:], "")
	}
	t = cleanTitle(t)
	if domainLike.MatchString(t) || !hasLetter(t) {
		return ""
	}
	return t
}

// authorYearLead reports whether s is an author list and a year
// ("Izacard et al. (2022).", "Smith, J., 2020"), not a title.
func authorYearLead(s string) bool {
	i := strings.IndexAny(s, "(0123456789")
	if i <= 0 || !hasYear(s[i:]) {
		return false
	}
	return authorLike(strings.TrimRight(s[:i], " ,.("))
}

// sentenceSegments splits an entry at ". " boundaries that are not after
// an initial ("J. Smith") or an abbreviation ("et al.").
func sentenceSegments(s string) []string {
	var segs []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '.' && s[i] != '?' && s[i] != '!' {
			continue
		}
		if s[i+1] != ' ' {
			continue
		}
		if s[i] == '.' && abbreviationBefore(s, i) && !(strings.HasSuffix(s[:i], "et al") && i+2 < len(s) && isUpperASCII(s[i+2])) && !vancouverEnd(s, i) {
			continue // but "Smith et al. Title…" and "Kipf TN, Welling M. Title…" end the authors
		}
		if seg := strings.TrimSpace(s[start : i+1]); seg != "" {
			segs = append(segs, seg)
		}
		start = i + 2
	}
	if seg := strings.TrimSpace(s[start:]); seg != "" {
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		segs = []string{s}
	}
	return segs
}

// vancouverEnd reports whether the period at i closes a Vancouver-style
// author list ("Kipf TN, Welling M. Semi-supervised…"): the initials follow
// a surname, and the next word is not itself a surname closed by "." or
// "," (as "Aila" is in "S. Laine and T. Aila. Temporal…").
func vancouverEnd(s string, i int) bool {
	k := i
	for k > 0 && isUpperASCII(s[k-1]) {
		k--
	}
	if k == i || i-k > 3 || k < 2 || s[k-1] != ' ' || !unicode.IsLetter(rune(s[k-2])) {
		return false
	}
	before := s[:k-1]
	if strings.HasSuffix(before, " and") || strings.HasSuffix(before, "&") {
		return false
	}
	if i+2 >= len(s) || !isUpperASCII(s[i+2]) {
		return false
	}
	next := s[i+2:]
	if j := strings.IndexAny(next, " "); j >= 0 {
		next = next[:j]
	}
	return !strings.HasSuffix(next, ".") && !strings.HasSuffix(next, ",")
}

// firstSentence returns s up to its first sentence end (keeping a final
// "?" or "!", which belong to titles).
func firstSentence(s string) string {
	segs := sentenceSegments(s)
	return segs[0]
}

// authorLike reports whether a segment is an author list: "et al.",
// initials ("J. Smith", "Groth, J."), or several short comma-separated
// names without a lower-case word ("Zhang Wei, Li Ming and Wang Fang"). A
// Title Case title has no initials and is not a list of short names.
func authorLike(s string) bool {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
	if s == "" || strings.ContainsAny(s, ":?!") {
		return false
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' })
	initials, lower := 0, 0
	for _, w := range words {
		switch strings.ToLower(w) {
		case "and", "&", "van", "von", "de", "der", "den", "del", "della", "di", "da", "dos", "du", "la", "le", "y", "et", "al", "al.", "others":
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) {
			lower++
		}
		if (len(w) <= 3 && strings.HasSuffix(w, ".")) || (len(w) == 1 && unicode.IsUpper(r)) || initialsRE.MatchString(w) || initialsHyphenRE.MatchString(w) {
			initials++
		}
	}
	// A stray lower-case name part ("W. tau Yih") is tolerated in a list
	// with many initials; a title has few initials and many such words.
	if lower > 0 && lower*4 > initials {
		return false
	}
	if initials > 0 || strings.Contains(s, "et al") {
		return true
	}
	parts := strings.FieldsFunc(strings.ReplaceAll(s, " and ", ","), func(r rune) bool { return r == ',' || r == '&' || r == ';' })
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if n := len(strings.Fields(p)); n == 0 || n > 3 {
			return false
		}
	}
	return true
}

// nameWords reports whether s holds only capitalised words (and name
// particles): the authors of an ACM reference, whose following ". 2016."
// confirms the structure.
func nameWords(s string) bool {
	if strings.ContainsAny(s, ":?!") {
		return false
	}
	n := 0
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
		switch strings.ToLower(w) {
		case "and", "&", "van", "von", "de", "der", "den", "del", "della", "di", "da", "dos", "du", "la", "le", "y", "et", "al", "al.", "others":
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return false
		}
		n++
	}
	return n >= 2
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }

// initialsRE matches joined initials: "J.-P.", "C.A.", "Y.J."
var (
	initialsRE       = lazyregexp.New(`^(?:\p{Lu}\.-?){1,3}$`)
	initialsHyphenRE = lazyregexp.New(`^\p{Lu}\.-\p{Ll}\.$`) // "W.-t."
)

// cleanTitle trims markup, quotes and punctuation around a title, cuts a
// truncation ellipsis and a site-name suffix.
func cleanTitle(t string) string {
	t = strings.TrimSpace(t)
	t = strings.Trim(t, "*_[]")
	t = strings.TrimSpace(t)
	t = strings.TrimPrefix(t, "In: ")
	t = trimPairedQuotes(t)
	t = strings.TrimSuffix(t, "...")
	t = strings.TrimSuffix(t, "…")
	t = strings.TrimRight(t, " ,.;:")
	t = stripSiteSuffix(t)
	return strings.TrimSpace(t)
}

// stripSiteSuffix removes " | Site" (up to six words) and " - Site" when
// Site is a known site name, a domain, or a short capitalised name after a
// title of four words or more.
func stripSiteSuffix(t string) string {
	for range 2 {
		if i := strings.LastIndex(t, " | "); i > 0 {
			head, tail := strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+3:])
			switch {
			case len(strings.Fields(tail)) <= 6 && utf8.RuneCountInString(tail) <= utf8.RuneCountInString(head):
				t = head
				continue
			case utf8.RuneCountInString(head) <= 12 && strings.Count(t, " | ") == 1:
				// "知乎 | Title": the site comes first.
				t = tail
				continue
			}
		}
		i := max(strings.LastIndex(t, " - "), strings.LastIndex(t, " – "), strings.LastIndex(t, " — "))
		if i <= 0 {
			break
		}
		head := t[:i]
		_, size := utf8.DecodeRuneInString(t[i+1:])
		site := strings.TrimSpace(t[i+1+size:])
		if siteNames[strings.ToLower(site)] || domainLike.MatchString(site) || (len(strings.Fields(head)) >= 4 && capitalisedName(site)) {
			t = strings.TrimSpace(head)
			continue
		}
		break
	}
	return t
}

// capitalisedName reports whether s is a short name: at most four words,
// each starting with a capital (or a short CJK name).
func capitalisedName(s string) bool {
	ws := strings.Fields(s)
	if len(ws) == 0 || len(ws) > 4 {
		return false
	}
	for _, w := range ws {
		r, _ := utf8.DecodeRuneInString(w)
		if isCJK(r) {
			if utf8.RuneCountInString(s) > 12 {
				return false
			}
			continue
		}
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) && w != "&" && w != "of" && w != "and" && w != "the" {
			return false
		}
	}
	return true
}

// trimPairedQuotes removes quotes that enclose the whole title.
func trimPairedQuotes(t string) string {
	for _, q := range [][2]string{{"“", "”"}, {"\"", "\""}, {"'", "'"}, {"‘", "’"}, {"「", "」"}} {
		if len(t) > len(q[0])+len(q[1]) && strings.HasPrefix(t, q[0]) && strings.HasSuffix(t, q[1]) {
			return strings.TrimSpace(t[len(q[0]) : len(t)-len(q[1])])
		}
	}
	return t
}

// startsLower reports whether s starts with a lower-case letter: running
// text ("… (2020) shows that …"), not a title.
func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}
