package analysis_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	reportpkg "github.com/claimtrace/claimtrace/internal/report"
)

// TestQualityEstimate prices two systems' reports without a request: a
// long report is counted as truncated, a cached one costs nothing, one the
// loader refuses is unreadable, and a file of no task is left out.
func TestQualityEstimate(t *testing.T) {
	dir := t.TempDir()
	ds := writeDataset(t, filepath.Join(dir, "ds"), map[string]string{"2101.00001": "Survey retrieval.", "2101.00002": "Survey agents.", "2101.00003": "Survey RAG."})
	a, b := filepath.Join(dir, "runs", "a"), filepath.Join(dir, "runs", "b")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	long := strings.Repeat("A line of a long report that goes on and on.\n", 200)
	os.WriteFile(filepath.Join(a, "2101.00001.md"), []byte(goodReport), 0o644)
	os.WriteFile(filepath.Join(a, "2101.00002.md"), []byte(long), 0o644)
	os.WriteFile(filepath.Join(a, "2101.00003.md"), []byte(listReport), 0o644)
	os.WriteFile(filepath.Join(a, "notes.md"), []byte("not a task"), 0o644)
	os.WriteFile(filepath.Join(b, "2101.00001.md"), []byte(listReport), 0o644)

	srv := llmtest.NewServer(t)
	c := fakeClient(t, srv, "k")
	j, err := analysis.NewQualityJudge(c, analysis.QualityOptions{MaxReportChars: 4000})
	if err != nil {
		t.Fatal(err)
	}
	// The answer to b's report is cached: the same text as a's third
	// report, under another task, is another request.
	cache := llm.NewMemoryCache()
	task1, _ := ds.Task("2101.00001")
	cachedReq, _, err := j.Request(task1, listReport)
	if err != nil {
		t.Fatal(err)
	}
	cache.Put(t.Context(), c.Key(cachedReq), []byte(`{}`))
	refused := filepath.Join(a, "2101.00003.md")
	load := func(path string) (string, error) {
		if path == refused {
			return "", errors.New("over the input limit")
		}
		return reportpkg.Load(path)
	}

	got, err := j.Estimate(t.Context(), ds, []string{a, b}, analysis.EstimateOptions{Load: load, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Calls()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	// What a's two sendable reports cost, request by request.
	var want0 analysis.QualityEstimate
	for _, r := range []struct{ task, text string }{{"2101.00001", goodReport}, {"2101.00002", long}} {
		task, _ := ds.Task(r.task)
		req, _, err := j.Request(task, r.text)
		if err != nil {
			t.Fatal(err)
		}
		e := c.Estimate(req)
		want0.InputTokens += e.InputTokens
		want0.OutputTokens += e.OutputTokens
		want0.Cost += e.Cost
	}
	want := []analysis.QualityEstimate{
		{System: "a", Reports: 3, Truncated: 1, Unreadable: 1, Calls: 2, InputTokens: want0.InputTokens, OutputTokens: want0.OutputTokens, Cost: want0.Cost},
		{System: "b", Reports: 1, Cached: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Estimate (-want +got):\n%s", diff)
	}
	if got[0].OutputTokens != 2*analysis.DefaultQualityTokens || got[0].Cost <= 0 {
		t.Errorf("a: %d output tokens (want the cap twice), cost %v", got[0].OutputTokens, got[0].Cost)
	}

	// Without a cache every readable report is a call; the default loader
	// reads them all.
	got, err = j.Estimate(t.Context(), ds, []string{b}, analysis.EstimateOptions{})
	if err != nil || len(got) != 1 || got[0].Calls != 1 || got[0].Cached != 0 {
		t.Errorf("no cache: %+v, %v", got, err)
	}
	if _, err := j.Estimate(t.Context(), ds, []string{filepath.Join(dir, "missing")}, analysis.EstimateOptions{}); err == nil {
		t.Error("a missing reports directory is no error")
	}
}
