package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/score"
)

// StageQuality is the ledger stage of rubric calls.
const StageQuality = "quality"

// Dimension is one rubric score (1–5) with the judge's justification.
type Dimension struct {
	Score         int    `json:"score"`
	Justification string `json:"justification"`
}

// Flag is the binary gaming judgment with its justification.
type Flag struct {
	Flag          bool   `json:"flag"`
	Justification string `json:"justification"`
}

// Rubric is the A.2.2 content-quality judgment of one report.
type Rubric struct {
	ContentDepth     Dimension `json:"content_depth"`
	Synthesis        Dimension `json:"synthesis_structure"`
	Insight          Dimension `json:"insight_trends"`
	FutureDirections Dimension `json:"future_directions"`
	SurveyNess       Dimension `json:"survey_ness"`
	Gaming           Flag      `json:"gaming"`
}

// qualitySchema is inlined (no $ref): every provider's structured output
// accepts it as is.
var qualitySchema = &llm.Schema{
	Name:   "survey_quality",
	Strict: true,
	JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "content_depth": {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}, "justification": {"type": "string"}}, "required": ["score", "justification"], "additionalProperties": false},
    "synthesis_structure": {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}, "justification": {"type": "string"}}, "required": ["score", "justification"], "additionalProperties": false},
    "insight_trends": {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}, "justification": {"type": "string"}}, "required": ["score", "justification"], "additionalProperties": false},
    "future_directions": {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}, "justification": {"type": "string"}}, "required": ["score", "justification"], "additionalProperties": false},
    "survey_ness": {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}, "justification": {"type": "string"}}, "required": ["score", "justification"], "additionalProperties": false},
    "gaming": {"type": "object", "properties": {"flag": {"type": "boolean"}, "justification": {"type": "string"}}, "required": ["flag", "justification"], "additionalProperties": false}
  },
  "required": ["content_depth", "synthesis_structure", "insight_trends", "future_directions", "survey_ness", "gaming"],
  "additionalProperties": false
}`),
}

// QualityOptions tune the rubric judge. The zero value means the defaults.
type QualityOptions struct {
	// MaxReportChars is the most characters of a report sent (default
	// 100,000, about 25k tokens). A longer report keeps its beginning and
	// its end (where future directions usually are), the middle is cut,
	// and the prompt says so.
	MaxReportChars int
	// Temperature of every call (default 0).
	Temperature *float64
	// MaxTokens caps the answer (default 4096: room for a reasoning
	// model's thinking).
	MaxTokens int
	// Load reads a report file's text (default report.Load); the caller
	// passes its own to apply its input checks, for scoring and estimates
	// alike.
	Load func(path string) (string, error)
}

// Default rubric settings.
const (
	DefaultMaxReportChars = 100_000
	DefaultQualityTokens  = 4096
)

// QualityJudge scores reports on the rubric with a model, one call a report.
type QualityJudge struct {
	c    *llm.Client
	opt  QualityOptions
	tmpl *prompts.Prompt
}

// load reads a report the way the options say.
func (j *QualityJudge) load(path string) (string, error) {
	if j.opt.Load != nil {
		return j.opt.Load(path)
	}
	return report.Load(path)
}

// NewQualityJudge returns a judge calling c.
func NewQualityJudge(c *llm.Client, opt QualityOptions) (*QualityJudge, error) {
	if c == nil {
		return nil, fmt.Errorf("quality judge: no model client: %w", claimtrace.ErrInvalid)
	}
	if opt.MaxReportChars == 0 {
		opt.MaxReportChars = DefaultMaxReportChars
	}
	if opt.MaxReportChars < 1000 {
		return nil, fmt.Errorf("quality judge: report budget %d characters: want at least 1000: %w", opt.MaxReportChars, claimtrace.ErrInvalid)
	}
	if opt.Temperature == nil {
		opt.Temperature = ptr(0)
	}
	if opt.MaxTokens <= 0 {
		opt.MaxTokens = DefaultQualityTokens
	}
	tmpl, err := prompts.Get("analysis/quality")
	if err != nil {
		return nil, err
	}
	return &QualityJudge{c: c, opt: opt, tmpl: tmpl}, nil
}

// Model names the judge's model.
func (j *QualityJudge) Model() string { return j.c.Endpoint().String() }

// Excerpt is the part of a report sent to the judge.
type Excerpt struct {
	Text string
	// Chars is the report's length and Sent what was sent, in characters.
	Chars, Sent int
	Truncated   bool
	// Note tells the judge what was left out ("" when nothing was).
	Note string
}

// Excerpt cuts report to the budget: its first three quarters and its
// last quarter, at line breaks when one is near, with a marker where the
// middle was left out.
func (j *QualityJudge) Excerpt(report string) Excerpt {
	return excerpt(report, j.opt.MaxReportChars)
}

func excerpt(text string, budget int) Excerpt {
	n := utf8.RuneCountInString(text)
	if n <= budget {
		return Excerpt{Text: text, Chars: n, Sent: n}
	}
	runes := []rune(text)
	head, tail := budget*3/4, budget/4
	// Prefer cutting at a line break within the last (first) tenth of the
	// kept part.
	h := head
	for i := head; i > head*9/10; i-- {
		if runes[i-1] == '\n' {
			h = i
			break
		}
	}
	t := n - tail
	for i := t; i < n-tail*9/10; i++ {
		if runes[i] == '\n' {
			t = i + 1
			break
		}
	}
	omitted := t - h
	sep := "\n\n"
	if runes[h-1] == '\n' {
		sep = "\n"
	}
	text = string(runes[:h]) + sep + fmt.Sprintf("[… %d characters of the report omitted here …]\n\n", omitted) + string(runes[t:])
	sent := h + (n - t)
	note := fmt.Sprintf("the report is %d characters long; to fit the length budget its middle (%d characters, marked [… omitted here …]) was left out, and its first %d and last %d characters are shown. Do not penalize the omission itself: judge the report from what is shown.",
		n, omitted, h, n-t)
	return Excerpt{Text: text, Chars: n, Sent: sent, Truncated: true, Note: note}
}

// Request builds the call that scores report, written for task.
func (j *QualityJudge) Request(task claimtrace.Task, report string) (llm.Request, Excerpt, error) {
	ex := j.Excerpt(report)
	text, err := j.tmpl.Render(map[string]string{"Prompt": strings.TrimSpace(task.Prompt), "Report": ex.Text, "Note": ex.Note})
	if err != nil {
		return llm.Request{}, ex, err
	}
	t := *j.opt.Temperature
	return llm.Request{Stage: StageQuality, Messages: []llm.Message{llm.UserMessage(text)}, Schema: qualitySchema,
		Temperature: &t, MaxTokens: j.opt.MaxTokens}, ex, nil
}

// Score asks the model for the rubric of one report. Errors are the
// model's (after its retries) or a malformed answer: the caller counts a
// failure, never a score.
func (j *QualityJudge) Score(ctx context.Context, task claimtrace.Task, report string) (Rubric, Excerpt, error) {
	req, ex, err := j.Request(task, report)
	if err != nil {
		return Rubric{}, ex, err
	}
	var r Rubric
	if _, err := j.c.GenerateJSON(ctx, req, &r); err != nil {
		return Rubric{}, ex, fmt.Errorf("quality of %s: %w", task.ArXivID, err)
	}
	for _, d := range []Dimension{r.ContentDepth, r.Synthesis, r.Insight, r.FutureDirections, r.SurveyNess} {
		if d.Score < 1 || d.Score > 5 {
			return Rubric{}, ex, fmt.Errorf("quality of %s: score %d outside 1-5: %w", task.ArXivID, d.Score, llm.ErrMalformed)
		}
	}
	return r, ex, nil
}

// QualityScore is one report's outcome.
type QualityScore struct {
	Task   string  `json:"task_id"`
	File   string  `json:"file"`
	Status string  `json:"status"` // done | failed
	Rubric *Rubric `json:"rubric,omitempty"`
	Err    string  `json:"error,omitempty"`
	// Chars is the report's length, Sent what the judge saw (characters).
	Chars     int  `json:"chars"`
	Sent      int  `json:"sent"`
	Truncated bool `json:"truncated,omitempty"`
}

// QualityMeans are a system's means over its scored reports (Table 3).
type QualityMeans struct {
	Reports   int `json:"reports"`
	Scored    int `json:"scored"`
	Failed    int `json:"failed"`
	Truncated int `json:"truncated"`
	// Means of the 1–5 scores.
	ContentDepth     *float64 `json:"content_depth"`
	Synthesis        *float64 `json:"synthesis_structure"`
	Insight          *float64 `json:"insight_trends"`
	FutureDirections *float64 `json:"future_directions"`
	SurveyNess       *float64 `json:"survey_ness"`
	// GamingRate is the share of scored reports flagged.
	GamingRate *float64 `json:"gaming_rate"`
}

// QualityRun is one system's rubric results.
type QualityRun struct {
	System string         `json:"system"`
	Dir    string         `json:"dir"`
	Model  string         `json:"model"`
	Means  QualityMeans   `json:"means"`
	Scores []QualityScore `json:"scores"`
	// Skipped lists report files that are not tasks of the dataset or are
	// ambiguous (two files for one task).
	Skipped []string `json:"skipped,omitempty"`
}

// ReportFile is one report of a reports directory.
type ReportFile struct {
	Task string
	Path string
}

// ReportFiles lists the reports of dir that are tasks of ds:
// <task>.json, .md or .txt (the reports-directory contract). Files of
// other names, and tasks with several files, are returned as skipped.
func ReportFiles(ds *dataset.Dataset, dir string) (files []ReportFile, skipped []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("reports %s: %w", dir, err)
	}
	byTask := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !report.Candidate(name) {
			continue
		}
		task := strings.TrimSuffix(name, filepath.Ext(name))
		if _, ok := ds.Task(task); !ok {
			skipped = append(skipped, name+": not a task of the dataset")
			continue
		}
		byTask[task] = append(byTask[task], filepath.Join(dir, name))
	}
	for task, paths := range byTask {
		if len(paths) > 1 {
			sort.Strings(paths)
			skipped = append(skipped, task+": several files ("+strings.Join(paths, ", ")+")")
			continue
		}
		files = append(files, ReportFile{Task: task, Path: paths[0]})
	}
	sort.Slice(files, func(i, k int) bool { return files[i].Task < files[k].Task })
	sort.Strings(skipped)
	return files, skipped, nil
}

// fatal reports errors that must stop a run instead of failing one
// report: every later call would fail the same way, or the budget is spent.
func fatal(err error) bool {
	for _, e := range []error{claimtrace.ErrBudget, llm.ErrAuth, llm.ErrQuota, llm.ErrModelNotFound, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// ScoreReports scores every report of a reports directory, concurrency
// at a time (the client's limits still apply). A report that cannot be
// read, or whose call fails or answers malformed JSON, is a failed score:
// counted, never averaged. A budget, key or quota error stops the run.
// done, when set, receives each score as soon as it is known (to store
// it); its error stops the run.
func (j *QualityJudge) ScoreReports(ctx context.Context, ds *dataset.Dataset, dir string, concurrency int, done func(QualityScore) error) (*QualityRun, error) {
	files, skipped, err := ReportFiles(ds, dir)
	if err != nil {
		return nil, err
	}
	run := &QualityRun{System: filepath.Base(filepath.Clean(dir)), Dir: dir, Model: j.Model(), Skipped: skipped, Scores: make([]QualityScore, len(files))}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, concurrency))
	var mu sync.Mutex
	for i, f := range files {
		g.Go(func() error {
			s := QualityScore{Task: f.Task, File: f.Path, Status: "done"}
			task, _ := ds.Task(f.Task)
			text, err := j.load(f.Path)
			if err == nil {
				var r Rubric
				var ex Excerpt
				r, ex, err = j.Score(gctx, task, text)
				s.Chars, s.Sent, s.Truncated = ex.Chars, ex.Sent, ex.Truncated
				if err == nil {
					s.Rubric = &r
				}
			}
			if err != nil {
				if fatal(err) {
					return err
				}
				s.Status, s.Err = "failed", err.Error()
			}
			mu.Lock()
			defer mu.Unlock()
			run.Scores[i] = s
			if done != nil {
				return done(s)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	run.Means = qualityMeans(run.Scores)
	return run, nil
}

func qualityMeans(scores []QualityScore) QualityMeans {
	m := QualityMeans{Reports: len(scores)}
	var d, s, in, f, sv, g score.Mean
	for _, q := range scores {
		if q.Truncated {
			m.Truncated++
		}
		if q.Rubric == nil {
			m.Failed++
			continue
		}
		m.Scored++
		r := q.Rubric
		d.AddValue(float64(r.ContentDepth.Score))
		s.AddValue(float64(r.Synthesis.Score))
		in.AddValue(float64(r.Insight.Score))
		f.AddValue(float64(r.FutureDirections.Score))
		sv.AddValue(float64(r.SurveyNess.Score))
		if r.Gaming.Flag {
			g.AddValue(1)
		} else {
			g.AddValue(0)
		}
	}
	m.ContentDepth, m.Synthesis, m.Insight, m.FutureDirections, m.SurveyNess, m.GamingRate =
		d.Value(), s.Value(), in.Value(), f.Value(), sv.Value(), g.Value()
	return m
}
