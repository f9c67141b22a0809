// Package llmtest runs in-process fake model servers speaking the real wire
// protocols of OpenAI (chat completions and the Responses API), Gemini
// (models/{m}:generateContent) and Anthropic (/v1/messages), so the real
// SDK clients can be tested without the network: scripted answers (text,
// tool calls, web citations), every request recorded, and fault injection
// in each provider's real error shape (429 with Retry-After or RetryInfo,
// 500, 503/529 overload, context-length, auth, quota, slow answers,
// dropped connections, truncated and non-JSON bodies).
//
// One Server serves all three protocols on their own paths: point OpenAI
// at OpenAIBaseURL, Gemini and Anthropic at URL, or take a real client of
// it from Server.Client. For tests that only build requests, OfflineClient
// is a client that never calls, and CheckRequests pins the requests in a
// golden file.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Protocol names a wire protocol the server speaks.
type Protocol string

// Protocols, by request path.
const (
	OpenAIChat      Protocol = "openai.chat"      // POST /v1/chat/completions
	OpenAIResponses Protocol = "openai.responses" // POST /v1/responses
	Gemini          Protocol = "gemini"           // POST /v1beta/models/{model}:generateContent
	Anthropic       Protocol = "anthropic"        // POST /v1/messages
)

// Call is one recorded request.
type Call struct {
	Protocol Protocol
	Model    string
	Header   http.Header
	Body     []byte
	// Prompt is the text of the last user turn (tool results excluded).
	Prompt string
	// APIKey is the key the request carried (Authorization bearer,
	// x-goog-api-key, x-api-key).
	APIKey string
	// Completed reports that a full answer was written back.
	Completed bool
}

// Server is a fake model server. Replies come from the script queue
// (Enqueue) first, then from the handler (Handle), then the default: the
// text "ok".
type Server struct {
	// URL is the server's base URL (Gemini and Anthropic base URL).
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	script    []Reply
	handler   func(ctx context.Context, c Call) Reply
	key       string
	calls     []Call
	inflight  int
	maxFlight int
	seq       int
}

// NewServer starts a Server, closed when the test ends.
func NewServer(tb testing.TB) *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// OpenAIBaseURL is the base URL for OpenAI clients (URL + "/v1").
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Enqueue appends scripted replies, served in order, one per request.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// Handle sets the function answering requests once the script is empty.
// ctx is the request's context: it is done when the client goes away.
func (s *Server) Handle(h func(ctx context.Context, c Call) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// RequireKey makes every request without this key fail with the
// provider's authentication error. The error message echoes the key that
// was sent, which real providers only do masked: a worst case for
// redaction tests.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// Calls returns the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Call, len(s.calls))
	copy(out, s.calls)
	return out
}

// Completed counts the requests for prompt that got a full answer.
func (s *Server) Completed(prompt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c.Completed && c.Prompt == prompt {
			n++
		}
	}
	return n
}

// MaxInFlight is the largest number of requests served at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxFlight
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var proto Protocol
	model := ""
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		proto = OpenAIChat
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		proto = OpenAIResponses
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		proto = Anthropic
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1beta/models/") && strings.HasSuffix(r.URL.Path, ":generateContent"):
		proto = Gemini
		model = strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":generateContent")
	default:
		http.Error(w, "llmtest: no such endpoint: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	c := Call{Protocol: proto, Model: model, Header: r.Header.Clone(), Body: body, APIKey: requestKey(proto, r)}
	parseRequest(&c)

	s.mu.Lock()
	idx := len(s.calls)
	s.calls = append(s.calls, c)
	s.inflight++
	s.maxFlight = max(s.maxFlight, s.inflight)
	s.seq++
	seq := s.seq
	var reply Reply
	switch {
	case s.key != "" && c.APIKey != s.key:
		reply = Reply{Fault: Unauthorized}
	case len(s.script) > 0:
		reply = s.script[0]
		s.script = s.script[1:]
	case s.handler != nil:
		h := s.handler
		s.mu.Unlock()
		reply = h(r.Context(), c)
		s.mu.Lock()
	default:
		reply = Text("ok")
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight--
		s.mu.Unlock()
	}()

	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if r.Context().Err() != nil {
		return
	}
	if s.write(w, c, reply, seq) {
		s.mu.Lock()
		s.calls[idx].Completed = true
		s.mu.Unlock()
	}
}

// write renders the reply in the call's protocol and reports whether a
// complete answer was written.
func (s *Server) write(w http.ResponseWriter, c Call, r Reply, seq int) bool {
	for k, v := range r.Header {
		w.Header().Set(k, v)
	}
	switch r.Fault {
	case NoFault:
	case DropConnection:
		hijackClose(w)
		return false
	case NonJSON:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "<html><body><h1>Welcome to nginx!</h1></body></html>")
		return false
	case BadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>")
		return false
	case Truncated:
	default:
		status, hdr, body := errorReply(c, r)
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
		return false
	}
	if r.Model == "" {
		r.Model = c.Model
	}
	if r.Usage == nil {
		r.Usage = &Usage{Input: int64(len(c.Body)/4 + 1), Output: int64(len(r.Text)/4 + 1)}
	}
	var v any
	switch c.Protocol {
	case OpenAIChat:
		var ask struct {
			Logprobs    bool `json:"logprobs"`
			TopLogprobs int  `json:"top_logprobs"`
		}
		json.Unmarshal(c.Body, &ask)
		v = openAIChatBody(r, seq, chatLogprobs(r, ask.Logprobs, ask.TopLogprobs))
	case OpenAIResponses:
		v = openAIResponsesBody(r, seq)
	case Gemini:
		v = geminiBody(r, seq)
	case Anthropic:
		v = anthropicBody(r, seq)
	}
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "llmtest: "+err.Error(), http.StatusInternalServerError)
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Fault == Truncated {
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		hijackClose(w)
		return false
	}
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err == nil
}

// hijackClose closes the connection without (further) answer.
func hijackClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func requestKey(p Protocol, r *http.Request) string {
	switch p {
	case Gemini:
		if k := r.Header.Get("x-goog-api-key"); k != "" {
			return k
		}
		return r.URL.Query().Get("key")
	case Anthropic:
		return r.Header.Get("x-api-key")
	}
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// parseRequest fills Model and Prompt from the body.
func parseRequest(c *Call) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Input    json.RawMessage `json:"input"`
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(c.Body, &req) != nil {
		return
	}
	if c.Model == "" {
		c.Model = req.Model
	}
	switch c.Protocol {
	case OpenAIChat, Anthropic:
		for _, m := range req.Messages {
			if m.Role == "user" {
				if t := contentText(m.Content); t != "" {
					c.Prompt = t
				}
			}
		}
	case OpenAIResponses:
		var s string
		if json.Unmarshal(req.Input, &s) == nil {
			c.Prompt = s
			return
		}
		var items []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(req.Input, &items)
		for _, it := range items {
			if it.Role == "user" {
				c.Prompt = contentText(it.Content)
			}
		}
	case Gemini:
		for _, ct := range req.Contents {
			if ct.Role != "user" {
				continue
			}
			var b strings.Builder
			for _, p := range ct.Parts {
				b.WriteString(p.Text)
			}
			if b.Len() > 0 {
				c.Prompt = b.String()
			}
		}
	}
}

// contentText reads a content field that is a string or a list of
// {type, text} blocks; tool results yield "".
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" || bl.Type == "input_text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}
