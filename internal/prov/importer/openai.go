package importer

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
)

// openAIResponse covers both OpenAI shapes: the Responses API (output items)
// and Chat Completions (choices, annotations nested under url_citation),
// which Perplexity and OpenRouter also speak.
type openAIResponse struct {
	Model     string `json:"model"`
	CreatedAt int64  `json:"created_at"` // Responses
	Created   int64  `json:"created"`    // Chat Completions
	Output    []struct {
		Type    string `json:"type"`
		Content []struct {
			Type        string             `json:"type"`
			Text        string             `json:"text"`
			Annotations []openAIAnnotation `json:"annotations"`
		} `json:"content"`
	} `json:"output"`
	Choices []struct {
		Message struct {
			Content     string             `json:"content"`
			Annotations []openAIAnnotation `json:"annotations"`
		} `json:"message"`
	} `json:"choices"`
}

type openAIAnnotation struct {
	Type string `json:"type"`
	openAIURLCitation
	URLCitation *openAIURLCitation `json:"url_citation"`
}

type openAIURLCitation struct {
	StartIndex int    `json:"start_index"`
	EndIndex   int    `json:"end_index"`
	URL        string `json:"url"`
	Title      string `json:"title"`
}

// OpenAI reads an OpenAI Responses API response (deep research included) or
// a Chat Completions response with url_citation annotations. The
// annotation's span locates the inline citation marker (a Markdown link),
// not the claim: the claim is the sentence right before the marker. Indexes
// are documented as characters; they are read as Unicode code points and
// checked against the text (the span must hold the URL or the title),
// falling back to UTF-16 units, then bytes, then to a search for the link.
func OpenAI(data []byte) (*Result, error) {
	var resp openAIResponse
	if err := decode("openai", data, &resp); err != nil {
		return nil, err
	}
	a := &assembler{provider: "openai", model: resp.Model}
	if t := max(resp.CreatedAt, resp.Created); t > 0 {
		a.at = time.Unix(t, 0).UTC()
	}
	type part struct {
		text string
		anns []openAIAnnotation
	}
	var parts []part
	for _, it := range resp.Output {
		if it.Type != "message" {
			continue
		}
		for _, c := range it.Content {
			if c.Type == "output_text" {
				parts = append(parts, part{c.Text, c.Annotations})
			}
		}
	}
	for _, ch := range resp.Choices {
		parts = append(parts, part{ch.Message.Content, ch.Message.Annotations})
		break // one answer: the first choice
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("openai response: no output_text and no choices: %w", claimtrace.ErrInvalid)
	}
	var text strings.Builder
	for i, p := range parts {
		if i > 0 {
			text.WriteString("\n\n")
		}
		base := text.Len()
		text.WriteString(p.text)
		var cites []cite
		for _, an := range p.anns {
			if an.Type != "url_citation" {
				continue // file_citation, container_file_citation, file_path
			}
			uc := an.openAIURLCitation
			if an.URLCitation != nil {
				uc = *an.URLCitation
			}
			s, e, ok := locateMarker(p.text, uc)
			if !ok {
				return nil, fmt.Errorf("openai: url_citation [%d, %d) for %s: no such marker in a text of %d bytes: %w",
					uc.StartIndex, uc.EndIndex, uc.URL, len(p.text), claimtrace.ErrInvalid)
			}
			cites = append(cites, cite{markStart: s, markEnd: e, marker: p.text[s:e], kind: claimtrace.KindLink,
				url: cleanURL(uc.URL), title: uc.Title})
		}
		attach(p.text, cites)
		for _, c := range cites {
			c.claimStart += base
			c.claimEnd += base
			c.markStart += base
			c.markEnd += base
			a.cites = append(a.cites, c)
		}
	}
	a.text = text.String()
	return a.result()
}

// locateMarker converts an annotation span to bytes of text. It tries code
// points, UTF-16 units and bytes, with end exclusive and then inclusive, and
// keeps the first reading whose span holds the URL or the title; when none
// does, it searches the text for the Markdown link to the URL nearest the
// code-point reading.
func locateMarker(text string, uc openAIURLCitation) (int, int, bool) {
	if uc.StartIndex < 0 || uc.EndIndex < uc.StartIndex {
		return 0, 0, false
	}
	// A marker is a Markdown link or a bare URL: it starts with "[", "(" or
	// the URL, ends with ")", "]" or the URL, and names the URL or title.
	holds := func(s, e int) bool {
		m := text[s:e]
		u, cu := uc.URL, cleanURL(uc.URL)
		named := u != "" && (strings.Contains(m, u) || strings.Contains(m, cu)) || uc.Title != "" && strings.Contains(m, uc.Title)
		if strings.HasPrefix(m, "[") || strings.HasPrefix(m, "(") {
			return named && (strings.HasSuffix(m, ")") || strings.HasSuffix(m, "]"))
		}
		bare := u != "" && (strings.HasPrefix(m, u) || strings.HasPrefix(m, cu))
		return named && bare && (strings.HasSuffix(m, u) || strings.HasSuffix(m, cu))
	}
	for _, conv := range []func(string, int) (int, bool){runeOffset, utf16Offset, byteOffset} {
		s, ok1 := conv(text, uc.StartIndex)
		for _, end := range []int{uc.EndIndex, uc.EndIndex + 1} {
			e, ok2 := conv(text, end)
			if ok1 && ok2 && s < e && holds(s, e) {
				return s, e, true
			}
		}
	}
	hint, ok := runeOffset(text, min(uc.StartIndex, utf8.RuneCountInString(text)))
	if !ok {
		hint = len(text)
	}
	return findLink(text, uc.URL, hint)
}

// runeOffset returns the byte offset of code point n.
func runeOffset(text string, n int) (int, bool) {
	i := 0
	for b := range text {
		if i == n {
			return b, true
		}
		i++
	}
	return len(text), i == n
}

// utf16Offset returns the byte offset of UTF-16 unit n.
func utf16Offset(text string, n int) (int, bool) {
	u := 0
	for b, r := range text {
		if u == n {
			return b, true
		}
		if u > n {
			return 0, false // n falls inside a surrogate pair
		}
		u += max(utf16.RuneLen(r), 1)
	}
	return len(text), u == n
}

func byteOffset(text string, n int) (int, bool) {
	if n > len(text) || !utf8.RuneStart(byteAt(text, n)) {
		return 0, false
	}
	return n, true
}

func byteAt(s string, i int) byte {
	if i >= len(s) {
		return 0
	}
	return s[i]
}

// findLink finds the Markdown link "[…](url)" or the bare URL nearest hint
// and returns its span.
func findLink(text, u string, hint int) (int, int, bool) {
	if u == "" {
		return 0, 0, false
	}
	best, bestDist := -1, 0
	for _, needle := range []string{u, cleanURL(u)} {
		for off := 0; ; {
			i := strings.Index(text[off:], needle)
			if i < 0 {
				break
			}
			i += off
			if d := abs(i - hint); best < 0 || d < bestDist {
				best, bestDist = i, d
			}
			off = i + 1
		}
		if best >= 0 {
			s, e := best, best+len(needle)
			// Widen to the enclosing Markdown link.
			if s >= 2 && text[s-2:s] == "](" {
				if open := strings.LastIndexByte(text[:s-2], '['); open >= 0 {
					if close := strings.IndexByte(text[e:], ')'); close >= 0 {
						return open, e + close + 1, true
					}
				}
			}
			return s, e, true
		}
	}
	return 0, 0, false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// cleanURL drops the utm_source=openai (or chatgpt.com) query parameter
// OpenAI appends to cited URLs.
func cleanURL(raw string) string {
	if !strings.Contains(raw, "utm_source=") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	switch q.Get("utm_source") {
	case "openai", "chatgpt.com":
		q.Del("utm_source")
	default:
		return raw
	}
	u.RawQuery = q.Encode()
	return u.String()
}
