package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/httpserve"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// MaxBody caps a request body of the HTTP API (bytes): an excerpt of
// MaxText bytes fits with room for JSON escaping.
const MaxBody = 4 * MaxText

// TokenEnv is the environment variable the command line reads the API token
// from; it is named in the error a write without a configured token gets.
const TokenEnv = "CLAIMTRACE_TOKEN"

// Handler serves the live provenance API over HTTP JSON (documented in
// doc/api.md). Paths are relative: mount it under a prefix with
// http.StripPrefix, e.g. mux.Handle("/api/live/", http.StripPrefix("/api/live", live.Handler(svc, token))).
//
// Every request, reads included, needs "Authorization: Bearer <token>": a
// session holds the sources an agent read and the claims it is drafting.
// With an empty token every request is refused with a message saying how
// to set one. No route is public.
func Handler(svc *Service, token string) http.Handler {
	h := &api{svc: svc, token: token}
	mux := http.NewServeMux()
	mux.Handle("GET /sessions", h.read(h.listSessions))
	mux.Handle("POST /sessions", h.write(h.openSession))
	mux.Handle("GET /sessions/{id}", h.read(h.graph))
	mux.Handle("GET /sessions/{id}/info", h.read(h.info))
	mux.Handle("GET /sessions/{id}/metrics", h.read(h.metrics))
	mux.Handle("GET /sessions/{id}/prov", h.read(h.prov))
	mux.Handle("GET /sessions/{id}/claims/{cid}/why", h.read(h.why))
	mux.Handle("POST /sessions/{id}/sources", h.write(h.addSource))
	mux.Handle("POST /sessions/{id}/reasoning", h.write(h.addReasoning))
	mux.Handle("POST /sessions/{id}/claims", h.write(h.addClaim))
	mux.Handle("POST /sessions/{id}/edges", h.write(h.addEdge))
	mux.Handle("DELETE /sessions/{id}/claims/{cid}", h.write(h.withdraw))
	mux.Handle("POST /sessions/{id}/close", h.write(h.close))
	mux.Handle("/", h.read(func(w http.ResponseWriter, r *http.Request) error {
		return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no endpoint %s %s: see internal/live/doc/api.md", r.Method, r.URL.Path)}
	}))
	return mux
}

type api struct {
	svc   *Service
	token string
}

// handlerFunc is an endpoint: it writes a response or returns an error,
// which the wrapper renders.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// read serves f to token holders, as the token's owner (WithOwner).
func (h *api) read(f handlerFunc) http.Handler {
	owner := OwnerOfToken(h.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := authorize(r, h.token)
		if err == nil {
			httpserve.Authenticated(r)
			err = f(w, r.WithContext(WithOwner(r.Context(), owner)))
		}
		if err != nil {
			if status, _ := statusOf(err); status >= 500 && h.svc.log != nil {
				h.svc.log.Error("live API", "method", r.Method, "path", r.URL.Path, "status", status, "error", err)
			}
			writeError(w, err)
		}
	})
}

// write serves f to token holders, with the body capped at MaxBody.
func (h *api) write(f handlerFunc) http.Handler {
	return h.read(func(w http.ResponseWriter, r *http.Request) error {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		return f(w, r)
	})
}

// RequireBearer wraps next so that every request needs "Authorization:
// Bearer <token>" (the scheme in any case, the token compared in constant
// time). An empty token refuses all
// requests, saying how to set one.
func RequireBearer(token string, next http.Handler) http.Handler {
	owner := OwnerOfToken(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := authorize(r, token); err != nil {
			writeError(w, err)
			return
		}
		httpserve.Authenticated(r)
		next.ServeHTTP(w, r.WithContext(WithOwner(r.Context(), owner)))
	})
}

// authorize checks the request's bearer token against token.
func authorize(r *http.Request, token string) error {
	if token == "" {
		return &httpError{status: http.StatusForbidden, msg: "the live API is disabled: no API token is configured; set " + TokenEnv +
			" to a long random secret where claimtrace runs (e.g. " + TokenEnv + "=$(openssl rand -hex 32)) and send it as 'Authorization: Bearer <token>'"}
	}
	got, ok := httpserve.BearerToken(r)
	if !ok || !httpserve.SumToken(token).Matches(got) {
		return &httpError{status: http.StatusUnauthorized, msg: "missing or wrong bearer token: send 'Authorization: Bearer <token>' with the token configured in " + TokenEnv}
	}
	return nil
}

// httpError is an error with its own status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// statusTable maps errors to HTTP statuses, first match wins.
var statusTable = []struct {
	target error
	status int
}{
	{claimtrace.ErrNotFound, http.StatusNotFound},
	{ErrClosed, http.StatusConflict},
	{claimtrace.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{claimtrace.ErrInvalid, http.StatusBadRequest},
	{claimtrace.ErrBudget, http.StatusTooManyRequests},
	{claimtrace.ErrUnreachable, http.StatusBadGateway},
	{context.Canceled, http.StatusServiceUnavailable},
	{context.DeadlineExceeded, http.StatusGatewayTimeout},
}

// errorBody is the JSON body of every error response.
type errorBody struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
	// Violations lists the AAR rules an operation breaks (status 422).
	Violations []prov.Violation `json:"violations,omitempty"`
	// Limit names the session limit a write would pass (status 422).
	Limit *limitBody `json:"limit,omitempty"`
}

// limitBody names a session limit and its value.
type limitBody struct {
	Name string `json:"name"`
	Max  int64  `json:"max"`
}

// statusOf returns the status for err and the violations it carries.
func statusOf(err error) (int, []prov.Violation) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, nil
	}
	var ve *prov.ValidationError
	if errors.As(err, &ve) {
		return http.StatusUnprocessableEntity, ve.Violations
	}
	var le *LimitError
	if errors.As(err, &le) {
		return http.StatusUnprocessableEntity, nil
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, nil
	}
	for _, row := range statusTable {
		if errors.Is(err, row.target) {
			return row.status, nil
		}
	}
	return http.StatusInternalServerError, nil
}

func writeError(w http.ResponseWriter, err error) {
	status, vs := statusOf(err)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="claimtrace"`)
	}
	body := errorBody{Error: err.Error(), Status: status, Violations: vs}
	var le *LimitError
	if errors.As(err, &le) {
		body.Limit = &limitBody{Name: le.Limit, Max: le.Max}
	}
	writeJSON(w, status, body)
}

// writeJSON renders v into a buffer, then writes it with status. Answers
// are compact JSON, one line: agents read them, many a second (pipe them
// through jq to read them); the graph and PROV documents stay indented
// (stream.go).
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	writeBody(w, status, "application/json", buf.Bytes())
	return nil
}

func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

// decode reads one JSON object into v, refusing unknown fields and
// trailing data. An empty body is an empty object when empty is allowed.
func decode(r *http.Request, v any, empty bool) error {
	// Decoded as it is read, without a copy of the whole body first; the
	// body's own failures are told apart from the JSON's.
	body := &bodyReader{r: r.Body}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errTrailing
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(body.err, &mbe):
		return fmt.Errorf("request body over %d bytes, the most one request may carry (an excerpt holds at most %d bytes: record a longer source as several excerpts): %w", MaxBody, MaxText, claimtrace.ErrTooLarge)
	case body.err != nil:
		// The client hung up or stalled midway: its request, not the
		// server, failed.
		return fmt.Errorf("request body cut short after %d bytes: %v: %w", body.n, body.err, claimtrace.ErrInvalid)
	case err == io.EOF: // nothing but white space
		if empty {
			return nil
		}
		return fmt.Errorf("empty request body: want a JSON object: %w", claimtrace.ErrInvalid)
	case err == errTrailing:
		return fmt.Errorf("request body: data after the JSON object: %w", claimtrace.ErrInvalid)
	case err != nil:
		return fmt.Errorf("request body: %v: %w", err, claimtrace.ErrInvalid)
	}
	return nil
}

// errTrailing is decode's own: a body with more after its JSON value.
var errTrailing = errors.New("data after the JSON value")

// bodyReader reads a request body, counting its bytes and keeping the
// error that ended it other than io.EOF.
type bodyReader struct {
	r   io.Reader
	n   int64
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

func (h *api) listSessions(w http.ResponseWriter, r *http.Request) error {
	list, err := h.svc.Sessions(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		Sessions []SessionInfo `json:"sessions"`
	}{orEmpty(list)})
}

func (h *api) openSession(w http.ResponseWriter, r *http.Request) error {
	var in OpenInput
	if err := decode(r, &in, true); err != nil {
		return err
	}
	info, err := h.svc.Open(r.Context(), in)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if info.Resumed {
		status = http.StatusOK
	}
	return writeJSON(w, status, info)
}

func (h *api) info(w http.ResponseWriter, r *http.Request) error {
	info, err := h.svc.Session(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, info)
}

// graph streams the session's graph in the native format.
func (h *api) graph(w http.ResponseWriter, r *http.Request) error {
	g, _, err := h.svc.snapshot(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	h.stream(w, r, "application/json", func(w io.Writer) error { return encodeGraph(w, g) })
	return nil
}

// stream writes a document encoded element by element: the status is sent
// first, so a failure midway (the client gone) can only be logged.
func (h *api) stream(w http.ResponseWriter, r *http.Request, contentType string, encode func(io.Writer) error) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if err := encode(w); err != nil && r.Context().Err() == nil && h.svc.log != nil {
		h.svc.log.Warn("live API: response cut short", "path", r.URL.Path, "error", err)
	}
}

func (h *api) metrics(w http.ResponseWriter, r *http.Request) error {
	m, err := h.svc.Metrics(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, m)
}

func (h *api) why(w http.ResponseWriter, r *http.Request) error {
	why, err := h.svc.Why(r.Context(), r.PathValue("id"), r.PathValue("cid"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, why)
}

// prov streams the session's PROV export.
func (h *api) prov(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	encode, err := provEncoder(format)
	if err != nil {
		return err
	}
	g, _, err := h.svc.snapshot(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	ct := "application/json"
	if format == FormatPROVJSONLD {
		ct = "application/ld+json"
	}
	h.stream(w, r, ct, func(w io.Writer) error { return encode(w, g) })
	return nil
}

func (h *api) addSource(w http.ResponseWriter, r *http.Request) error {
	var in SourceInput
	if err := decode(r, &in, false); err != nil {
		return err
	}
	res, err := h.svc.AddSource(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, res)
}

func (h *api) addReasoning(w http.ResponseWriter, r *http.Request) error {
	var in ReasoningInput
	if err := decode(r, &in, false); err != nil {
		return err
	}
	res, err := h.svc.AddReasoning(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, res)
}

func (h *api) addClaim(w http.ResponseWriter, r *http.Request) error {
	var in ClaimInput
	if err := decode(r, &in, false); err != nil {
		return err
	}
	res, err := h.svc.AddClaim(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if res.Revised {
		status = http.StatusOK
	}
	return writeJSON(w, status, res)
}

func (h *api) addEdge(w http.ResponseWriter, r *http.Request) error {
	var in EdgeInput
	if err := decode(r, &in, false); err != nil {
		return err
	}
	res, err := h.svc.AddEdge(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, res)
}

func (h *api) withdraw(w http.ResponseWriter, r *http.Request) error {
	info, err := h.svc.Withdraw(r.Context(), r.PathValue("id"), r.PathValue("cid"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, info)
}

func (h *api) close(w http.ResponseWriter, r *http.Request) error {
	info, err := h.svc.Close(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, info)
}
