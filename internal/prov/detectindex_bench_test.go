package prov

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/claimtrace/claimtrace/internal/cputime"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// BenchmarkOfflineIndex measures what the live API does with each new
// source's text when the detector is on: analyse it, compare it with the
// session's earlier sources through the index, add it. Texts are the
// shared AttributionBench evidence passages (1.5 KB on average), in
// sessions of 625 as in live's BenchmarkRecording; one op is one text,
// and cpu-µs/op its CPU time (the process's: a busy machine inflates
// ns/op, not this).
//
//	go test ./internal/prov -run '^$' -bench 'OfflineIndex$' -benchtime 3000x
func BenchmarkOfflineIndex(b *testing.B) {
	pairs, err := labels.ReadFile(filepath.Join(sharedtest.Dir(b, "labels/attributionbench"), "dev.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	var ix *OfflineIndex
	conflicts := 0
	n := 0
	runtime.GC()
	start := cputime.Process()
	for b.Loop() {
		k := n % 625
		if k == 0 {
			ix = Offline{}.NewIndex()
		}
		text := pairs[n%len(pairs)].Evidence
		t := Offline{}.Analyse(text)
		found, err := ix.Conflicts(ctx, "new", t)
		if err != nil {
			b.Fatal(err)
		}
		conflicts += len(found)
		if err := ix.Add(fmt.Sprintf("s%d", k), t); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64((cputime.Process()-start).Microseconds())/float64(n), "cpu-µs/op")
	b.ReportMetric(float64(conflicts)/float64(n), "conflicts/op")
}
