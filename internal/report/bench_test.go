package report

import (
	"testing"

	"github.com/claimtrace/claimtrace/internal/cputime"
)

// BenchmarkParse measures parse throughput over every shared report.
func BenchmarkParse(b *testing.B) {
	reports := loadSharedReports(b)
	var size int64
	for _, r := range reports {
		size += int64(len(r.text))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for b.Loop() {
		for _, r := range reports {
			Parse(r.text)
		}
	}
	if d := cputime.Process() - cpu; d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
	}
	b.ReportMetric(float64(len(reports)), "reports")
}
