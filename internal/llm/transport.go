package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
)

// maxErrorBody bounds how much of an error response is kept for
// classification and messages.
const maxErrorBody = 64 << 10

// attemptTrace is what the transport observed during one attempt: the last
// HTTP status and headers and the start of an error body. SDK error types
// differ per provider and some lose the status on a non-JSON error body;
// the trace gives every provider the same facts to classify.
type attemptTrace struct {
	mu     sync.Mutex
	status int
	header http.Header
	body   []byte
}

type traceKey struct{}

// observerKey carries the responseSeen of an attempt: the headers of
// every HTTP answer, whatever its status (the Client reads the providers'
// rate-limit headers from them).
type observerKey struct{}

// responseSeen keeps the last HTTP answer's headers of one attempt.
type responseSeen struct {
	mu     sync.Mutex
	header http.Header
}

func (r *responseSeen) last() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.header
}

// withResponseObserver returns a context whose HTTP answers are recorded
// into the returned responseSeen.
func withResponseObserver(ctx context.Context) (context.Context, *responseSeen) {
	r := &responseSeen{}
	return context.WithValue(ctx, observerKey{}, r), r
}

// withTrace returns a context whose HTTP requests are traced into the
// returned attemptTrace.
func withTrace(ctx context.Context) (context.Context, *attemptTrace) {
	tr := &attemptTrace{}
	return context.WithValue(ctx, traceKey{}, tr), tr
}

func (t *attemptTrace) snapshot() (int, http.Header, []byte) {
	if t == nil {
		return 0, nil, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, t.header, t.body
}

// recordingTransport records status, headers and error bodies into the
// attemptTrace carried by the request context. It changes nothing else.
type recordingTransport struct {
	next http.RoundTripper
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	if seen, _ := req.Context().Value(observerKey{}).(*responseSeen); seen != nil && resp != nil {
		seen.mu.Lock()
		seen.header = resp.Header.Clone()
		seen.mu.Unlock()
	}
	tr, _ := req.Context().Value(traceKey{}).(*attemptTrace)
	if tr == nil || resp == nil {
		return resp, err
	}
	var body []byte
	if resp.StatusCode >= 400 && resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	}
	tr.mu.Lock()
	tr.status = resp.StatusCode
	tr.header = resp.Header.Clone()
	tr.body = body
	tr.mu.Unlock()
	return resp, err
}

type readCloser struct {
	io.Reader
	io.Closer
}
