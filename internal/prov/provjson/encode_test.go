package provjson

import (
	"bytes"
	"testing"
)

// TestEncodeMatchesMarshal checks that the streaming encoders write the
// documents Marshal and MarshalLD return, byte for byte.
func TestEncodeMatchesMarshal(t *testing.T) {
	for name, g := range graphs(t) {
		for _, f := range []struct {
			format  string
			marshal func() ([]byte, error)
			encode  func(*bytes.Buffer) error
		}{
			{"prov-json", func() ([]byte, error) { return Marshal(g) }, func(b *bytes.Buffer) error { return Encode(b, g) }},
			{"prov-jsonld", func() ([]byte, error) { return MarshalLD(g) }, func(b *bytes.Buffer) error { return EncodeLD(b, g) }},
		} {
			want, err := f.marshal()
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := f.encode(&got); err != nil {
				t.Fatalf("%s %s: %v", name, f.format, err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s %s: Encode differs from Marshal:\n%s\nwant:\n%s", name, f.format, got.Bytes(), want)
			}
		}
	}
}
