package analysis_test

import (
	"fmt"

	"hash/fnv"
	"path/filepath"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"

	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// realSurveys loads the released ReportBench ground truth (100 surveys,
// 16,204 references).
func realSurveys(tb testing.TB) (*dataset.Dataset, []*analysis.Survey) {
	tb.Helper()
	ds, err := dataset.LoadDataset(sharedtest.Dir(tb, "reportbench-v1.1"))
	if err != nil {
		tb.Fatal(err)
	}
	var tasks []string
	for _, t := range ds.Tasks {
		tasks = append(tasks, t.ArXivID)
	}
	surveys, err := analysis.Surveys(ds, tasks)
	if err != nil {
		tb.Fatal(err)
	}
	return ds, surveys
}

// TestRealGroundTruth checks the grouping on the released ground truth:
// each survey's distinct references are exactly the recall denominator
// the evaluation uses (biblio.Index.Distinct), and reports what a full
// citation-count lookup has to query.
func TestRealGroundTruth(t *testing.T) {
	ds, surveys := realSurveys(t)
	var refs, distinct, doi, arxiv, both, titleOnly, none int
	keys := map[string]bool{}
	for _, s := range surveys {
		gt, err := ds.GT(s.Task)
		if err != nil {
			t.Fatal(err)
		}
		refs += len(gt)
		if want := biblio.NewIndex(gt).Distinct(); len(s.Refs) != want {
			t.Errorf("%s: %d distinct references, the matcher counts %d", s.Task, len(s.Refs), want)
		}
		distinct += len(s.Refs)
		for _, r := range s.Refs {
			q := r.Query
			keys[q.Key()] = true
			switch {
			case q.DOI != "" && q.ArXivID != "":
				both++
			case q.DOI != "":
				doi++
			case q.ArXivID != "":
				arxiv++
			case q.Key() != "":
				titleOnly++
			default:
				none++
			}
		}
	}
	if refs != 16204 {
		t.Errorf("%d references, the released ground truth has 16,204", refs)
	}
	ids := doi + arxiv + 2*both
	t.Logf("%d surveys, %d references, %d distinct; lookups: %d by DOI, %d by arXiv id, %d by both, %d by title only, %d without identifier or title",
		len(surveys), refs, distinct, doi, arxiv, both, titleOnly, none)
	t.Logf("%d distinct lookup keys across surveys (papers several surveys cite are looked up once)", len(keys))
	t.Logf("a full OpenAlex pass: %d batch requests for %d DOIs, then up to %d title searches (arXiv-only and title-only references)",
		(ids+scholar.OpenAlexBatch-1)/scholar.OpenAlexBatch, ids, arxiv+titleOnly)
}

// syntheticCounts gives every reference a deterministic count with many
// ties and zeros, as real citation counts have.
func syntheticCounts(surveys []*analysis.Survey) map[string]analysis.CountEntry {
	out := map[string]analysis.CountEntry{}
	for _, s := range surveys {
		for _, r := range s.Refs {
			k := r.Query.Key()
			if k == "" {
				continue
			}
			h := fnv.New32a()
			h.Write([]byte(k))
			v := h.Sum32()
			if v%17 == 0 {
				out[k] = analysis.CountEntry{Key: k, Status: analysis.CountNotFound}
				continue
			}
			out[k] = analysis.CountEntry{Key: k, Status: analysis.CountFound, CitedBy: int(v%1000) * int(v%7), Source: "openalex"}
		}
	}
	return out
}

// syntheticRun is a system that matched every 40th reference of each
// survey.
func syntheticRun(surveys []*analysis.Survey) *analysis.Run {
	run := &analysis.Run{Name: "synthetic"}
	for _, s := range surveys {
		r := report{task: s.Task, gt: len(s.Refs)}
		for i := 0; i < len(s.Refs); i += 40 {
			r.matched = append(r.matched, s.Refs[i].BibID)
		}
		run.Reports = append(run.Reports, r.result())
	}
	return run
}

func BenchmarkSurveys(b *testing.B) {
	ds, _ := realSurveys(b)
	var tasks []string
	for _, t := range ds.Tasks {
		tasks = append(tasks, t.ArXivID)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := analysis.Surveys(ds, tasks); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStratify(b *testing.B) {
	_, surveys := realSurveys(b)
	counts := syntheticCounts(surveys)
	runs := []*analysis.Run{syntheticRun(surveys), syntheticRun(surveys)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := analysis.Stratify(surveys, counts, runs, analysis.ImportanceOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIntervals bootstraps 100 reports (ReportBench's size), seven
// metrics, 2000 resamples: what leaderboard --ci does per row.
func BenchmarkIntervals(b *testing.B) {
	reports := sample(1, 100)
	for b.Loop() {
		if _, err := analysis.Intervals(reports, analysis.Metrics(), analysis.BootstrapOptions{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	a := &analysis.Run{Name: "a", Reports: sample(1, 100)}
	c := &analysis.Run{Name: "b", Reports: sample(1, 100)}
	for b.Loop() {
		if _, err := analysis.Compare(a, c, analysis.Metrics(), analysis.BootstrapOptions{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCountCache loads a cache of every reference of the released
// ground truth.
func BenchmarkCountCache(b *testing.B) {
	_, surveys := realSurveys(b)
	path := filepath.Join(b.TempDir(), "c.jsonl")
	c, err := analysis.LoadCountCache(path)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, e := range syntheticCounts(surveys) {
		e.At = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if e.Status == analysis.CountFound {
			e.Title = fmt.Sprintf("Title of %s", e.Key)
		}
		if err := c.Put(e); err != nil {
			b.Fatal(err)
		}
		n++
	}
	c.Close()
	b.ResetTimer()
	for b.Loop() {
		c, err := analysis.LoadCountCache(path)
		if err != nil || c.Len() != n {
			b.Fatal(c.Len(), err)
		}
	}
}

// BenchmarkClassify classifies 100 reports of 200 cited works and 300
// verdicts each.
func BenchmarkClassify(b *testing.B) {
	run := &analysis.Run{Name: "big"}
	reasons := []string{score.ReasonNotInGT, score.ReasonPostCutoff, score.ReasonUnresolvable, score.ReasonNotAPaper}
	for i := range 100 {
		r := report{task: fmt.Sprintf("t%03d", i), gt: 160}
		for k := range 200 {
			r.unmatched = append(r.unmatched, score.Unmatched{URL: fmt.Sprintf("https://example.org/%d/%d", i, k), Reason: reasons[k%4], Detail: "http 404"})
		}
		res := r.result()
		for k := range 300 {
			res.Claims = append(res.Claims, eval.ClaimResult{Text: "claim", Verdicts: labelled(k)})
		}
		run.Reports = append(run.Reports, res)
	}
	for b.Loop() {
		analysis.Classify(run, 3)
	}
}

// labelled returns one verdict, cycling through the labels and unknown
// causes.
func labelled(k int) []claimtrace.Verdict {
	reasons := []string{"", "source not readable: http 404", "judge failed: malformed answer", "source shows a paywall page, not content"}
	labels := []claimtrace.Label{claimtrace.Supported, claimtrace.Unsupported, claimtrace.Unknown, claimtrace.Partial, claimtrace.Contradicted}
	return []claimtrace.Verdict{{URL: "https://example.org/s", Label: labels[k%5], Reason: reasons[k%4]}}
}
