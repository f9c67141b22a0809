package llm_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// onyxReports loads the 100 Onyx deep-research reports.
func onyxReports(tb testing.TB) []string {
	dir := filepath.Join(sharedtest.Dir(tb, "reports/onyx-drb"), "report_logs")
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		tb.Skipf("no reports in %s", dir)
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// BenchmarkKey hashes a judge request carrying a whole real report, the
// largest thing a cache key covers.
func BenchmarkKey(b *testing.B) {
	reports := onyxReports(b)
	temp := 0.0
	var size int64
	reqs := make([]llm.Request, len(reports))
	for i, r := range reports {
		reqs[i] = llm.Request{System: "You extract cited statements.", Messages: []llm.Message{llm.UserMessage(r)}, Temperature: &temp, Schema: verdictSchema}
		size += int64(len(r))
	}
	b.SetBytes(size / int64(len(reports)))
	b.ResetTimer()
	for i := range b.N {
		llm.Key(llm.OpenAI, "gpt-4o", reqs[i%len(reqs)])
	}
}

// factCitation is one LLM-extracted statement of DRB FACT's output (its
// ref_idx, a string or a number depending on the row, is ignored).
type factCitation struct {
	Fact string `json:"fact"`
	URL  string `json:"url"`
}

// drbAnswers rebuilds real LLM extraction answers (DRB FACT's extracted
// statement lists) in the shape models return them: prose and a fence
// around a JSON array.
func drbAnswers(tb testing.TB) []string {
	root := sharedtest.Dir(tb, "reports/openai-dr-science-drb")
	files, _ := filepath.Glob(filepath.Join(root, "results", "fact", "*", "extracted.jsonl"))
	var out []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var row struct {
				Citations json.RawMessage `json:"citations"`
			}
			if json.Unmarshal(sc.Bytes(), &row) != nil || len(row.Citations) < 3 {
				continue
			}
			var js bytes.Buffer
			json.Indent(&js, row.Citations, "", "  ")
			out = append(out, "Here are the cited statements I found:\n\n```JSON\n"+js.String()+"\n```\n\nLet me know if you need anything else.")
		}
		fh.Close()
	}
	if len(out) == 0 {
		tb.Skip("no DRB FACT extractions found")
	}
	return out
}

func TestDecodeRealExtractions(t *testing.T) {
	answers := drbAnswers(t)
	n := 0
	for _, a := range answers {
		var got []factCitation
		if err := llm.DecodeJSON(a, &got); err != nil {
			t.Fatalf("DecodeJSON on a real extraction: %v", err)
		}
		n += len(got)
	}
	t.Logf("decoded %d statements from %d real extraction answers", n, len(answers))
}

func BenchmarkDecodeJSON(b *testing.B) {
	answers := drbAnswers(b)
	var size int64
	for _, a := range answers {
		size += int64(len(a))
	}
	b.SetBytes(size / int64(len(answers)))
	b.ResetTimer()
	for i := range b.N {
		var got []factCitation
		if err := llm.DecodeJSON(answers[i%len(answers)], &got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEstimateReportBenchExtraction estimates, on the 100 Onyx
// reports, what the paper's cited-statement extraction prompt (A.4.1)
// costs per report before anything is sent, as eval --dry-run does.
func BenchmarkEstimateReportBenchExtraction(b *testing.B) {
	reports := onyxReports(b)
	p, err := prompts.Get("reportbench/cited_extraction")
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]llm.Request, len(reports))
	for i, r := range reports {
		text, err := p.Render(map[string]string{"Report": r})
		if err != nil {
			b.Fatal(err)
		}
		reqs[i] = llm.Request{Messages: []llm.Message{llm.UserMessage(text)}}
	}
	price4o, _ := llm.LookupPrice(llm.OpenAI, "gpt-4o")
	priceMini, _ := llm.LookupPrice(llm.OpenAI, "gpt-4o-mini")
	b.ResetTimer()
	var tokens int64
	var cost4o, costMini float64
	for range b.N {
		tokens, cost4o, costMini = 0, 0, 0
		for _, r := range reqs {
			e := llm.EstimateRequest(r, price4o, true)
			tokens += e.InputTokens
			cost4o += e.Cost
			costMini += llm.EstimateRequest(r, priceMini, true).Cost
		}
	}
	n := float64(len(reqs))
	b.ReportMetric(float64(tokens)/n, "in-tokens/report")
	b.ReportMetric(cost4o/n, "usd-gpt-4o/report")
	b.ReportMetric(costMini/n, "usd-gpt-4o-mini/report")
}
