// Package latex reads the LaTeX source of a paper far enough to recover its
// bibliography: it finds the main file, strips comments, expands \input,
// \include and \subfile, collects every citation command (natbib, biblatex,
// apacite and friends; \nocite excluded), resolves \bibliography and
// \addbibresource, reads .bbl files and thebibliography environments, and
// turns LaTeX text into plain Unicode.
//
// It is not a TeX engine: macros are expanded only where a bibliography
// path needs them, and conditionals other than \iffalse are taken as true.
// Everything works on strings; file access goes through an os.Root so that
// a hostile source tree cannot make it read outside its folder.
package latex

import "strings"

// verbatimEnvs are environments whose content is dropped: it is not LaTeX
// (verbatim text, listings) or is commented out (comment).
var verbatimEnvs = []string{"comment", "verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "alltt"}

// StripComments removes what LaTeX would not typeset as text: % comments
// (an escaped \% stays, while \\% starts a comment after a line break),
// comment and verbatim environments, \verb|…| and \iffalse … \fi blocks
// (the \else branch of an \iffalse is kept). Line breaks are kept, so line
// numbers survive.
func StripComments(src string) string {
	var b strings.Builder
	b.Grow(len(src))
	lineEnd := -1 // end of the line holding i, found lazily
	for i := 0; i < len(src); {
		switch src[i] {
		case '%':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return b.String()
			}
			i += j
		case '\\':
			if lineEnd < i {
				if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
					lineEnd = i + j
				} else {
					lineEnd = len(src)
				}
			}
			if n := skipVerbatim(src[i:], lineEnd-i, &b); n > 0 {
				i += n
				continue
			}
			if i+1 < len(src) {
				b.WriteString(src[i : i+2])
				i += 2
			} else {
				b.WriteByte('\\')
				i++
			}
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	return b.String()
}

// skipVerbatim recognises, at the start of s, a construct whose content is
// dropped and returns its length (0 when there is none). The newlines it
// spans are written to b. lineEnd is the offset of the end of the first
// line of s.
func skipVerbatim(s string, lineEnd int, b *strings.Builder) int {
	keepLines := func(n int) int {
		b.WriteString(strings.Repeat("\n", strings.Count(s[:n], "\n")))
		return n
	}
	switch {
	case strings.HasPrefix(s, `\begin{`):
		for _, env := range verbatimEnvs {
			open := `\begin{` + env + `}`
			if !strings.HasPrefix(s, open) {
				continue
			}
			end := `\end{` + env + `}`
			j := strings.Index(s[len(open):], end)
			if j < 0 {
				return keepLines(len(s))
			}
			return keepLines(len(open) + j + len(end))
		}
	case strings.HasPrefix(s, `\verb`) && len(s) > 5 && !isLetter(s[5]):
		k := 5
		if s[k] == '*' {
			k++
		}
		if k >= len(s) || s[k] == ' ' || s[k] == '\n' {
			return 0
		}
		// \verb ends at the delimiter on the same line.
		if k+1 > lineEnd {
			return 0
		}
		delim := s[k]
		j := strings.IndexByte(s[k+1:lineEnd], delim)
		if j < 0 {
			return 0
		}
		return k + 1 + j + 1
	case strings.HasPrefix(s, `\iffalse`) && (len(s) == 8 || !isLetter(s[8])):
		return keepLines(skipIffalse(s))
	}
	return 0
}

// skipIffalse returns the length of the \iffalse block at the start of s, up
// to and including its \fi, or up to (not including) an \else at the same
// level, whose branch is typeset. Nested \if… tokens are counted.
func skipIffalse(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '%':
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j
			} else {
				return len(s)
			}
		case '\\':
			name, n := commandName(s[i:])
			switch {
			case name == "fi":
				depth--
				if depth == 0 {
					return i + n
				}
			case name == "else" && depth == 1:
				return i + n
			case strings.HasPrefix(name, "if") && isLetter(s[i+1]):
				depth++
			}
			i += n - 1
		}
	}
	return len(s)
}
