package scholar_test

import (
	"context"
	"errors"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
)

// TestWorkByID looks papers up by the identifiers their URLs carry:
// PubMed and PMC ids in OpenAlex, a PII among Crossref's alternative ids,
// an ACL Anthology id through its ACL DOI. An unknown id is ErrNotFound; a
// kind no API serves, or a value that is no id, ErrInvalid.
func TestWorkByID(t *testing.T) {
	sleep := scholar.Record{DOI: "10.5555/sleep.2019.4", PMID: "31452104", PMCID: "PMC6614286", Title: "Sleep and Widgets in Older Adults", Published: day(2019, 8, 1)}
	valves := scholar.Record{DOI: "10.5555/valves.2013.7", PII: "S0967066112001050", Title: "Timed Models of Valve Controllers", Published: day(2013, 11, 1)}
	acl := scholar.Record{DOI: "10.18653/v1/2020.acl-main.1", Title: "Widget Parsing with Few Examples", Published: day(2020, 7, 1)}
	c, srv := newClient(t, sleep, valves, acl)
	ctx := context.Background()
	for _, tt := range []struct {
		kind, value, title, api string
	}{
		{scholar.IDPubMed, "31452104", sleep.Title, scholartest.OpenAlex},
		{scholar.IDPMC, "PMC6614286", sleep.Title, scholartest.OpenAlex},
		{scholar.IDPII, "S0967066112001050", valves.Title, scholartest.Crossref},
		{scholar.IDACL, "2020.acl-main.1", acl.Title, scholartest.Crossref},
	} {
		r, err := c.WorkByID(ctx, tt.kind, tt.value)
		if err != nil || r.Title != tt.title {
			t.Errorf("WorkByID(%s, %s) = %q, %v; want %q", tt.kind, tt.value, r.Title, err, tt.title)
		}
	}
	if r, _ := c.WorkByID(ctx, scholar.IDPubMed, "31452104"); r.PMID != "31452104" || r.PMCID != "PMC6614286" || r.DOI != sleep.DOI {
		t.Errorf("OpenAlex ids not read: %+v", r)
	}
	if r, _ := c.WorkByID(ctx, scholar.IDPII, "S0967066112001050"); r.PII != "S0967066112001050" {
		t.Errorf("Crossref alternative id not read: %+v", r)
	}
	for _, tt := range []struct{ kind, value string }{{scholar.IDPubMed, "99999999"}, {scholar.IDPII, "S0000000000000000"}, {scholar.IDACL, "P99-9999"}} {
		if _, err := c.WorkByID(ctx, tt.kind, tt.value); !errors.Is(err, claimtrace.ErrNotFound) {
			t.Errorf("WorkByID(%s, %s) error %v, want ErrNotFound", tt.kind, tt.value, err)
		}
	}
	before := len(srv.Requests(scholartest.OpenAlex)) + len(srv.Requests(scholartest.Crossref))
	for _, tt := range []struct{ kind, value string }{{scholar.IDOpenReview, "rJ4km2R5t7"}, {"isbn", "9780123456789"}, {scholar.IDPubMed, ""}, {scholar.IDPubMed, "1/../works"}, {scholar.IDPII, "S0967&x=1"}} {
		if _, err := c.WorkByID(ctx, tt.kind, tt.value); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("WorkByID(%s, %q) error %v, want ErrInvalid", tt.kind, tt.value, err)
		}
	}
	if after := len(srv.Requests(scholartest.OpenAlex)) + len(srv.Requests(scholartest.Crossref)); after != before {
		t.Errorf("invalid ids sent %d requests", after-before)
	}
}
