package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/sharedtest"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// onyxReports reads the 100 real Onyx deep-research reports (about 50 KB
// each): page-sized bodies for the page cache and unit data.
func onyxReports(b *testing.B) [][]byte {
	b.Helper()
	dir := sharedtest.Dir(b, "reports/onyx-drb/report_logs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out [][]byte
	for _, e := range entries {
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, body)
	}
	if len(out) == 0 {
		b.Fatalf("no reports in %s", dir)
	}
	return out
}

// BenchmarkStore measures the store's hot paths on each backend with real
// report text: caching a fetched page (blob + page row in one transaction)
// and reading it back, writing a unit the size of a verdict set
// (2 KB), alone and from 8 goroutines at once (the evaluator's fan-out:
// serialized in-process on SQLite, concurrent on PostgreSQL).
func BenchmarkStore(b *testing.B) {
	reports := onyxReports(b)
	ctx := context.Background()
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s, err := Open(ctx, be.DSN(b))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.EnsureRun(ctx, "bench", "eval", "{}"); err != nil {
				b.Fatal(err)
			}
			b.Run("PutPage", func(b *testing.B) {
				var n int64
				for i := 0; b.Loop(); i++ {
					body := reports[i%len(reports)]
					// A new body every lap, as distinct pages are.
					body = append(body[:len(body):len(body)], fmt.Sprintf("\n<!-- %d -->", i)...)
					n += int64(len(body))
					if err := s.PutPage(ctx, Page{URL: fmt.Sprintf("https://bench.example/%d", i), Status: 200, ContentType: "text/html", Body: body}); err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(n / int64(b.N))
			})
			b.Run("GetPage", func(b *testing.B) {
				for i, body := range reports {
					if err := s.PutPage(ctx, Page{URL: fmt.Sprintf("https://read.example/%d", i), Status: 200, Body: body}); err != nil {
						b.Fatal(err)
					}
				}
				var n int64
				for i := 0; b.Loop(); i++ {
					p, ok, err := s.GetPage(ctx, fmt.Sprintf("https://read.example/%d", i%len(reports)))
					if err != nil || !ok {
						b.Fatalf("GetPage = %v %v", ok, err)
					}
					n += int64(len(p.Body))
				}
				b.SetBytes(n / int64(b.N))
			})
			unit := func(i int) Unit {
				r := reports[i%len(reports)]
				data := r[:min(len(r), 2048)]
				return Unit{Run: "bench", Kind: "verdicts", Key: fmt.Sprintf("k%d", i), Status: StatusDone, Data: data}
			}
			b.Run("PutUnit", func(b *testing.B) {
				b.SetBytes(2048)
				for i := 0; b.Loop(); i++ {
					if err := s.PutUnit(ctx, unit(i)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("PutUnitParallel8", func(b *testing.B) {
				b.SetBytes(2048)
				b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0))) // 8 writers in all
				var next atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := s.PutUnit(ctx, unit(int(next.Add(1))+1_000_000)); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		})
	}
}

// BenchmarkTryLease measures what a lease adds to each unit of work on each
// backend: taking a free lease, renewing one's own, being refused another's,
// and the take-and-release round trip of a unit from 8 goroutines at once
// (the evaluator's fan-out).
func BenchmarkTryLease(b *testing.B) {
	ctx := context.Background()
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s, err := Open(ctx, be.DSN(b))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			try := func(b *testing.B, key, owner string, want bool) {
				if ok, err := s.TryLease(ctx, "bench", "judge", key, owner, time.Hour); err != nil || ok != want {
					b.Fatalf("TryLease(%s, %s) = %v, %v; want %v", key, owner, ok, err, want)
				}
			}
			b.Run("Take", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					try(b, fmt.Sprintf("take-%d", i), "a", true)
				}
			})
			b.Run("Renew", func(b *testing.B) {
				for b.Loop() {
					try(b, "renew", "a", true)
				}
			})
			b.Run("Refused", func(b *testing.B) {
				try(b, "held", "a", true)
				for b.Loop() {
					try(b, "held", "b", false)
				}
			})
			b.Run("TakeReleaseParallel8", func(b *testing.B) {
				b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0))) // 8 workers in all
				var next atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						key := fmt.Sprintf("unit-%d", next.Add(1))
						if ok, err := s.TryLease(ctx, "bench", "judge", key, "a", time.Hour); err != nil || !ok {
							b.Errorf("TryLease(%s) = %v, %v", key, ok, err)
							return
						}
						if err := s.ReleaseLease(ctx, "bench", "judge", key, "a"); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		})
	}
}
