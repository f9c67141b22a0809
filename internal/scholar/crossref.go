package scholar

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// crossrefSelect limits search answers to the fields a Record needs.
const crossrefSelect = "DOI,title,author,issued,published,published-print,published-online,container-title,type,URL"

// CrossrefDOI returns the Crossref record of doi; an unknown DOI is an
// error wrapping claimtrace.ErrNotFound.
func (c *Client) CrossrefDOI(ctx context.Context, doi string) (Record, error) {
	w, _, err := crossrefOne[crossrefWork](ctx, c, doi)
	if err != nil {
		return Record{}, err
	}
	return w.record(), nil
}

// CrossrefSearch runs a bibliographic query (a title, or a whole
// reference string) and returns the best Rows records.
func (c *Client) CrossrefSearch(ctx context.Context, query string) ([]Record, error) {
	ws, err := crossrefSearch[crossrefWork](ctx, c, query, crossrefSelect)
	if err != nil {
		return nil, err
	}
	return crossrefRecords(ws), nil
}

// crossrefOne fetches the work of doi, decoded as T.
func crossrefOne[T any](ctx context.Context, c *Client, doi string) (T, string, error) {
	var w T
	d, err := cleanDOI(doi)
	if err != nil {
		return w, "", fmt.Errorf("crossref: %w", err)
	}
	u := c.opts.CrossrefURL + "/works/" + escapeDOI(d)
	if q := c.polite(url.Values{}, false).Encode(); q != "" {
		u += "?" + q
	}
	body, err := c.get(ctx, "crossref", c.crossref, u)
	if err != nil {
		return w, u, err
	}
	var env struct {
		Status      string          `json:"status"`
		MessageType string          `json:"message-type"`
		Message     json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return w, u, fmt.Errorf("crossref %s: %w: %w", u, claimtrace.ErrInvalid, err)
	}
	if env.Status != "ok" || env.MessageType != "work" {
		return w, u, fmt.Errorf("crossref %s: status %q, message-type %q: %w", u, env.Status, env.MessageType, claimtrace.ErrInvalid)
	}
	if err := json.Unmarshal(env.Message, &w); err != nil {
		return w, u, fmt.Errorf("crossref %s: %w: %w", u, claimtrace.ErrInvalid, err)
	}
	return w, u, nil
}

// crossrefSearch runs a bibliographic query selecting fields sel and
// decodes the items as T.
func crossrefSearch[T any](ctx context.Context, c *Client, query, sel string) ([]T, error) {
	terms := searchTerms(query)
	if terms == "" {
		return nil, fmt.Errorf("crossref search %q: no words: %w", query, claimtrace.ErrInvalid)
	}
	v := url.Values{}
	v.Set("query.bibliographic", terms)
	v.Set("rows", strconv.Itoa(c.opts.Rows))
	v.Set("select", sel)
	u := c.opts.CrossrefURL + "/works?" + c.polite(v, false).Encode()
	body, err := c.get(ctx, "crossref", c.crossref, u)
	if err != nil {
		return nil, err
	}
	ws, err := decodeCrossrefList[T](body)
	if err != nil {
		return nil, fmt.Errorf("crossref %s: %w", u, err)
	}
	return ws, nil
}

// decodeCrossrefList reads a work-list answer's items as T.
func decodeCrossrefList[T any](body []byte) ([]T, error) {
	var env struct {
		Status      string `json:"status"`
		MessageType string `json:"message-type"`
		Message     struct {
			Items []T `json:"items"`
		} `json:"message"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("%w: %w", claimtrace.ErrInvalid, err)
	}
	if env.Status != "ok" || env.MessageType != "work-list" {
		return nil, fmt.Errorf("status %q, message-type %q: %w", env.Status, env.MessageType, claimtrace.ErrInvalid)
	}
	return env.Message.Items, nil
}

// parseCrossrefList reads a work-list answer into records with a title.
func parseCrossrefList(body []byte) ([]Record, error) {
	ws, err := decodeCrossrefList[crossrefWork](body)
	if err != nil {
		return nil, err
	}
	return crossrefRecords(ws), nil
}

func crossrefRecords(ws []crossrefWork) []Record {
	var out []Record
	for _, w := range ws {
		if r := w.record(); r.Title != "" {
			out = append(out, r)
		}
	}
	return out
}

// crossrefWork is the part of a Crossref work this package reads.
type crossrefWork struct {
	DOI             string           `json:"DOI"`
	URL             string           `json:"URL"`
	Type            string           `json:"type"`
	Title           []string         `json:"title"`
	ContainerTitle  []string         `json:"container-title"`
	Author          []crossrefAuthor `json:"author"`
	Issued          crossrefDate     `json:"issued"`
	Published       crossrefDate     `json:"published"`
	PublishedOnline crossrefDate     `json:"published-online"`
	PublishedPrint  crossrefDate     `json:"published-print"`
	AlternativeID   []string         `json:"alternative-id"`
}

type crossrefAuthor struct {
	Given  string `json:"given"`
	Family string `json:"family"`
	Name   string `json:"name"` // organizations
}

// crossrefDate is a partial date: {"date-parts": [[2017, 6, 12]]}, with
// month and day optional and the year sometimes null.
type crossrefDate struct {
	DateParts [][]json.RawMessage `json:"date-parts"`
}

func (d crossrefDate) time() (time.Time, bool) {
	if len(d.DateParts) == 0 || len(d.DateParts[0]) == 0 {
		return time.Time{}, false
	}
	parts := [3]int{0, 1, 1}
	for i, raw := range d.DateParts[0] {
		if i >= 3 {
			break
		}
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				break
			}
			n = json.Number(s)
		}
		v, err := strconv.Atoi(string(n))
		if err != nil {
			break
		}
		parts[i] = v
	}
	if parts[0] < 1000 || parts[0] > 3000 || parts[1] < 1 || parts[1] > 12 || parts[2] < 1 || parts[2] > 31 {
		return time.Time{}, false
	}
	return time.Date(parts[0], time.Month(parts[1]), parts[2], 0, 0, 0, 0, time.UTC), true
}

var tags = lazyregexp.New(`<[^>]{0,200}>`)

// plain strips JATS/HTML markup and entities from a Crossref string.
func plain(s string) string {
	return collapse(html.UnescapeString(tags.ReplaceAllString(s, "")))
}

func (w crossrefWork) record() Record {
	r := Record{Source: SourceCrossref, DOI: strings.TrimSpace(w.DOI), URL: w.URL, Type: w.Type}
	if len(w.Title) > 0 {
		r.Title = plain(w.Title[0])
	}
	if len(w.ContainerTitle) > 0 {
		r.Venue = plain(w.ContainerTitle[0])
	}
	for _, a := range w.Author {
		n := collapse(a.Given + " " + a.Family)
		if n == "" {
			n = collapse(a.Name)
		}
		if n != "" {
			r.Authors = append(r.Authors, n)
		}
	}
	for _, d := range []crossrefDate{w.Issued, w.Published, w.PublishedOnline, w.PublishedPrint} {
		if t, ok := d.time(); ok {
			r.Published = t
			break
		}
	}
	r.ArXivID = arXivFromDOI(r.DOI)
	for _, id := range w.AlternativeID {
		if id = strings.ToUpper(strings.TrimSpace(id)); piiShaped(id) {
			r.PII = id
			break
		}
	}
	return r
}

// arXivFromDOI reads the id of an arXiv DataCite DOI (10.48550/arXiv.X).
func arXivFromDOI(doi string) string {
	const prefix = "10.48550/arxiv."
	if len(doi) > len(prefix) && strings.EqualFold(doi[:len(prefix)], prefix) {
		id, _ := NormalizeArXivID(doi[len(prefix):])
		return id
	}
	return ""
}

// cleanDOI strips resolver prefixes and checks the 10.prefix/suffix shape.
func cleanDOI(doi string) (string, error) {
	d := strings.TrimSpace(doi)
	low := strings.ToLower(d)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
		if strings.HasPrefix(low, p) {
			d = strings.TrimSpace(d[len(p):])
			break
		}
	}
	prefix, suffix, ok := strings.Cut(d, "/")
	if !ok || !strings.HasPrefix(prefix, "10.") || len(prefix) < 7 || strings.TrimSpace(suffix) == "" ||
		strings.ContainsAny(d, " \t\n") {
		return "", fmt.Errorf("doi %q: %w", doi, claimtrace.ErrInvalid)
	}
	return d, nil
}

// escapeDOI escapes a DOI for a URL path, keeping its slashes.
func escapeDOI(doi string) string {
	parts := strings.Split(doi, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
