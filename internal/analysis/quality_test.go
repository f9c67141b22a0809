package analysis_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

// fakeClient is a client of the fake OpenAI server that retries without
// waiting.
func fakeClient(t testing.TB, srv *llmtest.Server, key string) *llm.Client {
	t.Helper()
	ep := llm.Endpoint{Name: "openai:gpt-4.1", Provider: llm.OpenAI, Model: "gpt-4.1", BaseURL: srv.OpenAIBaseURL(), API: llm.APIChat, APIKey: key, Timeout: 5 * time.Second}
	c, err := llm.Open(context.Background(), ep, llm.Options{Retry: llm.Retry{MaxAttempts: 2}, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeDataset writes a ReportBench dataset of tasks (no references).
func writeDataset(t testing.TB, dir string, tasks map[string]string) *dataset.Dataset {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, dataset.GTDir), 0o755)
	var b strings.Builder
	for id, prompt := range tasks {
		line, _ := json.Marshal(claimtrace.Task{ArXivID: id, Title: "Survey " + id, Prompt: prompt, Domain: "Computer Science"})
		b.Write(append(line, '\n'))
		os.WriteFile(filepath.Join(dir, dataset.GTDir, id+".jsonl"), nil, 0o644)
	}
	os.WriteFile(filepath.Join(dir, dataset.TasksFile), []byte(b.String()), 0o644)
	ds, err := dataset.LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func rubric(scores [5]int, gaming bool) string {
	names := []string{"content_depth", "synthesis_structure", "insight_trends", "future_directions", "survey_ness"}
	var parts []string
	for i, n := range names {
		parts = append(parts, fmt.Sprintf(`%q: {"score": %d, "justification": "%s is %d because of what section 2 does."}`, n, scores[i], n, scores[i]))
	}
	parts = append(parts, fmt.Sprintf(`"gaming": {"flag": %v, "justification": "the report %s"}`, gaming, map[bool]string{true: "lists papers one by one", false: "synthesizes themes"}[gaming]))
	return "{" + strings.Join(parts, ", ") + "}"
}

const (
	goodReport = "# Retrieval-augmented generation: a survey\n\n## Taxonomy\n\nRetrievers fall into sparse and dense families [1]; dense ones trade index size for recall.\n\n## Future directions\n\nJoint training of retriever and reader remains open.\n\n[1] https://arxiv.org/abs/2004.04906\n"
	listReport = "Paper 1 proposes X [1]. Paper 2 proposes Y [2]. Paper 3 proposes Z [3].\n\n[1] https://arxiv.org/abs/2001.00001\n[2] https://arxiv.org/abs/2001.00002\n[3] https://arxiv.org/abs/2001.00003\n"
	oddReport  = "A report the judge cannot score properly: MALFORMED."
)

func TestQualityScoreReports(t *testing.T) {
	dir := t.TempDir()
	ds := writeDataset(t, filepath.Join(dir, "dataset"), map[string]string{
		"2312.10997": "Please survey retrieval-augmented generation for large language models, citing work before December 2023.",
		"2312.00002": "Please survey graph neural networks for text classification.",
		"2312.00003": "Please survey radar representations for autonomous driving.",
		"2312.00004": "Please survey a topic with two report files.",
	})
	reports := filepath.Join(dir, "o3")
	os.MkdirAll(reports, 0o755)
	os.WriteFile(filepath.Join(reports, "2312.10997.md"), []byte(goodReport), 0o644)
	os.WriteFile(filepath.Join(reports, "2312.00002.json"), []byte(`{"response": `+strconvQuote(listReport)+`}`), 0o644)
	os.WriteFile(filepath.Join(reports, "2312.00003.txt"), []byte(oddReport), 0o644)
	os.WriteFile(filepath.Join(reports, "2312.00004.md"), []byte("one"), 0o644)
	os.WriteFile(filepath.Join(reports, "2312.00004.txt"), []byte("two"), 0o644)
	os.WriteFile(filepath.Join(reports, "notes.md"), []byte("not a report"), 0o644)

	srv := llmtest.NewServer(t)
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		switch {
		case strings.Contains(string(c.Body), "MALFORMED"):
			return llmtest.Text(rubric([5]int{9, 9, 9, 9, 9}, false))
		case strings.Contains(string(c.Body), "Paper 1 proposes X"):
			return llmtest.Text(rubric([5]int{2, 1, 1, 1, 1}, true))
		}
		return llmtest.Text(rubric([5]int{5, 4, 4, 3, 4}, false))
	})
	j, err := analysis.NewQualityJudge(fakeClient(t, srv, "k"), analysis.QualityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	progress := 0
	run, err := j.ScoreReports(context.Background(), ds, reports, 2, func(analysis.QualityScore) error { progress++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if run.System != "o3" || run.Model != "openai:gpt-4.1" || progress != 3 {
		t.Errorf("run %s, model %s, progress %d", run.System, run.Model, progress)
	}
	if diff := cmp.Diff([]string{"2312.00004: several files (" + filepath.Join(reports, "2312.00004.md") + ", " + filepath.Join(reports, "2312.00004.txt") + ")", "notes.md: not a task of the dataset"}, run.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	var tasks, statuses []string
	for _, s := range run.Scores {
		tasks = append(tasks, s.Task)
		statuses = append(statuses, s.Status)
	}
	if diff := cmp.Diff([]string{"2312.00002", "2312.00003", "2312.10997"}, tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"done", "failed", "done"}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	bad := run.Scores[1]
	if bad.Rubric != nil || !strings.Contains(bad.Err, "malformed") {
		t.Errorf("a malformed answer = %+v, want a failure, never a score", bad)
	}
	good := run.Scores[2].Rubric
	if good == nil || good.ContentDepth.Score != 5 || good.FutureDirections.Score != 3 || good.Gaming.Flag || !strings.Contains(good.SurveyNess.Justification, "section 2") {
		t.Errorf("good report rubric = %+v", good)
	}
	want := analysis.QualityMeans{Reports: 3, Scored: 2, Failed: 1,
		ContentDepth: f(3.5), Synthesis: f(2.5), Insight: f(2.5), FutureDirections: f(2), SurveyNess: f(2.5), GamingRate: f(0.5)}
	if diff := cmp.Diff(want, run.Means); diff != "" {
		t.Errorf("means (-want +got):\n%s", diff)
	}

	// One call per report (a malformed answer is asked again, up to three
	// times), each carrying the task prompt, the report and the schema.
	var calls int
	for _, c := range srv.Calls() {
		if strings.Contains(c.Prompt, "Paper 1 proposes X") {
			calls++
			if !strings.Contains(c.Prompt, "graph neural networks for text classification") {
				t.Errorf("the call lacks the task prompt")
			}
			var body struct {
				ResponseFormat struct {
					Type       string `json:"type"`
					JSONSchema struct {
						Name   string `json:"name"`
						Strict bool   `json:"strict"`
					} `json:"json_schema"`
				} `json:"response_format"`
				Temperature *float64 `json:"temperature"`
			}
			if err := json.Unmarshal(c.Body, &body); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if body.ResponseFormat.JSONSchema.Name != "survey_quality" || !body.ResponseFormat.JSONSchema.Strict || body.Temperature == nil || *body.Temperature != 0 {
				t.Errorf("request body: %s", c.Body)
			}
		}
	}
	if calls != 1 {
		t.Errorf("%d calls for one report", calls)
	}
	if n := len(srv.Calls()); n != 2+3 {
		t.Errorf("%d calls, want 5 (two reports, three attempts at the malformed one)", n)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestQualityTruncation(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(context.Context, llmtest.Call) llmtest.Reply {
		return llmtest.Text(rubric([5]int{3, 3, 3, 3, 3}, false))
	})
	j, err := analysis.NewQualityJudge(fakeClient(t, srv, "k"), analysis.QualityOptions{MaxReportChars: 4000})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Intro — état de l’art\n")
	for i := range 400 {
		fmt.Fprintf(&b, "Section %03d: ρ-retrieval and 検索 methods are compared here in detail.\n", i)
	}
	b.WriteString("## Future directions\nOpen problem: joint training.\n")
	text := b.String()
	task := claimtrace.Task{ArXivID: "2312.10997", Prompt: "Survey retrieval."}
	r, ex, err := j.Score(context.Background(), task, text)
	if err != nil {
		t.Fatal(err)
	}
	if r.ContentDepth.Score != 3 || !ex.Truncated || ex.Sent > 4000 || ex.Sent < 3600 || ex.Chars != len([]rune(text)) {
		t.Errorf("excerpt: truncated %v, sent %d of %d", ex.Truncated, ex.Sent, ex.Chars)
	}
	prompt := srv.Calls()[0].Prompt
	for _, want := range []string{"# Intro — état de l’art", "Section 000", "Open problem: joint training.", "characters of the report omitted here", "Do not penalize the omission"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(prompt, "Section 200") {
		t.Errorf("the middle of the report was sent")
	}
	// Cuts fall on line breaks.
	if !strings.Contains(prompt, "in detail.\n\n[… ") || !strings.Contains(prompt, " …]\n\nSection ") {
		t.Errorf("cuts are not at line breaks:\n%s", prompt[strings.Index(prompt, "[…")-80:strings.Index(prompt, "[…")+120])
	}

	short := j.Excerpt("A short report.")
	if short.Truncated || short.Text != "A short report." || short.Note != "" {
		t.Errorf("short report excerpt = %+v", short)
	}
	if _, err := analysis.NewQualityJudge(fakeClient(t, srv, "k"), analysis.QualityOptions{MaxReportChars: 10}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("a 10-character budget: %v", err)
	}
	if _, err := analysis.NewQualityJudge(nil, analysis.QualityOptions{}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("no client: %v", err)
	}
}

// TestQualityFatal: a wrong key stops the run instead of failing every
// report; a transient failure only fails its report.
func TestQualityFatal(t *testing.T) {
	dir := t.TempDir()
	ds := writeDataset(t, filepath.Join(dir, "dataset"), map[string]string{"2312.10997": "Survey RAG.", "2312.00002": "Survey GNNs."})
	reports := filepath.Join(dir, "sys")
	os.MkdirAll(reports, 0o755)
	os.WriteFile(filepath.Join(reports, "2312.10997.md"), []byte(goodReport), 0o644)
	os.WriteFile(filepath.Join(reports, "2312.00002.md"), []byte(listReport), 0o644)

	srv := llmtest.NewServer(t)
	srv.RequireKey("right-key")
	j, _ := analysis.NewQualityJudge(fakeClient(t, srv, "wrong-key"), analysis.QualityOptions{})
	if _, err := j.ScoreReports(context.Background(), ds, reports, 1, nil); !errors.Is(err, llm.ErrAuth) {
		t.Errorf("wrong key: %v, want ErrAuth", err)
	}

	srv2 := llmtest.NewServer(t)
	srv2.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "Paper 1 proposes X") {
			return llmtest.Fail(llmtest.ServerError)
		}
		return llmtest.Text(rubric([5]int{4, 4, 4, 4, 4}, false))
	})
	j2, _ := analysis.NewQualityJudge(fakeClient(t, srv2, "k"), analysis.QualityOptions{})
	run, err := j2.ScoreReports(context.Background(), ds, reports, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Means.Scored != 1 || run.Means.Failed != 1 || *run.Means.ContentDepth != 4 {
		t.Errorf("means = %+v, want one scored and one failed", run.Means)
	}
	if _, err := j2.ScoreReports(context.Background(), ds, filepath.Join(dir, "nope"), 1, nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing reports dir: %v", err)
	}
}

// TestQualityLoadOption: scoring reads reports through the caller's input
// check (QualityOptions.Load), so a limit it sets fails the report, and the
// estimate reads through the same check.
func TestQualityLoadOption(t *testing.T) {
	dir := t.TempDir()
	ds := writeDataset(t, filepath.Join(dir, "dataset"), map[string]string{
		"2312.10997": "Please survey retrieval-augmented generation for large language models.",
	})
	reports := filepath.Join(dir, "o3")
	os.MkdirAll(reports, 0o755)
	os.WriteFile(filepath.Join(reports, "2312.10997.md"), []byte(goodReport), 0o644)
	srv := llmtest.NewServer(t)
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		return llmtest.Text(rubric([5]int{5, 4, 4, 3, 4}, false))
	})
	var read []string
	load := func(path string) (string, error) {
		read = append(read, filepath.Base(path))
		return "", fmt.Errorf("report %s: over the 10-byte limit", path)
	}
	j, err := analysis.NewQualityJudge(fakeClient(t, srv, "k"), analysis.QualityOptions{Load: load})
	if err != nil {
		t.Fatal(err)
	}
	run, err := j.ScoreReports(t.Context(), ds, reports, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Scores) != 1 || run.Scores[0].Status != "failed" || !strings.Contains(run.Scores[0].Err, "10-byte limit") {
		t.Errorf("scores = %+v, want the report failed by the caller's check", run.Scores)
	}
	if n := len(srv.Calls()); n != 0 {
		t.Errorf("%d model calls for a report the check refused", n)
	}
	if _, err := j.Estimate(t.Context(), ds, []string{reports}, analysis.EstimateOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2312.10997.md", "2312.10997.md"}, read); diff != "" {
		t.Errorf("files read through the check (-want +got):\n%s", diff)
	}
}
