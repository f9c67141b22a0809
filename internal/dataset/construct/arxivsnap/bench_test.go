package arxivsnap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/claimtrace/claimtrace/internal/cputime"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// BenchmarkScan compares the field scanner with encoding/json decoding the
// same fields into a small struct, on the real snapshot sample.
func BenchmarkScan(b *testing.B) {
	path := filepath.Join(sharedtest.Dir(b, "arxiv/snapshot-sample"), "arxiv-metadata-oai-snapshot.json")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.Run("scanner", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for _, l := range lines {
				if _, err := arxivsnap.Scan(l, false); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for _, l := range lines {
				var r struct {
					ID, Title, Comments, License, Categories *string
					Versions                                 []struct{ Created string }
				}
				if err := json.Unmarshal(l, &r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkSelect filters a generated 64 MB snapshot in memory. MB/cpu-s
// is throughput per CPU second (all cores together): on a shared machine
// it is steadier than MB/s.
func BenchmarkSelect(b *testing.B) {
	lines, _ := genSnapshot(4000, 1)
	var buf bytes.Buffer
	for buf.Len() < 64<<20 {
		for _, l := range lines {
			buf.Write(l)
			buf.WriteByte('\n')
		}
	}
	f := mustFilter(b, arxivsnap.DefaultSpec())
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			cpu0, n := cputime.Process(), 0
			for b.Loop() {
				if _, err := arxivsnap.Select(context.Background(), bytes.NewReader(buf.Bytes()), io.Discard, f,
					arxivsnap.Options{Workers: workers}); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if cpu := cputime.Process() - cpu0; cpu > 0 {
				b.ReportMetric(float64(n*buf.Len())/1e6/cpu.Seconds(), "MB/cpu-s")
			}
		})
	}
}
