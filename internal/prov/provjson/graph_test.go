package provjson

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

func TestReadGraph(t *testing.T) {
	native, err := os.ReadFile("../testdata/figure4-blackbox.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := prov.Unmarshal(native)
	if err != nil {
		t.Fatal(err)
	}
	g.ID = ""
	anon, err := prov.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	pj, err := Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
	}{{"native.json", anon}, {"prov.json", pj}} {
		path := filepath.Join("dir", tt.name)
		f := prov.Sniff(path, tt.data)
		got, err := ReadGraph(path, tt.data, f)
		if err != nil {
			t.Fatalf("ReadGraph(%s, %v): %v", path, f, err)
		}
		if want := strings.TrimSuffix(tt.name, ".json"); got.ID != want {
			t.Errorf("ReadGraph(%s): id %q, want %q", path, got.ID, want)
		}
		if len(got.Claims) != len(g.Claims) || len(got.Sources) != len(g.Sources) {
			t.Errorf("ReadGraph(%s): %d claims, %d sources; want %d, %d", path, len(got.Claims), len(got.Sources), len(g.Claims), len(g.Sources))
		}
	}
	if _, err := ReadGraph("bad.json", []byte(`{"claims": 3}`), prov.FormatNative); err == nil || !strings.HasPrefix(err.Error(), "bad.json: ") {
		t.Errorf("ReadGraph of a malformed graph: %v, want an error naming the file", err)
	}
	for _, f := range []prov.Format{prov.FormatReport, prov.FormatPROVJSONLD} {
		if _, err := ReadGraph("x.json", []byte(`{}`), f); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("ReadGraph(%v): %v, want ErrInvalid", f, err)
		}
	}
}
