package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// realPages loads the Onyx deep-research reports as page texts (50–100 KB
// of Markdown each, like long web pages).
func realPages(b *testing.B) []string {
	dir := sharedtest.Dir(b, "reports/onyx-drb/report_logs")
	var pages []string
	for i := 1; i <= 100; i++ {
		t, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.md", i)))
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, string(t))
	}
	return pages
}

func realTasks(b *testing.B) []claimtrace.Task {
	ds, err := dataset.LoadDataset(sharedtest.Dir(b, "reportbench-v1.1"))
	if err != nil {
		b.Fatal(err)
	}
	return ds.Tasks
}

// scriptModel plays an agent in process (no HTTP): search, read, read,
// search, read, then the answer, so the benchmark measures the agent's own
// work per task: prompts, tool formatting, page cutting, the final
// message, the transcript.
type scriptModel struct{ answer string }

func (m scriptModel) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	tools := 0
	for _, msg := range req.Messages {
		if msg.Role == llm.RoleTool {
			tools++
		}
	}
	usage := llm.Usage{InputTokens: int64(llm.EstimateTokens(req)), OutputTokens: 400}
	if len(req.Tools) == 0 {
		return llm.Response{Text: m.answer, Usage: usage, FinishReason: llm.FinishStop}, nil
	}
	call := llm.ToolCall{ID: fmt.Sprintf("c%d", tools), Name: "read", Arguments: []byte(fmt.Sprintf(`{"url":"https://example.org/page/%d"}`, tools))}
	if tools == 0 || tools == 3 {
		call = llm.ToolCall{ID: fmt.Sprintf("c%d", tools), Name: "search", Arguments: []byte(`{"query":"radar data representation survey"}`)}
	}
	return llm.Response{ToolCalls: []llm.ToolCall{call}, Usage: usage, FinishReason: llm.FinishToolUse}, nil
}

type memSearch struct{}

func (memSearch) Search(_ context.Context, q string, n int) ([]search.Result, error) {
	var rs []search.Result
	for i := range n {
		rs = append(rs, search.Result{Title: fmt.Sprintf("Result %d: %s", i, q), URL: fmt.Sprintf("https://example.org/page/%d", i), Snippet: "A snippet of about one hundred and fifty characters that says what the page is about, as search engines show it under a result."})
	}
	return rs, nil
}

type memReader struct{ pages []string }

func (r memReader) Read(_ context.Context, u string) (string, string, error) {
	var n int
	fmt.Sscanf(u[strings.LastIndexByte(u, '/')+1:], "%d", &n)
	return "Page " + u, r.pages[n%len(r.pages)], nil
}

// BenchmarkRunTask runs the tool loop (5 tool calls, real ReportBench
// tasks, real 50–100 KB pages cut to 20,000 characters) with an
// in-process model and tools: the agent's overhead per task.
func BenchmarkRunTask(b *testing.B) {
	pages, tasks := realPages(b), realTasks(b)
	a, err := agent.New(agent.Options{Model: scriptModel{answer: pages[0][:8000]}, ModelName: "bench:model", Searcher: memSearch{}, Reader: memReader{pages}, MaxToolCalls: 5})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		rec, err := a.Run(b.Context(), tasks[i%len(tasks)])
		if err != nil || rec.Status != agent.StatusDone || rec.ToolCalls != 5 {
			b.Fatalf("Run = %+v, %v", rec.Status, err)
		}
	}
}

// BenchmarkResumeScan is the cost of deciding, on a rerun, that 100 tasks
// are finished: reading back 100 full records (transcripts with page
// texts, ~130 KB each).
func BenchmarkResumeScan(b *testing.B) {
	pages, tasks := realPages(b), realTasks(b)
	a, _ := agent.New(agent.Options{Model: scriptModel{answer: pages[1][:8000]}, ModelName: "bench:model", Searcher: memSearch{}, Reader: memReader{pages}, MaxToolCalls: 5})
	dir := b.TempDir()
	if _, err := a.RunBatch(b.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks, Concurrency: 2}); err != nil {
		b.Fatal(err)
	}
	var size int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fi, _ := e.Info()
		size += fi.Size()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sum, err := a.RunBatch(b.Context(), agent.BatchOptions{Dir: dir, Tasks: tasks})
		if err != nil || sum.Skipped != len(tasks) {
			b.Fatalf("rerun = %+v, %v", sum, err)
		}
	}
	b.ReportMetric(float64(size)/float64(len(entries)), "record_bytes")
}

// sentenceEnd ends English and Chinese sentences (half the reports are zh).
var sentenceEnd = regexp.MustCompile(`[.!?](\s|$)|[。！？]`)

// BenchmarkInsertCitations writes native-search citations (one per
// sentence) into real report texts.
func BenchmarkInsertCitations(b *testing.B) {
	pages := realPages(b)
	type doc struct {
		text  string
		cites []llm.WebCitation
	}
	var docs []doc
	total := 0
	for _, p := range pages {
		var cs []llm.WebCitation
		start := 0
		for k, m := range sentenceEnd.FindAllStringIndex(p, -1) {
			cs = append(cs, llm.WebCitation{URL: fmt.Sprintf("https://example.org/source/%d", k%40), Start: start, End: m[0] + 1})
			start = m[1]
		}
		docs = append(docs, doc{p, cs})
		total += len(p)
	}
	b.SetBytes(int64(total / len(docs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d := docs[i%len(docs)]
		if out := agent.InsertCitations(d.text, d.cites); len(out) <= len(d.text) {
			b.Fatal("nothing inserted")
		}
	}
}

// BenchmarkTruncateChars cuts real pages to the default read budget.
func BenchmarkTruncateChars(b *testing.B) {
	pages := realPages(b)
	total := 0
	for _, p := range pages {
		total += len(p)
	}
	b.SetBytes(int64(total / len(pages)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, _, cut := agent.TruncateChars(pages[i%len(pages)], agent.DefaultReadChars); !cut && len(pages[i%len(pages)]) > 4*agent.DefaultReadChars {
			b.Fatal("not cut")
		}
	}
}
