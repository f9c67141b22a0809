package biblio

import (
	"fmt"
	"github.com/claimtrace/claimtrace/internal/cputime"
	"sort"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
)

// benchGT returns the largest GT file's references and 200 works to match
// against them: 100 exact titles, 50 titles with a typo, 25 arXiv links and
// 25 titles absent from the GT.
func benchGT(b *testing.B) ([]claimtrace.Reference, []claimtrace.Work) {
	gt := loadGT(b)
	var largest []claimtrace.Reference
	names := make([]string, 0, len(gt))
	for n := range gt {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if len(gt[n]) > len(largest) {
			largest = gt[n]
		}
	}
	var works []claimtrace.Work
	for i := 0; len(works) < 100; i++ {
		works = append(works, claimtrace.Work{Title: largest[i*7%len(largest)].Title})
	}
	for i := 0; len(works) < 150; i++ {
		t := []rune(largest[i*11%len(largest)].Title)
		if len(t) > 10 {
			t[len(t)/2] = 'x'
		}
		works = append(works, claimtrace.Work{Title: string(t)})
	}
	for i := 0; len(works) < 175; i++ {
		works = append(works, claimtrace.Work{URL: fmt.Sprintf("https://arxiv.org/abs/2101.%05d", i)})
	}
	for i := 0; len(works) < 200; i++ {
		works = append(works, claimtrace.Work{Title: fmt.Sprintf("An unrelated study of topic number %d in learning systems", i)})
	}
	return largest, works
}

func BenchmarkNewIndex(b *testing.B) {
	refs, _ := benchGT(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for b.Loop() {
		NewIndex(refs)
	}
	reportCPU(b, cpu, 1)
	b.ReportMetric(float64(len(refs)), "refs")
}

// BenchmarkNewIndexAll builds the indexes of all 100 ReportBench surveys
// (16,204 references).
func BenchmarkNewIndexAll(b *testing.B) {
	gt := loadGT(b)
	n := 0
	for _, refs := range gt {
		n += len(refs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for b.Loop() {
		for _, refs := range gt {
			NewIndex(refs)
		}
	}
	reportCPU(b, cpu, 1)
	b.ReportMetric(float64(n), "refs")
}

func BenchmarkMatch(b *testing.B) {
	refs, works := benchGT(b)
	ix := NewIndex(refs)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for b.Loop() {
		for _, w := range works {
			ix.Match(w)
		}
	}
	reportCPU(b, cpu, len(works))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(works)), "ns/work")
}

// reportCPU reports the process CPU time per operation (per unit when an
// operation handles several) since cpu was read.
func reportCPU(b *testing.B, cpu time.Duration, units int) {
	if d := cputime.Process() - cpu; d > 0 {
		name := "cpu-ns/op"
		if units > 1 {
			name = "cpu-ns/work"
		}
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N*units), name)
	}
}

func BenchmarkCanonicalURL(b *testing.B) {
	urls := []string{
		"http://www.Example.com/a/b/?utm_source=chatgpt.com&b=2&a=1#frag",
		"https://zh.wikipedia.org/zh-hans/中產階級",
		"https://www.researchgate.net/profile/Irina-Arkhipova/publication/5338663_Massive_Horizontal_Gene_Transfer_in_Bdelloid_Rotifers/links/00b7d52bc90997f005000000/Massive-Horizontal-Gene-Transfer-in-Bdelloid-Rotifers.pdf",
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, u := range urls {
			CanonicalURL(u)
		}
	}
}
