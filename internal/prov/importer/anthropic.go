package importer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// anthropicResponse is a Messages API response: content blocks, some of
// them text blocks with citations.
type anthropicResponse struct {
	Type    string `json:"type"`
	Model   string `json:"model"`
	Content []struct {
		Type      string              `json:"type"`
		Text      string              `json:"text"`
		Citations []anthropicCitation `json:"citations"`
	} `json:"content"`
}

type anthropicCitation struct {
	Type          string `json:"type"`
	CitedText     string `json:"cited_text"`
	URL           string `json:"url"`
	Title         string `json:"title"`
	DocumentIndex *int   `json:"document_index"`
	DocumentTitle string `json:"document_title"`
	Source        string `json:"source"`
}

// Anthropic reads a Messages API response whose text blocks carry
// citations (web search results, documents, search results). The claim is
// the whole text of a cited block; cited_text is the source excerpt and
// the evidence of the edge. Web results are identified by URL, documents by
// their index in the request, search results by their source.
func Anthropic(data []byte) (*Result, error) {
	var resp anthropicResponse
	if err := decode("anthropic", data, &resp); err != nil {
		return nil, err
	}
	if resp.Type != "" && resp.Type != "message" {
		return nil, fmt.Errorf("anthropic response: type %q, want message: %w", resp.Type, claimtrace.ErrInvalid)
	}
	a := &assembler{provider: "anthropic", model: resp.Model}
	var text strings.Builder
	for bi, b := range resp.Content {
		if b.Type != "text" {
			continue
		}
		base := text.Len()
		text.WriteString(b.Text)
		if len(b.Citations) == 0 {
			continue
		}
		s, e := trimSpan(b.Text, 0, len(b.Text))
		if s >= e {
			continue
		}
		for ci, c := range b.Citations {
			ct := cite{claimStart: base + s, claimEnd: base + e, markStart: base + e, markEnd: base + e,
				kind: claimtrace.KindGrounding, excerpt: strings.TrimSpace(c.CitedText)}
			switch {
			case c.URL != "":
				ct.url, ct.title = c.URL, c.Title
			case c.Source != "":
				ct.key, ct.title = "search-result:"+c.Source, c.Title
				if strings.HasPrefix(c.Source, "http://") || strings.HasPrefix(c.Source, "https://") {
					ct.url, ct.key = c.Source, ""
				}
			case c.DocumentIndex != nil:
				ct.key, ct.title = "document:"+strconv.Itoa(*c.DocumentIndex), c.DocumentTitle
			default:
				return nil, fmt.Errorf("anthropic: content block %d, citation %d (%s): no url, source or document: %w", bi, ci, c.Type, claimtrace.ErrInvalid)
			}
			a.cites = append(a.cites, ct)
		}
	}
	a.text = text.String()
	return a.result()
}
