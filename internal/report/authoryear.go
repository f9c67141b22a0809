package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
)

// Author–year citations name a work by its first author and year:
// parenthetical "(Smith, 2020)", "(Smith et al. 2020a)", "(see Smith &
// Jones, 2020, p. 4; Lee, 2019)" and narrative "Smith et al. (2020)",
// "Smith and Jones (2019, 2020)". They carry no identifier, so they are
// resolved only through the report's reference list: a marker takes the
// list entry whose first author's name holds the marker's first surname
// (case and diacritics ignored) and whose year is the marker's year.
//
// Letter suffixes must agree when both sides have one ("2020a" never
// resolves to an entry dated "2020b"). When several entries remain, the
// second author and the number of authors ("et al." means three or more)
// narrow them; entries that are one work (same URL, identifiers and title)
// count once. A marker still matching several works is ambiguous: it is
// recorded without a target, like "[7]" with no seventh entry, so that it
// is counted as dangling.
//
// A marker that matches no entry is recorded the same way, without a
// target, only when the report demonstrably cites in author–year style —
// some author–year marker of the report matched a list entry — and the
// marker has a citation's form: "et al.", two authors or more, or a comma
// before the year in a parenthesis, with a plausible surname (not "March",
// "Table", "NeurIPS") and no other capitalised words before it. Otherwise an
// unresolved marker is not a citation: "(March 2020)", "(COVID-19, 2020)",
// "Windows (2000)" and every marker of a report without a matching list
// leave no trace.

// Bounds of the author–year detector: how far a parenthesis may run, and
// how far back from a narrative "(2020)" the names may start.
const (
	maxAYGroup   = 400
	maxAYNames   = 160
	maxAYLocator = 80
)

// ayIndex lists, for each year, the entries with an author key of that year.
type ayIndex map[string][]int

// newAYIndex indexes the entries that have an author key, or returns nil
// when none has (the report is not in author–year style).
func newAYIndex(entries []entry) ayIndex {
	var ix ayIndex
	for i, e := range entries {
		if e.key == nil {
			continue
		}
		if ix == nil {
			ix = ayIndex{}
		}
		for _, y := range e.key.years {
			if l := ix[y.year]; len(l) == 0 || l[len(l)-1] != i {
				ix[y.year] = append(l, i)
			}
		}
	}
	return ix
}

// ayTok is a token of the author–year grammar: a word, or one punctuation
// byte (',', ';', '&', ':'), or '?' for any other character.
type ayTok struct {
	start, end int
	kind       byte // 'w' for a word
}

// ayRef is one parsed author–year reference: the names (word token spans),
// "et al.", whether a comma precedes the year, the years and where the
// marker ends.
type ayRef struct {
	names [][]ayTok
	etAl  bool
	comma bool
	years []yearKey
	end   int
}

// ayPending holds the markers of one parenthesis or narrative citation that
// did not resolve, kept until the whole report is scanned.
type ayPending struct {
	cites     []claimtrace.Citation
	span      span
	spanAdded bool
}

// tokens splits text[lo:hi] into author–year tokens. Emphasis markers and
// white space separate tokens.
func (s *scanner) tokens(lo, hi int) []ayTok {
	text := s.text
	toks := s.ayToks[:0]
	for k := lo; k < hi; {
		c := text[k]
		switch c {
		case ' ', '\t', '\n', '\r', '*', '_':
			k++
			continue
		case ',', ';', '&', ':':
			toks = append(toks, ayTok{k, k + 1, c})
			k++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[k:hi])
		if !ayWordRune(r) {
			if !unicode.IsSpace(r) {
				toks = append(toks, ayTok{k, k + size, '?'})
			}
			k += size
			continue
		}
		j := k + size
		for j < hi {
			r, size := utf8.DecodeRuneInString(text[j:hi])
			if !ayWordRune(r) {
				break
			}
			j += size
		}
		toks = append(toks, ayTok{k, j, 'w'})
		k = j
	}
	s.ayToks = toks
	return toks
}

func ayWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isAlnumByte(byte(r)) || r == '-' || r == '\'' || r == '.'
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || r == '’' || r == '‐'
}

func (s *scanner) word(t ayTok) string {
	if t.kind != 'w' {
		return ""
	}
	return s.text[t.start:t.end]
}

func (s *scanner) kind(t ayTok) int { return ayWordKind(s.word(t)) }

// yearTok reads a token that is a year, whole.
func (s *scanner) yearTok(t ayTok) (yearKey, bool) {
	if t.kind != 'w' {
		return yearKey{}, false
	}
	y, n := yearAt(s.text[:t.end], t.start)
	return y, n > 0 && n == t.end-t.start
}

// nameAt parses one name starting at toks[k]: capitalised words, initials
// and particles, ending on a capitalised word. It returns the index after
// the name, or k when there is none.
func (s *scanner) nameAt(toks []ayTok, k int) int {
	last := -1
	for j := k; j < len(toks) && j-k < 6; j++ {
		kind := s.kind(toks[j])
		if kind == wCap {
			last = j
			continue
		}
		if kind != wInitial && kind != wParticle {
			break
		}
	}
	if last < 0 {
		return k
	}
	return last + 1
}

// nameBefore parses one name ending at toks[k] (a capitalised word),
// backwards. It returns the index of its first word, or k+1 when there is
// none.
func (s *scanner) nameBefore(toks []ayTok, k int) int {
	if k < 0 || s.kind(toks[k]) != wCap {
		return k + 1
	}
	j := k
	for j > 0 && k-j < 5 {
		kind := s.kind(toks[j-1])
		if kind != wCap && kind != wInitial && kind != wParticle {
			break
		}
		j--
	}
	for j < k && s.kind(toks[j]) == wInitial {
		j++
	}
	return j
}

// isAnd reports whether a token joins the last two authors.
func (s *scanner) isAnd(t ayTok) bool {
	return t.kind == '&' || s.kind(t) == wAnd
}

// authorYear handles a '(' at i: a narrative citation's "(2020)" after the
// names, or a parenthetical citation "(Smith, 2020; …)". It returns the
// index after the parenthesis when it recorded a marker, or i.
func (s *scanner) authorYear(i, end int) int {
	if i+5 > end {
		return i
	}
	if c := s.text[i+1]; c == '1' || c == '2' || c == 'n' {
		if j := s.narrative(i, end); j > i || c != 'n' {
			return j
		}
	}
	return s.parenthetical(i, end)
}

// narrative handles "Smith et al. (2020)", "Smith and Jones (2019, 2020b)",
// "van der Aalst (2016, p. 4)": the names are read backwards from the
// parenthesis at i.
func (s *scanner) narrative(i, end int) int {
	text := s.text
	years, close := parenYears(text[:end], i)
	if close < 0 {
		return i
	}
	lo := max(s.blockStart, s.ayFloor, i-maxAYNames)
	if n := len(s.spans); n > 0 {
		lo = max(lo, s.spans[n-1].end)
	}
	for lo < i && !utf8.RuneStart(text[lo]) {
		lo++
	}
	toks := s.tokens(lo, i)
	k := len(toks) - 1
	ref := ayRef{years: years, end: close + 1}
	if k >= 1 && s.kind(toks[k]) == wAl && s.kind(toks[k-1]) == wEt {
		ref.etAl = true
		k -= 2
	}
	st := s.nameBefore(toks, k)
	if st > k {
		return i
	}
	ref.names = append(ref.names, toks[st:k+1])
	k = st - 1
	if !ref.etAl && k >= 1 && s.isAnd(toks[k]) {
		k--
		if k >= 1 && toks[k].kind == ',' {
			k-- // "Smith, Jones, and Lee (2020)"
		}
		for len(ref.names) < 8 {
			st := s.nameBefore(toks, k)
			if st > k {
				break
			}
			ref.names = append([][]ayTok{toks[st : k+1]}, ref.names...)
			k = st - 1
			if k < 1 || toks[k].kind != ',' {
				break
			}
			k--
		}
	}
	if !s.record([]ayRef{ref}, true, i, close+1) {
		return i
	}
	return close + 1
}

// parenYears reads the years of a narrative citation in the parenthesis
// opened at s[i]: "(2020)", "(2019, 2020b)", "(2020a, b)", "(n.d.)", with
// a locator after the years ("(2020, p. 4)"). It returns them and the
// index of the closing parenthesis, or -1.
func parenYears(s string, i int) ([]yearKey, int) {
	var years []yearKey
	j := i + 1
	for {
		k := len(years)
		if y, n := yearAt(s, j); n > 0 {
			years = append(years, y)
			j += n
		} else if k > 0 && years[k-1].suffix != 0 && suffixAt(s, j) {
			// "(2020a, b)": another work of the same year.
			years = append(years, yearKey{year: years[k-1].year, suffix: s[j]})
			j++
		} else if k > 0 {
			// A locator: "(2020, p. 4)".
			for e := j; e < min(len(s), j+maxAYLocator); e++ {
				switch s[e] {
				case ')':
					return years, e
				case '(', '[', '\n':
					return nil, -1
				}
			}
			return nil, -1
		} else {
			return nil, -1
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j >= len(s) || s[j] != ')' && s[j] != ',' && s[j] != ';' {
			return nil, -1
		}
		if s[j] == ')' {
			return years, j
		}
		j++
		for j < len(s) && s[j] == ' ' {
			j++
		}
	}
}

// suffixAt reports whether a year's letter suffix stands alone at s[j], as
// "b" does in "2020a, b".
func suffixAt(s string, j int) bool {
	return j < len(s) && isLowerByte(s[j]) && s[j] != 's' && (j+1 == len(s) || !isAlnumByte(s[j+1]) && s[j+1] != '.')
}

// parenthetical handles "(Smith, 2020)", "(e.g., Smith et al. 2020a; Lee &
// Kim, 2019, p. 4)": one reference per part, parts separated by ';' (or by
// ',' before another author–year pair), a lead-in ("see", "e.g.,") and a
// locator ("p. 4") allowed.
func (s *scanner) parenthetical(i, end int) int {
	text := s.text
	lim := min(end, i+maxAYGroup)
	close := -1
	year := false
	for k := i + 1; k < lim && close < 0; k++ {
		switch c := text[k]; c {
		case ')':
			close = k
		case '(', '[', '`', '\\', '/', 0xEE:
			// A nested parenthesis, a link, code, a URL or a path: not a
			// citation of ours; the other detectors read it.
			return i
		case '1', '2', 'n':
			if !year {
				_, n := yearAt(text[:lim], k)
				year = n > 0
			}
		}
	}
	if close < 0 || !year {
		return i
	}
	if low := s.low[i:close]; strings.Contains(low, "doi") || strings.Contains(low, "arxiv") || strings.Contains(low, "www.") || strings.Contains(low, "10.") || strings.Contains(low, "【") {
		return i
	}
	toks := s.tokens(i+1, close)
	var refs []ayRef
	for k := 0; k < len(toks); {
		// Lead-in: "see", "e.g.,", "cf.", "for a review, see".
		for lead := 0; k < len(toks) && lead < 8 && s.nameAt(toks, k) == k; lead++ {
			if _, ok := s.yearTok(toks[k]); ok || toks[k].kind == ';' {
				break
			}
			k++
		}
		ref, next, ok := s.partAt(toks, k)
		if !ok {
			for k < len(toks) && toks[k].kind != ';' {
				k++
			}
			k++
			continue
		}
		k = next
		switch {
		case k >= len(toks):
		case toks[k].kind == ';':
			k++
		case toks[k].kind == ',' || toks[k].kind == ':':
			if _, _, ok := s.partAt(toks, k+1); ok && toks[k].kind == ',' {
				k++ // "(Smith, 2020, Jones, 2021)"
				break
			}
			// A locator, part of the marker: ", p. 4", ": 12".
			for k < len(toks) && toks[k].kind != ';' {
				k++
			}
			ref.end = toks[k-1].end
			k++
		default:
			// Words after the year ("(ESA 2025 perspective)"): the marker
			// ends at the year.
			for k < len(toks) && toks[k].kind != ';' {
				k++
			}
			k++
		}
		refs = append(refs, ref)
	}
	if len(refs) == 0 || !s.record(refs, false, i, close+1) {
		return i
	}
	return close + 1
}

// partAt parses one author–year reference at toks[k]: names joined by ',',
// "and" or '&', or followed by "et al.", then an optional comma and one or
// more years.
func (s *scanner) partAt(toks []ayTok, k int) (ayRef, int, bool) {
	var ref ayRef
	j := s.nameAt(toks, k)
	if j == k {
		return ref, k, false
	}
	ref.names = append(ref.names, toks[k:j])
	for len(ref.names) < 8 {
		if j+1 < len(toks) && s.kind(toks[j]) == wEt && s.kind(toks[j+1]) == wAl {
			ref.etAl = true
			j += 2
			break
		}
		if j < len(toks) && s.isAnd(toks[j]) {
			if n := s.nameAt(toks, j+1); n > j+1 {
				ref.names = append(ref.names, toks[j+1:n])
				j = n
			}
			break
		}
		if j+1 < len(toks) && toks[j].kind == ',' {
			if s.isAnd(toks[j+1]) {
				if n := s.nameAt(toks, j+2); n > j+2 {
					ref.names = append(ref.names, toks[j+2:n])
					j = n
				}
				break
			}
			if n := s.nameAt(toks, j+1); n > j+1 {
				ref.names = append(ref.names, toks[j+1:n])
				j = n
				continue
			}
		}
		break
	}
	if j < len(toks) && toks[j].kind == ',' {
		ref.comma = true
		j++
	}
	for j < len(toks) {
		y, ok := s.yearTok(toks[j])
		if !ok {
			break
		}
		ref.years = append(ref.years, y)
		ref.end = toks[j].end
		j++
		// "2020a, b": another work of the same year.
		for y.suffix != 0 && j+1 < len(toks) && toks[j].kind == ',' && toks[j+1].end == toks[j+1].start+1 && suffixAt(s.text[:toks[j+1].end], toks[j+1].start) {
			ref.years = append(ref.years, yearKey{year: y.year, suffix: s.text[toks[j+1].start]})
			ref.end = toks[j+1].end
			j += 2
		}
		if j+1 < len(toks) && toks[j].kind == ',' {
			if _, ok := s.yearTok(toks[j+1]); ok {
				j++
			}
		}
	}
	if len(ref.years) == 0 {
		return ref, k, false
	}
	return ref, j, true
}

// record resolves the references of one parenthesis or narrative citation
// spanning text[start:stop] and records their citations: resolved ones at
// once, the others (ambiguous, or dangling candidates) as pending. It
// reports whether anything was recorded.
func (s *scanner) record(refs []ayRef, narrative bool, start, stop int) bool {
	var resolved, pending []claimtrace.Citation
	for r := range refs {
		ref := &refs[r]
		for _, y := range ref.years {
			idx, from, ambiguous := s.resolveAY(ref, y)
			if idx < 0 && !ambiguous {
				if !s.danglingAY(ref, narrative) {
					continue
				}
				from = s.surnameStart(ref.names[0])
			}
			c := claimtrace.Citation{Marker: s.text[from:ref.end], Kind: claimtrace.KindAuthorYear, Start: from, End: ref.end}
			if idx >= 0 {
				s.fill(&c, idx)
				resolved = append(resolved, c)
			} else {
				pending = append(pending, c)
			}
			if idx >= 0 || ambiguous {
				s.ayMatched = true
			}
		}
	}
	if len(resolved) == 0 && len(pending) == 0 {
		return false
	}
	sp := span{start: start, end: stop, cite: !narrative}
	if narrative {
		// The names start the span; a narrative citation is part of its
		// sentence, not a marker that may trail the previous one.
		for _, cs := range [][]claimtrace.Citation{resolved, pending} {
			for _, c := range cs {
				sp.start = min(sp.start, c.Start)
			}
		}
	}
	if len(resolved) > 0 {
		s.cites = append(s.cites, resolved...)
		s.spans = append(s.spans, sp)
	}
	if len(pending) > 0 {
		s.ayPending = append(s.ayPending, ayPending{cites: pending, span: sp, spanAdded: len(resolved) > 0})
	}
	s.ayFloor = stop
	return true
}

// flushAuthorYear records the pending author–year markers when the report
// cites in author–year style (some marker matched a list entry).
func (s *scanner) flushAuthorYear() {
	if !s.ayMatched {
		return
	}
	for _, p := range s.ayPending {
		s.cites = append(s.cites, p.cites...)
		if !p.spanAdded {
			s.spans = append(s.spans, p.span)
		}
	}
}

// resolveAY finds the entry a reference resolves to for year y. It tries
// the first name from its longest run of words to its last word ("In
// Smith", then "Smith"), and, when the first name matches nothing, the
// second (a capitalised word taken for a name: "Using BERT, Smith and Lee
// (2020)"). It returns the entry (or -1), the offset where the marker starts
// and whether several works matched.
func (s *scanner) resolveAY(ref *ayRef, y yearKey) (int, int, bool) {
	for drop := 0; drop < len(ref.names) && drop < 2; drop++ {
		first := ref.names[drop]
		for w := range first {
			if k := s.kind(first[w]); k != wCap && k != wParticle {
				continue
			}
			words := make([]string, 0, len(first)-w)
			for _, t := range first[w:] {
				words = append(words, s.word(t))
			}
			cands := s.ayCandidates(nameTokens(words), y)
			if len(cands) == 0 {
				continue
			}
			cands = s.narrow(cands, ref, drop)
			if len(cands) == 1 {
				return cands[0], first[w].start, false
			}
			return -1, first[w].start, true
		}
	}
	return -1, 0, false
}

// ayCandidates returns the entries whose first author holds name and whose
// years include y, the best-agreeing ones only: same letter suffix first,
// then the entry's publication year before its other years.
func (s *scanner) ayCandidates(name []string, y yearKey) []int {
	best := -1
	out := s.ayCands[:0]
	for _, idx := range s.ay[y.year] {
		k := s.entries[idx].key
		score := -1
		for yi, ey := range k.years {
			if ey.year != y.year || y.suffix != 0 && ey.suffix != 0 && ey.suffix != y.suffix {
				continue
			}
			sc := 0
			if ey.suffix == y.suffix {
				sc += 2
			}
			if yi == 0 {
				sc++
			}
			score = max(score, sc)
		}
		if score < 0 || score < best || !anchoredIn(name, k.first) {
			continue
		}
		if score > best {
			best, out = score, out[:0]
		}
		out = append(out, idx)
	}
	s.ayCands = out
	return out
}

// narrow reduces several candidate entries by the second author and the
// number of authors the reference names, and to one when they are all the
// same work.
func (s *scanner) narrow(cands []int, ref *ayRef, drop int) []int {
	keep := func(ok func(k *authorKey) bool) {
		n := 0
		for _, c := range cands {
			if ok(s.entries[c].key) {
				n++
			}
		}
		if n == 0 || n == len(cands) {
			return
		}
		out := make([]int, 0, n)
		for _, c := range cands {
			if ok(s.entries[c].key) {
				out = append(out, c)
			}
		}
		cands = out
	}
	if len(cands) > 1 && len(ref.names) > drop+1 {
		second := ref.names[drop+1]
		name := nameTokens([]string{s.word(second[len(second)-1])})
		keep(func(k *authorKey) bool { return anchoredIn(name, k.second) })
	}
	if len(cands) > 1 {
		n := len(ref.names) - drop
		if ref.etAl {
			n = 3
		}
		keep(func(k *authorKey) bool { return min(k.authors, 3) == min(n, 3) })
	}
	if len(cands) > 1 {
		e0 := s.entries[cands[0]]
		same := true
		for _, c := range cands[1:] {
			e := s.entries[c]
			same = same && e.url == e0.url && e.doi == e0.doi && e.arxiv == e0.arxiv && e.title == e0.title
		}
		if same {
			cands = cands[:1]
		}
	}
	return cands
}

// surnameStart returns where the surname of a name starts: its last word
// with the particles before it ("Smith", "van der Aalst", "De Cock").
func (s *scanner) surnameStart(name []ayTok) int {
	k := len(name) - 1
	for k > 0 && nameParticles[strings.ToLower(s.word(name[k-1]))] {
		k--
	}
	return name[k].start
}

// danglingAY reports whether an unresolved reference has a citation's form:
// "et al.", two authors or more, or (in a parenthesis) a comma before the
// year; and a surname that is a plausible name.
func (s *scanner) danglingAY(ref *ayRef, narrative bool) bool {
	if !ref.etAl && len(ref.names) < 2 && (narrative || !ref.comma) {
		return false
	}
	// The first name must be a surname alone (with its particles, after a
	// lead-in such as "See"): a run of capitalised words before a year is a
	// title in Title Case ("Satellite Phasing and Tasking (2025)").
	name := ref.names[0]
	k := 0
	for k < len(name)-1 && notSurnames[strings.ToLower(s.word(name[k]))] {
		k++
	}
	if s.surnameStart(name) != name[k].start {
		return false
	}
	for _, n := range ref.names {
		for _, t := range n {
			if t.start >= name[k].start && s.kind(t) == wCap && !plausibleSurname(s.word(t)) {
				return false
			}
		}
	}
	return true
}

// plausibleSurname reports whether a capitalised word can be a surname: not
// a month, a season, a function word or a document part, and not an
// acronym or a camel-case brand ("WHO", "NeurIPS", "OpenAI"), though
// "McDonald" and "LeCun" are names.
func plausibleSurname(w string) bool {
	low := strings.ToLower(w)
	if nameParticles[low] {
		return true
	}
	if notSurnames[low] {
		return false
	}
	upper := 0
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			p, _ := utf8.DecodeLastRuneInString(w[:i])
			if p == '-' || p == '\'' || p == '’' || p == '‐' {
				continue
			}
			if upper == 0 && camelPrefix[w[:i]] {
				upper++
				continue
			}
			return false
		}
	}
	return true
}

// camelPrefix are the name prefixes followed by a capital in real surnames.
var camelPrefix = map[string]bool{
	"Mc": true, "Mac": true, "De": true, "Di": true, "Da": true, "Du": true, "Le": true, "La": true,
	"Van": true, "Von": true, "Del": true, "Des": true, "Fitz": true, "O": true,
}

// notSurnames are capitalised words that precede a year in parentheses
// without naming an author: "(March 2020)", "(Table 2, 2021)".
var notSurnames = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"spring": true, "summer": true, "fall": true, "autumn": true, "winter": true,
	"the": true, "this": true, "that": true, "these": true, "those": true, "see": true, "in": true,
	"on": true, "at": true, "by": true, "for": true, "from": true, "since": true, "until": true,
	"before": true, "after": true, "as": true, "of": true, "to": true, "and": true, "or": true,
	"figure": true, "fig": true, "table": true, "section": true, "chapter": true, "appendix": true,
	"eq": true, "equation": true, "version": true, "vol": true, "volume": true, "issue": true,
	"phase": true, "stage": true, "step": true, "wave": true, "round": true, "year": true,
	"early": true, "late": true, "mid": true, "circa": true, "around": true, "about": true,
	"updated": true, "published": true, "released": true, "launched": true, "founded": true,
	"established": true, "estimated": true, "est": true, "edition": true, "accessed": true,
	"retrieved": true, "data": true, "census": true, "survey": true, "report": true,
}
