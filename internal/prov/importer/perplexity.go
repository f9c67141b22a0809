package importer

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// perplexityResponse is a Sonar chat completion with its sources.
type perplexityResponse struct {
	Model   string `json:"model"`
	Created int64  `json:"created"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Citations     []string `json:"citations"`
	SearchResults []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Snippet string `json:"snippet"`
	} `json:"search_results"`
}

// markerRE matches "[1]", "[1, 3]" and "[1,2,5]".
var markerRE = lazyregexp.New(`\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]`)

// Perplexity reads a Sonar response: [n] markers in the answer are 1-based
// indices into search_results (read first) or the older citations list.
// The claim is the sentence right before a marker (or a run of markers);
// a result's snippet becomes the source excerpt, though it is a search
// snippet rather than the passage that supports the claim. A marker
// pointing past the list is kept as a dangling citation.
func Perplexity(data []byte) (*Result, error) {
	var resp perplexityResponse
	if err := decode("perplexity", data, &resp); err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("perplexity response: no choices: %w", claimtrace.ErrInvalid)
	}
	text := resp.Choices[0].Message.Content
	a := &assembler{provider: "perplexity", model: resp.Model, text: text}
	if resp.Created > 0 {
		a.at = time.Unix(resp.Created, 0).UTC()
	}
	var cites []cite
	for _, m := range markerRE.FindAllStringSubmatchIndex(text, -1) {
		// Skip Markdown links "[1](url)" and footnote definitions "[1]: url".
		if m[1] < len(text) && (text[m[1]] == '(' || text[m[1]] == ':') {
			continue
		}
		for _, num := range strings.Split(text[m[2]:m[3]], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(num))
			if err != nil {
				continue
			}
			c := cite{markStart: m[0], markEnd: m[1], marker: text[m[0]:m[1]], kind: claimtrace.KindNumbered}
			switch {
			case n >= 1 && n <= len(resp.SearchResults):
				r := resp.SearchResults[n-1]
				c.url, c.title, c.excerpt = r.URL, r.Title, strings.TrimSpace(r.Snippet)
			case n >= 1 && n <= len(resp.Citations):
				c.url = resp.Citations[n-1]
			default: // dangling: no such result
				c.key = "marker:[" + strconv.Itoa(n) + "]"
			}
			cites = append(cites, c)
		}
	}
	attach(text, cites)
	a.cites = cites
	return a.result()
}
