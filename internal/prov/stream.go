package prov

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
)

// DecodeStream reads a graph in the native JSON format from r as a
// stream: the document is checked against the aar-graph/1 JSON Schema
// while it is read (the checks Unmarshal makes with a schema validator,
// made here without building the document's tree), then the graph
// against the AAR rules (Validate). Memory is the graph's, not the
// document's: a graph file of a million claims reads in seconds. Errors
// match claimtrace.ErrInvalid: a document that is not JSON says where;
// one that breaks the schema lists the first violations with the JSON
// pointer of each offending value.
func DecodeStream(r io.Reader) (*Graph, error) {
	ix, err := decodeStream(newJSONScanner(r))
	if err != nil {
		return nil, err
	}
	return ix.Graph(), nil
}

// DecodeStreamIndex is DecodeStream returning the index its check of the
// AAR rules built (Index.Graph is the graph), for a caller that goes on
// to compute metrics: a graph of a million claims is then indexed once.
func DecodeStreamIndex(r io.Reader) (*Index, error) {
	return decodeStream(newJSONScanner(r))
}

func decodeStream(s *jsonScanner) (*Index, error) {
	d := &graphDecoder{s: s}
	g := &Graph{}
	err := d.graph(g)
	if err == nil {
		err = d.s.finish()
	}
	switch {
	case errors.Is(err, errSyntax):
		return nil, fmt.Errorf("graph is not JSON: %v: %w", err, claimtrace.ErrInvalid)
	case err != nil:
		return nil, fmt.Errorf("read graph: %w", err)
	case len(d.bad) > 0:
		return nil, fmt.Errorf("graph does not match the aar-graph/1 schema: %s: %w", d.violations(), claimtrace.ErrInvalid)
	}
	return NewIndex(g)
}

// graphDecoder walks a native graph document, building the graph and
// noting each schema violation (then skipping the value and reading on,
// so that a document that is not JSON is told as such first).
type graphDecoder struct {
	s *jsonScanner
	// bad holds the first violations; nbad counts them all.
	bad  []string
	nbad int
	// nus is a slab the strengths point into: one allocation for many.
	nus []float64
}

// maxShown is how many violations an error lists.
const maxShown = 5

// violation notes that the value at at breaks the schema.
func (d *graphDecoder) violation(at loc, format string, args ...any) {
	d.nbad++
	if len(d.bad) < maxShown {
		d.bad = append(d.bad, "at "+at.String()+": "+fmt.Sprintf(format, args...))
	}
}

func (d *graphDecoder) violations() string {
	s := strings.Join(d.bad, "; ")
	if d.nbad > len(d.bad) {
		s += fmt.Sprintf("; and %d more", d.nbad-len(d.bad))
	}
	return s
}

// loc is where a value is in a graph document, written as a JSON pointer
// only when a violation is noted: /list/index/field/sub, each part
// present or not (index -1: none).
type loc struct {
	list  string
	index int
	field string
	sub   string
}

var top = loc{index: -1}

func (l loc) String() string {
	var b strings.Builder
	seg := func(s string) {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	if l.list != "" {
		seg(l.list)
	}
	if l.index >= 0 {
		b.WriteByte('/')
		b.WriteString(strconv.Itoa(l.index))
	}
	if l.field != "" {
		seg(l.field)
	}
	if l.sub != "" {
		seg(l.sub)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// member returns the location of member key of the value at l.
func (l loc) member(key string) loc {
	switch {
	case l.list == "" && l.index < 0 && l.field == "":
		l.list = key // a top-level member
	case l.field == "":
		l.field = key
	default:
		l.sub = key
	}
	return l
}

// is reports whether the next value is of the kind whose first byte is
// in first; when not, it notes a violation (want) and skips the value.
func (d *graphDecoder) is(at loc, first, want string) (bool, error) {
	c, err := d.s.peek()
	if err != nil {
		return false, d.s.atEnd(err, "a value")
	}
	if strings.IndexByte(first, c) >= 0 {
		return true, nil
	}
	d.violation(at, "want %s, got %s", want, kind(c))
	return false, d.s.skip()
}

// text reads a string value (none: ok false, a violation noted).
func (d *graphDecoder) text(at loc) (string, bool, error) {
	ok, err := d.is(at, `"`, "a string")
	if !ok || err != nil {
		return "", false, err
	}
	v, _, err := d.s.str()
	return v, err == nil, err
}

// id reads a node id: a non-empty string.
func (d *graphDecoder) id(at loc) (string, bool, error) {
	v, ok, err := d.text(at)
	if ok && v == "" {
		d.violation(at, "want a non-empty string")
		ok = false
	}
	return v, ok, err
}

// enum reads a string that must be one of values.
func (d *graphDecoder) enum(at loc, values ...string) (string, bool, error) {
	v, ok, err := d.text(at)
	if !ok {
		return v, ok, err
	}
	for _, x := range values {
		if v == x {
			return v, true, nil
		}
	}
	d.violation(at, "want one of %s, got %q", strings.Join(values, ", "), v)
	return v, false, nil
}

// flag reads a boolean.
func (d *graphDecoder) flag(at loc) (bool, error) {
	ok, err := d.is(at, "tf", "a boolean")
	if !ok || err != nil {
		return false, err
	}
	return d.s.boolean()
}

// count reads a non-negative integer.
func (d *graphDecoder) count(at loc) (int, error) {
	ok, err := d.is(at, "-0123456789", "an integer")
	if !ok || err != nil {
		return 0, err
	}
	lit, err := d.s.number()
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(lit, 10, 0)
	if perr != nil || n < 0 {
		d.violation(at, "want a non-negative integer, got %s", lit)
		return 0, nil
	}
	return int(n), nil
}

// strength reads a number in [0, 1], kept in the slab.
func (d *graphDecoder) strength(at loc) (*float64, error) {
	ok, err := d.is(at, "-0123456789", "a number")
	if !ok || err != nil {
		return nil, err
	}
	lit, err := d.s.number()
	if err != nil {
		return nil, err
	}
	v, perr := strconv.ParseFloat(lit, 64)
	if perr != nil && !errors.Is(perr, strconv.ErrRange) || v < 0 || v > 1 {
		d.violation(at, "want a number from 0 to 1, got %s", lit)
		return nil, nil
	}
	if len(d.nus) == cap(d.nus) {
		d.nus = make([]float64, 0, 4096)
	}
	d.nus = append(d.nus, v)
	return &d.nus[len(d.nus)-1], nil
}

// object reads an object whose members member decodes; it notes a
// violation and skips the value when it is not an object (isObject
// false), and for a member it does not know (known false).
func (d *graphDecoder) object(at loc, member func(key []byte) (known bool, err error)) (isObject bool, err error) {
	ok, err := d.is(at, "{", "an object")
	if !ok || err != nil {
		return false, err
	}
	empty, err := d.s.open('{')
	if err != nil || empty {
		return true, err
	}
	for {
		key, err := d.s.key()
		if err != nil {
			return true, err
		}
		known, err := member(key)
		if err != nil {
			return true, err
		}
		if !known {
			d.violation(at, "additional properties '%s' not allowed", key)
			if err := d.s.skip(); err != nil {
				return true, err
			}
		}
		if more, err := d.s.more('}'); err != nil || !more {
			return true, err
		}
	}
}

// list reads an array, decoding each element with elem.
func (d *graphDecoder) list(at loc, elem func(at loc, i int) error) error {
	ok, err := d.is(at, "[", "an array")
	if !ok || err != nil {
		return err
	}
	empty, err := d.s.open('[')
	if err != nil || empty {
		return err
	}
	for i := 0; ; i++ {
		el := at
		el.index = i
		if err := elem(el, i); err != nil {
			return err
		}
		if more, err := d.s.more(']'); err != nil || !more {
			return err
		}
	}
}

// memberName returns a member name as a string: the constant of a name
// the format knows (no allocation per member read), else a copy.
func memberName(k []byte) string {
	switch string(k) {
	case "format":
		return "format"
	case "id":
		return "id"
	case "query":
		return "query"
	case "agent":
		return "agent"
	case "sources":
		return "sources"
	case "reasoning":
		return "reasoning"
	case "claims":
		return "claims"
	case "edges":
		return "edges"
	case "conflicts":
		return "conflicts"
	case "key":
		return "key"
	case "url":
		return "url"
	case "doi":
		return "doi"
	case "title":
		return "title"
	case "excerpt":
		return "excerpt"
	case "retrieved_at":
		return "retrieved_at"
	case "resolved":
		return "resolved"
	case "inference":
		return "inference"
	case "type":
		return "type"
	case "model":
		return "model"
	case "statement":
		return "statement"
	case "location":
		return "location"
	case "start":
		return "start"
	case "end":
		return "end"
	case "section":
		return "section"
	case "from":
		return "from"
	case "to":
		return "to"
	case "rel":
		return "rel"
	case "strength":
		return "strength"
	case "label":
		return "label"
	case "evidence":
		return "evidence"
	case "a":
		return "a"
	case "b":
		return "b"
	case "entity":
		return "entity"
	case "snippet_a":
		return "snippet_a"
	case "snippet_b":
		return "snippet_b"
	case "kind":
		return "kind"
	case "detector":
		return "detector"
	}
	return string(k)
}

// fields is the set of an object's members seen, by their order in the
// element's known names.
type fields uint16

// required notes a violation for each required property not seen: the
// first len(names) known names of the element are its required ones.
func (d *graphDecoder) required(at loc, seen fields, names ...string) {
	for i, n := range names {
		if seen&(1<<i) == 0 {
			d.violation(at, "missing property '%s'", n)
		}
	}
}

func (d *graphDecoder) graph(g *Graph) error {
	var seen fields
	isObj, err := d.object(top, func(k []byte) (bool, error) {
		key := memberName(k)
		at := top.member(key)
		var err error
		switch key {
		case "format":
			var v string
			var ok bool
			if v, ok, err = d.text(at); ok && v != FormatVersion {
				d.violation(at, "want %q, got %q", FormatVersion, v)
			}
			g.Format = v
		case "id":
			g.ID, _, err = d.text(at)
		case "query":
			g.Query, _, err = d.text(at)
		case "agent":
			g.Agent, _, err = d.text(at)
		case "sources":
			g.Sources = []Source{}
			err = d.list(at, func(at loc, _ int) error {
				var s Source
				err := d.source(at, &s)
				g.Sources = append(g.Sources, s)
				return err
			})
		case "reasoning":
			g.Reasoning = []Reasoning{}
			err = d.list(at, func(at loc, _ int) error {
				var r Reasoning
				err := d.reasoning(at, &r)
				g.Reasoning = append(g.Reasoning, r)
				return err
			})
		case "claims":
			seen |= 1
			g.Claims = []Claim{}
			err = d.list(at, func(at loc, _ int) error {
				var c Claim
				err := d.claim(at, &c)
				g.Claims = append(g.Claims, c)
				return err
			})
		case "edges":
			g.Edges = []Edge{}
			err = d.list(at, func(at loc, _ int) error {
				var e Edge
				err := d.edge(at, &e)
				g.Edges = append(g.Edges, e)
				return err
			})
		case "conflicts":
			g.Conflicts = []Conflict{}
			err = d.list(at, func(at loc, _ int) error {
				var c Conflict
				err := d.conflict(at, &c)
				g.Conflicts = append(g.Conflicts, c)
				return err
			})
		default:
			return false, nil
		}
		return true, err
	})
	return d.check(isObj, err, top, seen, "claims")
}

func (d *graphDecoder) source(at loc, s *Source) error {
	var seen fields
	isObj, err := d.object(at, func(k []byte) (bool, error) {
		key := memberName(k)
		f := at.member(key)
		var err error
		switch key {
		case "id":
			seen |= 1
			s.ID, _, err = d.id(f)
		case "key":
			s.Key, _, err = d.text(f)
		case "url":
			s.URL, _, err = d.text(f)
		case "doi":
			s.DOI, _, err = d.text(f)
		case "title":
			s.Title, _, err = d.text(f)
		case "excerpt":
			s.Excerpt, _, err = d.text(f)
		case "retrieved_at":
			s.RetrievedAt, err = d.dateTime(f)
		case "resolved":
			s.Resolved, err = d.flag(f)
		default:
			return false, nil
		}
		return true, err
	})
	return d.check(isObj, err, at, seen, "id")
}

// check notes the required properties an object lacks, when the value
// was an object read without error.
func (d *graphDecoder) check(isObject bool, err error, at loc, seen fields, names ...string) error {
	if err != nil || !isObject {
		return err
	}
	d.required(at, seen, names...)
	return nil
}

func (d *graphDecoder) reasoning(at loc, r *Reasoning) error {
	var seen fields
	isObj, err := d.object(at, func(k []byte) (bool, error) {
		key := memberName(k)
		f := at.member(key)
		var err error
		switch key {
		case "id":
			seen |= 1
			r.ID, _, err = d.id(f)
		case "inference":
			r.Inference, _, err = d.text(f)
		case "type":
			var v string
			v, _, err = d.enum(f, string(Deduction), string(Induction), string(Synthesis))
			r.Type = ReasoningType(v)
		case "model":
			r.Model, _, err = d.text(f)
		default:
			return false, nil
		}
		return true, err
	})
	return d.check(isObj, err, at, seen, "id")
}

func (d *graphDecoder) claim(at loc, c *Claim) error {
	var seen fields
	isObj, err := d.object(at, func(k []byte) (bool, error) {
		key := memberName(k)
		f := at.member(key)
		var err error
		switch key {
		case "id":
			seen |= 1
			c.ID, _, err = d.id(f)
		case "statement":
			seen |= 2
			c.Statement, _, err = d.text(f)
		case "location":
			_, err = d.object(f, func(k []byte) (bool, error) {
				key := memberName(k)
				g := f.member(key)
				var err error
				switch key {
				case "start":
					c.Location.Start, err = d.count(g)
				case "end":
					c.Location.End, err = d.count(g)
				case "section":
					c.Location.Section, _, err = d.text(g)
				default:
					return false, nil
				}
				return true, err
			})
		default:
			return false, nil
		}
		return true, err
	})
	return d.check(isObj, err, at, seen, "id", "statement")
}

func (d *graphDecoder) edge(at loc, e *Edge) error {
	var seen fields
	isObj, err := d.object(at, func(k []byte) (bool, error) {
		key := memberName(k)
		f := at.member(key)
		var err error
		switch key {
		case "from":
			seen |= 1
			e.From, _, err = d.id(f)
		case "to":
			seen |= 2
			e.To, _, err = d.id(f)
		case "rel":
			seen |= 4
			var v string
			var ok bool
			if v, ok, err = d.enum(f, relationNames[Supports:]...); ok {
				e.Rel, _ = ParseRelation(v)
			} else {
				e.Rel = 0
			}
		case "strength":
			seen |= 8
			e.Strength, err = d.strength(f)
		case "label":
			var v string
			v, _, err = d.enum(f, string(claimtrace.Supported), string(claimtrace.Partial), string(claimtrace.Unsupported), string(claimtrace.Contradicted), string(claimtrace.Unknown))
			e.Label = claimtrace.Label(v)
		case "evidence":
			e.Evidence, _, err = d.text(f)
		default:
			return false, nil
		}
		return true, err
	})
	if err == nil && isObj && seen&8 != 0 && e.Rel != Supports {
		d.violation(at.member("strength"), "only a supports edge has a strength")
	}
	return d.check(isObj, err, at, seen, "from", "to", "rel")
}

func (d *graphDecoder) conflict(at loc, c *Conflict) error {
	var seen fields
	isObj, err := d.object(at, func(k []byte) (bool, error) {
		key := memberName(k)
		f := at.member(key)
		var err error
		switch key {
		case "a":
			seen |= 1
			c.A, _, err = d.id(f)
		case "b":
			seen |= 2
			c.B, _, err = d.id(f)
		case "entity":
			seen |= 4
			c.Entity, _, err = d.id(f)
		case "snippet_a":
			c.SnippetA, _, err = d.text(f)
		case "snippet_b":
			c.SnippetB, _, err = d.text(f)
		case "kind":
			var v string
			v, _, err = d.text(f)
			c.Kind = ConflictKind(v)
		case "detector":
			c.Detector, _, err = d.text(f)
		default:
			return false, nil
		}
		return true, err
	})
	return d.check(isObj, err, at, seen, "a", "b", "entity")
}

// dateTime reads a timestamp: a string the schema's date-time format
// accepts (dateTimeFormat) that also parses as an RFC 3339 time.
func (d *graphDecoder) dateTime(at loc) (time.Time, error) {
	ok, err := d.is(at, `"`, "a string")
	if !ok || err != nil {
		return time.Time{}, err
	}
	v, raw, err := d.s.str()
	if err != nil {
		return time.Time{}, err
	}
	var t time.Time
	if !dateTimeFormat(v) || t.UnmarshalJSON(raw) != nil {
		d.violation(at, "want an RFC 3339 date-time, got %q", v)
		return time.Time{}, nil
	}
	return t, nil
}

// dateTimeFormat is the JSON Schema "date-time" format (RFC 3339 section
// 5.6) as the schema validator the format was checked with reads it:
// full-date "T" partial-time time-offset, T and Z in either case, hours,
// minutes and seconds in range, a second 60 only at 23:59 UTC, offsets
// up to 23:59. (time.Parse alone is more lenient about offsets.)
func dateTimeFormat(s string) bool {
	if len(s) < 20 || s[10] != 't' && s[10] != 'T' {
		return false
	}
	if _, err := time.Parse("2006-01-02", s[:10]); err != nil {
		return false
	}
	t := s[11:]
	if len(t) < 9 || t[2] != ':' || t[5] != ':' {
		return false
	}
	num := func(p string) (int, bool) {
		n, err := strconv.Atoi(p)
		return n, err == nil && n >= 0
	}
	h, ok1 := num(t[0:2])
	m, ok2 := num(t[3:5])
	sec, ok3 := num(t[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	t = t[8:]
	if rest, ok := strings.CutPrefix(t, "."); ok {
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 {
			return false
		}
		t = rest[n:]
	}
	if t != "z" && t != "Z" {
		if len(t) != 6 || t[3] != ':' {
			return false
		}
		sign := 0
		switch t[0] {
		case '+':
			sign = -1
		case '-':
			sign = 1
		default:
			return false
		}
		zh, ok1 := num(t[1:3])
		zm, ok2 := num(t[4:6])
		if !ok1 || !ok2 || zh > 23 || zm > 59 {
			return false
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || h == 23 && m == 59
}
