package scholar

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// Kinds of identifier WorkByID looks up (the values of biblio.ExtID.Kind).
const (
	IDPubMed     = "pmid"
	IDPMC        = "pmcid"
	IDPII        = "pii"
	IDOpenReview = "openreview"
	IDACL        = "acl"
)

// aclDOIPrefix is the DOI prefix under which the ACL registers Anthology
// papers: 10.18653/v1/<Anthology id>.
const aclDOIPrefix = "10.18653/v1/"

// WorkByID looks up a paper by an identifier other than an arXiv id or a
// DOI: a PubMed or PubMed Central id in OpenAlex (GET /works/pmid:…,
// /works/pmcid:…), an Elsevier PII among Crossref's alternative ids
// (filter=alternative-id:…), an ACL Anthology id through the DOI the ACL
// registers for it (10.18653/v1/<id>). An id no API knows is an error
// wrapping claimtrace.ErrNotFound: not proof that it is made up, since no
// index holds every paper. OpenReview ids have no API here
// (claimtrace.ErrInvalid), nor do other kinds.
func (c *Client) WorkByID(ctx context.Context, kind, value string) (Record, error) {
	value = strings.TrimSpace(value)
	if value == "" || strings.ContainsAny(value, "/?#&,|% \t\n") {
		return Record{}, fmt.Errorf("work by id: %s %q: %w", kind, value, claimtrace.ErrInvalid)
	}
	switch kind {
	case IDPubMed, IDPMC:
		return c.openAlexWork(ctx, kind+":"+value)
	case IDPII:
		return c.crossrefAlternativeID(ctx, value)
	case IDACL:
		return c.CrossrefDOI(ctx, aclDOIPrefix+value)
	}
	return Record{}, fmt.Errorf("work by id: no scholarly API looks up %s ids: %w", kind, claimtrace.ErrInvalid)
}

// lastSegment is the last path segment of an id URL OpenAlex gives
// ("https://pubmed.ncbi.nlm.nih.gov/14907713" is "14907713").
func lastSegment(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// piiShaped reports whether an alternative id looks like an Elsevier PII:
// S and sixteen characters, or B and nineteen, digits but the last (which
// may be X).
func piiShaped(s string) bool {
	n := map[byte]int{'S': 17, 'B': 20}
	if s == "" || n[s[0]] != len(s) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || i == len(s)-1 && c == 'X') {
			return false
		}
	}
	return true
}

// crossrefAlternativeID returns the Crossref work listing id among its
// alternative ids (publishers deposit their item ids there: Elsevier's
// PIIs); none is claimtrace.ErrNotFound.
func (c *Client) crossrefAlternativeID(ctx context.Context, id string) (Record, error) {
	v := url.Values{}
	v.Set("filter", "alternative-id:"+id)
	v.Set("rows", "2")
	v.Set("select", crossrefSelect+",alternative-id")
	u := c.opts.CrossrefURL + "/works?" + c.polite(v, false).Encode()
	body, err := c.get(ctx, "crossref", c.crossref, u)
	if err != nil {
		return Record{}, err
	}
	ws, err := decodeCrossrefList[crossrefWork](body)
	if err != nil {
		return Record{}, fmt.Errorf("crossref %s: %w", u, err)
	}
	for _, w := range ws {
		if r := w.record(); r.Title != "" {
			return r, nil
		}
	}
	return Record{}, fmt.Errorf("crossref %s: no work lists alternative id %s: %w", u, id, claimtrace.ErrNotFound)
}
