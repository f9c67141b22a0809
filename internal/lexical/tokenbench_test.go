package lexical

import (
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// BenchmarkAppendTokens tokenizes the evidence passages of AttributionBench
// (what the live API's detector and judge read, 1.5 KB on average), one
// after the other, as they do: the word memo holds what earlier passages
// had. It reports the time a passage and a word.
//
//	go test ./internal/lexical -run '^$' -bench AppendTokens
func BenchmarkAppendTokens(b *testing.B) {
	pairs, err := labels.ReadFile(filepath.Join(sharedtest.Dir(b, "labels/attributionbench"), "dev.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	an := NewAnalyzer()
	var toks []Token
	words, texts := 0, 0
	for b.Loop() {
		for _, p := range pairs {
			toks = an.AppendTokens(toks[:0], p.Evidence, 0)
			words += len(toks)
			texts++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(texts)/1000, "µs/text")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(words), "ns/token")
}
