package biblio

import (
	"net/url"
	"strings"
)

// Kinds of ExtID: identifiers other than arXiv ids and DOIs that name one
// paper, read from the URLs that carry them.
const (
	IDPubMed     = "pmid"       // PubMed: pubmed.ncbi.nlm.nih.gov/31452104
	IDPMC        = "pmcid"      // PubMed Central: ncbi.nlm.nih.gov/pmc/articles/PMC6614286
	IDPII        = "pii"        // Elsevier's publisher item identifier: sciencedirect.com/science/article/pii/S0967066112001050
	IDOpenReview = "openreview" // OpenReview: openreview.net/forum?id=rJ4km2R5t7
	IDACL        = "acl"        // ACL Anthology: aclanthology.org/2020.acl-main.1, P19-1001
)

// ExtID is an identifier of a paper that is neither an arXiv id nor a DOI.
// Value is normalized: PMC ids upper case with their "PMC", PIIs upper case
// without punctuation, ACL Anthology ids as the Anthology spells them.
type ExtID struct {
	Kind, Value string
}

// Key returns "kind:value", the form an index keys it by.
func (x ExtID) Key() string { return x.Kind + ":" + x.Value }

// ExternalID returns the paper identifier other than an arXiv id or a DOI
// that a URL carries: a PubMed or PubMed Central id (PubMed, PMC, Europe
// PMC), a ScienceDirect PII (sciencedirect.com, linkinghub.elsevier.com), an
// OpenReview id (forum, pdf and attachment pages) or an ACL Anthology id
// (aclanthology.org, aclweb.org/anthology). It reports false for any other
// URL, and for a path that only looks like one (a PubMed search, an
// OpenReview group, a PII of the wrong length).
func ExternalID(raw string) (ExtID, bool) {
	host, path, ok := canonicalHostPath(raw)
	if !ok {
		return ExtID{}, false
	}
	path, query, _ := strings.Cut(path, "?")
	segs := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	seg := func(i int) string {
		if i < len(segs) {
			return segs[i]
		}
		return ""
	}
	switch {
	case host == "pubmed.ncbi.nlm.nih.gov":
		return pubMedID(seg(0))
	case host == "ncbi.nlm.nih.gov" && seg(0) == "pubmed":
		return pubMedID(seg(1))
	case host == "ncbi.nlm.nih.gov" && seg(0) == "pmc" && seg(1) == "articles":
		return pmcID(seg(2))
	case host == "pmc.ncbi.nlm.nih.gov" && seg(0) == "articles":
		return pmcID(seg(1))
	case host == "europepmc.org" && (seg(0) == "article" || seg(0) == "abstract") && strings.EqualFold(seg(1), "MED"):
		return pubMedID(seg(2))
	case host == "europepmc.org" && (seg(0) == "article" || seg(0) == "abstract") && strings.EqualFold(seg(1), "PMC"):
		return pmcID(seg(2))
	case host == "sciencedirect.com" || strings.HasSuffix(host, ".sciencedirect.com") || host == "linkinghub.elsevier.com":
		for i, s := range segs {
			if strings.EqualFold(s, "pii") {
				return piiID(seg(i + 1))
			}
		}
	case host == "openreview.net" && (seg(0) == "forum" || seg(0) == "pdf" || seg(0) == "attachment") && len(segs) == 1:
		v, err := url.ParseQuery(query)
		if err != nil {
			return ExtID{}, false
		}
		return openReviewID(v.Get("id"))
	case host == "aclanthology.org":
		return aclID(seg(0))
	case host == "aclweb.org" && seg(0) == "anthology":
		// aclweb.org/anthology/P19-1001 and the old …/anthology/P/P19/P19-1001.pdf.
		return aclID(segs[len(segs)-1])
	}
	return ExtID{}, false
}

// pubMedID reads a PubMed id: one to nine digits.
func pubMedID(s string) (ExtID, bool) {
	if !allDigits(s) {
		return ExtID{}, false
	}
	s = strings.TrimLeft(s, "0")
	if len(s) == 0 || len(s) > 9 {
		return ExtID{}, false
	}
	return ExtID{IDPubMed, s}, true
}

// pmcID reads a PubMed Central id: "PMC" and one to nine digits.
func pmcID(s string) (ExtID, bool) {
	u := strings.ToUpper(s)
	if !strings.HasPrefix(u, "PMC") {
		return ExtID{}, false
	}
	d := strings.TrimLeft(u[3:], "0")
	if len(d) == 0 || len(d) > 9 || !allDigits(u[3:]) {
		return ExtID{}, false
	}
	return ExtID{IDPMC, "PMC" + d}, true
}

// piiID reads an Elsevier PII: S and sixteen digits (a journal article:
// ISSN, year, number, check digit, which may be X), or B and nineteen (a
// book chapter: ISBN-13, number, check digit), written bare
// (S0967066112001050) or with its punctuation (S0967-0661(12)00105-0,
// B978-0-12-345678-9.00012-X).
func piiID(s string) (ExtID, bool) {
	if dec, err := url.PathUnescape(s); err == nil {
		s = dec
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == '-' || r == '(' || r == ')' || r == '.':
		case r >= '0' && r <= '9' || r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		default:
			return ExtID{}, false
		}
	}
	p := b.String()
	if p == "" {
		return ExtID{}, false
	}
	n := map[byte]int{'S': 17, 'B': 20}[p[0]]
	if len(p) != n || n == 0 || !allDigits(p[1:n-1]) || !(isDigit(p[n-1]) || p[n-1] == 'X') {
		return ExtID{}, false
	}
	return ExtID{IDPII, p}, true
}

// openReviewID reads an OpenReview note id: 5 to 20 letters, digits, '-'
// or '_'.
func openReviewID(s string) (ExtID, bool) {
	if len(s) < 5 || len(s) > 20 {
		return ExtID{}, false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '-' && s[i] != '_' {
			return ExtID{}, false
		}
	}
	return ExtID{IDOpenReview, s}, true
}

// aclID reads an ACL Anthology id: new style "2020.acl-main.1" (year,
// venue, number) or old style "P19-1001" (a letter, two digits, four
// digits), with an optional ".pdf".
func aclID(s string) (ExtID, bool) {
	s = strings.TrimSuffix(strings.TrimSuffix(s, ".pdf"), ".bib")
	if len(s) == 8 && isUpperASCII(s[0]) && isDigit(s[1]) && isDigit(s[2]) && s[3] == '-' && allDigits(s[4:]) {
		return ExtID{IDACL, s}, true
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 || len(parts[0]) != 4 || !allDigits(parts[0]) || parts[1] == "" || parts[2] == "" || !allDigits(parts[2]) {
		return ExtID{}, false
	}
	for i := 0; i < len(parts[1]); i++ {
		if c := parts[1][i]; !isLowerASCII(c) && !isDigit(c) && c != '-' {
			return ExtID{}, false
		}
	}
	return ExtID{IDACL, s}, true
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
