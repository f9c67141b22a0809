package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
)

// analyzeFixture is the demo turned into three tasks (the demo report and
// two variants whose reference lists lost some entries, so their scores
// differ), evaluated offline twice: judged by the offline judge and
// unjudged.
type analyzeFixture struct {
	dir, dataset, reports, judged, unjudged, store string
}

var demoTask = "2312.10997"

func newAnalyzeFixture(t *testing.T) analyzeFixture {
	t.Helper()
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAIMTRACE_DATA_DIR", filepath.Join(dir, "data"))
	empty := filepath.Join(dir, "config.toml")
	os.WriteFile(empty, nil, 0o644)
	t.Setenv("CLAIMTRACE_CONFIG", empty)
	fx := analyzeFixture{dir: dir, dataset: filepath.Join(dir, "dataset"), reports: filepath.Join(dir, "reports"),
		judged: filepath.Join(dir, "out", "judged"), unjudged: filepath.Join(dir, "out", "unjudged"), store: filepath.Join(dir, "s.db")}
	tasksFile := filepath.Join(fx.dataset, dataset.TasksFile)
	line, err := os.ReadFile(tasksFile)
	if err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(fx.reports, demoTask+".md"))
	if err != nil {
		t.Fatal(err)
	}
	gt, err := os.ReadFile(filepath.Join(fx.dataset, dataset.GTDir, demoTask+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tasks := strings.TrimSpace(string(line)) + "\n"
	for id, drop := range map[string][]string{"2312.90001": {"[5]", "[6]", "[7]"}, "2312.90002": {"[12]", "[13]", "[14]", "[18]", "[19]"}} {
		var task map[string]any
		if err := json.Unmarshal(line, &task); err != nil {
			t.Fatal(err)
		}
		task["arxiv_id"] = id
		b, _ := json.Marshal(task)
		tasks += string(b) + "\n"
		os.WriteFile(filepath.Join(fx.dataset, dataset.GTDir, id+".jsonl"), gt, 0o644)
		var kept []string
		for _, l := range strings.Split(string(report), "\n") {
			if !hasAnyPrefix(l, drop) {
				kept = append(kept, l)
			}
		}
		os.WriteFile(filepath.Join(fx.reports, id+".md"), []byte(strings.Join(kept, "\n")), 0o644)
	}
	os.WriteFile(tasksFile, []byte(tasks), 0o644)
	for out, judge := range map[string]string{fx.judged: "offline", fx.unjudged: "none"} {
		_, errOut, code := cli(t, "eval", "--dataset", fx.dataset, "--reports", fx.reports, "--snapshot", filepath.Join(dir, "snapshot"),
			"--offline", "--store", fx.store, "--out", out, "--judge", judge)
		if code != 0 {
			t.Fatalf("eval --judge %s: %s", judge, errOut)
		}
	}
	return fx
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p+" ") {
			return true
		}
	}
	return false
}

func readSummary(t *testing.T, dir string) eval.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s eval.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLeaderboardCI: the intervals' point estimates are the summary's
// macro figures, contain them, and are reproducible with the seed.
func TestLeaderboardCI(t *testing.T) {
	fx := newAnalyzeFixture(t)
	out, errOut, code := cli(t, "leaderboard", "--ci", "--json", "--seed", "7", fx.judged, fx.unjudged)
	if code != 0 {
		t.Fatalf("leaderboard --ci: %s", errOut)
	}
	var rows []leaderRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		s := readSummary(t, r.Dir)
		want := map[string]*float64{
			"precision": s.Citation.Precision, "recall": s.Citation.Recall, "f1": s.Citation.F1,
			"match_rate": s.Cited.MatchRate, "factual_accuracy": s.NonCited.FactualAccuracy, "pcov": s.AAR.PCov, "psnd": s.AAR.PSnd,
		}
		if len(r.CI) != len(want) {
			t.Fatalf("%s: %d intervals", r.System, len(r.CI))
		}
		for _, iv := range r.CI {
			w := want[iv.Metric]
			switch {
			case w == nil && iv.Value != nil:
				t.Errorf("%s %s: value %v, summary has none", r.System, iv.Metric, *iv.Value)
			case w != nil && (iv.Value == nil || fmt.Sprintf("%.12f", *w) != fmt.Sprintf("%.12f", *iv.Value)):
				t.Errorf("%s %s: value %v, summary %v", r.System, iv.Metric, iv.Value, *w)
			case w != nil && !(*iv.Lo <= *w && *w <= *iv.Hi):
				t.Errorf("%s %s: [%v, %v] does not contain %v", r.System, iv.Metric, *iv.Lo, *iv.Hi, *w)
			}
			if w != nil && iv.N != 3 {
				t.Errorf("%s %s: n = %d, want 3 reports", r.System, iv.Metric, iv.N)
			}
		}
	}
	// The recall interval is not degenerate: the variants' recalls differ.
	for _, iv := range rows[0].CI {
		if iv.Metric == "recall" && *iv.Hi-*iv.Lo <= 0 {
			t.Errorf("recall interval [%v, %v] is degenerate", *iv.Lo, *iv.Hi)
		}
	}

	table, _, code := cli(t, "leaderboard", "--ci", "--seed", "7", fx.judged, fx.unjudged)
	again, _, _ := cli(t, "leaderboard", "--ci", "--seed", "7", fx.judged, fx.unjudged)
	if code != 0 || table != again {
		t.Errorf("the same seed printed different tables:\n%s\n%s", table, again)
	}
	if !regexp.MustCompile(`judged +3 +0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]`).MatchString(table) || !strings.Contains(table, "2000 resamples") {
		t.Errorf("table:\n%s", table)
	}
	if _, errOut, code := cli(t, "leaderboard", "--ci", "--resamples", "-5", fx.judged); code == 0 || !strings.Contains(errOut, "resamples") {
		t.Errorf("--resamples -5: exit %d, %s", code, errOut)
	}
	os.RemoveAll(filepath.Join(fx.unjudged, "reports"))
	if _, errOut, code := cli(t, "leaderboard", "--ci", fx.unjudged); code == 0 || !strings.Contains(errOut, "reports/") {
		t.Errorf("--ci without reports/: exit %d, %s", code, errOut)
	}
	if _, _, code := cli(t, "leaderboard", fx.unjudged); code != 0 {
		t.Errorf("without --ci the summary is enough")
	}
}

// TestAnalyzeErrors: the taxonomy's counts are the evaluation's own.
func TestAnalyzeErrors(t *testing.T) {
	fx := newAnalyzeFixture(t)
	out, errOut, code := cli(t, "analyze", "errors", "--json", fx.judged)
	if code != 0 {
		t.Fatalf("analyze errors: %s", errOut)
	}
	var ts []analysis.Taxonomy
	if err := json.Unmarshal([]byte(out), &ts); err != nil || len(ts) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	s := readSummary(t, fx.judged)
	c, got := s.Citation, ts[0].Citations
	want := []int{c.Papers + c.Web + c.Unresolvable + c.Unverifiable, c.Hits, c.PostCutoff, c.Unresolvable, c.Unverifiable, c.Web, c.SourceSurvey, c.NotInGT}
	have := []int{got.Works, got.Hits, got.PostCutoff.N, got.Unresolvable.N, got.Unverifiable.N, got.NotAPaper.N, got.SourceSurvey.N, got.NotInGT.N}
	if c.Unverifiable == 0 {
		t.Errorf("the demo cites a walled page: want an unverifiable citation in summary.json")
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("citation counts vs summary.json (-summary +taxonomy):\n%s", diff)
	}
	st := ts[0].Statements
	if st.Pairs != s.Cited.Pairs || st.Judged != s.Cited.Judged || st.Unknown.N != s.Cited.Unknown {
		t.Errorf("statements %+v vs summary %+v", st, s.Cited)
	}
	if st.UnknownSource.N+st.UnknownJudge.N != st.Unknown.N || st.Unknown.N == 0 {
		t.Errorf("unknown causes %d + %d ≠ %d", st.UnknownSource.N, st.UnknownJudge.N, st.Unknown.N)
	}

	table, errOut, code := cli(t, "analyze", "errors", "--examples", "1", fx.judged, fx.unjudged)
	if code != 0 {
		t.Fatalf("analyze errors: %s", errOut)
	}
	for _, want := range []string{"post_cutoff", "fabricated ids", "examples — judged", "  post_cutoff:", "https://arxiv.org/abs/2401.15884", "source_dead", "by judge"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if _, errOut, code := cli(t, "analyze", "errors", fx.dir); code == 0 || !strings.Contains(errOut, fx.dir) {
		t.Errorf("a directory that is no evaluation: exit %d, %s", code, errOut)
	}
}

func TestAnalyzeCompare(t *testing.T) {
	fx := newAnalyzeFixture(t)
	out, errOut, code := cli(t, "analyze", "compare", "--json", "--resamples", "500", fx.judged, fx.unjudged)
	if code != 0 {
		t.Fatalf("analyze compare: %s", errOut)
	}
	var c analysis.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.A != "judged" || c.B != "unjudged" || c.Common != 3 {
		t.Errorf("comparison = %+v", c)
	}
	for _, d := range c.Metrics {
		switch d.Metric {
		case "recall", "precision":
			// The same reports with the same sources: the judge changes
			// nothing in citation scoring.
			if d.Tasks != 3 || *d.Diff != 0 || *d.Ties != 1 {
				t.Errorf("%s: %+v, want identical runs", d.Metric, d)
			}
		case "psnd":
			// Without a judge no citation is sound.
			if *d.Diff <= 0 || *d.AWins != 1 || *d.Lo <= 0 {
				t.Errorf("psnd: %+v, want A ahead in every resample", d)
			}
		case "match_rate":
			if d.Tasks != 0 || d.Diff != nil {
				t.Errorf("match rate without a judge on B: %+v", d)
			}
		}
	}
	table, _, code := cli(t, "analyze", "compare", fx.judged, fx.unjudged)
	if code != 0 || !strings.Contains(table, "3 common tasks") || !strings.Contains(table, "psnd") {
		t.Errorf("table:\n%s", table)
	}
	if _, _, code := cli(t, "analyze", "compare", fx.judged); code == 0 {
		t.Errorf("compare with one run succeeded")
	}
}

// TestAnalyzeImportance runs the lookups against fake OpenAlex and
// Crossref APIs: the pooled recall over all strata is the evaluation's own
// recall, a rerun asks nothing, and --offline gives the same table.
func TestAnalyzeImportance(t *testing.T) {
	fx := newAnalyzeFixture(t)
	ds, err := dataset.LoadDataset(fx.dataset)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := ds.GT(demoTask)
	if err != nil {
		t.Fatal(err)
	}
	// The indexes know every reference but two, with counts rising in GT
	// order; the last reference is known to Crossref only.
	survey := analysis.NewSurvey(demoTask, refs)
	srv := scholartest.NewServer(t)
	known := 0
	for i, r := range survey.Refs {
		if i == 3 || i == 9 {
			continue
		}
		title := strings.NewReplacer("{", "", "}", "").Replace(r.Title)
		rec := scholar.Record{Title: title, DOI: r.Query.DOI, ArXivID: r.Query.ArXivID}
		srv.SetCitedBy(scholartest.OpenAlex, title, 10*(i+1))
		if i == len(survey.Refs)-1 {
			srv.Hide(scholartest.OpenAlex, title)
			if rec.DOI == "" {
				rec.DOI = "10.5555/crossref-only.2023"
			}
		}
		srv.Add(rec)
		known++
	}
	cache := filepath.Join(fx.dir, "counts.jsonl")
	args := []string{"analyze", "importance", "--dataset", fx.dataset, "--cache", cache,
		"--openalex-url", srv.URL + "/openalex", "--crossref-url", srv.URL + "/crossref", "--json", fx.judged, fx.unjudged}
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("analyze importance: %s", errOut)
	}
	var imp struct {
		Lookups analysis.LookupStats `json:"lookups"`
		analysis.Importance
	}
	if err := json.Unmarshal([]byte(out), &imp); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	n := len(survey.Refs)
	if imp.Lookups.Queries != n || imp.Lookups.Found != known || imp.Lookups.NotFound != n-known {
		t.Errorf("lookups = %+v, want %d queries, %d found", imp.Lookups, n, known)
	}
	// Three tasks share the demo's ground truth: three surveys.
	if imp.References.Total != 3*n || imp.References.Found != 3*known || len(imp.Surveys) != 3 {
		t.Errorf("references = %+v over %d surveys", imp.References, len(imp.Surveys))
	}
	for _, sq := range imp.Surveys {
		if sq.Sizes == nil || sq.Sizes[0]+sq.Sizes[1]+sq.Sizes[2]+sq.Sizes[3] != known {
			t.Errorf("survey %s: sizes %v, want %d counted references", sq.Task, sq.Sizes, known)
		}
	}
	// Pooled over every stratum, recall is the evaluation's micro recall.
	for _, sys := range imp.Systems {
		s := readSummary(t, sys.Dir)
		if sys.Tasks != 3 || sys.All.Refs != s.Citation.GTSize || sys.All.Hits != s.Citation.GTHits {
			t.Errorf("%s: all = %+v over %d tasks; summary gt_size %d, gt_hits %d", sys.System, sys.All, sys.Tasks, s.Citation.GTSize, s.Citation.GTHits)
		}
	}
	var crossref int
	f, _ := os.Open(cache)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e analysis.CountEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if e.Source == "crossref" {
			crossref++
		}
	}
	f.Close()
	if crossref != 1 {
		t.Errorf("%d counts from Crossref, want the one OpenAlex lacks", crossref)
	}

	// A rerun asks the APIs nothing; --offline prints the same table.
	before := len(srv.Requests(""))
	table, errOut, code := cli(t, append(args[:len(args)-3], fx.judged, fx.unjudged)...)
	if code != 0 || len(srv.Requests("")) != before {
		t.Fatalf("rerun: exit %d, %d new requests: %s", code, len(srv.Requests(""))-before, errOut)
	}
	offline, _, code := cli(t, "analyze", "importance", "--dataset", fx.dataset, "--cache", cache, "--offline", fx.judged, fx.unjudged)
	if code != 0 || cut(table, "recall in %") != cut(offline, "recall in %") {
		t.Errorf("offline table differs:\n%s\n---\n%s", table, offline)
	}
	if !strings.Contains(table, "Q4") || !strings.Contains(table, fmt.Sprintf("%d from the cache", n)) {
		t.Errorf("table:\n%s", table)
	}
	if _, errOut, code := cli(t, "analyze", "importance", "--dataset", fx.dataset, "--cache", cache, "--sources", "google", fx.judged); code == 0 || !strings.Contains(errOut, "google") {
		t.Errorf("--sources google: exit %d, %s", code, errOut)
	}
}

// cut returns s from the first occurrence of marker.
func cut(s, marker string) string {
	if i := strings.Index(s, marker); i >= 0 {
		return s[i:]
	}
	return ""
}

// TestAnalyzeQuality scores two systems with a fake model: scores land in
// --out and the store, a rerun is answered from the cache, and the dry run
// sees that.
func TestAnalyzeQuality(t *testing.T) {
	fx := newAnalyzeFixture(t)
	srv := llmtest.NewServer(t)
	srv.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
		d := 4
		if !strings.Contains(string(c.Body), "Active Retrieval Augmented Generation") {
			d = 3 // the variant without the FLARE reference
		}
		return llmtest.Text(fmt.Sprintf(`{"content_depth": {"score": %d, "justification": "covers retrievers and evaluation"},
			"synthesis_structure": {"score": 4, "justification": "organized by pipeline stage"},
			"insight_trends": {"score": 3, "justification": "notes the move to adaptive retrieval"},
			"future_directions": {"score": 2, "justification": "a one-line conclusion"},
			"survey_ness": {"score": 4, "justification": "reads as a short survey"},
			"gaming": {"flag": false, "justification": "synthesizes rather than lists"}}`, d))
	})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-quality-777777")
	second := filepath.Join(fx.dir, "system-b")
	os.MkdirAll(second, 0o755)
	b, _ := os.ReadFile(filepath.Join(fx.reports, demoTask+".md"))
	os.WriteFile(filepath.Join(second, demoTask+".md"), append(b, "\nSystem B adds a closing remark.\n"...), 0o644)
	store := filepath.Join(fx.dir, "q.db")
	outFile := filepath.Join(fx.dir, "quality", "scores.json")
	args := []string{"analyze", "quality", "--dataset", fx.dataset, "--reports", fx.reports, "--reports", second,
		"--model", "openai:gpt-4o-mini", "--store", store}

	dry, errOut, code := cli(t, append(args, "--dry-run", "--json")...)
	if code != 0 {
		t.Fatalf("dry run: %s", errOut)
	}
	if len(srv.Calls()) != 0 || !strings.Contains(dry, `"calls": 3`) || !strings.Contains(dry, `"calls": 1`) {
		t.Errorf("dry run sent %d requests:\n%s", len(srv.Calls()), dry)
	}

	out, errOut, code := cli(t, append(args, "--out", outFile)...)
	if code != 0 {
		t.Fatalf("analyze quality: %s", errOut)
	}
	if strings.Contains(out+errOut, "sk-test-quality-777777") {
		t.Fatal("the key leaked")
	}
	if !regexp.MustCompile(`reports +3 +3 +0 +3\.67 +4\.00 +3\.00 +2\.00 +4\.00 +0\.0%`).MatchString(out) {
		t.Errorf("table:\n%s", out)
	}
	var res struct {
		Run     string                 `json:"run"`
		Systems []*analysis.QualityRun `json:"systems"`
		LLM     struct {
			Calls int64 `json:"calls"`
		} `json:"llm"`
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Systems) != 2 || res.Systems[1].System != "system-b" || res.Systems[1].Means.Scored != 1 || res.LLM.Calls != 4 {
		t.Errorf("--out: %s", data)
	}
	if j := res.Systems[0].Scores[0].Rubric; j == nil || j.FutureDirections.Justification != "a one-line conclusion" {
		t.Errorf("justifications are not kept: %+v", res.Systems[0].Scores[0])
	}
	if len(srv.Calls()) != 4 {
		t.Errorf("%d calls, want one a report", len(srv.Calls()))
	}

	// A rerun is answered from the store's cache; the dry run knows it.
	if _, errOut, code := cli(t, args...); code != 0 || len(srv.Calls()) != 4 {
		t.Errorf("rerun: exit %d, %d calls: %s", code, len(srv.Calls()), errOut)
	}
	dry, _, _ = cli(t, append(args, "--dry-run")...)
	if !regexp.MustCompile(`reports +3 +3 +0 `).MatchString(dry) {
		t.Errorf("dry run after the run:\n%s", dry)
	}
	runs, _, _ := cli(t, "runs", "--store", store)
	if !strings.Contains(runs, res.Run) || !strings.Contains(runs, "quality/done 4") {
		t.Errorf("runs:\n%s", runs)
	}

	if _, errOut, code := cli(t, "analyze", "quality", "--dataset", fx.dataset, "--reports", fx.reports, "--reports", filepath.Join(fx.dir, "x", "reports"),
		"--model", "openai:gpt-4o-mini", "--store", store); code == 0 || !strings.Contains(errOut, "rename one") {
		t.Errorf("two systems named reports: exit %d, %s", code, errOut)
	}
}
