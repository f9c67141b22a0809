package llmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/llm"
)

// DumpRequests renders requests as a golden request file shows them: for
// each, its stage, temperature, token cap, web search, cache tag, schema
// and messages, in that order.
func DumpRequests(reqs []llm.Request) string {
	var b strings.Builder
	for i, r := range reqs {
		fmt.Fprintf(&b, "=== request %d\n", i+1)
		fmt.Fprintf(&b, "stage: %s\n", r.Stage)
		if r.Temperature != nil {
			fmt.Fprintf(&b, "temperature: %g\n", *r.Temperature)
		}
		if r.MaxTokens > 0 {
			fmt.Fprintf(&b, "max_tokens: %d\n", r.MaxTokens)
		}
		if r.WebSearch {
			b.WriteString("web_search: true\n")
		}
		if r.CacheTag != "" {
			fmt.Fprintf(&b, "cache_tag: %s\n", r.CacheTag)
		}
		if r.Schema != nil {
			fmt.Fprintf(&b, "schema: %s (strict %v) %s\n", r.Schema.Name, r.Schema.Strict, strings.Join(strings.Fields(string(r.Schema.JSON)), " "))
		}
		if r.System != "" {
			fmt.Fprintf(&b, "--- system\n%s\n", r.System)
		}
		for _, m := range r.Messages {
			fmt.Fprintf(&b, "--- %s\n%s\n", m.Role, m.Content)
		}
	}
	return b.String()
}

// CheckRequests compares the dump of reqs (DumpRequests) with the golden
// file testdata/requests/name.golden of the package under test, first
// rewriting the file when update is set (each package's -update flag).
// It pins the exact requests a component sends: prompt text, order of
// source and claims, schema, temperature, web search and cache tag.
func CheckRequests(t *testing.T, name string, update bool, reqs []llm.Request) {
	t.Helper()
	got := DumpRequests(reqs)
	path := filepath.Join("testdata", "requests", name+".golden")
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}
