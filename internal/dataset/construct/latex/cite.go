package latex

import "strings"

// Cite is one citation command in a text.
type Cite struct {
	// Command is the command name without backslash or star: "citep",
	// "autocite", "citeA".
	Command string
	// Keys are the cited keys in the order written.
	Keys []string
	// Offset is the byte offset of the backslash in the text.
	Offset int
}

// notCite lists commands containing "cite" that cite nothing, or that must
// not count (\nocite adds entries to the bibliography without citing them
// in the text).
var notCite = map[string]bool{
	"nocite": true, "citestyle": true, "citetext": true, "defcitealias": true,
	"citeindextrue": true, "citeindexfalse": true, "citeform": true, "citesetup": true,
	"citeauthorstyle": true, "citenumfont": true, "citeleft": true, "citeright": true,
	"citepunct": true, "citedash": true, "citemid": true, "citeAstyle": true,
	"setcitestyle": true, "bibpunct": true, "citeindextype": true, "citereset": true,
}

// IsCiteCommand reports whether \name cites keys in the text: any command
// whose name contains "cite" (cite, citep, citet, citealp, citeauthor,
// Citet, autocite, parencite, textcite, footcite, smartcite, supercite,
// fullcite, cites, citeA, citeNP, shortcite, citeN, onlinecite, upcite, …)
// except \nocite and the configuration commands.
func IsCiteCommand(name string) bool {
	if notCite[name] || strings.HasPrefix(name, "nocite") {
		return false
	}
	return strings.Contains(strings.ToLower(name), "cite")
}

// isMulticite reports whether name is a biblatex multicite command, which
// takes several (optional arguments + key group) blocks: \cites{a}{b},
// \parencites[see][]{a}[p.~3]{b}.
func isMulticite(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), "cites")
}

// Cites returns every citation command of text (comments should already be
// stripped), \nocite excluded, in text order. Keys that cannot be literal
// keys (holding '#' or a backslash, as in macro definitions) are dropped.
func Cites(text string) []Cite {
	braces := indexBraces(text)
	var out []Cite
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		name, n := commandName(text[i:])
		if n < 2 || !isLetter(text[i+1]) || !IsCiteCommand(name) {
			i += max(n, 1)
			continue
		}
		at := i
		p := i + n
		if p < len(text) && text[p] == '*' {
			p++
		}
		multi := isMulticite(name)
		if multi {
			p = skipParens(text, p)
		}
		var keys []string
		for {
			q := skipOptionals(text, p)
			if q >= len(text) || text[q] != '{' {
				break
			}
			group, m := braces.group(text, q)
			if m == 0 {
				break
			}
			keys = append(keys, splitKeys(group)...)
			p = q + m
			if !multi {
				break
			}
		}
		if len(keys) > 0 {
			out = append(out, Cite{Command: name, Keys: keys, Offset: at})
		}
		i = max(p, i+n)
	}
	return out
}

// CitedKeys returns the distinct keys cited in text, in order of first
// citation.
func CitedKeys(text string) []string {
	seen := make(map[string]bool)
	var keys []string
	for _, c := range Cites(text) {
		for _, k := range c.Keys {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// splitKeys splits a key group "a, b,c" into keys.
func splitKeys(group string) []string {
	var keys []string
	for k := range strings.SplitSeq(group, ",") {
		k = strings.TrimSpace(k)
		if k == "" || strings.ContainsAny(k, "#\\{}") || k == "*" {
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

// skipOptionals skips blanks and any number of [optional] arguments (with
// balanced braces inside) starting at p.
func skipOptionals(s string, p int) int {
	for {
		p = skipBlanks(s, p)
		if p >= len(s) || s[p] != '[' {
			return p
		}
		q, ok := skipBracketed(s, p, '[', ']')
		if !ok {
			return p
		}
		p = q
	}
}

// skipParens skips up to two (pre)(post) notes of a multicite command.
func skipParens(s string, p int) int {
	for range 2 {
		q := skipBlanks(s, p)
		if q >= len(s) || s[q] != '(' {
			return p
		}
		r, ok := skipBracketed(s, q, '(', ')')
		if !ok {
			return p
		}
		p = r
	}
	return p
}

// skipBracketed returns the offset after the bracketed argument starting at
// s[p] == open; braces inside protect brackets. ok is false when it is not
// closed.
func skipBracketed(s string, p int, open, close byte) (int, bool) {
	braces := 0
	for i := p + 1; i < len(s) && i < p+maxOptional; i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			braces++
		case '}':
			braces--
		case close:
			if braces <= 0 {
				return i + 1, true
			}
		}
	}
	return p, false
}
