package analysis_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/analysis"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/score"
)

func TestClassify(t *testing.T) {
	s, u, p, c, k := claimtrace.Supported, claimtrace.Unsupported, claimtrace.Partial, claimtrace.Contradicted, claimtrace.Unknown
	reports := []report{
		{
			task: "2202.00001", gt: 50, matched: []string{"a", "b"},
			unmatched: []score.Unmatched{
				{URL: "https://arxiv.org/abs/2403.01234", Title: "Federated Learning Security Under IoT Critical Infrastructure", Reason: score.ReasonPostCutoff, Detail: "published 2023-09, cutoff 2022-07"},
				{URL: "https://arxiv.org/abs/2107.99999", Reason: score.ReasonUnresolvable, Detail: "arxiv id not found"},
				{URL: "https://www.researchgate.net/publication/1_Manifold_Learning_for_Music_Information_Retrieval", Reason: score.ReasonUnresolvable, Detail: "bot_wall"},
				{URL: "https://en.wikipedia.org/wiki/Federated_learning", Reason: score.ReasonNotAPaper},
				{URL: "https://arxiv.org/abs/2101.00001", Reason: score.ReasonSourceSurvey, Detail: "the task's own survey"},
			},
			verdicts: []claimtrace.Label{s, s, u, k, k, c},
			reasons:  []string{"", "", "", "source not readable: http 404", "judge failed: openai:gpt-4o: rate limited (http 429)", ""},
			facts:    []claimtrace.FactLabel{claimtrace.FactTrue, claimtrace.FactFalse},
		},
		{
			task: "2202.00002", gt: 30, matched: []string{"c"},
			unmatched: []score.Unmatched{
				{URL: "https://doi.org/10.1234/fake.2021.001", Reason: score.ReasonUnresolvable, Detail: "doi not registered"},
				{URL: "https://dead.example.org/paper.pdf", Reason: score.ReasonUnresolvable, Detail: "no such host"},
				{URL: "https://arxiv.org/abs/2105.00002", Title: "Some Related Paper", Reason: score.ReasonNotInGT},
				{URL: "https://arxiv.org/abs/2106.00003", Reason: score.ReasonPostCutoff, Detail: "published 2021-06, cutoff 2021-01"},
			},
			verdicts: []claimtrace.Label{p, u, k, k, k},
			reasons:  []string{"", "", "source shows a paywall page, not content", "evidence quote not found in the source; verdict rejected", "the source does not address the claim"},
			facts:    []claimtrace.FactLabel{claimtrace.FactUndecided, claimtrace.FactTrue},
		},
	}
	run, err := analysis.LoadRun(writeRun(t, filepath.Join(t.TempDir(), "gemini-dr"), reports, true))
	if err != nil {
		t.Fatal(err)
	}
	got := analysis.Classify(run, 2)
	sh := func(n, of int) analysis.Share {
		s := analysis.Share{N: n}
		if of > 0 {
			s.Share = f(float64(n) / float64(of))
		}
		return s
	}
	wantCit := analysis.CitationErrors{
		Works: 12, Hits: 3, NonHits: 9,
		PostCutoff: sh(2, 9), Unresolvable: sh(4, 9), Unverifiable: sh(0, 9), Misattributed: sh(0, 9), NotFetched: sh(0, 9), NotAPaper: sh(1, 9), SourceSurvey: sh(1, 9), NotInGT: sh(1, 9),
		UnresolvableBy: map[string]analysis.Share{
			analysis.CauseFabricatedArXiv: sh(1, 4), analysis.CauseFabricatedDOI: sh(1, 4),
			analysis.CauseWalled: sh(1, 4), analysis.CauseDead: sh(1, 4),
		},
		Fabricated: sh(2, 12),
	}
	if diff := cmp.Diff(wantCit, got.Citations); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	wantSt := analysis.StatementErrors{
		Pairs: 11, Judged: 6,
		Supported: sh(2, 6), Partial: sh(1, 6), Unsupported: sh(2, 6), Contradicted: sh(1, 6),
		Unknown: sh(5, 11),
		UnknownBy: map[string]analysis.Share{
			analysis.UnknownSourceDead: sh(1, 5), analysis.UnknownSourceWalled: sh(1, 5),
			analysis.UnknownJudgeFailed: sh(1, 5), analysis.UnknownEvidenceRejected: sh(1, 5), analysis.UnknownJudgeAbstained: sh(1, 5),
		},
		UnknownSource: sh(2, 5), UnknownJudge: sh(3, 5),
	}
	if diff := cmp.Diff(wantSt, got.Statements); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
	wantFacts := analysis.FactErrors{Checked: 4, Decided: 3, False: sh(1, 3), Undecided: sh(1, 4)}
	if diff := cmp.Diff(wantFacts, got.Facts); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}

	// Examples name the task and the URL; with two per category they come
	// from both reports in turn.
	wantEx := []analysis.Example{
		{Task: "2202.00001", URL: "https://arxiv.org/abs/2403.01234", Title: "Federated Learning Security Under IoT Critical Infrastructure", Detail: "published 2023-09, cutoff 2022-07"},
		{Task: "2202.00002", URL: "https://arxiv.org/abs/2106.00003", Detail: "published 2021-06, cutoff 2021-01"},
	}
	if diff := cmp.Diff(wantEx, got.Examples[score.ReasonPostCutoff]); diff != "" {
		t.Errorf("post-cutoff examples (-want +got):\n%s", diff)
	}
	if ex := got.Examples[score.ReasonUnresolvable]; len(ex) != 2 || ex[0].Task == ex[1].Task {
		t.Errorf("unresolvable examples = %+v, want one of each report", ex)
	}
	if ex := got.Examples[analysis.CauseFabricatedDOI]; len(ex) != 1 || ex[0].URL != "https://doi.org/10.1234/fake.2021.001" {
		t.Errorf("fabricated DOI examples = %+v", ex)
	}
	if ex := got.Examples[analysis.ExampleContradicted]; len(ex) != 1 || ex[0].Claim == "" || ex[0].Detail != "source: the source says otherwise" {
		t.Errorf("contradicted examples = %+v", ex)
	}
	if ex := got.Examples[analysis.ExampleFalseFact]; len(ex) != 1 || ex[0].Detail == "" {
		t.Errorf("false fact examples = %+v", ex)
	}
	if none := analysis.Classify(run, 0); none.Examples != nil {
		t.Errorf("examples without asking: %v", none.Examples)
	}
}

func TestCauses(t *testing.T) {
	// The statuses eval writes (internal/eval/resolve.go) and the verdict
	// reasons of unknown pairs (internal/eval/verify.go).
	statuses := map[string]string{
		"arxiv id not found": analysis.CauseFabricatedArXiv, "doi not registered": analysis.CauseFabricatedDOI,
		"http 404": analysis.CauseDead, "http 410": analysis.CauseDead, "no such host": analysis.CauseDead, "error_page": analysis.CauseDead,
		"http 403": analysis.CauseWalled, "http 429": analysis.CauseWalled, "bot_wall": analysis.CauseWalled, "paywall": analysis.CauseWalled, "login": analysis.CauseWalled,
		"http 503": analysis.CauseUnreachable, "timeout": analysis.CauseUnreachable, "unreachable": analysis.CauseUnreachable, "error": analysis.CauseUnreachable,
		"empty": analysis.CauseUnreadable, "unreadable: pdf: malformed xref": analysis.CauseUnreadable,
		"invalid url": analysis.CauseInvalidURL, "blocked": analysis.CauseOther, "": analysis.CauseOther, "http abc": analysis.CauseOther,
	}
	reasons := map[string]string{
		"source not readable: http 404":                            analysis.UnknownSourceDead,
		"source not readable: arxiv id not found":                  analysis.UnknownSourceDead,
		"source not readable: timeout":                             analysis.UnknownSourceUnreachable,
		"source not readable: -":                                   analysis.UnknownSourceNoText,
		"source not readable: blocked":                             analysis.UnknownSourceUnreachable,
		"source not readable: http 403":                            analysis.UnknownSourceWalled,
		"source shows a bot_wall page, not content":                analysis.UnknownSourceWalled,
		"source shows a error_page page, not content":              analysis.UnknownSourceDead,
		"source shows a empty page, not content":                   analysis.UnknownSourceNoText,
		"source has no readable text":                              analysis.UnknownSourceNoText,
		"source not fetched: no network":                           analysis.UnknownSourceUnreachable,
		"judge failed: malformed answer":                           analysis.UnknownJudgeFailed,
		"judge returned 3 verdicts for 4 claims":                   analysis.UnknownJudgeFailed,
		"evidence quote not found in the source; verdict rejected": analysis.UnknownEvidenceRejected,
		"verdict without evidence: the model said so":              analysis.UnknownEvidenceRejected,
		"":                                     analysis.UnknownJudgeAbstained,
		"not enough information in the source": analysis.UnknownJudgeAbstained,
	}
	// The reasons of issue 19 have their own shares.
	r := report{task: "t", gt: 1, unmatched: []score.Unmatched{{URL: "a", Reason: score.ReasonMisattributed}, {URL: "b", Reason: score.ReasonNotFetched}, {URL: "c", Reason: score.ReasonNotFetched}}}
	if c := analysis.Classify(&analysis.Run{Reports: []*eval.Result{r.result()}}, 0).Citations; c.Misattributed.N != 1 || c.NotFetched.N != 2 {
		t.Errorf("misattributed %+v, not fetched %+v; want 1 and 2", c.Misattributed, c.NotFetched)
	}
	for status, want := range statuses {
		r := report{task: "t", gt: 1, unmatched: []score.Unmatched{{URL: "u", Reason: score.ReasonUnresolvable, Detail: status}}}
		run := &analysis.Run{Reports: []*eval.Result{r.result()}}
		if got := analysis.Classify(run, 0).Citations.UnresolvableBy; got[want].N != 1 {
			t.Errorf("status %q: causes %v, want %s", status, got, want)
		}
	}
	for reason, want := range reasons {
		r := report{task: "t", gt: 1, verdicts: []claimtrace.Label{claimtrace.Unknown}, reasons: []string{reason}}
		run := &analysis.Run{Reports: []*eval.Result{r.result()}}
		if got := analysis.Classify(run, 0).Statements.UnknownBy; got[want].N != 1 {
			t.Errorf("reason %q: causes %v, want %s", reason, got, want)
		}
	}
}
