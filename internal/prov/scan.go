package prov

import "strings"

// This file holds hand-written scanners for the patterns the detector
// reads in every sentence it analyses: whether a sentence is prose, and
// the labelled numbers of its alignment. Each was a regular expression;
// Go's backtracking matcher spent nearly a third of a source's detection
// on them in the live API. A scanner matches exactly what its expression
// matched (the expressions are kept in scan_test.go, whose fuzz tests
// hold one to the other), in time linear in the sentence.
//
// The expressions' classes are ASCII: \b is a boundary between a word
// byte [0-9A-Za-z_] and anything else, \s is [\t\n\f\r ], \d is [0-9].
// A byte of a multibyte character, valid or not, is never a word byte.

// wordByte reports whether b is a word character of \b.
func wordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}

// spaceByte reports whether b is \s.
func spaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

func upperByte(b byte) bool  { return 'A' <= b && b <= 'Z' }
func lowerByte(b byte) bool  { return 'a' <= b && b <= 'z' }
func digitByte(b byte) bool  { return '0' <= b && b <= '9' }
func letterByte(b byte) bool { return upperByte(b) || lowerByte(b) }

// boundaryAt reports \b before s[i], where s[i] is a word byte.
func boundaryAt(s string, i int) bool { return i == 0 || !wordByte(s[i-1]) }

// endsWord reports \b at i after a word byte: the end of s or a byte
// that is not a word byte.
func endsWord(s string, i int) bool { return i == len(s) || !wordByte(s[i]) }

// notProse reports whether s reads as something other than a statement:
// a reference-list entry ("[12] Smith, J.", "3. Meyer, …", "M. Saffman,
// T. G. Walker"), a list item or markup, a link. It matches where the
// expression
//
//	^\s*(?:\[\d+\]|\d+\.\s+[A-Z][a-z]+,|[-*#|>])|https?://|\]\(|\b[A-Z]\.\s?[A-Z]?\.?\s?[A-Z][a-z]+,.*\b[A-Z]\.\s?[A-Z][a-z]+|\|\s*\|
//
// matches.
func notProse(s string) bool {
	return listItem(s) || strings.Contains(s, "http://") || strings.Contains(s, "https://") ||
		strings.Contains(s, "](") || emptyCell(s) || initialsList(s)
}

// listItem: ^\s*(?:\[\d+\]|\d+\.\s+[A-Z][a-z]+,|[-*#|>]).
func listItem(s string) bool {
	i := 0
	for i < len(s) && spaceByte(s[i]) {
		i++
	}
	if i == len(s) {
		return false
	}
	switch c := s[i]; {
	case strings.IndexByte("-*#|>", c) >= 0:
		return true
	case c == '[':
		j := i + 1
		for j < len(s) && digitByte(s[j]) {
			j++
		}
		return j > i+1 && j < len(s) && s[j] == ']'
	case digitByte(c):
		j := i
		for j < len(s) && digitByte(s[j]) {
			j++
		}
		if j == len(s) || s[j] != '.' {
			return false
		}
		k := j + 1
		for k < len(s) && spaceByte(s[k]) {
			k++
		}
		if k == j+1 {
			return false
		}
		_, ok := capitalWordComma(s, k)
		return ok
	}
	return false
}

// capitalWordComma matches [A-Z][a-z]+, at i and returns the end.
func capitalWordComma(s string, i int) (int, bool) {
	if i >= len(s) || !upperByte(s[i]) {
		return 0, false
	}
	j := i + 1
	for j < len(s) && lowerByte(s[j]) {
		j++
	}
	if j == i+1 || j == len(s) || s[j] != ',' {
		return 0, false
	}
	return j + 1, true
}

// emptyCell: \|\s*\| (a table row).
func emptyCell(s string) bool {
	for i := strings.IndexByte(s, '|'); i >= 0; {
		j := i + 1
		for j < len(s) && spaceByte(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '|' {
			return true
		}
		k := strings.IndexByte(s[i+1:], '|')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

// initialsList: \b[A-Z]\.\s?[A-Z]?\.?\s?[A-Z][a-z]+,.*\b[A-Z]\.\s?[A-Z][a-z]+
// — a name with initials and a comma ("M. Saffman,", "T. G. Walker,"),
// then on the same line an initial and a name ("K. Mølmer" does not: ø
// is no [a-z]; "T. Walker" does). The two parts may sit anywhere, the
// second at or after the end of the first with no line break between
// (. does not match one).
func initialsList(s string) bool {
	// Starts of the second part, in order.
	var seconds []int
	for j := 0; j+1 < len(s); j++ {
		if initialName(s, j) {
			seconds = append(seconds, j)
		}
	}
	if len(seconds) == 0 {
		return false
	}
	// lines[p] counts the line breaks before p, where s has any.
	var lines []int32
	if strings.IndexByte(s, '\n') >= 0 {
		lines = make([]int32, len(s)+1)
		for p := 0; p < len(s); p++ {
			lines[p+1] = lines[p]
			if s[p] == '\n' {
				lines[p+1]++
			}
		}
	}
	next := 0 // seconds[next] is the first start at or after the end considered
	for i := 0; i+1 < len(s); i++ {
		if !upperByte(s[i]) || s[i+1] != '.' || !boundaryAt(s, i) {
			continue
		}
		found := initialsEnds(s, i+2, func(e int) bool {
			k := next
			for k < len(seconds) && seconds[k] < e {
				k++
			}
			return k < len(seconds) && (lines == nil || lines[e] == lines[seconds[k]])
		})
		if found {
			return true
		}
		// Ends are past i, so starts before i+2 are behind every end to come.
		for next < len(seconds) && seconds[next] < i+2 {
			next++
		}
	}
	return false
}

// initialName: \b[A-Z]\.\s?[A-Z][a-z]+ at j.
func initialName(s string, j int) bool {
	if !upperByte(s[j]) || j+1 >= len(s) || s[j+1] != '.' || !boundaryAt(s, j) {
		return false
	}
	for _, k := range [2]int{j + 2, j + 3} {
		if k == j+3 && (j+2 >= len(s) || !spaceByte(s[j+2])) {
			continue
		}
		if k+1 < len(s) && upperByte(s[k]) && lowerByte(s[k+1]) {
			return true
		}
	}
	return false
}

// initialsEnds calls end with every end of \s?[A-Z]?\.?\s?[A-Z][a-z]+, at
// p, each optional part present or absent where the text allows, until
// end returns true; it reports whether one did. An end may come more than
// once.
func initialsEnds(s string, p int, end func(int) bool) bool {
	// Bit k of present says whether optional part k is there.
	for present := range 16 {
		q, ok := p, true
		for k, part := range [4]func(byte) bool{spaceByte, upperByte, dotByte, spaceByte} {
			if present&(1<<k) == 0 {
				continue
			}
			if q == len(s) || !part(s[q]) {
				ok = false
				break
			}
			q++
		}
		if !ok {
			continue
		}
		if e, ok := capitalWordComma(s, q); ok && end(e) {
			return true
		}
	}
	return false
}

func dotByte(b byte) bool { return b == '.' }

// appendIDs appends the matches of \b([A-Za-z]{2,})(?:-|@)?(\d{1,4})\b in
// s, word and number lowercased: a word glued to a number by a hyphen or
// written into it ("top-1", "GPT-4", "COVID-19", "COP26", "recall@20").
// A match starts where a run of word bytes does; its letters are all the
// run's leading letters.
func appendIDs(out [][2]string, s string) [][2]string {
	for i := 0; i < len(s); {
		if !wordByte(s[i]) {
			i++
			continue
		}
		start := i
		for i < len(s) && wordByte(s[i]) {
			i++
		}
		end := i
		k := start
		for k < end && letterByte(s[k]) {
			k++
		}
		if k-start < 2 {
			continue
		}
		if k < end { // digits written into the word: they must end it
			d := k
			for d < end && digitByte(s[d]) {
				d++
			}
			if d == end && d-k <= 4 {
				out = append(out, [2]string{strings.ToLower(s[start:k]), s[k:d]})
			}
			continue
		}
		if end < len(s) && (s[end] == '-' || s[end] == '@') {
			d := end + 1
			for d < len(s) && digitByte(s[d]) {
				d++
			}
			if n := d - end - 1; n >= 1 && n <= 4 && endsWord(s, d) {
				out = append(out, [2]string{strings.ToLower(s[start:end]), s[end+1 : d]})
				i = d
			}
		}
	}
	return out
}

// labelWords are the nouns that number things rather than count them
// ("phase 3", "stage II", "Model 3"). No one of them followed by a space
// is a prefix of another.
var labelWords = []string{"phase", "stage", "tier", "level", "grade", "type", "class", "generation", "gen", "version",
	"series", "model", "wave", "round", "cohort", "arm", "season", "chapter", "article", "section", "figure", "table",
	"cop", "block", "line", "unit", "reactor", "terminal", "runway", "flight", "route", "lot"}

// appendLabels appends the matches of
//
//	(?i)\b(phase|stage|…|lot)\s+(\d{1,4}|[IVX]{1,4})\b
//
// in s (labelWords), label and number lowercased. Under (?i) an "s" also
// matches "ſ" (U+017F) and a "k" the Kelvin sign (U+212A), as Unicode
// case folding has it.
func appendLabels(out [][2]string, s string) [][2]string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !letterByte(c) && c != 0xC5 && c != 0xE2 {
			continue
		}
		// \b before: a letter after a non-word byte, or ſ or K (not word
		// bytes) after a word byte.
		if letterByte(c) != boundaryAt(s, i) {
			continue
		}
		// A label is letters (ſ and K among them) before blanks, then a
		// digit or a Roman numeral: the run of letters from i must end
		// where a match's word would, and be followed so. Nothing in the
		// run can start a match otherwise.
		if e := letterRunEnd(s, i); !numberAfterBlanks(s, e) {
			i = max(i, e-1) // e is i for a byte that is no ſ nor K
			continue
		}
		for _, w := range labelWords {
			if r, ok := labelAt(s, i, w); ok {
				e, _ := foldPrefix(s, i, w)
				q := e
				for spaceByte(s[q]) {
					q++
				}
				out = append(out, [2]string{strings.ToLower(s[i:e]), strings.ToLower(s[q:r])})
				i = r - 1
				break
			}
		}
	}
	return out
}

// letterRunEnd returns the end of the run of letters at i: ASCII
// letters, ſ and K (the letters a label word may hold under folding).
func letterRunEnd(s string, i int) int {
	for i < len(s) {
		switch {
		case letterByte(s[i]):
			i++
		case strings.HasPrefix(s[i:], "ſ"):
			i += len("ſ")
		case strings.HasPrefix(s[i:], "\u212a"):
			i += len("\u212a")
		default:
			return i
		}
	}
	return i
}

// numberAfterBlanks reports whether at e come blanks, then a digit or one
// of IVX in either case: what follows a label word.
func numberAfterBlanks(s string, e int) bool {
	q := e
	for q < len(s) && spaceByte(s[q]) {
		q++
	}
	return q > e && q < len(s) && (digitByte(s[q]) || strings.IndexByte("IVXivx", s[q]) >= 0)
}

// labelAt matches w\s+(\d{1,4}|[IVX]{1,4})\b at s[i:] under (?i) and
// returns the end.
func labelAt(s string, i int, w string) (int, bool) {
	e, ok := foldPrefix(s, i, w)
	if !ok {
		return 0, false
	}
	q := e
	for q < len(s) && spaceByte(s[q]) {
		q++
	}
	if q == e || q == len(s) {
		return 0, false
	}
	r := q
	if digitByte(s[q]) {
		for r < len(s) && digitByte(s[r]) {
			r++
		}
	} else {
		for r < len(s) && strings.IndexByte("IVXivx", s[r]) >= 0 {
			r++
		}
	}
	if n := r - q; n < 1 || n > 4 || !endsWord(s, r) {
		return 0, false
	}
	return r, true
}

// foldPrefix matches w (lowercase ASCII) at s[i:] under Unicode case
// folding and returns the end.
func foldPrefix(s string, i int, w string) (int, bool) {
	for k := 0; k < len(w); k++ {
		switch {
		case i < len(s) && s[i]|0x20 == w[k] && letterByte(s[i]):
			i++
		case w[k] == 's' && strings.HasPrefix(s[i:], "ſ"):
			i += len("ſ")
		case w[k] == 'k' && strings.HasPrefix(s[i:], "\u212a"):
			i += len("\u212a")
		default:
			return 0, false
		}
	}
	return i, true
}
