package web

import (
	"context"
	"fmt"
	"net/http"

	"golang.org/x/sync/semaphore"

	"github.com/claimtrace/claimtrace"
)

// DefaultMaxResponseBytes is the default of Options.MaxResponseBytes.
const DefaultMaxResponseBytes = 256 << 20

// admitResponse waits until the large responses being served leave room
// for one that holds size bytes in memory (at most the whole bound), or
// ctx ends: concurrent reads of large stored results queue instead of
// each holding its own copy at once. It returns the function that gives
// the room back.
func (s *Server) admitResponse(ctx context.Context, size int64) (func(), error) {
	n := min(max(size, 1), s.maxResponse)
	if err := s.responses.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("waiting for room to answer: %w", err)
	}
	return func() { s.responses.Release(n) }, nil
}

func newResponseBudget(max int64) (*semaphore.Weighted, int64) {
	if max <= 0 {
		max = DefaultMaxResponseBytes
	}
	return semaphore.NewWeighted(max), max
}

// streamChunk is how much of a stored document one write sends.
const streamChunk = 256 << 10

// streamJSON writes data, a JSON document stored as it is to be served,
// in chunks, stopping when the client goes away: nothing is copied or
// re-encoded.
func (s *Server) streamJSON(w http.ResponseWriter, r *http.Request, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	for len(data) > 0 && r.Context().Err() == nil {
		n := min(len(data), streamChunk)
		if _, err := w.Write(data[:n]); err != nil {
			return // the client hung up; the status is sent
		}
		data = data[n:]
	}
	w.Write([]byte("\n"))
}

// memberSpan returns the span of the value of the top-level member key of
// the JSON object data, without decoding or copying it. ok is false when
// data is not an object or has no such member; a malformed document is
// never read past its end.
func memberSpan(data []byte, key string) (start, end int, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return 0, 0, false
	}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		ks, ke, ok := stringSpan(data, i)
		if !ok {
			return 0, 0, false
		}
		i = skipSpace(data, ke)
		if i >= len(data) || data[i] != ':' {
			return 0, 0, false
		}
		vs := skipSpace(data, i+1)
		ve, ok := valueEnd(data, vs)
		if !ok {
			return 0, 0, false
		}
		if string(data[ks+1:ke-1]) == key {
			return vs, ve, true
		}
		i = skipSpace(data, ve)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return 0, 0, false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringSpan returns the end (past the closing quote) of the JSON string
// starting at data[i] == '"'.
func stringSpan(data []byte, i int) (start, end int, ok bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return i, j + 1, true
		}
	}
	return 0, 0, false
}

// valueEnd returns the end of the JSON value starting at data[i]: a
// string, or an object or array with its nesting followed through strings,
// or a scalar up to the next delimiter.
func valueEnd(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		_, e, ok := stringSpan(data, i)
		return e, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				_, e, ok := stringSpan(data, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' && data[j] != ' ' && data[j] != '\n' && data[j] != '\t' && data[j] != '\r' {
		j++
	}
	return j, j > i
}

// storedMember reads the unit (run, kind, key) after making room for its
// size, and returns the span of its top-level member (the whole unit when
// member is ""), with the function giving the room back.
func (s *Server) storedMember(ctx context.Context, run, kind, key, member, what string) ([]byte, func(), error) {
	size, ok, err := s.st.UnitSize(ctx, run, kind, key)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("%s %q in run %q: %w", what, key, run, claimtrace.ErrNotFound)
	}
	release, err := s.admitResponse(ctx, size)
	if err != nil {
		return nil, nil, err
	}
	u, ok, err := s.st.GetUnit(ctx, run, kind, key)
	if err != nil || !ok {
		release()
		if err == nil {
			err = fmt.Errorf("%s %q in run %q: %w", what, key, run, claimtrace.ErrNotFound)
		}
		return nil, nil, err
	}
	if member == "" {
		return u.Data, release, nil
	}
	start, end, ok := memberSpan(u.Data, member)
	if !ok || string(u.Data[start:end]) == "null" {
		release()
		return nil, nil, fmt.Errorf("%s %q in run %q: stored result unreadable", what, key, run)
	}
	return u.Data[start:end], release, nil
}
