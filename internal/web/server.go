// Package web serves claimtrace's read side over HTTP: the audit view a
// reader uses to trust one report (each claim beside the passage of the
// source that supports or contradicts it, its provenance path and AAR
// figures, and the time the audit took), pages listing runs and reports, and
// a JSON API over the same store. Two writes exist, both behind a bearer
// token: the seconds a reader spent on each claim (the empirical AEff) and a
// human reviewer's verdict on a claim. A reviewer with a token of their own
// (Options.Reviewers) reviews under their name and no one else's; reviews
// are appended, so every version stays with its author and time, and each
// reviewer's latest is the current one. The view and the API compare the
// current reviews with the pipeline's verdicts and with each other, and
// export them as labelled claim–evidence pairs for measuring judges.
//
// Report and source text are data, never markup: html/template escapes all
// of it, highlights are built from byte offsets, the pages run one script
// file under a strict Content-Security-Policy and no inline code.
package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/confusable"
	"github.com/claimtrace/claimtrace/internal/httpserve"
	"github.com/claimtrace/claimtrace/internal/store"
)

//go:embed templates static
var assets embed.FS

// MinTokenBytes is the shortest write token New accepts: a guessable token
// would open the write API to anyone who can reach the port.
const MinTokenBytes = 16

// Options configures a Server.
type Options struct {
	// Store holds the runs to show; the server writes audit timings and
	// reviews into it when Token is set.
	Store *store.Store
	// Token enables the write API: requests must carry
	// "Authorization: Bearer <Token>". It is the server's own token: it
	// posts timings, and reviews under the name the body gives, except
	// the names of Reviewers, whose reviews only their own tokens post.
	Token string
	// Reviewers maps each reviewer's token to the reviewer's name: a
	// review posted with it is that reviewer's, and a body naming someone
	// else is refused. Reviewer tokens post timings too. Tokens are at
	// least MinTokenBytes long and name one reviewer each.
	Reviewers map[string]string
	// Log receives one record per internal error (status 500); nil
	// discards them.
	Log *slog.Logger
	// Now returns the current time (UTC); nil means time.Now.
	Now func() time.Time
	// PageClaims is how many claims one page of the audit view shows
	// (1 to MaxPageClaims); 0 means DefaultPageClaims. A page also holds
	// at most 128 KiB of report text, so that the page of a report of any
	// size costs a bounded amount of work and memory.
	PageClaims int
	// CountOtherReviewers makes agreement figures count every review, when
	// reviewers are configured: by default only the configured reviewers'
	// own (posted with their tokens) count, and the others are listed as
	// not counted.
	CountOtherReviewers bool
	// MaxResponseBytes bounds the stored documents (report results,
	// graphs) the server holds in memory at once to answer reads; a read
	// waits for room. Zero means DefaultMaxResponseBytes.
	MaxResponseBytes int64
}

// Server is the web UI and JSON API. It is an http.Handler.
type Server struct {
	st       *store.Store
	tokenSum *httpserve.TokenSum // nil: no server token
	// reviewers maps the reviewer tokens' hashes to their names; names
	// holds the names, which the server token may not post under.
	reviewers   map[httpserve.TokenSum]string
	names       map[string]bool
	countOthers bool
	log         *slog.Logger
	now         func() time.Time
	pages       map[string]*template.Template
	mux         *http.ServeMux
	// pageClaims is Options.PageClaims in force.
	pageClaims int
	// writeMu serializes the read-modify-write of timing units.
	writeMu sync.Mutex
	// heads caches the headline figures decoded from report units (run
	// pages decode every report of a run), valid while a unit's attempt
	// count and update time stay the same.
	headMu sync.Mutex
	heads  map[[2]string]cachedHeadline
	// reviewRes caches what the review sample reads of report units.
	reviewRes reviewCache
	// responses holds the bytes of the stored documents being served
	// (admitResponse), at most maxResponse.
	responses   *semaphore.Weighted
	maxResponse int64
}

// cachedHeadline is a decoded headline and the unit version it came from.
type cachedHeadline struct {
	attempts int
	updated  time.Time
	h        headline
	err      string
}

// maxCachedHeadlines bounds the headline cache; past it the cache starts
// over.
const maxCachedHeadlines = 50000

// New returns a server over opts.Store. It parses the embedded templates
// once.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, fmt.Errorf("web server: no store: %w", claimtrace.ErrInvalid)
	}
	s := &Server{st: opts.Store, log: opts.Log, now: opts.Now, mux: http.NewServeMux(), heads: map[[2]string]cachedHeadline{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = func() time.Time { return time.Now().UTC() }
	}
	switch s.pageClaims = opts.PageClaims; {
	case s.pageClaims == 0:
		s.pageClaims = DefaultPageClaims
	case s.pageClaims < 0 || s.pageClaims > MaxPageClaims:
		return nil, fmt.Errorf("web server: %d claims a page, want 1 to %d: %w", opts.PageClaims, MaxPageClaims, claimtrace.ErrInvalid)
	}
	s.responses, s.maxResponse = newResponseBudget(opts.MaxResponseBytes)
	s.countOthers = opts.CountOtherReviewers
	if opts.Token != "" {
		if len(opts.Token) < MinTokenBytes {
			return nil, fmt.Errorf("web server: write token of %d bytes, want at least %d: %w", len(opts.Token), MinTokenBytes, claimtrace.ErrInvalid)
		}
		sum := httpserve.SumToken(opts.Token)
		s.tokenSum = &sum
	}
	s.reviewers, s.names = map[httpserve.TokenSum]string{}, map[string]bool{}
	for token, name := range opts.Reviewers {
		n, err := reviewerName(name)
		if err != nil || n == anonymous {
			return nil, fmt.Errorf("web server: reviewer %q: want 1 to %d printable characters, not %q: %w", clip(name, 80), maxReviewer, anonymous, claimtrace.ErrInvalid)
		}
		if len(token) < MinTokenBytes {
			return nil, fmt.Errorf("web server: reviewer %s's token of %d bytes, want at least %d: %w", n, len(token), MinTokenBytes, claimtrace.ErrInvalid)
		}
		sum := httpserve.SumToken(token)
		if s.tokenSum != nil && *s.tokenSum == sum {
			return nil, fmt.Errorf("web server: reviewer %s's token is the server's token: give each reviewer a token of their own: %w", n, claimtrace.ErrInvalid)
		}
		if s.names[n] {
			return nil, fmt.Errorf("web server: reviewer %s has two tokens: %w", n, claimtrace.ErrInvalid)
		}
		for other := range s.names {
			if confusable.Same(n, other) {
				return nil, fmt.Errorf("web server: reviewers %q and %q look alike (case, width or look-alike letters): a reader could not tell their reviews apart; rename one: %w", clip(other, 80), clip(n, 80), claimtrace.ErrInvalid)
			}
		}
		if confusable.Same(n, anonymous) {
			return nil, fmt.Errorf("web server: reviewer %q looks like %q, the name of reviews that name no one: %w", clip(n, 80), anonymous, claimtrace.ErrInvalid)
		}
		s.reviewers[sum], s.names[n] = n, true
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	s.pages = pages
	if err := s.routes(); err != nil {
		return nil, err
	}
	return s, nil
}

// Writable reports whether the write API is enabled.
func (s *Server) Writable() bool { return s.tokenSum != nil || len(s.reviewers) > 0 }

func (s *Server) routes() error {
	static, err := fs.Sub(assets, "static")
	if err != nil {
		return fmt.Errorf("web server: static assets: %w", err)
	}
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	s.mux.Handle("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Files only: a directory is not listed.
		if p := r.URL.Path; p == "/static/" || strings.HasSuffix(p, "/") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))

	s.handle("GET /{$}", s.runsPage)
	s.handle("GET /runs/{run}", s.runPage)
	s.handle("GET /runs/{run}/reports/{task}", s.auditPage)
	s.handle("GET /runs/{run}/reports/{task}/claims/{claim}", s.claimFragment)
	s.handle("GET /runs/{run}/reports/{task}/sources/{source}", s.sourcePage)
	s.handle("GET /runs/{run}/reports/{task}/graph", s.graphPage)

	s.handle("GET /api/runs", s.apiRuns)
	s.handle("GET /api/runs/{run}/reports", s.apiReports)
	s.handle("GET /api/runs/{run}/reports/{task}", s.apiReport)
	s.handle("GET /api/runs/{run}/reports/{task}/audit", s.apiAudit)
	s.handle("GET /api/runs/{run}/graphs/{task}", s.apiGraph)
	s.handle("GET /api/runs/{run}/graphs/{task}/view", s.apiGraphView)
	s.handle("GET /api/runs/{run}/reviews", s.apiReviews)
	s.handle("GET /api/runs/{run}/reviews.jsonl", s.apiReviewPairs)
	s.handle("POST /api/runs/{run}/reports/{task}/timings", s.apiPostTimings)
	s.handle("GET /api/runs/{run}/reports/{task}/reviews", s.apiReviewHistory)
	s.handle("POST /api/runs/{run}/reports/{task}/reviews", s.apiPostReview)
	s.handle("/api/", func(http.ResponseWriter, *http.Request) error {
		return fmt.Errorf("no such API endpoint: %w", claimtrace.ErrNotFound)
	})
	return nil
}

// Handle mounts h at pattern (a Go 1.22 route pattern) beside the server's
// own routes, under the same security headers. Call it before serving.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// ServeHTTP sets the security headers every response carries and routes
// the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if strings.HasPrefix(r.URL.Path, "/api/") {
		h.Set("Cache-Control", "no-store")
	}
	s.mux.ServeHTTP(w, r)
}

// handlerFunc is a handler that returns its error for handle to render.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle registers h; the one place errors become responses.
func (s *Server) handle(pattern string, h handlerFunc) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// Errors of the write API, mapped to statuses by statusTable.
var (
	errUnauthorized = errors.New("unauthorized")
	errForbidden    = errors.New("forbidden")
	errReadOnly     = errors.New("read-only server: no write token is configured (start claimtrace serve with --token-env NAME and the token in $NAME)")
	errMediaType    = errors.New("unsupported media type")
)

// statusTable maps errors to HTTP statuses, first match wins; anything else
// is a 500.
var statusTable = []struct {
	err    error
	status int
}{
	{claimtrace.ErrNotFound, http.StatusNotFound},
	{claimtrace.ErrInvalid, http.StatusBadRequest},
	{claimtrace.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{errUnauthorized, http.StatusUnauthorized},
	{errReadOnly, http.StatusForbidden},
	{errForbidden, http.StatusForbidden},
	{errMediaType, http.StatusUnsupportedMediaType},
	{context.DeadlineExceeded, http.StatusServiceUnavailable},
	{context.Canceled, http.StatusServiceUnavailable},
}

// statusOf returns the HTTP status for err.
func statusOf(err error) int {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge
	}
	for _, e := range statusTable {
		if errors.Is(err, e.err) {
			return e.status
		}
	}
	return http.StatusInternalServerError
}

// fail writes err as a response: JSON under /api/, a page elsewhere.
// Internal errors are logged and shown only as "internal error".
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the client left
	}
	code := statusOf(err)
	msg := err.Error()
	if code == http.StatusInternalServerError {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error"
	}
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="claimtrace"`)
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		s.writeJSON(w, r, code, apiError{Error: msg, Status: code})
		return
	}
	data := errorPage{base: s.base(http.StatusText(code)), Status: code, Message: msg}
	if err := s.render(w, code, "error.html", data); err != nil {
		s.log.Error("render error page", "err", err)
		http.Error(w, msg, code)
	}
}

// apiError is the body of every API error response.
type apiError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// render executes page name into a buffer, then writes it: a template
// error never leaves half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) error {
	t, ok := s.pages[name]
	if !ok {
		return fmt.Errorf("render %s: no such page", name)
	}
	var buf bytes.Buffer
	entry := "layout"
	if strings.HasPrefix(name, "fragment-") {
		entry = name
	}
	if err := t.ExecuteTemplate(&buf, entry, data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := buf.WriteTo(w)
	return ignoreClientGone(err)
}

// writeJSON writes v as indented JSON.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		s.log.Error("encode response", "path", r.URL.Path, "err", err)
		status = http.StatusInternalServerError
		data = []byte(`{"error": "internal error", "status": 500}`)
	}
	s.writeRawJSON(w, status, data)
}

// writeRawJSON writes a JSON document as is.
func (s *Server) writeRawJSON(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(data)
	io.WriteString(w, "\n")
}

// ignoreClientGone drops the write errors of a client that hung up.
func ignoreClientGone(err error) error {
	var ne *net.OpError
	if errors.As(err, &ne) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// caller is who sent a write: the server token's holder, or a reviewer.
type caller struct {
	// reviewer is the name of a reviewer token's holder, "" for the
	// server token.
	reviewer string
}

// authorize identifies the request's bearer token: the server token
// (compared in constant time) or a reviewer's. Tokens themselves are never
// kept: only their hashes.
func (s *Server) authorize(r *http.Request) (caller, error) {
	if !s.Writable() {
		return caller{}, errReadOnly
	}
	token, ok := httpserve.BearerToken(r)
	if !ok {
		return caller{}, fmt.Errorf("write API: no bearer token in the Authorization header: %w", errUnauthorized)
	}
	if s.tokenSum != nil && s.tokenSum.Matches(token) {
		httpserve.Authenticated(r)
		return caller{}, nil
	}
	if name, ok := s.reviewers[httpserve.SumToken(token)]; ok {
		httpserve.Authenticated(r)
		return caller{reviewer: name}, nil
	}
	return caller{}, fmt.Errorf("write API: wrong token: %w", errUnauthorized)
}

// reviewerOf returns the name a review posted by c is stored under:
// a reviewer's own name (a body naming someone else is refused), or for
// the server token the name the body gives, unless a reviewer token holds
// that name.
func (s *Server) reviewerOf(c caller, named string) (string, error) {
	name, err := reviewerName(named)
	if err != nil {
		return "", fmt.Errorf("review: %w", err)
	}
	switch {
	case c.reviewer != "" && strings.TrimSpace(named) != "" && !confusable.Same(name, c.reviewer):
		return "", fmt.Errorf("review: this token is %s's: it cannot post a review as %q: %w", c.reviewer, clip(name, 80), errForbidden)
	case c.reviewer != "":
		return c.reviewer, nil
	}
	// The server token: no configured reviewer's name, nor one that looks
	// like it (case, width, look-alike letters of other scripts).
	for n := range s.names {
		if confusable.Same(name, n) {
			what := "is"
			if name != n {
				what = "looks like"
			}
			return "", fmt.Errorf("review: %q %s %s, a reviewer with a token of their own: only that token posts %s's reviews: %w", clip(name, 80), what, n, n, errForbidden)
		}
	}
	if name != anonymous {
		if confusable.Same(name, anonymous) {
			return "", fmt.Errorf("review: %q looks like %q, the name of reviews that name no one: %w", clip(name, 80), anonymous, claimtrace.ErrInvalid)
		}
		if err := confusable.Restricted(name); err != nil {
			return "", fmt.Errorf("review: reviewer %v: %w", err, claimtrace.ErrInvalid)
		}
	}
	return name, nil
}
