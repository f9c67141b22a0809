package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of one line of the stdio transport.
const (
	// MaxLine caps a JSON-RPC message on stdio (bytes): a source of
	// live.MaxBody with room for the envelope.
	MaxLine = 8 << 20
	// MaxDepth caps the nesting of a message's arrays and objects; no tool
	// argument nests nearly as deep.
	MaxDepth = 64
)

// JSON-RPC error codes of lines the server cannot take.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// StdioTransport is the MCP transport over r and w (newline-delimited
// JSON-RPC), made to survive a bad client: a line that is not JSON, is cut
// short, nests deeper than MaxDepth, is longer than MaxLine or is not a
// JSON-RPC message gets an error response (-32700 parse error or -32600
// invalid request, id null) and is skipped, where the SDK's own transport
// would end the session. Batches are refused the same way: MCP dropped
// them in protocol version 2025-06-18. Closing the transport leaves r and w
// open.
func StdioTransport(r io.Reader, w io.Writer) mcp.Transport {
	sw := &syncWriter{w: w}
	return &mcp.IOTransport{Reader: io.NopCloser(&lineFilter{in: bufio.NewReaderSize(r, 64<<10), out: sw}), Writer: sw, MaxLineLength: -1}
}

// syncWriter serializes the SDK's writes and the filter's error responses,
// so that lines never interleave.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) Close() error { return nil }

// lineFilter passes on the lines that are JSON-RPC messages and answers
// the others.
type lineFilter struct {
	in      *bufio.Reader
	out     io.Writer
	pending []byte // the rest of a line that passed, to hand on
	err     error  // the input's end or failure, once the lines before it are handed on
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.readLine()
		if err != nil {
			f.err = err
		}
		if line == nil {
			continue
		}
		if code, msg := check(line); code != 0 {
			if werr := f.refuse(code, msg); werr != nil {
				return 0, werr
			}
			continue
		}
		f.pending = append(line, '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine returns the next line without its end, nil for a blank one, and
// the input's error (io.EOF at the end) after the last line. A line over
// MaxLine is skipped and answered here.
func (f *lineFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.in.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine+1 {
			// Drop the line through its end without keeping it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = f.in.ReadSlice('\n')
			}
			if werr := f.refuse(codeParseError, fmt.Sprintf("Parse error: message over %d bytes", MaxLine)); werr != nil {
				return nil, werr
			}
			return nil, err
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			line = nil
		}
		return line, err
	}
}

// check returns the JSON-RPC error code and message a line gets, or 0 when
// it is a message the server can take.
func check(line []byte) (int, string) {
	if d := depth(line); d > MaxDepth {
		return codeInvalidRequest, fmt.Sprintf("Invalid Request: nested deeper than %d levels", MaxDepth)
	}
	if !json.Valid(line) {
		return codeParseError, "Parse error: the line is not one complete JSON value"
	}
	if line[0] == '[' {
		return codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message a line"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return codeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
	}
	return 0, ""
}

// depth returns the deepest nesting of arrays and objects in a JSON text,
// without parsing it: brackets inside strings do not count.
func depth(b []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

// refuse writes a JSON-RPC error response with a null id.
func (f *lineFilter) refuse(code int, msg string) error {
	data, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil {
		return err
	}
	_, err = f.out.Write(append(data, '\n'))
	return err
}
