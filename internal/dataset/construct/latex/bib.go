package latex

import (
	"path"
	"slices"
	"strings"
)

// bibCmds are the commands naming bibliography databases, and whether a
// name given without extension gets ".bib" (BibTeX's \bibliography does,
// biblatex's \addbibresource takes the full file name).
var bibCmds = map[string]bool{
	"bibliography": true, "nobibliography": true, "putbib": true,
	"addbibresource": false, "addglobalbib": false, "addsectionbib": false, "bibdata": true,
}

// BibResources returns the database files named by \bibliography{a,b},
// \nobibliography, \addbibresource[opts]{c.bib} and friends, in order and
// without repeats. Zero-argument macros defined in text with \newcommand,
// \renewcommand, \providecommand or \def, and \jobname, are expanded in
// the names ("\bibliography{\bibdir/refs}").
func BibResources(text, jobname string) []string {
	macros := simpleMacros(text)
	macros["jobname"] = jobname
	braces := indexBraces(text)
	var out []string
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		name, n := commandName(text[i:])
		addBib, ok := bibCmds[name]
		if !ok || !isLetter(text[i+1]) {
			i += max(n, 1)
			continue
		}
		p := skipOptionals(text, i+n)
		group, m := braces.group(text, p)
		i = max(p+m, i+n)
		if m == 0 {
			continue
		}
		for f := range strings.SplitSeq(expandMacros(group, macros), ",") {
			f = strings.TrimSpace(f)
			if f == "" || strings.ContainsAny(f, "#\\{}") {
				continue
			}
			if addBib && !strings.EqualFold(path.Ext(f), ".bib") {
				f += ".bib"
			}
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// simpleMacros collects argument-less macro definitions of text:
// \newcommand{\x}{v}, \newcommand\x{v}, \renewcommand, \providecommand,
// \def\x{v}. Definitions with parameters are ignored.
func simpleMacros(text string) map[string]string {
	defs := make(map[string]string)
	braces := indexBraces(text)
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		name, n := commandName(text[i:])
		switch name {
		case "newcommand", "renewcommand", "providecommand", "def", "gdef", "edef":
		default:
			i += max(n, 1)
			continue
		}
		p := skipBlanks(text, i+n)
		if p < len(text) && text[p] == '*' {
			p = skipBlanks(text, p+1)
		}
		var macro string
		if p < len(text) && text[p] == '{' {
			g, m := braces.group(text, p)
			macro, p = strings.TrimSpace(g), p+m
		} else if p < len(text) && text[p] == '\\' {
			_, m := commandName(text[p:])
			macro, p = text[p:p+m], p+m
		}
		p = skipBlanks(text, p)
		i = max(p, i+n)
		if !strings.HasPrefix(macro, `\`) || p >= len(text) || text[p] != '{' {
			continue // parameters ([1] or #1) or no body
		}
		body, k := braces.group(text, p)
		i = p + k
		if name, _ := commandName(macro); name != "" {
			defs[name] = body
		}
	}
	return defs
}

// expandMacros replaces \name by its definition, a few rounds deep.
func expandMacros(s string, macros map[string]string) string {
	for range 8 {
		if !strings.Contains(s, `\`) {
			return s
		}
		var b strings.Builder
		changed := false
		for i := 0; i < len(s); {
			if s[i] != '\\' {
				b.WriteByte(s[i])
				i++
				continue
			}
			name, n := commandName(s[i:])
			if v, ok := macros[name]; ok && isLetter(s[min(i+1, len(s)-1)]) {
				b.WriteString(v)
				changed = true
				i = skipBraces(s, i+n)
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
		}
		s = b.String()
		if !changed {
			return s
		}
	}
	return s
}

// skipBraces skips an empty "{}" that terminates a macro name ("\jobname{}").
func skipBraces(s string, p int) int {
	if strings.HasPrefix(s[p:], "{}") {
		return p + 2
	}
	return p
}
