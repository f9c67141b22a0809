package construct

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The released files were written by pandas (ujson): compact JSON, "/"
// escaped as "\/", and in ReportBench_v1.1.jsonl every non-ASCII character
// escaped as \uXXXX, while the ground-truth files keep UTF-8. These writers
// reproduce that byte for byte, so a rebuilt dataset diffs cleanly against
// the release.

// appendString appends s as a JSON string in the released style. With
// ascii, characters beyond U+007F are written as \uXXXX escapes (surrogate
// pairs above U+FFFF).
func appendString(dst []byte, s string, ascii bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\', '/':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				if c < 0x20 {
					dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
				} else {
					dst = append(dst, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !ascii {
			dst = utf8.AppendRune(dst, r)
			continue
		}
		if r > 0xffff {
			r -= 0x10000
			hi, lo := 0xd800+(r>>10), 0xdc00+(r&0x3ff)
			for _, u := range []rune{hi, lo} {
				dst = append(dst, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
			}
			continue
		}
		dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	return append(dst, '"')
}

// transcodeValue copies the next JSON value of dec to dst in the released
// style, keeping the order of object keys.
func transcodeValue(dst []byte, dec *json.Decoder, ascii bool, depth int) ([]byte, error) {
	if depth > 128 {
		return nil, errors.New("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		closer := byte('}')
		if t == '[' {
			closer = ']'
		}
		dst = append(dst, byte(t))
		for n := 0; dec.More(); n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			if t == '{' {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				dst = appendString(dst, key.(string), ascii)
				dst = append(dst, ':')
			}
			if dst, err = transcodeValue(dst, dec, ascii, depth+1); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return append(dst, closer), nil
	case string:
		return appendString(dst, t, ascii), nil
	case json.Number:
		return append(dst, t...), nil
	case bool:
		if t {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case nil:
		return append(dst, "null"...), nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// AppendTask appends one line of ReportBench_v1.1.jsonl: the snapshot
// record's fields in their order with "id" renamed "arxiv_id", then
// application_domain and prompt (replacing any the record already has).
func AppendTask(dst []byte, record []byte, domain, prompt string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("task record: want a JSON object: %w", errOr(err, errors.New("not an object")))
	}
	dst = append(dst, '{')
	n := 0
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("task record: %w", err)
		}
		k := key.(string)
		if k == "application_domain" || k == "prompt" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("task record: %w", err)
			}
			continue
		}
		if k == "id" {
			k = "arxiv_id"
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendString(dst, k, true)
		dst = append(dst, ':')
		if dst, err = transcodeValue(dst, dec, true, 0); err != nil {
			return nil, fmt.Errorf("task record field %s: %w", k, err)
		}
	}
	if n > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, `"application_domain":`...)
	dst = appendString(dst, domain, true)
	dst = append(dst, `,"prompt":`...)
	dst = appendString(dst, prompt, true)
	dst = append(dst, '}', '\n')
	return dst, nil
}

func errOr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// AppendRef appends one line of a ReportBench_v1.1_GT/<id>.jsonl file.
func AppendRef(dst []byte, r Ref) []byte {
	dst = append(dst, `{"bib_id":`...)
	dst = appendString(dst, r.BibID, false)
	dst = append(dst, `,"title":`...)
	dst = appendString(dst, r.Title, false)
	dst = append(dst, `,"author":`...)
	dst = appendString(dst, r.Author, false)
	dst = append(dst, `,"meta_info":{`...)
	for i, f := range r.Meta {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, f.Name, false)
		dst = append(dst, ':')
		dst = appendString(dst, f.Value, false)
	}
	return append(dst, '}', '}', '\n')
}

// WriteRefs writes refs in the released ground-truth format.
func WriteRefs(w io.Writer, refs []Ref) error {
	var buf []byte
	for _, r := range refs {
		buf = AppendRef(buf, r)
	}
	_, err := w.Write(buf)
	return err
}

// ReadRefs reads a ground-truth file, keeping the order of meta_info.
// Non-string meta values are kept as their JSON text.
func ReadRefs(r io.Reader, name string) ([]Ref, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var out []Ref
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		ref, err := parseRef(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		out = append(out, ref)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return out, nil
}

func parseRef(line []byte) (Ref, error) {
	var raw struct {
		BibID  string          `json:"bib_id"`
		Title  string          `json:"title"`
		Author string          `json:"author"`
		Meta   json.RawMessage `json:"meta_info"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Ref{}, err
	}
	ref := Ref{BibID: raw.BibID, Title: raw.Title, Author: raw.Author}
	if len(raw.Meta) == 0 || string(raw.Meta) == "null" {
		return ref, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw.Meta))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return Ref{}, errors.New("meta_info: want an object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return Ref{}, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return Ref{}, err
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			s = string(v)
		}
		ref.Meta = append(ref.Meta, MetaField{Name: key.(string), Value: s})
	}
	return ref, nil
}
