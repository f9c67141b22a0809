package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cliLimit runs the command in-process with the input size limit lowered
// to limit bytes.
func cliLimit(t *testing.T, limit int64, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb, func(a *app) { a.maxInput = limit })
	return out.String(), errb.String(), code
}

// cliLimits runs the command in-process with the input size limit
// lowered to input bytes and the graph size limit to graph bytes.
func cliLimits(t *testing.T, input, graph int64, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb, func(a *app) { a.maxInput, a.maxGraph = input, graph })
	return out.String(), errb.String(), code
}

// copyInput copies a fixture into a temporary file of the given name.
func copyInput(t *testing.T, src, name string) (string, int64) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, int64(len(data))
}

// TestInputLimit runs every command that reads a user's file on a file
// exactly at the input limit (read) and one byte over it (refused with an
// error naming the file and the limit): the commands share one check
// (issue 14 item 8: audit, gate and prov read a whole file before checking
// its size). A provenance graph has a limit of its own (TestGraphLimit).
func TestInputLimit(t *testing.T) {
	report, _ := copyInput(t, "../../internal/prov/testdata/figure4-transparent.json", "in.json")
	os.WriteFile(report+".md", []byte("# Report\n\nRetrieval helps question answering [1].\n\n## References\n[1] https://example.org/rag\n"), 0o644)
	tests := []struct {
		name string
		file string
		args func(file string) []string
	}{
		{"parse", report + ".md", func(f string) []string { return []string{"parse", f} }},
		{"audit", report, func(f string) []string { return []string{"audit", "--json", f} }},
		{"gate", report, func(f string) []string { return []string{"gate", "--min-pcov", "0.1", "--min-psnd", "0.1", f} }},
		{"prov why", report, func(f string) []string { return []string{"prov", "why", "c1", f} }},
		{"prov contradictions", report, func(f string) []string { return []string{"prov", "contradictions", f} }},
		{"prov orphans", report, func(f string) []string { return []string{"prov", "orphans", f} }},
		{"prov export", report, func(f string) []string { return []string{"prov", "export", "--format", "dot", f} }},
		{"prov validate", report, func(f string) []string { return []string{"prov", "validate", f} }},
		{"import", "../../internal/prov/importer/testdata/gemini.json", func(f string) []string { return []string{"import", "gemini", f} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, size := copyInput(t, tt.file, "input"+filepath.Ext(tt.file))
			if tt.file == report {
				// A graph over the report limit is read as a graph.
				if _, errOut, code := cliLimits(t, size-1, size, tt.args(file)...); code != 0 && code != 1 {
					t.Fatalf("a graph over the report limit, at the graph limit: exit %d: %s", code, errOut)
				}
				_, errOut, code := cliLimits(t, size-1, size-1, tt.args(file)...)
				if code == 0 || !strings.Contains(errOut, strconv.FormatInt(size-1, 10)+"-byte limit on graph files") {
					t.Errorf("a graph over both limits: exit %d, stderr %q", code, errOut)
				}
				return
			}
			if _, errOut, code := cliLimit(t, size, tt.args(file)...); code != 0 {
				t.Fatalf("at the limit (%d bytes): exit %d: %s", size, code, errOut)
			}
			_, errOut, code := cliLimit(t, size-1, tt.args(file)...)
			if code == 0 {
				t.Fatalf("one byte over the limit: exit 0")
			}
			for _, want := range []string{file, strconv.FormatInt(size-1, 10) + "-byte limit"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q lacks %q", errOut, want)
				}
			}
		})
	}
}

// TestEvalInputLimit checks that eval refuses a report one byte over the
// input limit as a failed report, naming the file and the limit, and reads
// one exactly at the limit.
func TestEvalInputLimit(t *testing.T) {
	f := newCrashFixture(t, 1, 2, 0)
	rep := filepath.Join(f.reports, "2101.00001.md")
	fi, err := os.Stat(rep)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(f.dir, "out")
	args := f.args(filepath.Join(f.dir, "s.db"), out)
	if _, errOut, code := cliLimit(t, fi.Size(), args...); code != 0 {
		t.Fatalf("at the limit: exit %d: %s", code, errOut)
	}
	out2 := filepath.Join(f.dir, "out2")
	stdout, errOut, _ := cliLimit(t, fi.Size()-1, f.args(filepath.Join(f.dir, "s2.db"), out2)...)
	summary, err := os.ReadFile(filepath.Join(out2, "summary.json"))
	if err != nil {
		t.Fatalf("%v; stdout %s stderr %s", err, stdout, errOut)
	}
	want := strconv.FormatInt(fi.Size()-1, 10) + "-byte limit"
	if !strings.Contains(string(summary), want) || !strings.Contains(string(summary), `"reports_failed": 1`) {
		t.Errorf("summary lacks one failed report over the %s:\n%s", want, summary)
	}
}

// TestAuditSparseFile audits a 64 MiB sparse file, over the default input
// limit: it is refused from its size at once, without reading it into
// memory (before, audit read the whole file first).
func TestAuditSparseFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	results := t.TempDir() // an eval --out folder whose summary is huge
	if err := os.Rename(p, filepath.Join(results, "summary.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(results, "summary.json"), p); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"audit", p}, {"gate", "--min-pcov", "0.1", "--min-psnd", "0.1", p}, {"prov", "validate", p}, {"import", "openai", p}, {"leaderboard", results}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, errOut, code := runCLI(t, args...)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if code == 0 || !strings.Contains(errOut, filepath.Base(args[len(args)-1])) || !strings.Contains(errOut, "67108864 bytes, over the") {
			t.Errorf("%s: exit %d, stderr %q; want the file refused from its size", args[0], code, errOut)
		}
		t.Logf("%s: %d KiB allocated", args[0], (after.TotalAlloc-before.TotalAlloc)>>10)
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("%s: refusing a 64 MiB file allocated %d MiB", args[0], got>>20)
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %v", args[0], took)
		}
	}
}

// TestGraphLimit: a graph file over the report limit is read as a graph,
// a native one as a stream, with the same figures as when read whole; a
// file over the report limit that is no graph is refused, naming both
// limits.
func TestGraphLimit(t *testing.T) {
	native, size := copyInput(t, "../../internal/prov/testdata/figure4-transparent.json", "graph.json")
	whole, errOut, code := cliLimits(t, size, size, "audit", "--json", native)
	if code != 0 {
		t.Fatalf("read whole: exit %d: %s", code, errOut)
	}
	streamed, errOut, code := cliLimits(t, size/2, size, "audit", "--json", native)
	if code != 0 {
		t.Fatalf("read as a stream: exit %d: %s", code, errOut)
	}
	if whole != streamed {
		t.Errorf("the figures differ:\nwhole %s\nstream %s", whole, streamed)
	}
	// PROV-JSON: read whole, under the graph limit.
	pj := filepath.Join(t.TempDir(), "prov.json")
	if _, errOut, code := runCLI(t, "prov", "export", "--format", "prov-json", "--out", pj, native); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	fi, err := os.Stat(pj)
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := cliLimits(t, fi.Size()/2, fi.Size(), "gate", "--min-pcov", "0.1", "--min-psnd", "0.1", pj); code != 0 {
		t.Errorf("a PROV-JSON graph over the report limit: exit %d: %s", code, errOut)
	}
	// Not a graph.
	notGraph := filepath.Join(t.TempDir(), "report.json")
	os.WriteFile(notGraph, []byte(`{"response": "`+strings.Repeat("A long report. ", 100)+`"}`), 0o644)
	_, errOut, code = cliLimits(t, 100, 1<<20, "audit", notGraph)
	if code == 0 || !strings.Contains(errOut, "over the 100-byte limit on reports, and not a provenance graph") || !strings.Contains(errOut, "up to 1048576 bytes") {
		t.Errorf("a large file that is no graph: exit %d, stderr %q", code, errOut)
	}
}
