package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseCLI runs claimtrace in-process without any user config.
func parseCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAIMTRACE_CONFIG", empty)
	return cli(t, args...)
}

func TestParseJSON(t *testing.T) {
	text := "# Report\n\nRevenue grew 12%.[[1]](https://example.org/a) Costs fell [2].\n\n中文句子在这里结束。 [2]\n\n## References\n\n[2] https://doi.org/10.1145/3292500.3330701 - A paper\n"
	path := filepath.Join(t.TempDir(), "2101.00001.json")
	raw, _ := json.Marshal(map[string]string{"response": text})
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// Flags after the argument work too.
	out, errOut, code := parseCLI(t, "parse", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Claims []struct {
			ID         string `json:"id"`
			Text       string `json:"text"`
			Start, End int
			Citations  []int `json:"citations"`
		} `json:"claims"`
		Citations []map[string]any `json:"citations"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	var texts []string
	for _, c := range got.Claims {
		texts = append(texts, c.Text)
		if text[c.Start:c.End] != c.Text {
			t.Errorf("claim %s: span [%d,%d) is %q, text %q", c.ID, c.Start, c.End, text[c.Start:c.End], c.Text)
		}
		for _, i := range c.Citations {
			if i < 0 || i >= len(got.Citations) {
				t.Errorf("claim %s cites %d of %d", c.ID, i, len(got.Citations))
			}
		}
	}
	want := []string{"Revenue grew 12%.[[1]](https://example.org/a)", "Costs fell [2].", "中文句子在这里结束。 [2]"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	keys := []string{"arxiv_id", "doi", "end", "kind", "marker", "start", "title", "url"}
	for i, c := range got.Citations {
		if diff := cmp.Diff(keys, slices.Sorted(maps.Keys(c))); diff != "" {
			t.Errorf("citation %d keys (-want +got):\n%s", i, diff)
		}
	}
	if len(got.Citations) != 4 {
		t.Fatalf("got %d citations, want 4 (link, two numbered, one list entry): %v", len(got.Citations), got.Citations)
	}
	if got.Citations[1]["doi"] != "10.1145/3292500.3330701" || got.Citations[1]["title"] != "A paper" {
		t.Errorf("numbered citation not resolved through the list: %v", got.Citations[1])
	}
}

func TestParseText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.md")
	if err := os.WriteFile(path, []byte("First claim here [1]. Second claim here [9].\n\nReferences\n[1] https://example.org/x - X\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := parseCLI(t, "parse", "--show", "1", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{"claims:     2 (2 cited, 0 not cited)", "1 dangling markers", "references: 1 list entries", "c1", "https://example.org/x", "1 more claims"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "Second claim") {
		t.Errorf("--show 1 printed the second claim:\n%s", out)
	}
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"title": "no text"}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"parse"}, "accepts 1 arg"},
		{[]string{"parse", filepath.Join(dir, "missing.md")}, "missing.md"},
		{[]string{"parse", bad}, "bad.json: no text"},
	}
	for _, tt := range tests {
		_, errOut, code := parseCLI(t, tt.args...)
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want failure mentioning %q", tt.args, code, errOut, tt.want)
		}
	}
}
