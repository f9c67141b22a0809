package prov

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// jsonScanner reads one JSON document from a stream, value by value,
// without building a tree of it: the caller walks the document it
// expects (object, array, string…) and the scanner checks the syntax as
// it goes. Strings decode as encoding/json decodes them (invalid UTF-8
// and lone surrogates become U+FFFD), numbers are returned as their
// literal. Memory is one buffer the size of the longest token.
type jsonScanner struct {
	r    io.Reader
	buf  []byte
	pos  int   // next unread byte of buf[:end]
	end  int   // end of the data read
	base int64 // stream offset of buf[0]
	eof  bool
	err  error // the read error that stopped the stream (not io.EOF)
	// depth counts the objects and arrays open, bounded by maxDepth.
	depth int
}

// maxDepth bounds nesting: a graph document is four levels deep; this is
// far beyond that and far below what could exhaust the stack.
const maxDepth = 64

// errSyntax marks a document that is not JSON.
var errSyntax = errors.New("not valid JSON")

func newJSONScanner(r io.Reader) *jsonScanner { return newJSONScannerSize(r, 256<<10) }

// newJSONScannerSize starts with a buffer of size bytes (tests make it
// tiny, so that tokens cross refills).
func newJSONScannerSize(r io.Reader, size int) *jsonScanner {
	return &jsonScanner{r: r, buf: make([]byte, max(size, 1))}
}

// offset is the stream offset of the next unread byte.
func (s *jsonScanner) offset() int64 { return s.base + int64(s.pos) }

// syntax returns a syntax error at the current offset.
func (s *jsonScanner) syntax(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, s.offset(), fmt.Sprintf(format, args...))
}

// fill reads more data, keeping buf[keep:end] (keep ≤ pos) and growing
// the buffer when it is full. It reports whether data was added.
func (s *jsonScanner) fill(keep int) bool {
	if s.eof {
		return false
	}
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:s.end])
		s.base += int64(keep)
		s.pos -= keep
		s.end = n
	}
	if s.end == len(s.buf) {
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// peek returns the next byte after white space without consuming it. At
// the end of the stream it returns io.ErrUnexpectedEOF, or the read error
// that ended it.
func (s *jsonScanner) peek() (byte, error) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if !s.fill(s.pos) {
			if s.err != nil {
				return 0, s.err
			}
			return 0, io.ErrUnexpectedEOF
		}
	}
}

// atEnd turns the end of the stream into a syntax error; other errors
// pass.
func (s *jsonScanner) atEnd(err error, want string) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return s.syntax("want %s, found the end of the document", want)
	}
	return err
}

// expect consumes the byte c after white space.
func (s *jsonScanner) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return s.atEnd(err, strconv.QuoteRune(rune(c)))
	}
	if got != c {
		return s.syntax("want %q, found %s", c, describeByte(got))
	}
	s.pos++
	return nil
}

func describeByte(c byte) string { return strconv.QuoteRune(rune(c)) }

// kind names the JSON type of the value starting with c.
func kind(c byte) string {
	switch {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return "not a JSON value"
}

// str reads a string value. raw is the literal, quotes included, valid
// until the next read.
func (s *jsonScanner) str() (v string, raw []byte, err error) {
	raw, decode, err := s.strRaw()
	if err != nil {
		return "", nil, err
	}
	if !decode {
		return string(raw[1 : len(raw)-1]), raw, nil
	}
	// Escapes or invalid UTF-8: decode exactly as encoding/json.
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", nil, s.syntax("bad string: %v", err)
	}
	return v, raw, nil
}

// strRaw reads a string literal, quotes included (a view of the buffer,
// valid until the next read), and whether its content needs decoding
// (escapes, invalid UTF-8) or is the string as it stands.
func (s *jsonScanner) strRaw() (raw []byte, decode bool, err error) {
	if err := s.expect('"'); err != nil {
		return nil, false, err
	}
	start := s.pos - 1
	i := s.pos
	plain := true // no escape, ASCII only
	for {
		if i >= s.end {
			shift := start
			if !s.fill(start) {
				if s.err != nil {
					return nil, false, s.err
				}
				s.pos = s.end
				return nil, false, s.syntax("unterminated string")
			}
			i -= shift
			start = 0
			continue
		}
		c := s.buf[i]
		switch {
		case c == '"':
			raw = s.buf[start : i+1]
			s.pos = i + 1
			body := raw[1 : len(raw)-1]
			decode = !plain && (bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body))
			return raw, decode, nil
		case c == '\\':
			plain = false
			if i+1 >= s.end {
				shift := start
				if !s.fill(start) {
					s.pos = s.end
					return nil, false, s.syntax("unterminated string")
				}
				i -= shift
				start = 0
			}
			i += 2
		case c < 0x20:
			s.pos = i
			return nil, false, s.syntax("control character in a string")
		default:
			if c >= 0x80 {
				plain = false
			}
			i++
		}
	}
}

// number reads a number value and returns its literal.
func (s *jsonScanner) number() (string, error) {
	if _, err := s.peek(); err != nil {
		return "", s.atEnd(err, "a number")
	}
	start := s.pos
	i := s.pos
	for {
		if i >= s.end {
			shift := start
			if !s.fill(start) {
				break
			}
			i -= shift
			start = 0
			continue
		}
		c := s.buf[i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	lit := string(s.buf[start:i])
	s.pos = i
	if !validNumber(lit) {
		return "", s.syntax("bad number %q", lit)
	}
	return lit, nil
}

// validNumber checks the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// literal consumes the literal word (true, false, null).
func (s *jsonScanner) literal(word string) error {
	if _, err := s.peek(); err != nil {
		return s.atEnd(err, word)
	}
	for s.end-s.pos < len(word) {
		if !s.fill(s.pos) {
			break
		}
	}
	if s.end-s.pos < len(word) || string(s.buf[s.pos:s.pos+len(word)]) != word {
		return s.syntax("want %s", word)
	}
	s.pos += len(word)
	return nil
}

// boolean reads true or false.
func (s *jsonScanner) boolean() (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, s.atEnd(err, "a boolean")
	}
	if c == 't' {
		return true, s.literal("true")
	}
	return false, s.literal("false")
}

// open consumes the opening byte of an object or array ('{' or '[') and
// reports whether the container is empty (its closing byte consumed
// too). Members or elements are then read with more.
func (s *jsonScanner) open(c byte) (empty bool, err error) {
	if err := s.expect(c); err != nil {
		return false, err
	}
	if s.depth++; s.depth > maxDepth {
		return false, s.syntax("nested more than %d levels deep", maxDepth)
	}
	close, what := byte('}'), "an object member or '}'"
	if c == '[' {
		close, what = ']', "an array element or ']'"
	}
	next, err := s.peek()
	if err != nil {
		return false, s.atEnd(err, what)
	}
	if next == close {
		s.pos++
		s.depth--
		return true, nil
	}
	return false, nil
}

// more reads what follows a member or element of an open container:
// true after a ',' (another one follows), false after the closing byte
// (the container is done).
func (s *jsonScanner) more(close byte) (bool, error) {
	after := "an object member"
	if close == ']' {
		after = "an array element"
	}
	c, err := s.peek()
	if err != nil {
		return false, s.atEnd(err, fmt.Sprintf("',' or %q after %s", close, after))
	}
	switch c {
	case ',':
		s.pos++
		return true, nil
	case close:
		s.pos++
		s.depth--
		return false, nil
	}
	return false, s.syntax("want ',' or %q after %s, found %s", close, after, describeByte(c))
}

// key reads a member name and the ':' after it. The name is a view of
// the buffer, valid until the next read; it is decoded (escapes) only
// when it needs to be.
func (s *jsonScanner) key() ([]byte, error) {
	raw, decode, err := s.strRaw()
	if err != nil {
		return nil, err
	}
	// Find the ':' keeping the name in the buffer.
	start, n := s.pos-len(raw), len(raw)
	for {
		for s.pos < s.end && (s.buf[s.pos] == ' ' || s.buf[s.pos] == '\t' || s.buf[s.pos] == '\n' || s.buf[s.pos] == '\r') {
			s.pos++
		}
		if s.pos < s.end {
			break
		}
		if !s.fill(start) {
			if s.err != nil {
				return nil, s.err
			}
			return nil, s.syntax("want ':', found the end of the document")
		}
		start = 0
	}
	if c := s.buf[s.pos]; c != ':' {
		return nil, s.syntax("want ':', found %s", describeByte(c))
	}
	s.pos++
	raw = s.buf[start : start+n]
	if !decode {
		return raw[1 : n-1], nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, s.syntax("bad string: %v", err)
	}
	return []byte(v), nil
}

// object reads an object, calling member for each key; member must read
// the value.
func (s *jsonScanner) object(member func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.depth++; s.depth > maxDepth {
		return s.syntax("nested more than %d levels deep", maxDepth)
	}
	defer func() { s.depth-- }()
	c, err := s.peek()
	if err != nil {
		return s.atEnd(err, "an object member or '}'")
	}
	if c == '}' {
		s.pos++
		return nil
	}
	for {
		key, _, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return s.atEnd(err, "',' or '}'")
		}
		s.pos++
		switch c {
		case ',':
		case '}':
			return nil
		default:
			s.pos--
			return s.syntax("want ',' or '}' after an object member, found %s", describeByte(c))
		}
	}
}

// array reads an array, calling elem for each element; elem must read
// it.
func (s *jsonScanner) array(elem func(i int) error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.depth++; s.depth > maxDepth {
		return s.syntax("nested more than %d levels deep", maxDepth)
	}
	defer func() { s.depth-- }()
	c, err := s.peek()
	if err != nil {
		return s.atEnd(err, "an array element or ']'")
	}
	if c == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return s.atEnd(err, "',' or ']'")
		}
		s.pos++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			s.pos--
			return s.syntax("want ',' or ']' after an array element, found %s", describeByte(c))
		}
	}
}

// skip reads any value.
func (s *jsonScanner) skip() error {
	c, err := s.peek()
	if err != nil {
		return s.atEnd(err, "a value")
	}
	switch {
	case c == '"':
		_, _, err := s.str()
		return err
	case c == '{':
		return s.object(func(string) error { return s.skip() })
	case c == '[':
		return s.array(func(int) error { return s.skip() })
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.number()
		return err
	}
	return s.syntax("want a value, found %s", describeByte(c))
}

// finish checks that nothing but white space follows the document.
func (s *jsonScanner) finish() error {
	_, err := s.peek()
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil
	case err != nil:
		return err
	}
	return s.syntax("data after the document")
}
