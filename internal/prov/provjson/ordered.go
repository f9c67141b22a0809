package provjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// object is a JSON object that keeps its members in insertion order, so that
// exports list claims in document order and edges in graph order.
type object []member

type member struct {
	key   string
	value any
}

func (o *object) set(key string, value any) { *o = append(*o, member{key, value}) }

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(m.value)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", m.key, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v without HTML escaping ("<", ">" and "&" stay as they are
// in quoted text).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// indent pretty-prints JSON with two spaces.
func indent(data []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// readObject reads one JSON object from dec and calls fn for each member in
// document order.
func readObject(dec *json.Decoder, fn func(key string, raw json.RawMessage) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want an object, got %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("want a member name, got %v", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("member %q: %w", key, err)
		}
		if err := fn(key, raw); err != nil {
			return err
		}
	}
	_, err = dec.Token() // '}'
	return err
}

// orderedMembers returns the members of a raw JSON object in order.
func orderedMembers(raw json.RawMessage) ([]member, error) {
	var out []member
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := readObject(dec, func(key string, v json.RawMessage) error {
		out = append(out, member{key, v})
		return nil
	})
	return out, err
}
