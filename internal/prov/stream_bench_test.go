package prov

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/claimtrace/claimtrace/internal/cputime"
)

// BenchmarkAuditGraphFile reads a generated graph file of a million claims
// (about 0.5 GB, as Encode writes it) as audit and gate do, decoding and
// checking it as a stream, looks for conflicts in its excerpts and
// computes its metrics. It reports the
// seconds and the heap in use at the end, with the graph and its index
// alive.
func BenchmarkAuditGraphFile(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "graph.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := Encode(w, generated(n)); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	runtime.GC()
	b.ResetTimer()
	cpu := cputime.Process()
	var heap uint64
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		// As audit and gate do: decode and index once, add what the
		// offline detector finds in the excerpts, compute.
		ix, err := DecodeStreamIndex(bufio.NewReaderSize(f, 1<<20))
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		g := ix.Graph()
		extra, err := DetectedConflicts(context.Background(), g)
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.AddConflicts(extra...); err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Metrics(DefaultTau); err != nil {
			b.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapInuse)
		runtime.KeepAlive(g)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/graph")
	b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/graph")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}
