package bibtex

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// parser is the state of one Parse call.
type parser struct {
	file   string
	src    []byte
	pos    int
	macros map[string]string // @string definitions, lowercased names
	errs   ErrorList

	lineAtPos, lineAtLine int // cache for line(): line number of offset lineAtPos

	// starts are the offsets of every '@' that begins a line. A value or
	// comment block never runs past the next one: without that bound, a
	// file of unterminated entries would be rescanned to its end for each.
	starts []int
}

// lineStarts returns the offsets of '@' characters that begin a line
// (after optional blanks).
func lineStarts(src []byte) []int {
	var out []int
	for i := 0; ; i++ {
		j := bytes.IndexByte(src[i:], '@')
		if j < 0 {
			return out
		}
		i += j
		k := i - 1
		for k >= 0 && (src[k] == ' ' || src[k] == '\t') {
			k--
		}
		if k < 0 || src[k] == '\n' || src[k] == '\r' {
			out = append(out, i)
		}
	}
}

// limit returns the end of the region a construct opened at pos may span:
// the next line-initial '@', or the end of the input.
func (p *parser) limit(pos int) int {
	i, _ := slices.BinarySearch(p.starts, pos+1)
	if i < len(p.starts) {
		return p.starts[i]
	}
	return len(p.src)
}

// syntaxError aborts the entry being read.
type syntaxError struct {
	pos int
	msg string
}

func (p *parser) fail(format string, args ...any) *syntaxError {
	return &syntaxError{pos: p.pos, msg: fmt.Sprintf(format, args...)}
}

// line returns the 1-based line number of offset pos.
func (p *parser) line(pos int) int {
	if p.lineAtLine == 0 {
		p.lineAtPos, p.lineAtLine = 0, 1
	}
	if pos < p.lineAtPos {
		// Moving back (recovery restarts before the error): count the
		// distance, not from the start of the file.
		p.lineAtLine -= bytes.Count(p.src[pos:p.lineAtPos], []byte{'\n'})
		p.lineAtPos = pos
		return p.lineAtLine
	}
	p.lineAtLine += bytes.Count(p.src[p.lineAtPos:pos], []byte{'\n'})
	p.lineAtPos = pos
	return p.lineAtLine
}

// run reads every command of the file into db. Text outside commands is a
// comment, as in BibTeX.
func (p *parser) run(db *Database) {
	for p.pos < len(p.src) {
		i := bytes.IndexByte(p.src[p.pos:], '@')
		if i < 0 {
			return
		}
		start := p.pos + i
		p.pos = start + 1
		if err := p.command(db, start); err != nil {
			p.errs = append(p.errs, &SyntaxError{File: p.file, Line: p.line(err.pos), Msg: err.msg})
			p.pos = p.nextEntryStart(start + 1)
		}
	}
}

// nextEntryStart returns the offset of the next '@' that begins a line
// (after optional blanks), where a new entry most likely starts, or the end
// of the input.
func (p *parser) nextEntryStart(from int) int {
	return p.limit(from - 1)
}

// command reads one @type{...} starting at the '@' at offset at. Text that
// does not look like a command ("user@example.org") is ignored.
func (p *parser) command(db *Database, at int) *syntaxError {
	p.skipSpace()
	typ := p.ident()
	if typ == "" {
		return nil
	}
	p.skipSpace()
	if p.pos >= len(p.src) || (p.src[p.pos] != '{' && p.src[p.pos] != '(') {
		return nil
	}
	closer := byte('}')
	if p.src[p.pos] == '(' {
		closer = ')'
	}
	switch typ = strings.ToLower(typ); typ {
	case "comment":
		return p.skipComment(closer)
	case "preamble":
		p.pos++
		v, err := p.fieldValue()
		if err != nil {
			return err
		}
		if err := p.expect(closer); err != nil {
			return err
		}
		db.Preambles = append(db.Preambles, v)
		return nil
	case "string":
		p.pos++
		return p.stringCmd(closer)
	}
	p.pos++
	e := &Entry{Type: typ, Line: p.line(at)}
	if err := p.entry(e, closer); err != nil {
		return err
	}
	db.add(e)
	return nil
}

// skipComment skips the balanced block of an @comment.
func (p *parser) skipComment(closer byte) *syntaxError {
	open := p.src[p.pos]
	depth := 0
	for end := p.limit(p.pos); p.pos < end; p.pos++ {
		switch p.src[p.pos] {
		case open:
			depth++
		case closer:
			depth--
			if depth == 0 {
				p.pos++
				return nil
			}
		}
	}
	return p.fail("unterminated @comment")
}

// stringCmd reads the body of @string{name = value, ...}.
func (p *parser) stringCmd(closer byte) *syntaxError {
	for {
		p.skipSpace()
		if p.peek() == closer {
			p.pos++
			return nil
		}
		name := p.ident()
		if name == "" {
			return p.fail("@string: expected a macro name")
		}
		p.skipSpace()
		if err := p.expect('='); err != nil {
			return err
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		p.macros[strings.ToLower(name)] = v
		p.skipSpace()
		if p.peek() == ',' {
			p.pos++
		}
	}
}

// entry reads "key, name = value, ... }" into e.
func (p *parser) entry(e *Entry, closer byte) *syntaxError {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == ',' || c == closer || c == '}' || c == '{' || isSpace(c) {
			break
		}
		p.pos++
	}
	e.Key = string(p.src[start:p.pos])
	if e.Key == "" {
		return p.fail("@%s: missing citation key", e.Type)
	}
	p.skipSpace()
	switch p.peek() {
	case closer:
		p.pos++
		return nil
	case ',':
		p.pos++
	default:
		return p.fail("@%s{%s: expected ',' after the key", e.Type, e.Key)
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.fail("@%s{%s: unexpected end of file", e.Type, e.Key)
		}
		if p.src[p.pos] == closer {
			p.pos++
			return nil
		}
		name := p.ident()
		if name == "" {
			return p.fail("@%s{%s: expected a field name, found %q", e.Type, e.Key, p.src[p.pos])
		}
		p.skipSpace()
		if err := p.expect('='); err != nil {
			err.msg = fmt.Sprintf("@%s{%s, field %s: %s", e.Type, e.Key, name, err.msg)
			return err
		}
		v, err := p.fieldValue()
		if err != nil {
			err.msg = fmt.Sprintf("@%s{%s, field %s: %s", e.Type, e.Key, name, err.msg)
			return err
		}
		e.set(strings.ToLower(name), v)
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case closer:
			p.pos++
			return nil
		default:
			if p.pos >= len(p.src) {
				return p.fail("@%s{%s: unexpected end of file", e.Type, e.Key)
			}
			return p.fail("@%s{%s: expected ',' or %q after field %s, found %q", e.Type, e.Key, closer, name, p.src[p.pos])
		}
	}
}

// value reads a field value: parts joined by '#', each a {braced} or
// "quoted" string, a number or a macro name. The result has its white space
// collapsed.
func (p *parser) value() (string, *syntaxError) {
	var b strings.Builder
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return "", p.fail("unexpected end of file in a value")
		}
		switch c := p.src[p.pos]; {
		case c == '{':
			s, err := p.delimited('}')
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case c == '"':
			s, err := p.delimited('"')
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case c >= '0' && c <= '9':
			start := p.pos
			for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
				p.pos++
			}
			b.Write(p.src[start:p.pos])
		default:
			at := p.pos
			name := p.ident()
			if name == "" {
				return "", p.fail("unexpected %q in a value", c)
			}
			v, ok := p.macros[strings.ToLower(name)]
			if !ok {
				v, ok = months[strings.ToLower(name)]
			}
			if !ok {
				// BibTeX warns and uses an empty string; we keep the entry
				// and report the problem.
				p.errs = append(p.errs, &SyntaxError{File: p.file, Line: p.line(at), Msg: fmt.Sprintf("undefined macro %q", name)})
			}
			b.WriteString(v)
		}
		p.skipSpace()
		if p.peek() != '#' {
			return collapseSpace(b.String()), nil
		}
		p.pos++
	}
}

// fieldValue reads a field value and trims it: BibTeX keeps the blanks at
// the edges of a macro's text ("Proceedings of the " # conf) but not of a
// finished field.
func (p *parser) fieldValue() (string, *syntaxError) {
	v, err := p.value()
	return strings.TrimSpace(v), err
}

// delimited reads a {braced} (end '}') or "quoted" (end '"') string starting
// at the opening delimiter and returns its content. Braces nest; a quote
// inside braces does not end a quoted string. As in BibTeX, a backslash does
// not escape a brace.
func (p *parser) delimited(end byte) (string, *syntaxError) {
	open := p.pos
	p.pos++
	depth := 0
	for start, stop := p.pos, p.limit(open); p.pos < stop; p.pos++ {
		switch c := p.src[p.pos]; {
		case c == end && depth == 0 && end == '"':
			s := string(p.src[start:p.pos])
			p.pos++
			return s, nil
		case c == '{':
			depth++
		case c == '}':
			if depth == 0 {
				if end == '}' {
					s := string(p.src[start:p.pos])
					p.pos++
					return s, nil
				}
				return "", p.fail("unbalanced '}' in a quoted value")
			}
			depth--
		}
	}
	p.pos = open
	if end == '"' {
		return "", p.fail("unterminated quoted value")
	}
	return "", p.fail("unterminated '{' in a value")
}

// ident reads a BibTeX identifier: any printable character except white
// space and the special characters " # % ' ( ) , = { }.
func (p *parser) ident() string {
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
		p.pos++
	}
	return string(p.src[start:p.pos])
}

func isIdentByte(c byte) bool {
	if c <= ' ' || c == 0x7f {
		return false
	}
	switch c {
	case '"', '#', '%', '\'', '(', ')', ',', '=', '{', '}', '@':
		return false
	}
	return true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && isSpace(p.src[p.pos]) {
		p.pos++
	}
}

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) expect(c byte) *syntaxError {
	p.skipSpace()
	if p.peek() != c {
		if p.pos >= len(p.src) {
			return p.fail("expected %q, found end of file", c)
		}
		return p.fail("expected %q, found %q", c, p.src[p.pos])
	}
	p.pos++
	return nil
}

// collapseSpace replaces each run of ASCII white space with a single
// space.
func collapseSpace(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		if isSpace(s[i]) && (s[i] != ' ' || i+1 < len(s) && isSpace(s[i+1])) {
			clean = false
		}
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isSpace(c) {
			space = true
			continue
		}
		if space {
			b = append(b, ' ')
		}
		space = false
		b = append(b, c)
	}
	if space {
		b = append(b, ' ')
	}
	return string(b)
}
