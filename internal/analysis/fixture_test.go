package analysis_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// report describes one evaluated report of a fixture; result turns it
// into the eval.Result that `claimtrace eval` would write for it.
type report struct {
	task      string
	gt        int                // distinct ground-truth references
	matched   []string           // bib_ids of the hits
	unmatched []score.Unmatched  // misses with reason and detail
	verdicts  []claimtrace.Label // one cited claim per verdict
	reasons   []string           // reasons of the verdicts (same order), optional
	facts     []claimtrace.FactLabel
	pcov      *float64
	psnd      *float64
	failed    bool
}

func f(v float64) *float64 { return &v }

func (r report) result() *eval.Result {
	res := &eval.Result{Task: r.task, File: "reports/" + r.task + ".md", Status: store.StatusDone, Domain: "Computer Science",
		Claims: []eval.ClaimResult{}, Sources: []eval.SourceResult{}}
	if r.failed {
		res.Status, res.Error = store.StatusFailed, "report reports/"+r.task+".md: invalid UTF-8 at byte 12: invalid input"
		return res
	}
	cs := &score.CitationScore{Matched: []score.Matched{}, Unmatched: []score.Unmatched{}, GTSize: r.gt}
	for _, id := range r.matched {
		cs.Matched = append(cs.Matched, score.Matched{BibID: id, URL: "https://arxiv.org/abs/" + id, Key: "arxiv:" + id, Title: "Title of " + id, Method: "arxiv_id"})
		cs.Hits++
		cs.Papers++
	}
	cs.GTHits = cs.Hits
	for _, u := range r.unmatched {
		cs.Unmatched = append(cs.Unmatched, u)
		switch u.Reason {
		case score.ReasonUnresolvable:
			cs.Unresolvable++
		case score.ReasonNotAPaper:
			cs.Web++
		case score.ReasonPostCutoff:
			cs.Papers++
			cs.PostCutoff++
		case score.ReasonSourceSurvey:
			cs.Papers++
			cs.SourceSurvey++
		default:
			cs.Papers++
			cs.NotInGT++
		}
	}
	cs.Refs = cs.Papers
	cs.Finish()
	res.Citation = cs
	cited := eval.CitedStats{}
	for i, l := range r.verdicts {
		v := claimtrace.Verdict{URL: "https://example.org/src/" + r.task, Label: l, Judge: "offline"}
		if i < len(r.reasons) {
			v.Reason = r.reasons[i]
		}
		switch l {
		case claimtrace.Supported:
			v.Strength, v.Evidence = 0.9, "the source says so"
			cited.Supported++
		case claimtrace.Partial:
			v.Strength = 0.6
			cited.Partial++
		case claimtrace.Unsupported:
			v.Strength = 0.1
			cited.Unsupported++
		case claimtrace.Contradicted:
			v.Evidence = "the source says otherwise"
			cited.Contradicted++
		}
		cited.Pairs++
		if l == claimtrace.Unknown {
			cited.Unknown++
		} else {
			cited.Judged++
		}
		res.Claims = append(res.Claims, eval.ClaimResult{ID: r.task + "-c" + string(rune('a'+i)), Text: "Cited claim " + string(rune('a'+i)) + " of " + r.task + ".",
			Cited: true, Citations: []string{v.URL}, Verdicts: []claimtrace.Verdict{v}})
	}
	if cited.Judged > 0 {
		cited.MatchRate = f((float64(cited.Supported) + 0.5*float64(cited.Partial)) / float64(cited.Judged))
	}
	res.Cited = &cited
	nc := eval.NonCitedStats{}
	for i, l := range r.facts {
		fact := &claimtrace.Fact{Label: l, Confidence: 1, Votes: []claimtrace.Vote{{Checker: "gemini:gemini-2.5-flash", Label: l, Reason: "search results say " + string(l)}}}
		res.Claims = append(res.Claims, eval.ClaimResult{ID: r.task + "-n" + string(rune('a'+i)), Text: "Uncited claim " + string(rune('a'+i)) + " of " + r.task + ".",
			Citations: []string{}, Verdicts: []claimtrace.Verdict{}, Fact: fact})
		nc.Claims++
		nc.CheckWorthy++
		switch l {
		case claimtrace.FactTrue:
			nc.True++
		case claimtrace.FactFalse:
			nc.False++
		default:
			nc.Undecided++
		}
	}
	if nc.True+nc.False > 0 {
		nc.Accuracy = f(float64(nc.True) / float64(nc.True+nc.False))
	}
	res.NonCited = &nc
	res.AAR = &eval.AAR{Figures: prov.Figures{Tau: 0.5, PCov: r.pcov, PSnd: r.psnd}}
	return res
}

// writeRun writes an evaluation output directory holding reports, with a
// summary.json listing the scored ones when summary is set.
func writeRun(t testing.TB, dir string, reports []report, summary bool) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := eval.Summary{Run: "eval-fixture", Mode: "offline", Failures: []eval.Failure{}, Scores: []eval.ReportLine{}}
	for _, r := range reports {
		res := r.result()
		writeJSON(t, filepath.Join(dir, "reports", r.task+".json"), res)
		if res.Status == store.StatusDone {
			sum.Reports++
			sum.Scores = append(sum.Scores, eval.ReportLine{Task: r.task, Precision: res.Citation.Precision, Recall: res.Citation.Recall})
		} else {
			sum.ReportsFailed++
			sum.Failures = append(sum.Failures, eval.Failure{Task: r.task, Err: res.Error})
		}
	}
	if summary {
		writeJSON(t, filepath.Join(dir, "summary.json"), sum)
	}
	return dir
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
