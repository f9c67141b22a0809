// The cost comparison covers the whole LLM design, the judge here and the
// fact-checkers of internal/factcheck (which imports judge), hence an
// external test package.

package judge_test

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// Assumptions of the cost comparison, from REFERENCE.md A2.
const (
	refSourceTokens = 12000 // S̄: mean scraped source, tokens
	refBlockChars   = 16384 // released extraction block
	refClassify     = 2300  // paper classification call, tokens
	refWebPrompt    = 150   // A.4.5 prompt without the statement, tokens
	// Output tokens are not in A2's input formula; both sides are given
	// the same per-item answer sizes so the comparison is of like with like.
	outPerVerdict = 80  // our batched verdict: label, strength, quote, reason
	outPerVote    = 120 // one fact-check answer (either design; thinking excluded)
)

// reportCost is one report's figures.
type reportCost struct {
	name              string
	L, B, C, U, N     int
	uncited           int
	refCalls          int
	refIn, refOut     float64
	ourCalls          int // batched judge + 6N votes, offline check-worthy filter
	ourCallsLLMFilter int // … with the LLM check-worthy classifier
	ourCallsEarly     int // … with EarlyStop, when the first 4 votes agree
	ourIn, ourOut     float64
	ourJudgeIn        float64
	refWebIn          float64
}

// costOf computes both designs' calls and tokens for one report, building
// the requests our components would send (without sending them). Our
// judge is shown a source of exactly its passage budget (sources larger
// than the budget, as S̄ is, are cut to it), so its figures are an upper
// bound for S̄ ≥ budget.
func costOf(tb testing.TB, name, text string, standIn string) reportCost {
	doc := report.Parse(text)
	rc := reportCost{name: name, L: len(text), B: int(math.Ceil(float64(utf8.RuneCountInString(text)) / refBlockChars))}
	lj, err := judge.NewLLMJudge(llmtest.OfflineClient(llm.OpenAI, "gpt-4o"), judge.LLMJudgeOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	web, err := factcheck.NewWebChecker(llmtest.OfflineClient(llm.Gemini, "gemini-2.5-pro"), factcheck.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	classifier, err := factcheck.NewLLMCheckWorthy(llmtest.OfflineClient(llm.OpenAI, "gpt-4o-mini"), factcheck.CheckWorthyOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	urls := map[string]bool{}
	byURL := map[string][]string{}
	var order []string
	var uncited []string
	var refStatementTokens float64
	for _, cit := range doc.Citations {
		if cit.URL != "" {
			urls[cit.URL] = true
		}
	}
	for _, c := range doc.Claims {
		if !c.Cited() {
			uncited = append(uncited, c.Text)
			if ok, _ := factcheck.CheckWorthy(c.Text); ok {
				rc.N++
				refStatementTokens += float64(len(c.Text)) / 4
				q := factcheck.Query{Claim: c.Text, Context: factcheck.Paragraph(text, c.Start, c.End), Vote: 1}
				req, err := web.Request(q)
				if err != nil {
					tb.Fatal(err)
				}
				rc.ourIn += 6 * float64(llm.EstimateTokens(req))
				rc.ourOut += 6 * outPerVote
			}
			continue
		}
		seen := map[string]bool{}
		for _, i := range c.Citations {
			u := doc.Citations[i].URL
			if u == "" || seen[u] {
				continue
			}
			seen[u] = true
			rc.C++
			if byURL[u] == nil {
				order = append(order, u)
			}
			byURL[u] = append(byURL[u], c.Text)
		}
	}
	rc.U = len(urls)
	rc.uncited = len(uncited)
	for _, u := range order {
		reqs, err := lj.Requests(standIn, byURL[u])
		if err != nil {
			tb.Fatal(err)
		}
		rc.ourCalls += len(reqs)
		for _, r := range reqs {
			t := float64(llm.EstimateTokens(r))
			rc.ourIn += t
			rc.ourJudgeIn += t
		}
		rc.ourOut += float64(outPerVerdict * len(byURL[u]))
	}
	rc.ourCalls += 6 * rc.N
	rc.ourCallsEarly = rc.ourCalls - 2*rc.N
	creqs, err := classifier.Requests(uncited)
	if err != nil {
		tb.Fatal(err)
	}
	rc.ourCallsLLMFilter = rc.ourCalls + len(creqs)

	// REFERENCE A2: calls 2B + 2C + U + 6N; judge tokens
	// L/2 + 37·B·C + C·(S̄+250) + U·2.3k, plus 6N web prompts.
	rc.refCalls = 2*rc.B + 2*rc.C + rc.U + 6*rc.N
	rc.refWebIn = 6 * (refWebPrompt*float64(rc.N) + refStatementTokens)
	rc.refIn = float64(rc.L)/2 + 340*float64(rc.B) + 37*float64(rc.B*rc.C) + float64(rc.C)*(refSourceTokens+250) + float64(rc.U)*refClassify + rc.refWebIn
	rc.refOut = 55*float64(rc.C) + 40*float64(rc.N) + 35*float64(rc.C) + 100*float64(rc.U) + float64(rc.C)*outPerVerdict + 6*outPerVote*float64(rc.N)
	return rc
}

// onyxReports loads the 100 Onyx reports of the shared data, in name order.
func onyxReports(tb testing.TB) ([]string, []string) {
	dir := sharedtest.Dir(tb, "reports/onyx-drb/report_logs")
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no Onyx reports in %s: %v", dir, err)
	}
	sort.Strings(files)
	var names, texts []string
	for _, f := range files {
		text, err := report.Load(f)
		if err != nil {
			tb.Fatal(err)
		}
		names = append(names, filepath.Base(f))
		texts = append(texts, text)
	}
	return names, texts
}

// standInSource is real prose of exactly the judge's default passage
// budget: another report's text.
func standInSource(texts []string) string {
	budget := 4 * judge.DefaultPassageTokens()
	for _, t := range texts {
		if len(t) > budget && utf8.ValidString(t[:budget]) { // cut on a rune boundary
			return t[:budget]
		}
	}
	return strings.Repeat("Lorem ipsum dolor sit amet. ", budget/28)
}

// TestCallsPerReport compares, without calling a model, the LLM calls and
// tokens per report of our design with the released ReportBench code's
// (REFERENCE.md A2) on the 100 Onyx reports, and logs the table. Run with
// -v to see it.
func TestCallsPerReport(t *testing.T) {
	names, texts := onyxReports(t)
	standIn := standInSource(texts)
	var all []reportCost
	for i, text := range texts {
		all = append(all, costOf(t, names[i], text, standIn))
	}
	var sum reportCost
	for _, rc := range all {
		if rc.C > 0 && rc.ourCalls-6*rc.N >= 2*rc.C+rc.U {
			t.Errorf("%s: %d judge calls for C=%d U=%d: batching saves nothing", rc.name, rc.ourCalls-6*rc.N, rc.C, rc.U)
		}
		if rc.ourIn >= rc.refIn {
			t.Errorf("%s: our input tokens %.0f ≥ the reference's %.0f", rc.name, rc.ourIn, rc.refIn)
		}
		sum.L += rc.L
		sum.B += rc.B
		sum.C += rc.C
		sum.U += rc.U
		sum.N += rc.N
		sum.uncited += rc.uncited
		sum.refCalls += rc.refCalls
		sum.ourCalls += rc.ourCalls
		sum.ourCallsLLMFilter += rc.ourCallsLLMFilter
		sum.ourCallsEarly += rc.ourCallsEarly
		sum.refIn += rc.refIn
		sum.refOut += rc.refOut
		sum.ourIn += rc.ourIn
		sum.ourOut += rc.ourOut
		sum.ourJudgeIn += rc.ourJudgeIn
		sum.refWebIn += rc.refWebIn
	}
	n := float64(len(all))
	mean := func(x int) float64 { return float64(x) / n }
	gpt4o, _ := llm.LookupPrice(llm.OpenAI, "gpt-4o")
	refJudgeIn := sum.refIn - sum.refWebIn
	ourJudgeCalls := sum.ourCalls - 6*sum.N
	refJudgeCalls := sum.refCalls - 6*sum.N
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d Onyx reports (shared data reports/onyx-drb), per report means:\n", len(all))
	fmt.Fprintf(&b, "  L %.0f bytes · B %.1f blocks · C %.1f (claim, URL) pairs · U %.1f URLs · uncited claims %.1f · N %.1f check-worthy (offline filter)\n",
		mean(sum.L), mean(sum.B), mean(sum.C), mean(sum.U), mean(sum.uncited), mean(sum.N))
	fmt.Fprintf(&b, "  %-50s %10s %10s\n", "", "reference", "ours")
	fmt.Fprintf(&b, "  %-50s %10.1f %10.1f\n", "LLM calls (all)", mean(sum.refCalls), mean(sum.ourCalls))
	fmt.Fprintf(&b, "  %-50s %10.1f %10.1f\n", "  of which cited-statement / extraction / class.", mean(refJudgeCalls), mean(ourJudgeCalls))
	fmt.Fprintf(&b, "  %-50s %10.1f %10.1f\n", "  of which web fact-check votes (6N)", mean(6*sum.N), mean(6*sum.N))
	fmt.Fprintf(&b, "  %-50s %10s %10.1f\n", "LLM calls, with the LLM check-worthy classifier", "", mean(sum.ourCallsLLMFilter))
	fmt.Fprintf(&b, "  %-50s %10s %10.1f\n", "LLM calls, EarlyStop best case (4 votes/claim)", "", mean(sum.ourCallsEarly))
	fmt.Fprintf(&b, "  %-50s %10.0f %10.0f\n", "input tokens (all)", sum.refIn/n, sum.ourIn/n)
	fmt.Fprintf(&b, "  %-50s %10.0f %10.0f\n", "  of which judge (non-web)", refJudgeIn/n, sum.ourJudgeIn/n)
	fmt.Fprintf(&b, "  %-50s %10.0f %10.0f\n", "  of which web votes (ours: with context)", sum.refWebIn/n, (sum.ourIn-sum.ourJudgeIn)/n)
	fmt.Fprintf(&b, "  %-50s %10.0f %10.0f\n", "output tokens (assumed sizes)", sum.refOut/n, sum.ourOut/n)
	fmt.Fprintf(&b, "  %-50s %10.3f %10.3f\n", "judge input cost at gpt-4o list price, $", refJudgeIn/n*gpt4o.Input/1e6, sum.ourJudgeIn/n*gpt4o.Input/1e6)
	fmt.Fprintf(&b, "  ratio ours/reference: calls %.2f (non-web %.3f), input tokens %.3f (judge %.3f)\n",
		float64(sum.ourCalls)/float64(sum.refCalls), float64(ourJudgeCalls)/float64(refJudgeCalls), sum.ourIn/sum.refIn, sum.ourJudgeIn/refJudgeIn)
	t.Log(b.String())
}

// BenchmarkLLMJudgeRequests measures building the batched judge requests
// (BM25 over the source, excerpt selection, prompt rendering) for every
// cited source of a real report, using another real report as each
// source's text (about 40 KB).
func BenchmarkLLMJudgeRequests(b *testing.B) {
	_, texts := onyxReports(b)
	j, err := judge.NewLLMJudge(llmtest.OfflineClient(llm.OpenAI, "gpt-4o"), judge.LLMJudgeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	type work struct {
		source string
		claims [][]string
	}
	var ws []work
	for i, text := range texts[:10] {
		doc := report.Parse(text)
		byURL := map[string][]string{}
		for _, c := range doc.Claims {
			for _, k := range c.Citations {
				if u := doc.Citations[k].URL; u != "" {
					byURL[u] = append(byURL[u], c.Text)
				}
			}
		}
		w := work{source: texts[(i+1)%len(texts)]}
		for _, cs := range byURL {
			w.claims = append(w.claims, cs)
		}
		ws = append(ws, w)
	}
	b.ResetTimer()
	sources := 0
	for b.Loop() {
		for _, w := range ws {
			for _, cs := range w.claims {
				if _, err := j.Requests(w.source, cs); err != nil {
					b.Fatal(err)
				}
				sources++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sources)/1e3, "µs/source")
}

// BenchmarkQuoteIndex measures verifying one evidence quote in a real
// 40 KB source, index build included (done once per source).
func BenchmarkQuoteIndex(b *testing.B) {
	_, texts := onyxReports(b)
	src := texts[0]
	ix := passage.NewIndex(src, passage.Options{})
	sents := ix.Sentences()
	quote := strings.Join(strings.Fields(src[sents[len(sents)/2].Start:sents[len(sents)/2].End]), " ")
	for b.Loop() {
		if _, _, ok := judge.FindQuote(src, quote); !ok {
			b.Fatal("quote not found")
		}
	}
}
