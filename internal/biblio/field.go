package biblio

import (
	"strings"
	"unicode"

	"github.com/claimtrace/claimtrace"
)

// identifierStarts begin a new identifier inside a field: whitespace before
// one of them separates two identifiers; any other whitespace is inside one.
var identifierStarts = []string{"http://", "https://", "doi:", "arxiv:", "pmid:", "pmcid:"}

// CompactIdentifier removes the whitespace that splits one identifier in a
// bibliographic field. Released ground truth holds DOIs, arXiv ids and URLs
// broken by line wrapping or padding ("https://doi.org/10.1016/j
// .conengprac.2012.05.002", "…/pii/S026322411 7306498", " \nhttps://…\n");
// read up to the first space, such a field names a different or a truncated
// identifier. Whitespace before something that starts an identifier of its
// own (a URL, "doi:", a "10.nnnn/" DOI) is kept as one space, so a field
// listing two identifiers keeps them apart. s is meant to hold identifiers
// (doi, eprint, url fields), not running text.
func CompactIdentifier(s string) string {
	fields := strings.FieldsFunc(s, unicode.IsSpace)
	if len(fields) < 2 {
		return strings.Join(fields, "")
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, f := range fields {
		if i > 0 && startsIdentifier(f) {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

// startsIdentifier reports whether a whitespace-separated piece of a field
// begins an identifier of its own rather than continuing the previous one.
func startsIdentifier(f string) bool {
	low := asciiLower(f)
	for _, p := range identifierStarts {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	// A bare DOI: "10." and four or more digits, then a slash.
	if !strings.HasPrefix(low, "10.") {
		return false
	}
	j := 3
	for j < len(low) && isDigit(low[j]) {
		j++
	}
	return j-3 >= 4 && j < len(low) && low[j] == '/'
}

// identifierFields are the meta_info fields of a reference that hold
// identifiers and nothing else (lowercase).
var identifierFields = map[string]bool{"doi": true, "eprint": true, "arxivid": true, "arxiv": true, "url": true, "opturl": true, "pmid": true, "pmcid": true}

// CompactReference returns r with the whitespace inside its identifier
// fields (doi, eprint, arxivid, url, opturl, pmid, pmcid, in any case)
// removed by CompactIdentifier; other fields are left as they are. The meta
// map is copied when something changes, never changed in place.
func CompactReference(r claimtrace.Reference) claimtrace.Reference {
	var meta map[string]string
	for k, v := range r.Meta {
		if !identifierFields[strings.ToLower(k)] {
			continue
		}
		c := CompactIdentifier(v)
		if c == v {
			continue
		}
		if meta == nil {
			meta = make(map[string]string, len(r.Meta))
			for k2, v2 := range r.Meta {
				meta[k2] = v2
			}
		}
		meta[k] = c
	}
	if meta != nil {
		r.Meta = meta
	}
	return r
}
