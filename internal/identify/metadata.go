// Package identify is the last rung of the metadata ladder of source
// resolution: a language model reads a fetched page that no identifier,
// meta tag or scholarly API identified and says which scholarly work it
// presents, and only what the page itself confirms is kept (CheckGuess).
package identify

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

// StageMetadata is recorded in the LLM ledger for the calls of this
// package.
const StageMetadata = "metadata"

// Page is what the last rung of the metadata ladder reads: a fetched page
// that no identifier, meta tag or scholarly API identified.
type Page struct {
	URL       string
	PageTitle string
	Text      string
}

// Guess is a model's reading of a page, checked against it: a title or
// identifier that is not written in the page is dropped, and Note says why.
type Guess struct {
	Scholarly bool
	Title     string
	Authors   []string
	DOI       string
	ArXivID   string
	// Note explains a guess that was not taken ("not scholarly: …", "title
	// not in the page"), for the source record.
	Note string
}

// MetadataChars is how much of a page's text the model reads.
const MetadataChars = 6000

// minTitleKey is the shortest title key accepted: shorter "titles"
// ("Introduction", "Abstract") occur in any paper.
const minTitleKey = 12

// LLM identifies works with a model. It is safe for concurrent use.
type LLM struct {
	c    *llm.Client
	name string
	tmpl *prompts.Prompt
}

// NewLLM returns the metadata reader of model c.
func NewLLM(c *llm.Client) (*LLM, error) {
	if c == nil {
		return nil, fmt.Errorf("metadata reader: no model client: %w", claimtrace.ErrInvalid)
	}
	tmpl, err := prompts.Get("judge/metadata")
	if err != nil {
		return nil, err
	}
	return &LLM{c: c, name: c.Endpoint().String(), tmpl: tmpl}, nil
}

// Name identifies the reader (its model).
func (m *LLM) Name() string { return m.name }

var metadataSchema = &llm.Schema{
	Name:   "work_metadata",
	Strict: true,
	JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "scholarly": {"type": "boolean"},
    "title": {"type": "string"},
    "authors": {"type": "array", "items": {"type": "string"}},
    "doi": {"type": "string"},
    "arxiv_id": {"type": "string"},
    "reason": {"type": "string"}
  },
  "required": ["scholarly", "title", "authors", "doi", "arxiv_id", "reason"],
  "additionalProperties": false
}`),
}

type metadataAnswer struct {
	Scholarly bool     `json:"scholarly"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	DOI       string   `json:"doi"`
	ArXivID   string   `json:"arxiv_id"`
	Reason    string   `json:"reason"`
}

// Request returns the request Identify sends for p, for estimates.
func (m *LLM) Request(p Page) (llm.Request, error) {
	text := headRunes(p.Text, MetadataChars)
	s, err := m.tmpl.Render(map[string]string{"URL": p.URL, "PageTitle": p.PageTitle, "Text": text})
	if err != nil {
		return llm.Request{}, err
	}
	zero := 0.0
	return llm.Request{Stage: StageMetadata, Messages: []llm.Message{llm.UserMessage(s)}, Schema: metadataSchema, Temperature: &zero}, nil
}

// Identify asks the model which work p presents and keeps only what the
// page itself confirms (see CheckGuess). Model errors are returned.
func (m *LLM) Identify(ctx context.Context, p Page) (Guess, error) {
	req, err := m.Request(p)
	if err != nil {
		return Guess{}, err
	}
	var a metadataAnswer
	if _, err := m.c.GenerateJSON(ctx, req, &a); err != nil {
		return Guess{}, fmt.Errorf("metadata %s: %s: %w", m.name, p.URL, err)
	}
	return CheckGuess(p.PageTitle+"\n"+headRunes(p.Text, MetadataChars), a.Scholarly, a.Title, a.Authors, a.DOI, a.ArXivID, a.Reason), nil
}

// CheckGuess keeps of a model's answer what text confirms: the title must
// be written in it (compared as title keys: case, accents, punctuation and
// spacing aside) and long enough to name one work; a DOI or arXiv id must
// be written in it; an author is kept when their last name is. A scholarly
// answer without a confirmed title or identifier is not taken.
func CheckGuess(text string, scholarly bool, title string, authors []string, doi, arxivID, reason string) Guess {
	if !scholarly {
		return Guess{Note: "not scholarly: " + prompts.OneLine(reason)}
	}
	var g Guess
	lower := strings.ToLower(text)
	if d := strings.ToLower(biblio.DOI(strings.TrimSpace(doi))); d != "" && strings.Contains(lower, d) {
		g.DOI = d
	}
	if id := biblio.ArXivID(strings.TrimSpace(arxivID)); id != "" && strings.Contains(lower, strings.ToLower(id)) {
		g.ArXivID = id
	}
	tk := biblio.TitleKey(title)
	if len(tk) >= minTitleKey && strings.Contains(biblio.TitleKey(text), tk) {
		g.Title = strings.Join(strings.Fields(title), " ")
	}
	if g.Title == "" && g.DOI == "" && g.ArXivID == "" {
		return Guess{Note: fmt.Sprintf("the model's title %q is not in the page", shortText(title, 120))}
	}
	g.Scholarly = true
	for _, a := range authors {
		f := strings.Fields(strings.ReplaceAll(a, ",", " "))
		if len(f) == 0 {
			continue
		}
		last := f[len(f)-1]
		if strings.Contains(a, ",") {
			last = f[0] // "Last, First"
		}
		if utf8.RuneCountInString(last) > 1 && strings.Contains(lower, strings.ToLower(last)) {
			g.Authors = append(g.Authors, strings.Join(strings.Fields(a), " "))
		}
	}
	if g.Title == "" {
		g.Note = fmt.Sprintf("the model's title %q is not in the page; identified by its identifier", shortText(title, 120))
	}
	return g
}

// headRunes returns the first n runes of s.
func headRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

func shortText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if h := headRunes(s, n); h != s {
		return h + "…"
	}
	return s
}
