package report

import (
	"strings"
	"unicode"
)

// entryURL reads the bare URL starting at s[i] in a reference-list entry and
// returns it and the offset just past it. Inside an entry a URL may be
// broken where a running text's URL would end:
//   - by a line wrap or a space a converter put in it: "https://doi.
//     org/10.1/x", "…/long/ path.pdf", "…/agentic-systems-⏎2024/papers/…",
//     "openai.com/index/introducing- deep- research/" (the parts are joined,
//     a hyphen kept: a line broken after a hyphen in a URL broke at the
//     URL's own hyphen);
//   - by the spaces of its own path, as Perplexity writes a file's URL
//     ("…/4995/Teacher Resources/ESOL Strategies Matrix.pdf"): read to the
//     end of the entry's line when the rest is a path, the spaces encoded.
func entryURL(s string, i int) (string, int) {
	end := bareURLEnd(s, i, len(s))
	u := s[i:end]
	var b strings.Builder // the URL once a break is joined
	for end < len(s) && len(u)+b.Len() < maxJoinedURL {
		next, tok, breaks := nextToken(s, end)
		last := u
		if b.Len() > 0 {
			last = b.String()
		}
		if next < 0 || !continuesURL(last, tok, breaks) {
			break
		}
		tokEnd := bareURLEnd(s, next, next+len(tok))
		if tokEnd == next {
			break
		}
		if b.Len() == 0 {
			b.WriteString(u)
		}
		b.WriteString(s[next:tokEnd])
		end = tokEnd
	}
	if b.Len() > 0 {
		u = b.String()
	}
	if rest, n := spacedPath(u, s[end:]); n > 0 {
		return u + rest, end + n
	}
	return u, end
}

// maxJoinedURL bounds the URL entryURL joins from broken parts: no real
// URL is longer, and the joining stays linear on a hostile entry.
const maxJoinedURL = 4096

// nextToken returns the token that follows the white space at s[at:] and
// the number of line breaks in that space (a converter's form feed between
// pages counts as space); next is -1 when no token follows.
func nextToken(s string, at int) (next int, tok string, breaks int) {
	j := at
	for j < len(s) && (isSpaceByte(s[j]) || s[j] == '\f' || s[j] == '\v') {
		if s[j] == '\n' {
			breaks++
		}
		j++
	}
	if j == at || j == len(s) {
		return -1, "", 0
	}
	k := j
	for k < len(s) && !isSpaceByte(s[k]) && s[k] != '\f' {
		k++
	}
	return j, s[j:k], breaks
}

// continuesURL reports whether tok, found after a space or a line break
// (breaks counts them), is the rest of a URL that a line wrap or an
// extraction broke:
//   - the URL ends with a hyphen (no URL does: the line broke at one of its
//     hyphens) and tok is made of URL characters, even across blank lines
//     (a column or page break);
//   - tok starts with a path or query character, or the URL ends with a
//     separator and tok looks like a path ("to/file.pdf", "org/10.1145/…");
//   - at one line break, a long URL goes on with a path ("…/research/not⏎
//     es/glm-research-…", "…/LiNbO3_c⏎rystal_by_fluorine_gas": a narrow
//     column breaks a word of a URL anywhere; a '/' or '_' tells the rest
//     of a path from the next line's prose).
//
// A blank line ends the URL otherwise; a token that starts a URL of its
// own, a label ("[14]") or a separator ("-", "|") never continues one.
func continuesURL(u, tok string, breaks int) bool {
	if tok == "" || u == "" || tok == "-" || tok == "–" || tok == "—" || tok == "|" {
		return false
	}
	for _, r := range tok {
		if r >= 0x80 || unicode.IsSpace(r) {
			return false
		}
	}
	if low := asciiLower(tok); strings.HasPrefix(low, "http:") || strings.HasPrefix(low, "https:") || strings.HasPrefix(low, "www.") {
		return false
	}
	host := strings.Index(u, "//") + 2
	last := u[len(u)-1]
	if last == '-' && strings.Contains(u[host:], "/") {
		// The rest of a path may start with a capital ("…/Lateral-
		// Transfer-of-⏎Genes-from-Fungi.pdf") when it still reads as a
		// path, not as the next sentence's first word.
		return urlWord(tok) || isUpperASCII(tok[0]) && urlWord(strings.ToLower(tok[:1])+tok[1:]) && strings.ContainsAny(tok, "-_/.%=")
	}
	if breaks > 1 {
		return false
	}
	if strings.ContainsAny(tok[:1], "/?&=#%") {
		return true
	}
	if strings.IndexByte("/-_.=&?", last) >= 0 {
		return strings.ContainsAny(tok, "/.=&%_") && !strings.ContainsAny(tok, "()[]\"'")
	}
	if breaks != 1 || len(u) < 30 || !strings.Contains(u[host:], "/") {
		return false
	}
	if tok[0] == '_' {
		tok = tok[1:] // "…/proton_exchanged⏎_lithium_niobate"
		return tok != "" && urlWord(tok)
	}
	return urlWord(tok) && (strings.ContainsAny(tok, "/_") || pathEnds(tok))
}

// urlWord reports whether tok, the part of a URL after a break, is made of
// the characters a URL's path and query are written with, and starts with
// a lower-case letter or a digit, as the rest of a broken word does.
func urlWord(tok string) bool {
	if c := tok[0]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if !isAlnumByte(c) && strings.IndexByte("-._~/%?&=#+:", c) < 0 {
			return false
		}
	}
	return true
}

// spacedPath returns the rest of a URL written with the spaces of its path
// (Perplexity's "…/4995/Teacher Resources/ESOL Strategies Matrix.pdf"),
// spaces encoded as %20, and the length of rest it takes; n is 0 when
// rest is not such a path. It is one when the URL has a path that does not
// yet look complete (no file extension, no final '/'), and rest, up to the
// end of its line, is made of a few path words of which the last ends the
// path (a file extension or a '/') and none is a separator, a label, a
// quoted or bracketed title or the end of a sentence.
func spacedPath(u, rest string) (string, int) {
	if len(rest) < 2 || rest[0] != ' ' {
		return "", 0
	}
	host := strings.Index(u, "//")
	if host < 0 || !strings.Contains(u[host+2:], "/") || pathEnds(u) {
		return "", 0
	}
	line := rest
	if k := strings.IndexAny(line, "\r\n"); k >= 0 {
		line = line[:k]
	}
	line = strings.TrimRight(line, " \t")
	words := strings.Fields(line)
	if len(words) == 0 || len(words) > 12 || len(line) > 300 || !pathEnds(words[len(words)-1]) {
		return "", 0
	}
	for _, w := range words {
		if w == "-" || w == "–" || w == "—" || w == "|" || strings.ContainsAny(w, "\"“”«»[]<>") || strings.ContainsRune(",;", rune(w[len(w)-1])) || strings.Contains(w, "://") {
			return "", 0
		}
	}
	return "%20" + strings.Join(words, "%20"), len(line)
}

// pathEnds reports whether a URL or a path word ends as a path does: with
// a '/' or a file extension of two to five letters or digits ("Matrix.pdf",
// "notes.html"), before any query.
func pathEnds(s string) bool {
	if k := strings.IndexAny(s, "?#"); k >= 0 {
		s = s[:k]
	}
	if strings.HasSuffix(s, "/") {
		return true
	}
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 || strings.ContainsRune(s[dot:], '/') {
		return false
	}
	ext := s[dot+1:]
	if len(ext) < 2 || len(ext) > 5 {
		return false
	}
	letters := 0
	for i := 0; i < len(ext); i++ {
		switch c := ext[i]; {
		case isASCIILetterByte(c):
			letters++
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letters > 0
}
