// Package arxivsnap streams the arXiv metadata snapshot (the Kaggle
// "arxiv-metadata-oai-snapshot.json": one JSON object a line, several GB)
// and keeps the records that pass a filter, writing them unchanged.
//
// It runs at disk speed: lines are cut from large blocks, each block is
// scanned on its own core, and only the fields the filter needs are
// decoded; a hand-written scanner walks the object and skips every other
// value without building it (BenchmarkScan compares it with
// encoding/json). Output keeps input order.
package arxivsnap

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Fields are the fields of a snapshot record that filters look at. Strings
// are decoded; a JSON null is "".
type Fields struct {
	// ID is "id" (the snapshot) or "arxiv_id" (ReportBench's task file).
	ID         string
	Title      string
	Comments   string
	License    string
	Categories string
	Abstract   string
	// FirstCreated and LastCreated are the "created" dates of the first
	// and last entries of "versions" ("Mon, 2 Apr 2007 19:18:42 GMT").
	FirstCreated string
	LastCreated  string
}

// want says which optional, costly fields Scan decodes.
type want struct {
	abstract bool
}

// errSyntax is wrapped by every scanning error.
var errSyntax = errors.New("malformed JSON record")

// Scan decodes the filter fields of one snapshot line (a JSON object,
// surrounding blanks allowed). Every other value is skipped: its structure
// is checked (strings, nesting, literals, numbers) but not its content, and
// it is not decoded. The abstract, the largest field, is decoded only when
// withAbstract is set. When a key appears twice the last value wins, as in
// encoding/json.
func Scan(line []byte, withAbstract bool) (Fields, error) {
	var r raw
	if err := scanRaw(line, withAbstract, &r); err != nil {
		return Fields{}, err
	}
	return Fields{
		ID: string(r.id), Title: string(r.title), Comments: string(r.comments), License: string(r.license),
		Categories: string(r.categories), Abstract: string(r.abstract),
		FirstCreated: string(r.firstCreated), LastCreated: string(r.lastCreated),
	}, nil
}

// raw holds the filter fields as byte slices: into the line itself when a
// value has no escapes (no allocation on the hot path), decoded copies
// otherwise.
type raw struct {
	id, title, comments, license, categories, abstract, firstCreated, lastCreated []byte
}

func scanRaw(line []byte, withAbstract bool, r *raw) error {
	*r = raw{}
	s := scanner{b: line, want: want{abstract: withAbstract}}
	return s.object(r)
}

type scanner struct {
	b    []byte
	i    int
	want want
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s: %w", s.i, fmt.Sprintf(format, args...), errSyntax)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) object(f *raw) error {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return s.errorf("want '{'")
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return s.end()
	}
	for {
		s.ws()
		key, err := s.key()
		if err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.errorf("want ':' after key %q", key)
		}
		s.i++
		s.ws()
		var dst *[]byte
		switch string(key) {
		case "id", "arxiv_id":
			dst = &f.id
		case "title":
			dst = &f.title
		case "comments":
			dst = &f.comments
		case "license":
			dst = &f.license
		case "categories":
			dst = &f.categories
		case "abstract":
			if s.want.abstract {
				dst = &f.abstract
			}
		case "versions":
			if err := s.versions(f); err != nil {
				return err
			}
		}
		if dst != nil {
			v, err := s.stringOrNull()
			if err != nil {
				return err
			}
			*dst = v
		} else if string(key) != "versions" {
			if err := s.skipValue(0); err != nil {
				return err
			}
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.errorf("unterminated object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return s.end()
		default:
			return s.errorf("want ',' or '}'")
		}
	}
}

// end checks that only blanks follow the object.
func (s *scanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return s.errorf("trailing data after the object")
	}
	return nil
}

// key reads an object key. Keys of the snapshot carry no escapes; an
// escaped key is decoded.
func (s *scanner) key() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.errorf("want a key")
	}
	start := s.i + 1
	end, esc, err := s.stringEnd()
	if err != nil {
		return nil, err
	}
	if !esc {
		return s.b[start:end], nil
	}
	v, err := unquote(s.b[start:end])
	if err != nil {
		return nil, s.errorf("%v", err)
	}
	return []byte(v), nil
}

// stringEnd advances past the string starting at s.i (a '"') and returns
// the offset of its closing quote and whether it holds escapes.
func (s *scanner) stringEnd() (end int, escaped bool, err error) {
	i := s.i + 1
	for {
		j := bytes.IndexByte(s.b[i:], '"')
		if j < 0 {
			return 0, false, s.errorf("unterminated string")
		}
		q := i + j
		// Count the backslashes before the quote: odd means escaped.
		n := 0
		for k := q - 1; k >= s.i+1 && s.b[k] == '\\'; k-- {
			n++
		}
		if n > 0 {
			escaped = true
		}
		if n%2 == 0 {
			if !escaped && bytes.IndexByte(s.b[s.i+1:q], '\\') >= 0 {
				escaped = true
			}
			s.i = q + 1
			return q, escaped, nil
		}
		i = q + 1
	}
}

// stringOrNull decodes a string value, or null (nil). Without escapes the
// result is a slice of the line.
func (s *scanner) stringOrNull() ([]byte, error) {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return nil, s.literal("null")
	}
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.errorf("want a string")
	}
	start := s.i + 1
	end, esc, err := s.stringEnd()
	if err != nil {
		return nil, err
	}
	if !esc && utf8.Valid(s.b[start:end]) {
		if hasControl(s.b[start:end]) {
			return nil, s.errorf("control character in string")
		}
		return s.b[start:end:end], nil
	}
	v, err := unquote(s.b[start:end])
	if err != nil {
		return nil, s.errorf("%v", err)
	}
	return []byte(v), nil
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// versions reads the "versions" array, keeping the first and last
// "created" values.
func (s *scanner) versions(f *raw) error {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return s.literal("null")
	}
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return s.errorf("versions: want an array")
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	first := true
	for {
		s.ws()
		created, err := s.version()
		if err != nil {
			return err
		}
		if first {
			f.firstCreated = created
			first = false
		}
		f.lastCreated = created
		s.ws()
		if s.i >= len(s.b) {
			return s.errorf("unterminated versions")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.errorf("versions: want ',' or ']'")
		}
	}
}

// version reads one {"version": …, "created": …} object and returns
// "created".
func (s *scanner) version() ([]byte, error) {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return nil, s.literal("null")
	}
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, s.errorf("versions: want objects")
	}
	s.i++
	var created []byte
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil, nil
	}
	for {
		s.ws()
		key, err := s.key()
		if err != nil {
			return nil, err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return nil, s.errorf("want ':'")
		}
		s.i++
		s.ws()
		if string(key) == "created" {
			v, err := s.stringOrNull()
			if err != nil {
				return nil, err
			}
			created = v
		} else if err := s.skipValue(2); err != nil {
			return nil, err
		}
		s.ws()
		if s.i >= len(s.b) {
			return nil, s.errorf("unterminated object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return created, nil
		default:
			return nil, s.errorf("want ',' or '}'")
		}
	}
}

// maxNesting bounds skipped arrays and objects; the snapshot nests three
// levels (authors_parsed).
const maxNesting = 64

// skipValue skips any JSON value, checking its structure.
func (s *scanner) skipValue(depth int) error {
	if depth > maxNesting {
		return s.errorf("nesting deeper than %d", maxNesting)
	}
	if s.i >= len(s.b) {
		return s.errorf("want a value")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		// Only the extent of a skipped string is found, not its content
		// checked: that is what makes skipping the abstract cheap.
		_, _, err := s.stringEnd()
		return err
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == closer {
			s.i++
			return nil
		}
		for {
			s.ws()
			if c == '{' {
				if _, err := s.key(); err != nil {
					return err
				}
				s.ws()
				if s.i >= len(s.b) || s.b[s.i] != ':' {
					return s.errorf("want ':'")
				}
				s.i++
				s.ws()
			}
			if err := s.skipValue(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.i >= len(s.b) {
				return s.errorf("unterminated %c", c)
			}
			switch s.b[s.i] {
			case ',':
				s.i++
			case closer:
				s.i++
				return nil
			default:
				return s.errorf("want ',' or %q", closer)
			}
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return s.errorf("unexpected %q", s.b[s.i])
}

func (s *scanner) literal(lit string) error {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return s.errorf("want %s", lit)
	}
	s.i += len(lit)
	return nil
}

// number skips a JSON number, checking its grammar.
func (s *scanner) number() error {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return s.errorf("bad number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return s.errorf("bad number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return s.errorf("bad number")
		}
	}
	s.i = i
	return nil
}

// unquote decodes the content of a JSON string (without its quotes).
// Invalid UTF-8 and lone surrogates become U+FFFD, as in encoding/json.
func unquote(b []byte) (string, error) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\':
			if i+1 >= len(b) {
				return "", errors.New("bad escape at end of string")
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				r, ok := hex4(b[i+2:])
				if !ok {
					return "", errors.New(`bad \u escape`)
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
						r2, ok = hex4(b[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", fmt.Errorf("bad escape \\%c", e)
			}
		case c < 0x20:
			return "", errors.New("control character in string")
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, b[i:i+size]...)
			}
			i += size
		}
	}
	return string(out), nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
