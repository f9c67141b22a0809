package biblio

import (
	"strings"
	"time"
)

// arxivAnchors are the lowercase strings after which an arXiv identifier is
// looked for: arXiv itself and the sites that mirror or annotate its papers
// under the same id.
var arxivAnchors = []string{
	"arxiv",                 // arxiv.org/abs|pdf|html|format, export.arxiv.org, arXiv:…, 10.48550/arXiv., arxiv-vanity.com
	"ar5iv",                 // ar5iv.org/abs, ar5iv.labs.arxiv.org/html
	"alphaxiv",              // alphaxiv.org/abs, alphaxiv.org/overview
	"huggingface.co/papers", // huggingface.co/papers/2101.00001
	"scirate.com/",          // scirate.com/arxiv/…
	"paperswithcode.com/paper/arxiv",
}

// oldArchives are the subject archives of pre-2007 arXiv identifiers
// ("hep-th/9901001"). Only these are accepted, so "foo/1234567" is not an id.
var oldArchives = map[string]bool{
	"acc-phys": true, "adap-org": true, "alg-geom": true, "ao-sci": true,
	"astro-ph": true, "atom-ph": true, "bayes-an": true, "chao-dyn": true,
	"chem-ph": true, "cmp-lg": true, "comp-gas": true, "cond-mat": true,
	"cs": true, "dg-ga": true, "funct-an": true, "gr-qc": true,
	"hep-ex": true, "hep-lat": true, "hep-ph": true, "hep-th": true,
	"math": true, "math-ph": true, "mtrl-th": true, "nlin": true,
	"nucl-ex": true, "nucl-th": true, "patt-sol": true, "physics": true,
	"plasm-ph": true, "q-alg": true, "q-bio": true, "q-fin": true,
	"quant-ph": true, "solv-int": true, "stat": true, "supr-con": true,
	"econ": true, "eess": true,
}

// ArXivID returns the version-less arXiv identifier found in s, or "".
//
// s may be an identifier itself ("2101.00001v2", "arXiv:hep-th/9901001v1",
// "math.GT/0309136"), a URL of arXiv or of a site that uses arXiv ids
// (abs, pdf, html, ar5iv, alphaxiv, arxiv-vanity, Hugging Face papers,
// the 10.48550/arXiv.… DOI), or running text that names one ("arXiv preprint
// arXiv:1810.04805"). A new-style number in running text without an arXiv
// context ("version 2101.00001") is not taken, nor is an id whose YYMM is not
// a real month (or whose digit count does not fit its year). A URL names an
// arXiv paper only on a host that serves papers by id (arxivHosts): a blog
// post slugged "…/arxiv-2101.00001" is a blog post. Old-style ids are returned without their subject class
// ("math.GT/0309136" becomes "math/0309136"), as arXiv itself canonicalises them.
func ArXivID(s string) string {
	if len(s) > 1<<20 {
		s = s[:1<<20]
	}
	t := strings.TrimSpace(s)
	lt := asciiLower(t)
	lt = strings.TrimPrefix(lt, "arxiv:")
	if id, n := matchArXivAt(lt, 0); id != "" && isVersionTail(lt[n:]) {
		return id
	}
	if isURLString(lt) && !arxivHostURL(lt) {
		return ""
	}
	low := asciiLower(s)
	next := make([]int, len(arxivAnchors)) // next occurrence of each anchor at or after i, -1 when none
	for k, a := range arxivAnchors {
		next[k] = strings.Index(low, a)
	}
	for i := 0; ; {
		best, bestLen := -1, 0
		for k, a := range arxivAnchors {
			if next[k] >= 0 && next[k] < i {
				if j := strings.Index(low[i:], a); j >= 0 {
					next[k] = i + j
				} else {
					next[k] = -1
				}
			}
			if next[k] >= 0 && (best < 0 || next[k] < best) {
				best, bestLen = next[k], len(a)
			}
		}
		if best < 0 {
			break
		}
		if id := arxivAfter(low, best+bestLen); id != "" {
			return id
		}
		i = best + 1
	}
	// Old-style ids are distinctive enough to be taken anywhere.
	for i := 0; i < len(low); i++ {
		if low[i] != '/' || i == 0 {
			continue
		}
		start := i
		for start > 0 && (isLowerASCII(low[start-1]) || low[start-1] == '-' || low[start-1] == '.') {
			start--
		}
		if start > 0 && (isAlnum(low[start-1])) {
			continue
		}
		if id, _ := matchArXivAt(low, start); id != "" && strings.Contains(id, "/") {
			return id
		}
	}
	return ""
}

// arxivHosts serve arXiv papers under their arXiv id. A URL on any other
// host does not name an arXiv paper even if an id appears in it (a blog
// post slugged "arxiv-2101.00001" is a blog post).
var arxivHosts = []string{
	"arxiv.org", "ar5iv.org", "alphaxiv.org", "arxiv-vanity.com", "scirate.com", "doi.org",
	"semanticscholar.org", "paperswithcode.com", "papers.cool", "arxiv.gg",
}

// isURLString reports whether a lowercased, trimmed string is a single URL.
func isURLString(lt string) bool {
	return (strings.HasPrefix(lt, "http://") || strings.HasPrefix(lt, "https://")) && !strings.ContainsAny(lt, " \t\n")
}

// arxivHostURL reports whether a lowercased URL is on a host that serves
// arXiv papers by id.
func arxivHostURL(lt string) bool {
	rest := lt[strings.Index(lt, "://")+3:]
	host, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if i := strings.IndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	if host == "huggingface.co" || strings.HasSuffix(host, ".huggingface.co") {
		return strings.HasPrefix(path, "/papers/")
	}
	for _, h := range arxivHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// isVersionTail reports whether rest is what may follow a whole-string id:
// nothing, or a file extension such as ".pdf".
func isVersionTail(rest string) bool {
	return rest == "" || rest == ".pdf" || rest == "/"
}

// arxivAfter looks for an identifier within a short window after an anchor,
// skipping path and label characters (".org/abs/", ":", " preprint ").
func arxivAfter(low string, from int) string {
	end := min(from+40, len(low))
	for i := from; i < end; i++ {
		c := low[i]
		switch {
		case isDigit(c):
			id, _ := matchArXivAt(low, i)
			return id
		case isLowerASCII(c) && !isLowerASCII(low[i-1]) && low[i-1] != '-':
			if id, _ := matchArXivAt(low, i); strings.Contains(id, "/") {
				return id
			}
		case c == '\n' || c == '<' || c == '>' || c == '"' || c == ')' || c == ']':
			return ""
		}
	}
	return ""
}

// matchArXivAt matches an identifier (new or old style, optional version)
// starting exactly at i in the lowercased string s. It returns the
// version-less id and the index just after the match, or "" when there is no
// valid id there.
func matchArXivAt(s string, i int) (string, int) {
	if i < len(s) && isDigit(s[i]) {
		// YYMM.NNNN or YYMM.NNNNN
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j-i != 4 || j >= len(s) || s[j] != '.' {
			return "", 0
		}
		k := j + 1
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		n := k - j - 1
		if n != 4 && n != 5 {
			return "", 0
		}
		yy := int(s[i]-'0')*10 + int(s[i+1]-'0')
		mm := int(s[i+2]-'0')*10 + int(s[i+3]-'0')
		if mm < 1 || mm > 12 || yy < 7 || (yy == 7 && mm < 4) {
			return "", 0
		}
		if (n == 5) != (yy >= 15) {
			return "", 0
		}
		id := s[i:k]
		return id, skipVersion(s, k)
	}
	// archive(.XX)?/YYMMNNN
	j := i
	for j < len(s) && (isLowerASCII(s[j]) || s[j] == '-') {
		j++
	}
	archive := s[i:j]
	if !oldArchives[archive] {
		return "", 0
	}
	if j < len(s) && s[j] == '.' {
		k := j + 1
		for k < len(s) && isLowerASCII(s[k]) && k-j <= 3 {
			k++
		}
		if k-j-1 != 2 {
			return "", 0
		}
		j = k
	}
	if j >= len(s) || s[j] != '/' {
		return "", 0
	}
	k := j + 1
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	if k-j-1 != 7 {
		return "", 0
	}
	num := s[j+1 : k]
	yy := int(num[0]-'0')*10 + int(num[1]-'0')
	mm := int(num[2]-'0')*10 + int(num[3]-'0')
	if mm < 1 || mm > 12 || (yy > 7 && yy < 91) {
		return "", 0
	}
	return archive + "/" + num, skipVersion(s, k)
}

// skipVersion skips a "vN" version suffix; a digit or letter right after the
// id (without a version) makes the match invalid, reported as a position
// that callers compare against the string length.
func skipVersion(s string, k int) int {
	if k < len(s) && s[k] == 'v' {
		m := k + 1
		for m < len(s) && isDigit(s[m]) {
			m++
		}
		if m > k+1 {
			return m
		}
	}
	return k
}

// ArXivDate returns the month an arXiv identifier was first submitted, taken
// from its YYMM digits: "2101.00001" is January 2021, "hep-th/9901001"
// January 1999. It reports false when id is not a valid identifier.
func ArXivDate(id string) (time.Time, bool) {
	id = ArXivID(id)
	if id == "" {
		return time.Time{}, false
	}
	digits := id
	if i := strings.IndexByte(id, '/'); i >= 0 {
		digits = id[i+1:]
	}
	yy := int(digits[0]-'0')*10 + int(digits[1]-'0')
	mm := int(digits[2]-'0')*10 + int(digits[3]-'0')
	year := 2000 + yy
	if yy >= 91 {
		year = 1900 + yy
	}
	return time.Date(year, time.Month(mm), 1, 0, 0, 0, 0, time.UTC), true
}

// asciiLower lowercases ASCII letters only, so byte offsets are preserved.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }
func isAlnum(c byte) bool {
	return isDigit(c) || isLowerASCII(c) || (c >= 'A' && c <= 'Z')
}
