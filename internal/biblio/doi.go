package biblio

import (
	"strings"
)

// doiURLTails are path endings publishers append after a DOI in their URLs
// (frontiersin …/full, iopscience …/pdf, biorxiv ….full.pdf); they are not
// part of the DOI. Checked repeatedly, longest first.
var doiURLTails = []string{
	"/full/html", "/fulltext", "/abstract", "/summary", "/figures", "/references",
	"/citedby", "/full", "/epdf", "/pdf", "/html", "/meta", "/epub",
	".full.pdf", ".full-text", ".full", ".abstract", ".pdf", ".html", ".supplementary-material",
}

// DOI returns the lowercased DOI found in s, or "".
//
// s may be a DOI ("10.1145/3292500.3330701"), a "doi:" reference, a doi.org
// or dx.doi.org URL, a publisher URL that embeds the DOI in its path or query
// (dl.acm.org/doi/…, link.springer.com/article/10.…, onlinelibrary.wiley.com/doi/full/…,
// tandfonline.com/doi/abs/…, pnas.org/doi/pdf/…, frontiersin.org/articles/10.…/full,
// biorxiv.org/content/10.1101/…v2.full, journals.plos.org/…?id=10.…), or running
// text. Trailing punctuation, unbalanced closing brackets, percent-encoding and
// the publishers' view suffixes (/full, .pdf, bioRxiv's vN) are removed.
//
// Nature article URLs (nature.com/articles/<id>) yield 10.1038/<id>: Nature
// publishes every article under that DOI. Nothing else is derived: a
// ScienceDirect PII or an IEEE document number is not a DOI and gives "".
func DOI(s string) string {
	if len(s) > 1<<20 {
		s = s[:1<<20]
	}
	if strings.Contains(s, "%") {
		s = percentDecodeDOI(s)
	}
	low := asciiLower(s)
	isURL := strings.Contains(low, "://") || strings.HasPrefix(low, "www.") || strings.Contains(low, "doi.org/")
	for i := 0; i+3 < len(low); i++ {
		if low[i] != '1' || low[i+1] != '0' || low[i+2] != '.' {
			continue
		}
		if i > 0 && (isAlnum(low[i-1]) || low[i-1] == '.') {
			continue
		}
		if d := doiAt(low, i, isURL); d != "" {
			return d
		}
	}
	if d := natureDOI(low); d != "" {
		return d
	}
	return ""
}

// doiAt parses a DOI starting at i ("10."), or returns "".
func doiAt(low string, i int, isURL bool) string {
	j := i + 3
	k := j
	for k < len(low) && (isDigit(low[k]) || low[k] == '.') {
		k++
	}
	if k-j < 4 || k >= len(low) || low[k] != '/' || low[k-1] == '.' {
		return ""
	}
	end := k + 1
	for end < len(low) {
		c := low[end]
		if c <= ' ' || c == '"' || c == '<' || c == '>' || c == '{' || c == '}' || c == '|' || c == '\\' || c == '^' || c == '`' {
			break
		}
		if isURL && (c == '?' || c == '#' || c == '&') {
			break
		}
		if c >= 0x80 && stopsAtNonASCII(low[end:]) {
			break
		}
		end++
	}
	d := trimDOITail(low[i:end])
	if !doiSuffixNames(d[k-i+1:]) {
		return ""
	}
	return strings.ToLower(d)
}

// minDOISuffix is the fewest letters and digits a DOI suffix holds. A
// shorter one is a prefix cut short, not a work: "10.1016/j" is the stem
// of every Elsevier journal DOI (10.1016/j.conengprac.…, 10.1016/j.ifacol.…),
// left when whitespace splits the DOI, and taking it as an identity makes
// every paper so cut one work.
const minDOISuffix = 2

// doiSuffixNames reports whether a DOI suffix (after the prefix's slash)
// can name a work: it holds at least minDOISuffix letters or digits.
func doiSuffixNames(suffix string) bool {
	n := 0
	for i := 0; i < len(suffix) && n < minDOISuffix; i++ {
		if isAlnum(suffix[i]) || suffix[i] >= 0x80 {
			n++
		}
	}
	return n >= minDOISuffix
}

// stopsAtNonASCII reports whether a non-ASCII rune ends a DOI: full-width
// punctuation and spaces do, letters (rare but legal) do not.
func stopsAtNonASCII(s string) bool {
	for _, p := range []string{"，", "。", "；", "：", "！", "？", "、", "）", "」", "』", "】", "》", "\u3000", "\u00a0", "”", "’", "…"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// trimDOITail strips trailing punctuation, unbalanced brackets and publisher
// view suffixes from a DOI candidate.
func trimDOITail(d string) string {
	for {
		before := d
		d = strings.TrimRight(d, ".,;:'*!?")
		for _, p := range [][2]byte{{'(', ')'}, {'[', ']'}} {
			if strings.HasSuffix(d, string(p[1])) && strings.Count(d, string(p[0])) < strings.Count(d, string(p[1])) {
				d = d[:len(d)-1]
			}
		}
		for _, t := range doiURLTails {
			if strings.HasSuffix(d, t) && len(d) > len(t)+8 {
				d = d[:len(d)-len(t)]
				break
			}
		}
		// bioRxiv and medRxiv append the version to the DOI in their URLs.
		if strings.HasPrefix(d, "10.1101/") {
			if v := strings.LastIndexByte(d, 'v'); v > 8 && v < len(d)-1 && allDigits(d[v+1:]) && isDigit(d[v-1]) {
				d = d[:v]
			}
		}
		if d == before {
			return d
		}
	}
}

// natureDOI derives the DOI of a nature.com article URL.
func natureDOI(low string) string {
	i := strings.Index(low, "nature.com/articles/")
	if i < 0 {
		return ""
	}
	rest := low[i+len("nature.com/articles/"):]
	end := 0
	for end < len(rest) && (isAlnum(rest[end]) || rest[end] == '-' || rest[end] == '.' || rest[end] == '_') {
		end++
	}
	id := strings.TrimRight(strings.TrimSuffix(strings.TrimRight(rest[:end], "."), ".pdf"), ".")
	if len(id) < 5 {
		return ""
	}
	return "10.1038/" + id
}

// percentDecodeDOI decodes %XX escapes (a DOI in a query string is often
// written 10.1000%2Fabc). Invalid escapes are left as they are.
func percentDecodeDOI(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c := unhex(s[i+1])<<4 | unhex(s[i+2])
			if c >= 0x21 && c < 0x7f {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
