package report

import "testing"

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
	for b.Loop() {
		for _, r := range reports {
			Parse(r.text)
		}
	}
	b.ReportMetric(float64(len(reports)), "reports")
}
