package scholar

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

var (
	arXivNewID = lazyregexp.New(`^(\d{4}\.\d{4,5})(v\d+)?$`)
	arXivOldID = lazyregexp.New(`^([a-z][a-z\-]*(\.[A-Z]{2})?/\d{7})(v\d+)?$`)
)

// NormalizeArXivID returns the version-less form of an arXiv id
// ("arXiv:1706.03762v5" → "1706.03762") and whether it is well formed.
func NormalizeArXivID(id string) (string, bool) {
	id = strings.TrimSpace(id)
	if len(id) >= 6 && strings.EqualFold(id[:6], "arxiv:") {
		id = strings.TrimSpace(id[6:])
	}
	if m := arXivNewID.FindStringSubmatch(id); m != nil {
		return m[1], true
	}
	if m := arXivOldID.FindStringSubmatch(id); m != nil {
		return m[1], true
	}
	return "", false
}

// ArXiv looks ids up, many per request. The result maps each id as given
// to its record; ids arXiv does not know are absent. A malformed id is an
// error wrapping claimtrace.ErrInvalid, reported before any request.
func (c *Client) ArXiv(ctx context.Context, ids ...string) (map[string]Record, error) {
	norm := make(map[string]string, len(ids))
	var unique []string
	seen := make(map[string]bool)
	for _, id := range ids {
		n, ok := NormalizeArXivID(id)
		if !ok {
			return nil, fmt.Errorf("arxiv: id %q: %w", id, claimtrace.ErrInvalid)
		}
		norm[id] = n
		if !seen[n] {
			seen[n] = true
			unique = append(unique, n)
		}
	}
	byID := make(map[string]Record, len(unique))
	for start := 0; start < len(unique); start += c.opts.ArXivBatch {
		batch := unique[start:min(start+c.opts.ArXivBatch, len(unique))]
		// Validated ids contain only [0-9a-zA-Z./-]: no escaping needed.
		q := "id_list=" + strings.Join(batch, ",") + "&start=0&max_results=" + strconv.Itoa(len(batch))
		recs, err := c.arXivQuery(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			byID[r.ArXivID] = r
		}
	}
	out := make(map[string]Record, len(ids))
	for id, n := range norm {
		if r, ok := byID[n]; ok {
			out[id] = r
		}
	}
	return out, nil
}

// ArXivSearch searches arXiv titles for the words of title (ti:"…").
func (c *Client) ArXivSearch(ctx context.Context, title string) ([]Record, error) {
	terms := searchTerms(title)
	if terms == "" {
		return nil, fmt.Errorf("arxiv search %q: no words: %w", title, claimtrace.ErrInvalid)
	}
	v := url.Values{}
	v.Set("search_query", `ti:"`+terms+`"`)
	v.Set("start", "0")
	v.Set("max_results", strconv.Itoa(c.opts.Rows))
	v.Set("sortBy", "relevance")
	return c.arXivQuery(ctx, v.Encode())
}

func (c *Client) arXivQuery(ctx context.Context, rawQuery string) ([]Record, error) {
	u := c.opts.ArXivURL + "?" + rawQuery
	body, err := c.get(ctx, "arxiv", c.arxiv, u)
	if err != nil {
		return nil, err
	}
	recs, err := parseAtom(body)
	if err != nil {
		return nil, fmt.Errorf("arxiv %s: %w", u, err)
	}
	return recs, nil
}

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Entries []atomEntry `xml:"http://www.w3.org/2005/Atom entry"`
}

type atomEntry struct {
	ID         string       `xml:"http://www.w3.org/2005/Atom id"`
	Title      string       `xml:"http://www.w3.org/2005/Atom title"`
	Summary    string       `xml:"http://www.w3.org/2005/Atom summary"`
	Published  string       `xml:"http://www.w3.org/2005/Atom published"`
	Authors    []atomAuthor `xml:"http://www.w3.org/2005/Atom author"`
	Links      []atomLink   `xml:"http://www.w3.org/2005/Atom link"`
	DOI        string       `xml:"http://arxiv.org/schemas/atom doi"`
	JournalRef string       `xml:"http://arxiv.org/schemas/atom journal_ref"`
}

type atomAuthor struct {
	Name string `xml:"http://www.w3.org/2005/Atom name"`
}

type atomLink struct {
	Href  string `xml:"href,attr"`
	Rel   string `xml:"rel,attr"`
	Title string `xml:"title,attr"`
}

// parseAtom reads an arXiv API feed. An error entry (id under
// /api/errors, which arXiv sends with HTTP 200 or 400) becomes an error
// wrapping claimtrace.ErrInvalid; a body that is not an Atom feed (arXiv
// answers "Rate exceeded." in plain text when throttling) is ErrInvalid too.
func parseAtom(body []byte) ([]Record, error) {
	var feed atomFeed
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = true
	if err := dec.Decode(&feed); err != nil {
		return nil, fmt.Errorf("not an Atom feed (%q): %w: %w", snippet(body[:min(len(body), 80)]), claimtrace.ErrInvalid, err)
	}
	var out []Record
	for _, e := range feed.Entries {
		id := strings.TrimSpace(e.ID)
		if strings.Contains(id, "/api/errors") {
			msg := collapse(e.Summary)
			if msg == "" {
				msg = id
			}
			return nil, fmt.Errorf("arxiv error: %s: %w", msg, claimtrace.ErrInvalid)
		}
		arxivID := idFromAbsURL(id)
		if arxivID == "" || collapse(e.Title) == "" {
			continue // arXiv answers unknown ids with an empty entry
		}
		r := Record{
			Source:  SourceArXiv,
			ArXivID: arxivID,
			DOI:     strings.TrimSpace(e.DOI),
			Title:   collapse(e.Title),
			Venue:   collapse(e.JournalRef),
			URL:     "https://arxiv.org/abs/" + arxivID,
			Type:    "preprint",
		}
		for _, a := range e.Authors {
			if n := collapse(a.Name); n != "" {
				r.Authors = append(r.Authors, n)
			}
		}
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(e.Published)); err == nil {
			r.Published = t.UTC()
		}
		if r.DOI == "" {
			for _, l := range e.Links {
				if l.Title == "doi" {
					r.DOI = strings.TrimPrefix(strings.TrimPrefix(l.Href, "http://dx.doi.org/"), "https://doi.org/")
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// idFromAbsURL reads the id of "http(s)://arxiv.org/abs/<id>v<n>".
func idFromAbsURL(s string) string {
	i := strings.Index(s, "/abs/")
	if i < 0 {
		return ""
	}
	id, _ := NormalizeArXivID(s[i+len("/abs/"):])
	return id
}

// collapse folds whitespace runs (arXiv hard-wraps titles and abstracts).
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
