package provjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// Encode writes g to w as the document Marshal returns, byte for byte, one
// record at a time: a server answering with it holds one record's JSON at
// a time, not the whole document (a graph's excerpts can sum to hundreds
// of megabytes).
func Encode(w io.Writer, g *prov.Graph) error {
	d, err := build(g, nil)
	if err != nil {
		return fmt.Errorf("prov-json: %w", err)
	}
	e := newStream(w)
	e.str("{\n  \"prefix\": ")
	e.value(jsonPrefix(d), "  ")
	var counts [nKinds]int
	for _, r := range d.records {
		counts[r.kind]++
	}
	for k := range nKinds {
		if counts[k] == 0 {
			continue
		}
		e.str(",\n  ")
		e.value(sectionName[k], "")
		e.str(": {")
		first := true
		for _, r := range d.records {
			if r.kind != k {
				continue
			}
			if !first {
				e.str(",")
			}
			first = false
			e.str("\n    ")
			e.value(r.id, "")
			e.str(": ")
			e.value(jsonRecord(r), "    ")
		}
		e.str("\n  }")
	}
	e.str("\n}\n")
	if err := e.flush(); err != nil {
		return fmt.Errorf("prov-json: %w", err)
	}
	return nil
}

// EncodeLD writes g to w as the document MarshalLD returns, byte for byte,
// one record at a time (see Encode).
func EncodeLD(w io.Writer, g *prov.Graph) error {
	d, err := build(g, nil)
	if err != nil {
		return fmt.Errorf("prov-jsonld: %w", err)
	}
	e := newStream(w)
	e.str("{\n  \"@context\": ")
	e.value(ldContext(d), "  ")
	e.str(",\n  \"@graph\": [")
	for i, r := range d.records {
		if i > 0 {
			e.str(",")
		}
		e.str("\n    ")
		e.value(ldRecord(r), "    ")
	}
	if len(d.records) > 0 {
		e.str("\n  ")
	}
	e.str("]\n}\n")
	if err := e.flush(); err != nil {
		return fmt.Errorf("prov-jsonld: %w", err)
	}
	return nil
}

// stream writes indented JSON piece by piece through reused buffers; the
// first error sticks.
type stream struct {
	w        *bufio.Writer
	raw, out bytes.Buffer
	enc      *json.Encoder
	err      error
}

func newStream(w io.Writer) *stream {
	s := &stream{w: bufio.NewWriterSize(w, 32<<10)}
	s.enc = json.NewEncoder(&s.raw)
	s.enc.SetEscapeHTML(false)
	return s
}

func (s *stream) str(v string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(v)
	}
}

// value writes v indented as it would be at a nesting whose lines start
// with prefix.
func (s *stream) value(v any, prefix string) {
	if s.err != nil {
		return
	}
	s.raw.Reset()
	s.out.Reset()
	if s.err = s.enc.Encode(v); s.err != nil {
		return
	}
	if s.err = json.Indent(&s.out, bytes.TrimRight(s.raw.Bytes(), "\n"), prefix, "  "); s.err != nil {
		return
	}
	_, s.err = s.w.Write(s.out.Bytes())
}

func (s *stream) flush() error {
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}
