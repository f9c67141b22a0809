package judge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace/internal/cputime"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// BenchmarkJudgeSourceLive replays the judge's share of the live API's
// work: every shared AttributionBench pair (an evidence excerpt of ~1.5
// KB and its claim), one JudgeSource call a pair, the excerpt indexed
// each time, as the live service judges a new claim against each source
// it cites. It reports the CPU time of the process a pair, which other
// work on a shared machine does not inflate.
//
//	go test ./internal/judge -run '^$' -bench JudgeSourceLive -benchtime 5000x
func BenchmarkJudgeSourceLive(b *testing.B) {
	pairs, err := labels.ReadFile(filepath.Join(sharedtest.Dir(b, "labels/attributionbench"), "dev.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	j, err := NewDefaultOffline()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	start := cputime.Process()
	n := 0
	for b.Loop() {
		p := pairs[n%len(pairs)]
		if _, err := j.JudgeSource(ctx, p.Evidence, []string{p.Claim}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64((cputime.Process()-start).Microseconds())/float64(n), "cpu-µs/pair")
}
