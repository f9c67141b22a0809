package scholar

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
)

// openAlexSelect limits answers to the fields a Record needs.
const openAlexSelect = "id,doi,title,display_name,publication_date,publication_year,type,ids,authorships,primary_location,locations"

// OpenAlexDOI returns the OpenAlex record of doi (GET /works/doi:…); an
// unknown DOI is an error wrapping claimtrace.ErrNotFound.
func (c *Client) OpenAlexDOI(ctx context.Context, doi string) (Record, error) {
	d, err := cleanDOI(doi)
	if err != nil {
		return Record{}, fmt.Errorf("openalex: %w", err)
	}
	return c.openAlexWork(ctx, "doi:"+escapeDOI(d))
}

// OpenAlexArXiv returns the OpenAlex record of an arXiv id. OpenAlex has no
// arXiv id lookup; arXiv registers a DataCite DOI for every paper
// (10.48550/arXiv.<id>), which OpenAlex indexes, so the DOI is looked up.
func (c *Client) OpenAlexArXiv(ctx context.Context, id string) (Record, error) {
	n, ok := NormalizeArXivID(id)
	if !ok {
		return Record{}, fmt.Errorf("openalex: arxiv id %q: %w", id, claimtrace.ErrInvalid)
	}
	r, err := c.openAlexWork(ctx, "doi:10.48550/arXiv."+escapeDOI(n))
	if err != nil {
		return Record{}, err
	}
	if r.ArXivID == "" {
		r.ArXivID = n
	}
	return r, nil
}

// OpenAlexSearch searches work titles (filter=title.search:…).
func (c *Client) OpenAlexSearch(ctx context.Context, title string) ([]Record, error) {
	ws, err := openAlexSearch[openAlexWork](ctx, c, title, openAlexSelect)
	if err != nil {
		return nil, err
	}
	return openAlexRecords(ws), nil
}

func (c *Client) openAlexWork(ctx context.Context, id string) (Record, error) {
	w, u, err := openAlexOne[openAlexWork](ctx, c, id, openAlexSelect)
	if err != nil {
		return Record{}, err
	}
	if w.ID == "" {
		return Record{}, fmt.Errorf("openalex %s: answer is not a work: %w", u, claimtrace.ErrInvalid)
	}
	return w.record(), nil
}

// openAlexQuery fetches an OpenAlex path with the polite parameters.
func (c *Client) openAlexQuery(ctx context.Context, path string, v url.Values) ([]byte, string, error) {
	u := c.opts.OpenAlexURL + path + "?" + c.polite(v, true).Encode()
	body, err := c.get(ctx, "openalex", c.openalx, u)
	return body, u, err
}

// openAlexSearch runs a title search selecting fields sel and decodes the
// results as T.
func openAlexSearch[T any](ctx context.Context, c *Client, title, sel string) ([]T, error) {
	terms := searchTerms(title)
	if terms == "" {
		return nil, fmt.Errorf("openalex search %q: no words: %w", title, claimtrace.ErrInvalid)
	}
	v := url.Values{}
	v.Set("filter", "title.search:"+terms)
	v.Set("per_page", strconv.Itoa(c.opts.Rows))
	v.Set("select", sel)
	body, u, err := c.openAlexQuery(ctx, "/works", v)
	if err != nil {
		return nil, err
	}
	ws, err := decodeOpenAlexList[T](body)
	if err != nil {
		return nil, fmt.Errorf("openalex %s: %w", u, err)
	}
	return ws, nil
}

// openAlexOne fetches one work by id ("doi:…", "W…") as T.
func openAlexOne[T any](ctx context.Context, c *Client, id, sel string) (T, string, error) {
	var w T
	v := url.Values{}
	v.Set("select", sel)
	body, u, err := c.openAlexQuery(ctx, "/works/"+id, v)
	if err != nil {
		return w, u, err
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return w, u, fmt.Errorf("openalex %s: %w: %w", u, claimtrace.ErrInvalid, err)
	}
	return w, u, nil
}

// decodeOpenAlexList reads a list answer: {"meta": {…}, "results": [T…]}.
func decodeOpenAlexList[T any](body []byte) ([]T, error) {
	var env struct {
		Meta    *json.RawMessage `json:"meta"`
		Results []T              `json:"results"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("%w: %w", claimtrace.ErrInvalid, err)
	}
	if env.Meta == nil {
		return nil, fmt.Errorf("answer has no meta: %w", claimtrace.ErrInvalid)
	}
	return env.Results, nil
}

// parseOpenAlexList reads a list answer into records with a title.
func parseOpenAlexList(body []byte) ([]Record, error) {
	ws, err := decodeOpenAlexList[openAlexWork](body)
	if err != nil {
		return nil, err
	}
	return openAlexRecords(ws), nil
}

func openAlexRecords(ws []openAlexWork) []Record {
	var out []Record
	for _, w := range ws {
		if r := w.record(); r.Title != "" {
			out = append(out, r)
		}
	}
	return out
}

// openAlexWork is the part of an OpenAlex Work object this package reads.
type openAlexWork struct {
	ID              string `json:"id"`
	DOI             string `json:"doi"`
	Title           string `json:"title"`
	DisplayName     string `json:"display_name"`
	PublicationDate string `json:"publication_date"`
	PublicationYear int    `json:"publication_year"`
	Type            string `json:"type"`
	Authorships     []struct {
		Author struct {
			DisplayName string `json:"display_name"`
		} `json:"author"`
		RawAuthorName string `json:"raw_author_name"`
	} `json:"authorships"`
	PrimaryLocation *openAlexLocation  `json:"primary_location"`
	Locations       []openAlexLocation `json:"locations"`
	IDs             struct {
		PMID  string `json:"pmid"`
		PMCID string `json:"pmcid"`
	} `json:"ids"`
}

type openAlexLocation struct {
	LandingPageURL string `json:"landing_page_url"`
	PDFURL         string `json:"pdf_url"`
	Source         *struct {
		DisplayName string `json:"display_name"`
	} `json:"source"`
}

func (w openAlexWork) record() Record {
	r := Record{Source: SourceOpenAlex, Type: w.Type}
	r.Title = collapse(w.DisplayName)
	if r.Title == "" {
		r.Title = collapse(w.Title)
	}
	if w.DOI != "" {
		if d, err := cleanDOI(w.DOI); err == nil {
			r.DOI = d
		}
	}
	for _, a := range w.Authorships {
		n := collapse(a.Author.DisplayName)
		if n == "" {
			n = collapse(a.RawAuthorName)
		}
		if n != "" {
			r.Authors = append(r.Authors, n)
		}
	}
	if t, err := time.Parse(time.DateOnly, w.PublicationDate); err == nil {
		r.Published = t
	} else if w.PublicationYear >= 1000 && w.PublicationYear <= 3000 {
		r.Published = time.Date(w.PublicationYear, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if w.PrimaryLocation != nil && w.PrimaryLocation.Source != nil {
		r.Venue = collapse(w.PrimaryLocation.Source.DisplayName)
	}
	r.ArXivID = arXivFromDOI(r.DOI)
	r.PMID = lastSegment(w.IDs.PMID)
	if p := lastSegment(w.IDs.PMCID); p != "" {
		r.PMCID = "PMC" + strings.TrimPrefix(strings.ToUpper(p), "PMC")
	}
	locs := w.Locations
	if w.PrimaryLocation != nil {
		locs = append([]openAlexLocation{*w.PrimaryLocation}, locs...)
	}
	for _, l := range locs {
		if r.ArXivID != "" {
			break
		}
		for _, s := range []string{l.LandingPageURL, l.PDFURL} {
			if id := arXivFromURL(s); id != "" {
				r.ArXivID = id
				break
			}
		}
	}
	switch {
	case r.DOI != "":
		r.URL = "https://doi.org/" + r.DOI
	case w.PrimaryLocation != nil && w.PrimaryLocation.LandingPageURL != "":
		r.URL = w.PrimaryLocation.LandingPageURL
	default:
		r.URL = w.ID
	}
	return r
}

// arXivFromURL reads the id of an arxiv.org abs or pdf URL.
func arXivFromURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if host != "arxiv.org" && host != "export.arxiv.org" {
		return ""
	}
	for _, p := range []string{"/abs/", "/pdf/"} {
		if rest, ok := strings.CutPrefix(u.Path, p); ok {
			id, _ := NormalizeArXivID(strings.TrimSuffix(rest, ".pdf"))
			return id
		}
	}
	return ""
}
