package llm

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// maxJSONStarts bounds how many candidate '{' / '[' positions ExtractJSON
// tries in prose, so a long non-JSON answer cannot cost quadratic time.
const maxJSONStarts = 64

// ExtractJSON finds the JSON value in a model's answer: the whole answer
// if it is JSON, else the first fenced block holding valid JSON, else the
// first complete JSON object or array embedded in prose. The result is
// valid JSON. The answer is ErrMalformed when there is none.
func ExtractJSON(text string) (string, error) {
	t := strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))
	if t == "" {
		return "", fmt.Errorf("empty answer: %w", ErrMalformed)
	}
	if json.Valid([]byte(t)) {
		return t, nil
	}
	for _, b := range fencedBlocks(t) {
		body := strings.TrimSpace(b)
		if body != "" && json.Valid([]byte(body)) {
			return body, nil
		}
		if v, ok := firstEmbedded(body); ok {
			return v, nil
		}
	}
	if v, ok := firstEmbedded(t); ok {
		return v, nil
	}
	return "", fmt.Errorf("no JSON object or array in answer %q: %w", truncate(t, 120), ErrMalformed)
}

// fencedBlocks returns the bodies of fenced code blocks (``` or ~~~, three
// or more, any language tag in any case, inline or on their own lines). An
// unclosed last fence runs to the end (a truncated answer). It scans
// linearly: a regexp with submatches was the slowest step on real answers.
func fencedBlocks(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := indexFence(s, i)
		if j < 0 {
			break
		}
		c := s[j]
		k := j
		for k < len(s) && s[k] == c {
			k++
		}
		// An info string ("json", "JSON", "jsonc") up to the line end.
		w := k
		for w < len(s) && (isWordByte(s[w]) || s[w] == ' ' || s[w] == '\t') {
			w++
		}
		if w == len(s) || s[w] == '\n' || s[w] == '\r' {
			k = w
		}
		end := strings.Index(s[k:], strings.Repeat(string(c), 3))
		if end < 0 {
			out = append(out, s[k:])
			break
		}
		out = append(out, s[k:k+end])
		i = k + end
		for i < len(s) && s[i] == c {
			i++
		}
	}
	return out
}

// indexFence finds the next run of three backticks or tildes from i.
func indexFence(s string, i int) int {
	b := strings.Index(s[i:], "```")
	t := strings.Index(s[i:], "~~~")
	switch {
	case b < 0 && t < 0:
		return -1
	case b < 0:
		return i + t
	case t < 0 || b < t:
		return i + b
	}
	return i + t
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+'
}

// firstEmbedded returns the first complete JSON object or array that
// starts at a '{' or '[' in s.
func firstEmbedded(s string) (string, bool) {
	tries := 0
	for i := 0; i < len(s) && tries < maxJSONStarts; i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) == nil {
			return string(raw), true
		}
	}
	return "", false
}

// DecodeJSON extracts the JSON value from a model's answer (see
// ExtractJSON) and decodes it strictly into v:
//   - types must match exactly: the string "false" is not a bool and "3"
//     is not a number (encoding/json rules, no coercion);
//   - every struct field without omitempty/omitzero that is not a pointer
//     is required: absent or null, it is an error, so a missing "match"
//     never decodes as false;
//   - unknown fields are ignored (models add commentary fields).
//
// Errors wrap ErrMalformed.
func DecodeJSON[T any](text string, v *T) error {
	return decodeInto(text, v)
}

// decodeInto is DecodeJSON for any pointer.
func decodeInto(text string, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode answer into %T: need a non-nil pointer", out)
	}
	js, err := ExtractJSON(text)
	if err != nil {
		return err
	}
	return decodeStrict([]byte(js), out)
}

// decodeStrict decodes valid JSON into out with the required-field rule,
// leaving out untouched on error.
func decodeStrict(js []byte, out any) error {
	var tree any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return fmt.Errorf("answer is not JSON: %v: %w", err, ErrMalformed)
	}
	t := reflect.TypeOf(out).Elem()
	if err := checkRequired(tree, t, "answer"); err != nil {
		return fmt.Errorf("%v: %w", err, ErrMalformed)
	}
	fresh := reflect.New(t)
	if err := json.Unmarshal(js, fresh.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return fmt.Errorf("answer is a JSON %s, want %s: %w", te.Value, jsonKind(te.Type), ErrMalformed)
			}
			return fmt.Errorf("answer field %q: got JSON %s, want %s: %w", te.Field, te.Value, jsonKind(te.Type), ErrMalformed)
		}
		return fmt.Errorf("decode answer: %v: %w", err, ErrMalformed)
	}
	reflect.ValueOf(out).Elem().Set(fresh.Elem())
	return nil
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// checkRequired walks the decoded JSON alongside t and reports the first
// required struct field that is absent or null.
func checkRequired(v any, t reflect.Type, path string) error {
	if t.Kind() == reflect.Pointer {
		if v == nil {
			return nil
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil // a type mismatch, reported by Unmarshal
		}
		return checkFields(obj, t, path)
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, e := range arr {
			if err := checkRequired(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for k, e := range obj {
			if err := checkRequired(e, t.Elem(), path+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkFields(obj map[string]any, t reflect.Type, path string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := checkFields(obj, ft, path); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		val, present := lookupField(obj, name)
		optional := f.Type.Kind() == reflect.Pointer || strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if !present || val == nil {
			if optional {
				continue
			}
			if !present {
				return fmt.Errorf("%s: missing field %q", path, name)
			}
			return fmt.Errorf("%s: field %q is null", path, name)
		}
		if err := checkRequired(val, f.Type, path+"."+name); err != nil {
			return err
		}
	}
	return nil
}

// lookupField finds a key the way encoding/json does: exact match first,
// then case-insensitive.
func lookupField(obj map[string]any, name string) (any, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}
