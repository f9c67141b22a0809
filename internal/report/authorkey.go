package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/biblio"
)

// The author key of a reference-list entry — its first authors and its
// years — and the grammar of names and years that author–year markers
// (authoryear.go) share with it.

// yearKey is a citation year ("2020") with its letter suffix ('a' in
// "2020a", 0 for none), or "n.d." for an undated work.
type yearKey struct {
	year   string
	suffix byte
}

// authorKey is what author–year markers match in a reference-list entry.
type authorKey struct {
	first   []string  // normalized words of the first author's name, initials dropped
	second  []string  // the same for the second author, if named
	authors int       // authors named; 3 stands for "et al." and longer lists
	years   []yearKey // the entry's years, its publication year first
}

// entryAuthorKey reads the author list an entry opens with ("Lewis, P.,
// Perez, E., & Kiela, D. (2020).", "P. Lewis, E. Perez et al., “…”",
// "Aaron van den Oord and Sander Dieleman. 2016.", "Kipf TN, Welling M.",
// "[Lewis et al., 2020](url)"), or failing that the name before the first
// "et al.", and the years the entry holds. It returns nil when either is
// missing.
func entryAuthorKey(content string, links []entryLink) *authorKey {
	if !hasYear(content) {
		return nil
	}
	s := keepLinkTexts(content, links)
	if strings.Contains(s, "ccess") || strings.Contains(s, "etriev") || strings.Contains(s, "vailable") {
		s = accessedRE.ReplaceAllString(s, "")
	}
	years := entryYears(s)
	if len(years) == 0 {
		return nil
	}
	k := leadingAuthors(s)
	if k.first == nil {
		k = etAlAuthor(s)
	}
	if k.first == nil {
		return nil
	}
	k.years = years
	return &k
}

// keepLinkTexts replaces the links of an entry by their texts and drops its
// bare URLs.
func keepLinkTexts(s string, links []entryLink) string {
	if len(links) == 0 {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, l := range links {
		if l.start < prev {
			continue
		}
		b.WriteString(s[prev:l.start])
		b.WriteByte(' ')
		if l.text != "" && !looksLikeURL(l.text) {
			b.WriteString(l.text)
			b.WriteByte(' ')
		}
		prev = l.end
	}
	b.WriteString(s[prev:])
	return b.String()
}

// entryYears returns the years of an entry, the first parenthesised one
// ("(2020)." in APA and Harvard) first, else in order of appearance.
func entryYears(s string) []yearKey {
	var ys []yearKey
	primary := -1
	for k := 0; k < len(s) && len(ys) < 8; k++ {
		if c := s[k]; c != '1' && c != '2' && c != 'n' && c != 'N' {
			continue
		}
		y, n := yearAt(s, k)
		if n == 0 {
			continue
		}
		at := len(ys)
		for j, o := range ys {
			if o == y {
				at = j
			}
		}
		if at == len(ys) {
			ys = append(ys, y)
		}
		if primary < 0 && k > 0 && s[k-1] == '(' {
			primary = at
		}
		k += n - 1
	}
	if primary > 0 {
		y := ys[primary]
		copy(ys[1:primary+1], ys[:primary])
		ys[0] = y
	}
	return ys
}

// hasYear reports whether s holds a year.
func hasYear(s string) bool {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c != '1' && c != '2' && c != 'n' && c != 'N' {
			continue
		}
		if _, n := yearAt(s, k); n > 0 {
			return true
		}
	}
	return false
}

// yearAt reads a year at s[k]: 1900–2099 with an optional letter suffix
// ("2020a"; not the "s" of "1990s"), or "n.d.". It returns the year and its
// length, or a zero length when none starts there, or when the digits are
// part of a number, an identifier ("2012.12345") or a path.
func yearAt(s string, k int) (yearKey, int) {
	if k >= len(s) {
		return yearKey{}, 0
	}
	if k > 0 {
		p := s[k-1]
		if isAlnumByte(p) || p == '.' || p == '/' || p == '_' || p == '-' || p == '#' {
			return yearKey{}, 0
		}
	}
	if s[k] == 'n' || s[k] == 'N' {
		if k+3 > len(s) || s[k+1] != '.' || s[k+2] != 'd' && s[k+2] != 'D' {
			return yearKey{}, 0
		}
		n := 3
		if k+3 < len(s) && s[k+3] == '.' {
			n = 4
		}
		if k+n < len(s) && isAlnumByte(s[k+n]) {
			return yearKey{}, 0
		}
		return yearKey{year: "n.d."}, n
	}
	if k+4 > len(s) || !(s[k] == '1' && s[k+1] == '9' || s[k] == '2' && s[k+1] == '0') || !isDigitByte(s[k+2]) || !isDigitByte(s[k+3]) {
		return yearKey{}, 0
	}
	n := 4
	var suffix byte
	if k+4 < len(s) && isLowerByte(s[k+4]) && s[k+4] != 's' && (k+5 == len(s) || !isAlnumByte(s[k+5])) {
		suffix, n = s[k+4], 5
	}
	if k+n < len(s) {
		c := s[k+n]
		if isAlnumByte(c) || c == '/' || c == '_' || c == '.' && k+n+1 < len(s) && isDigitByte(s[k+n+1]) {
			return yearKey{}, 0
		}
	}
	return yearKey{year: s[k : k+4], suffix: suffix}, n
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// leadingAuthors parses the author list at the start of an entry. The list
// ends where the year, the title, a link or a sentence starts.
func leadingAuthors(s string) authorKey {
	s = strings.TrimLeft(s, " \t*_[\\>#")
	end := len(s)
scan:
	for k := 0; k < len(s); k++ {
		switch c := s[k]; {
		case c == '(' || c == '"' || c == ':' || c == '[' || c == ']' || c == '|' || c == '\n' || isDigitByte(c):
		case c == '.' && (k+1 == len(s) || s[k+1] == ' ') && !abbreviationBefore(s, k):
		case c == 0xE2 && (strings.HasPrefix(s[k:], "“") || strings.HasPrefix(s[k:], "”") || strings.HasPrefix(s[k:], "–") || strings.HasPrefix(s[k:], "—")):
		case c == ' ' && strings.HasPrefix(s[k:], " - "):
		default:
			continue
		}
		end = k
		break scan
	}
	// Only the first authors matter; bound the work on a long entry.
	end = min(end, 400)
	for end > 0 && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	region := s[:end]
	var k authorKey
	for n := 0; region != "" && n < 24 && k.authors < 8; n++ {
		cut, next := len(region), len(region)
		etAl := false
		if j := strings.IndexAny(region, ",;&"); j >= 0 {
			cut, next = j, j+1
		}
		if j := strings.Index(region, " and "); j >= 0 && j < cut {
			cut, next = j, j+len(" and ")
		}
		if j := strings.Index(region, " et al"); j >= 0 && j < cut {
			cut, next, etAl = j, len(region), true
		}
		words := strings.Fields(strings.Trim(region[:cut], " \t*_'’"))
		region = region[next:]
		switch {
		case len(words) == 0:
		case k.authors > 0 && allInitials(words):
			// "P." after "Lewis,": the first author's initials.
		case entryName(words):
			switch k.authors {
			case 0:
				k.first = nameTokens(words)
			case 1:
				k.second = nameTokens(words)
			}
			k.authors++
		default:
			region = ""
		}
		if etAl {
			k.authors = max(k.authors, 3)
			break
		}
	}
	if len(k.first) == 0 {
		return authorKey{}
	}
	return k
}

// etAlAuthor finds the first "Name et al." of an entry that does not open
// with its authors ("Retrieval-augmented generation … Lewis et al., 2020").
func etAlAuthor(s string) authorKey {
	j := strings.Index(s[:min(len(s), 400)], " et al")
	if j <= 0 {
		return authorKey{}
	}
	from := max(0, j-80)
	for from < j && !utf8.RuneStart(s[from]) {
		from++
	}
	words := strings.Fields(s[from:j])
	k := len(words)
	for k > 0 && len(words)-k < 4 {
		if kind := ayWordKind(strings.Trim(words[k-1], "*_")); kind != wCap && kind != wParticle {
			break
		}
		k--
	}
	if k == len(words) || ayWordKind(strings.Trim(words[len(words)-1], "*_")) != wCap {
		return authorKey{}
	}
	return authorKey{first: nameTokens(words[k:]), authors: 3}
}

// allInitials reports whether every word is an initial ("P.", "J.-P.").
func allInitials(words []string) bool {
	for _, w := range words {
		if ayWordKind(w) != wInitial && !initialLike(w) {
			return false
		}
	}
	return true
}

// initialLike reports whether a word is initials written without periods
// ("TN" in the Vancouver "Kipf TN"): one to three capitals.
func initialLike(w string) bool {
	if len(w) == 0 || len(w) > 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isUpperASCII(w[i]) {
			return false
		}
	}
	return true
}

// entryName reports whether the words of an entry's author segment form a
// name: capitalised words (one to four: "Attention Is All You Need" is a
// title), initials and particles, at most six words.
func entryName(words []string) bool {
	if len(words) > 6 {
		return false
	}
	caps := 0
	for i, w := range words {
		switch ayWordKind(w) {
		case wCap:
			caps++
		case wInitial, wParticle:
		default:
			if i == 0 || !initialLike(w) {
				return false
			}
		}
	}
	return caps > 0 && caps <= 4
}

// nameTokens normalizes the words of a name for matching: initials are
// dropped, case and diacritics folded, apostrophes removed, hyphenated
// parts split ("O’Brien" is "obrien", "Skerry-Ryan" is "skerry ryan").
func nameTokens(words []string) []string {
	var out []string
	for i, w := range words {
		if ayWordKind(w) == wInitial || i > 0 && initialLike(w) {
			continue
		}
		out = append(out, strings.Fields(biblio.NormalizeTitle(w))...)
	}
	return out
}

// anchoredIn reports whether name is a run of words at the start or at the
// end of full: "Lewis" in "P. Lewis", "van der Aalst" in "Wil van der
// Aalst", "Zhang" in "Zhang Wei", but not "Lee" in "Tsung-Lee Wang".
func anchoredIn(name, full []string) bool {
	n := len(name)
	if n == 0 || n > len(full) {
		return false
	}
	return equalWords(name, full[:n]) || equalWords(name, full[len(full)-n:])
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Word kinds of the author–year grammar.
const (
	wOther    = iota
	wCap      // a capitalised name word: "Smith", "O'Brien", "García-Márquez", "WHO"
	wInitial  // "J.", "J.-P.", "C.A."
	wParticle // a lower-case name particle: "van", "der", "de"
	wAnd      // "and"
	wEt       // "et"
	wAl       // "al", "al."
)

// nameParticles are the lower-case words that may start or join a surname
// ("van der Aalst", "de la Cruz", "bin Salman").
var nameParticles = map[string]bool{
	"van": true, "von": true, "vom": true, "der": true, "den": true, "de": true, "del": true, "della": true,
	"di": true, "da": true, "dos": true, "das": true, "du": true, "la": true, "le": true, "ten": true,
	"ter": true, "bin": true, "ibn": true, "el": true, "zu": true, "y": true,
}

// ayWordKind classifies one word of an author list.
func ayWordKind(w string) int {
	switch w {
	case "and":
		return wAnd
	case "et":
		return wEt
	case "al", "al.":
		return wAl
	case "":
		return wOther
	}
	if nameParticles[w] {
		return wParticle
	}
	r, size := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		// "d'Alembert", "l’Huillier"
		rest := w[size:]
		if r != 'd' && r != 'l' || !(strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, "’")) {
			return wOther
		}
		_, q := utf8.DecodeRuneInString(rest)
		if r2, _ := utf8.DecodeRuneInString(rest[q:]); !unicode.IsUpper(r2) {
			return wOther
		}
		_, size = utf8.DecodeRuneInString(rest[q:])
		size += len(w) - len(rest) + q
	}
	if isInitials(w) {
		return wInitial
	}
	letter := true // the previous rune was a letter
	n := 1
	for _, r := range w[size:] {
		switch {
		case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
			letter = true
			n++
		case r == '-' || r == '\'' || r == '’' || r == '‐':
			if !letter {
				return wOther
			}
			letter = false
		default:
			return wOther
		}
	}
	if !letter || n < 2 {
		return wOther
	}
	return wCap
}

// isInitials reports whether w is one or more initials: "J.", "J.-P.",
// "C.A.".
func isInitials(w string) bool {
	n := 0
	for i := 0; i < len(w); {
		if w[i] == '-' && n > 0 {
			i++
		}
		r, size := utf8.DecodeRuneInString(w[i:])
		if !unicode.IsUpper(r) || i+size >= len(w) || w[i+size] != '.' {
			return false
		}
		i += size + 1
		n++
	}
	return n > 0
}
