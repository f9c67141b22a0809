package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/store"
)

// A dry run is the real run with clients in dry-run mode (llm.DryRun): the
// pipeline that runs is the pipeline that is priced. What a model or a
// search API would decide is stood in for here, so that the stages after
// them are priced too.

// statementTag numbers the statements of a batched prompt.
var statementTag = lazyregexp.New(`<statement n="(\d+)">`)

// DefaultWorthyRate is the share of non-cited claims a dry run assumes a
// check-worthiness model calls check-worthy when no earlier run of that
// model is in the store and --check-worthy-rate is not given. It is an
// assumption, not a measurement (no model was run to measure it); the
// rate measured on the store's own runs replaces it.
const DefaultWorthyRate = 0.3

// minWorthyClaims is how many decided claims a measured rate needs.
const minWorthyClaims = 20

// worthyRate is the check-worthy share a dry run assumes, and where it
// comes from.
type worthyRate struct {
	Rate   float64 `json:"rate"`
	Source string  `json:"source"`
}

// dryAnswers answers a dry run's model requests: what a real run's
// models would most likely answer where that decides what is asked next,
// a neutral value (llm.NeutralJSON) elsewhere.
type dryAnswers struct {
	worthy float64
}

// answer answers:
//   - the batched judge: one "unknown" verdict a statement, as a careful
//     model without evidence would (an empty answer would make it ask
//     again, a call a real run seldom makes);
//   - the check-worthiness classifier: check-worthy for the share worthy
//     of the statements, spread evenly, so the fact-checks it leads to are
//     priced at the rate measured on earlier runs (see worthyRate);
//   - a fact-check vote: "true" for every statement, so the early stop
//     ends as it does when the first votes agree, the common case; a run
//     whose votes disagree makes up to half as many fact-check calls more.
func (d dryAnswers) answer(req llm.Request) (string, bool) {
	if len(req.Messages) == 0 || req.Schema == nil {
		return "", false
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	nums := statementTag.FindAllStringSubmatch(prompt, -1)
	var items []string
	switch {
	case req.Stage == judge.StageJudge:
		for _, m := range nums {
			items = append(items, fmt.Sprintf(`{"claim": %s, "label": "unknown", "strength": 0, "evidence": "", "reason": "dry run"}`, m[1]))
		}
		return `{"verdicts": [` + strings.Join(items, ", ") + `]}`, true
	case req.Stage == factcheck.StageCheckWorthy:
		for _, m := range nums {
			i, _ := strconv.Atoi(m[1])
			pick := evenly(i, d.worthy)
			items = append(items, fmt.Sprintf(`{"claim": %s, "check_worthy": %v, "reason": "dry run at a check-worthy rate of %.2f"}`, m[1], pick, d.worthy))
		}
		return `{"claims": [` + strings.Join(items, ", ") + `]}`, true
	case req.Stage == factcheck.StageVote && len(nums) > 0:
		for _, m := range nums {
			items = append(items, fmt.Sprintf(`{"statement": %s, "verdict": "true", "reason": "dry run", "sources": []}`, m[1]))
		}
		return `{"verdicts": [` + strings.Join(items, ", ") + `]}`, true
	case req.Stage == factcheck.StageVote:
		var v map[string]any
		if json.Unmarshal([]byte(llm.NeutralJSON(req.Schema.JSON)), &v) != nil {
			return "", false
		}
		if _, ok := v["verdict"]; ok {
			v["verdict"] = "true"
		}
		if _, ok := v["decision"]; ok {
			v["decision"] = true
		}
		b, _ := json.Marshal(v)
		return string(b), true
	}
	return "", false
}

// dryExtract runs the paper's extraction of non-cited statements (A.4.2),
// which prices it, and returns instead of its empty answer the share
// worthy of the report's non-cited claims, spread evenly: what the model
// would extract is unknown before it runs, and the stand-in lets the
// fact-checks be priced.
func dryExtract(extract func(context.Context, string, []eval.CitedStatement) ([]string, error), worthy float64) func(context.Context, string, []eval.CitedStatement) ([]string, error) {
	return func(ctx context.Context, text string, cited []eval.CitedStatement) ([]string, error) {
		if _, err := extract(ctx, text, cited); err != nil {
			return nil, err
		}
		var guess []string
		i := 0
		for _, cl := range report.Parse(text).Claims {
			if cl.Cited() {
				continue
			}
			i++
			if evenly(i, worthy) {
				guess = append(guess, cl.Text)
			}
		}
		return guess, nil
	}
}

// evenly reports whether item i (from 1) is among a share rate of items
// picked evenly: round(n·rate) of the first n items are.
func evenly(i int, rate float64) bool {
	return math.Round(float64(i)*rate) > math.Round(float64(i-1)*rate)
}

// dryWorthyRate settles the check-worthy rate of a dry run: --check-worthy-rate
// when given, else the rate the classifier model showed in the store's
// earlier runs (when it decided at least minWorthyClaims claims there),
// else DefaultWorthyRate.
func dryWorthyRate(ctx context.Context, st *store.Store, classifier string, flag flagValue[float64]) (worthyRate, error) {
	if flag.set {
		return worthyRate{Rate: flag.value, Source: "--check-worthy-rate"}, nil
	}
	m, err := eval.MeasuredWorthyRate(ctx, st, classifier)
	if err != nil {
		return worthyRate{}, err
	}
	if m.Claims >= minWorthyClaims {
		return worthyRate{Rate: m.Rate, Source: fmt.Sprintf("measured: %s called %d of %d claims check-worthy in earlier runs", classifier, m.Worthy, m.Claims)}, nil
	}
	return worthyRate{Rate: DefaultWorthyRate, Source: fmt.Sprintf("assumed: no earlier run of %s in the store (pass --check-worthy-rate, or run a few reports first)", classifier)}, nil
}

// drySearcher stands in for a search API in a dry run: it sends nothing
// and returns results of a typical size (a 60-byte title, a 60-byte URL, a
// 250-byte snippet), so the fact-check prompt that carries them is priced
// at about its real size.
func drySearcher(engine string) (search.Searcher, error) {
	switch strings.ToLower(engine) {
	case search.SerpAPIName, search.BraveName, search.TavilyName, search.SearXNGName:
		return placeholderSearch{}, nil
	}
	return nil, fmt.Errorf("search provider %q: want serpapi, brave, tavily or searxng: %w", engine, claimtrace.ErrInvalid)
}

type placeholderSearch struct{}

func (placeholderSearch) Search(_ context.Context, _ string, n int) ([]search.Result, error) {
	out := make([]search.Result, max(n, 1))
	for i := range out {
		out[i] = search.Result{
			Title:   "dry run: a search result title of typical length, not fetched",
			URL:     fmt.Sprintf("https://example.org/dry-run/search-result-%02d-of-typical-length", i+1),
			Snippet: strings.Repeat("snippet ", 32)[:250],
		}
	}
	return out, nil
}

// printDryRun prints what a run would cost.
func printDryRun(w io.Writer, d *llm.DryRun, results []*eval.Result, worthy *worthyRate) {
	stages := d.Stages()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tcalls\tinput tokens\toutput tokens (max)\tcost (USD)\t")
	for _, n := range slices.Sorted(maps.Keys(stages)) {
		s := stages[n]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", n, s.Calls, s.InputTokens, s.OutputTokens, usd(s))
	}
	total := d.Total()
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%s\t\n", total.Calls, total.InputTokens, total.OutputTokens, usd(total))
	tw.Flush()
	ref := eval.ReferenceEstimate(results)
	fmt.Fprintf(w, "\nthe released ReportBench code would make about %d calls for these reports (2B + 2C + U + 6N with B=%d blocks, C=%d claim–URL pairs, U=%d URLs, N=%d check-worthy non-cited claims)\n",
		ref.Calls, ref.Blocks, ref.Pairs, ref.URLs, ref.NonCited)
	if worthy != nil {
		fmt.Fprintf(w, "non-cited claims: %.0f%% assumed check-worthy (%s)\n", worthy.Rate*100, worthy.Source)
	}
	if fc, ok := stages[factcheck.StageVote]; ok && fc.Calls > 0 {
		fmt.Fprintf(w, "fact-check calls assume the first votes on a statement agree (the vote stops early); if every vote were cast: up to %d\n", fc.Calls*3/2)
	}
	fmt.Fprintln(w, "estimates count input as bytes/4 and output as each request's token cap; cached answers would cost nothing. Nothing was sent.")
}

func usd(s llm.StageEstimate) string {
	if s.Unpriced && s.Cost == 0 {
		return "unpriced"
	}
	return fmt.Sprintf("%.4f", s.Cost)
}
