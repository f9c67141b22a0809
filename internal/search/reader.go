package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
)

// Fetcher fetches one page; *fetch.Client implements it.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) (*fetch.Page, error)
}

// Builtin reads pages with claimtrace's own fetcher: SSRF-safe (the URLs
// come from search results and the model, so they are untrusted), size
// capped, rate limited per host, then fetch.Extract for the readable text
// of HTML, PDF or plain text.
type Builtin struct{ f Fetcher }

// NewBuiltin returns a reader fetching through f.
func NewBuiltin(f Fetcher) *Builtin { return &Builtin{f: f} }

// minWallWords is how much visible text a paywalled or login-walled page
// needs to be worth showing (an abstract usually is).
const minWallWords = 50

// Read fetches rawURL and returns its title and main text. A dead link, a
// page that is not text, a bot wall or an error page is an *Error; a
// paywalled page with some visible text (an abstract) is returned with a
// note saying only part of it is shown.
func (b *Builtin) Read(ctx context.Context, rawURL string) (string, string, error) {
	op := "read " + truncate(rawURL, 200)
	if err := checkURL(BuiltinName, rawURL); err != nil {
		return "", "", err
	}
	p, err := b.f.Fetch(ctx, rawURL)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("%s: %w", op, ctx.Err())
		}
		kind := claimtrace.ErrUnreachable
		if errors.Is(err, claimtrace.ErrBlocked) {
			kind = claimtrace.ErrBlocked
		}
		return "", "", &Error{Provider: BuiltinName, Op: op, Kind: kind, msg: err.Error(), err: err}
	}
	if p.Status < 200 || p.Status >= 300 {
		return "", "", &Error{Provider: BuiltinName, Op: op, Kind: claimtrace.ErrUnreachable, Status: p.Status, msg: "the page answered with an error"}
	}
	c, err := fetch.Extract(p)
	if err != nil {
		return "", "", &Error{Provider: BuiltinName, Op: op, Kind: claimtrace.ErrInvalid, msg: err.Error(), err: err}
	}
	switch c.Wall {
	case "":
	case fetch.WallPaywall, fetch.WallLogin:
		if len(strings.Fields(c.Text)) < minWallWords {
			return "", "", &Error{Provider: BuiltinName, Op: op, Kind: claimtrace.ErrUnreachable, msg: "the page is behind a " + wallName(c.Wall) + " and shows almost no text"}
		}
		return c.Title, "[Only the part of this page visible without a " + wallName(c.Wall) + " is shown.]\n\n" + c.Text, nil
	default:
		return "", "", &Error{Provider: BuiltinName, Op: op, Kind: claimtrace.ErrUnreachable, msg: "the page is " + wallName(c.Wall) + ", not the content"}
	}
	if strings.TrimSpace(c.Text) == "" {
		return "", "", &Error{Provider: BuiltinName, Op: op, Kind: claimtrace.ErrUnreachable, msg: "the page has no readable text"}
	}
	return c.Title, c.Text, nil
}

func wallName(w string) string {
	switch w {
	case fetch.WallBot:
		return "a bot wall"
	case fetch.WallPaywall:
		return "paywall"
	case fetch.WallLogin:
		return "login wall"
	case fetch.WallError:
		return "an error page"
	case fetch.WallEmpty:
		return "empty"
	}
	return w
}

// Firecrawl reads pages through Firecrawl's scrape API: POST /v1/scrape,
// Markdown in data.markdown.
type Firecrawl struct{ o Options }

// NewFirecrawl returns a Firecrawl reader. The public API needs a key
// (FIRECRAWL_API_KEY); a self-hosted instance at BaseURL may not.
func NewFirecrawl(opts Options) (*Firecrawl, error) {
	if opts.APIKey == "" && (opts.BaseURL == "" || strings.TrimRight(opts.BaseURL, "/") == DefaultFirecrawlURL) {
		return nil, missingKey(FirecrawlName, or(opts.KeyEnv, "FIRECRAWL_API_KEY"))
	}
	return &Firecrawl{opts.withDefaults(DefaultFirecrawlURL)}, nil
}

// Read scrapes rawURL (main content only) and returns its title and
// Markdown.
func (f *Firecrawl) Read(ctx context.Context, rawURL string) (string, string, error) {
	op := "read " + truncate(rawURL, 200)
	if err := checkURL(FirecrawlName, rawURL); err != nil {
		return "", "", err
	}
	payload, err := json.Marshal(map[string]any{"url": rawURL, "formats": []string{"markdown"}, "onlyMainContent": true})
	if err != nil {
		return "", "", fmt.Errorf("firecrawl %s: %w", op, err)
	}
	body, err := f.o.do(ctx, request{provider: FirecrawlName, op: op, build: func(ctx context.Context) (*http.Request, error) {
		req, err := newRequest(ctx, http.MethodPost, f.o.BaseURL+"/v1/scrape", payload)
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			if f.o.APIKey != "" {
				req.Header.Set("Authorization", "Bearer "+f.o.APIKey)
			}
		}
		return req, err
	}})
	if err != nil {
		return "", "", err
	}
	return decodeFirecrawl(op, body)
}

func decodeFirecrawl(op string, body []byte) (string, string, error) {
	var v struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Data    *struct {
			Markdown string `json:"markdown"`
			Metadata struct {
				Title      string `json:"title"`
				StatusCode int    `json:"statusCode"`
				Error      string `json:"error"`
			} `json:"metadata"`
		} `json:"data"`
	}
	if err := decodeJSON(FirecrawlName, op, body, &v); err != nil {
		return "", "", err
	}
	if !v.Success || v.Data == nil {
		msg := or(v.Error, "scrape reported no success")
		return "", "", &Error{Provider: FirecrawlName, Op: op, Kind: kindOf(http.StatusOK, "", msg), msg: truncate(msg, 300)}
	}
	m := v.Data.Metadata
	if m.StatusCode >= 400 {
		return "", "", &Error{Provider: FirecrawlName, Op: op, Kind: claimtrace.ErrUnreachable, Status: m.StatusCode, msg: or(truncate(m.Error, 300), "the page answered with an error")}
	}
	if strings.TrimSpace(v.Data.Markdown) == "" {
		return "", "", &Error{Provider: FirecrawlName, Op: op, Kind: claimtrace.ErrUnreachable, msg: "the page has no readable text"}
	}
	return strings.TrimSpace(m.Title), v.Data.Markdown, nil
}

// Jina reads pages through Jina Reader: GET <base>/<url>, asking for JSON
// ({data: {title, content}}) and accepting its plain-text format ("Title:
// …", "Markdown Content:" …) too.
type Jina struct{ o Options }

// NewJina returns a Jina Reader client. The key (JINA_API_KEY) is optional:
// without one Jina applies a lower rate limit.
func NewJina(opts Options) (*Jina, error) {
	return &Jina{opts.withDefaults(DefaultJinaURL)}, nil
}

// Read returns rawURL's title and text as Jina renders it.
func (j *Jina) Read(ctx context.Context, rawURL string) (string, string, error) {
	op := "read " + truncate(rawURL, 200)
	if err := checkURL(JinaName, rawURL); err != nil {
		return "", "", err
	}
	body, err := j.o.do(ctx, request{provider: JinaName, op: op, build: func(ctx context.Context) (*http.Request, error) {
		req, err := newRequest(ctx, http.MethodGet, j.o.BaseURL+"/"+rawURL, nil)
		if err == nil && j.o.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+j.o.APIKey)
		}
		return req, err
	}})
	if err != nil {
		return "", "", err
	}
	return decodeJina(op, body)
}

func decodeJina(op string, body []byte) (string, string, error) {
	trimmed := strings.TrimSpace(string(body))
	if !strings.HasPrefix(trimmed, "{") {
		title, text := ParseJinaText(trimmed)
		if strings.TrimSpace(text) == "" {
			return "", "", &Error{Provider: JinaName, Op: op, Kind: claimtrace.ErrUnreachable, msg: "the page has no readable text"}
		}
		return title, text, nil
	}
	var v struct {
		Code int `json:"code"`
		Data *struct {
			Title   string `json:"title"`
			Content string `json:"content"`
			Warning string `json:"warning"`
		} `json:"data"`
		Message         string `json:"message"`
		ReadableMessage string `json:"readableMessage"`
	}
	if err := decodeJSON(JinaName, op, body, &v); err != nil {
		return "", "", err
	}
	if v.Data == nil {
		return "", "", &Error{Provider: JinaName, Op: op, Kind: claimtrace.ErrUnreachable, Status: v.Code, msg: or(truncate(firstNonEmpty(v.ReadableMessage, v.Message), 300), "no page data in the answer")}
	}
	if w := strings.ToLower(v.Data.Warning); strings.Contains(w, "returned error") {
		return "", "", &Error{Provider: JinaName, Op: op, Kind: claimtrace.ErrUnreachable, msg: truncate(v.Data.Warning, 300)}
	}
	if strings.TrimSpace(v.Data.Content) == "" {
		return "", "", &Error{Provider: JinaName, Op: op, Kind: claimtrace.ErrUnreachable, msg: "the page has no readable text"}
	}
	return strings.TrimSpace(v.Data.Title), v.Data.Content, nil
}

// ParseJinaText splits Jina Reader's plain-text answer into the title (the
// "Title:" header line) and the content after "Markdown Content:". A text
// without that marker is all content.
func ParseJinaText(s string) (title, text string) {
	head, content, found := strings.Cut(s, "Markdown Content:")
	if !found {
		head, content = "", s
	}
	for _, line := range strings.Split(head, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "Title:"); ok && title == "" {
			title = strings.TrimSpace(t)
		}
	}
	if !found {
		if t, ok := strings.CutPrefix(s, "Title:"); ok {
			line, rest, _ := strings.Cut(t, "\n")
			title, content = strings.TrimSpace(line), rest
		}
	}
	return title, strings.TrimSpace(content)
}

// checkURL accepts absolute http(s) URLs only.
func checkURL(provider, rawURL string) error {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{Provider: provider, Op: "read " + truncate(rawURL, 200), Kind: claimtrace.ErrInvalid, msg: "not an absolute http(s) URL"}
	}
	return nil
}

// NewReader returns the named remote reader (FirecrawlName or JinaName);
// the builtin reader is built with NewBuiltin from a fetcher.
func NewReader(name string, opts Options) (Reader, error) {
	switch strings.ToLower(name) {
	case FirecrawlName:
		r, err := NewFirecrawl(opts)
		if err != nil {
			return nil, err
		}
		return r, nil
	case JinaName:
		r, err := NewJina(opts)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	return nil, fmt.Errorf("reader %q: want builtin, firecrawl or jina: %w", name, claimtrace.ErrInvalid)
}
