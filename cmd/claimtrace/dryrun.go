package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/search"
)

// A dry run is the real run with clients in dry-run mode (llm.DryRun): the
// pipeline that runs is the pipeline that is priced. Three things a model
// or a search API would decide are stood in for here, so that the stages
// after them are priced too.

// statementTag numbers the statements of a batched judge prompt.
var statementTag = regexp.MustCompile(`<statement n="(\d+)">`)

// dryAnswer answers the batched judge with one "unknown" verdict a
// statement, as a careful model without evidence would: a neutral answer
// without them would make the judge ask again, a call a real run seldom
// makes. Other requests get llm.NeutralJSON's answer.
func dryAnswer(req llm.Request) (string, bool) {
	if req.Stage != judge.StageJudge || len(req.Messages) == 0 {
		return "", false
	}
	var vs []string
	for _, m := range statementTag.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Content, -1) {
		vs = append(vs, fmt.Sprintf(`{"claim": %s, "label": "unknown", "strength": 0, "evidence": "", "reason": "dry run"}`, m[1]))
	}
	return `{"verdicts": [` + strings.Join(vs, ", ") + `]}`, true
}

// dryExtract runs the paper's extraction of non-cited statements (A.4.2),
// which prices it, and returns the offline filter's pick of the non-cited
// claims instead of its empty answer: what the model would extract is
// unknown before it runs, and the stand-in lets the fact-checks be priced.
func dryExtract(extract func(context.Context, string, []eval.CitedStatement) ([]string, error)) func(context.Context, string, []eval.CitedStatement) ([]string, error) {
	return func(ctx context.Context, text string, cited []eval.CitedStatement) ([]string, error) {
		if _, err := extract(ctx, text, cited); err != nil {
			return nil, err
		}
		var guess []string
		for _, cl := range report.Parse(text).Claims {
			if ok, _ := factcheck.CheckWorthy(cl.Text); ok && !cl.Cited() {
				guess = append(guess, cl.Text)
			}
		}
		return guess, nil
	}
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
func printDryRun(w io.Writer, d *llm.DryRun, results []*eval.Result) {
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
	fmt.Fprintln(w, "estimates count input as bytes/4 and output as each request's token cap; cached answers would cost nothing. Nothing was sent.")
}

func usd(s llm.StageEstimate) string {
	if s.Unpriced && s.Cost == 0 {
		return "unpriced"
	}
	return fmt.Sprintf("%.4f", s.Cost)
}
