package construct_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace/internal/cputime"
	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// benchSnapshot writes the real snapshot sample repeated past 256 MiB, so
// that, as with the multi-GB snapshot, the select stage does not hash its
// input, once plain and once gzip'd (fastest level). It returns both paths
// and the uncompressed size.
func benchSnapshot(b *testing.B) (plain, gz string, size int64) {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(b, "arxiv/snapshot-sample"), "arxiv-metadata-oai-snapshot.json"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	plain, gz = filepath.Join(dir, "snapshot.json"), filepath.Join(dir, "snapshot.json.gz")
	pf, err := os.Create(plain)
	if err != nil {
		b.Fatal(err)
	}
	gf, err := os.Create(gz)
	if err != nil {
		b.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(gf, gzip.BestSpeed)
	w := bufio.NewWriterSize(io.MultiWriter(pf, zw), 4<<20)
	for size <= 256<<20 {
		w.Write(data)
		size += int64(len(data))
	}
	for _, err := range []error{w.Flush(), zw.Close(), gf.Close(), pf.Close()} {
		if err != nil {
			b.Fatal(err)
		}
	}
	return plain, gz, size
}

// BenchmarkBuilderSelect runs the select stage end to end (open, inflate,
// scan, write, manifest) on a snapshot of 270 MiB, with and without a
// Progress callback. MB/s counts uncompressed bytes; MB/cpu-s is
// throughput per CPU second, steadier on a shared machine.
func BenchmarkBuilderSelect(b *testing.B) {
	plain, gz, size := benchSnapshot(b)
	for _, in := range []struct{ name, path string }{{"json", plain}, {"gz", gz}} {
		for _, progress := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/progress=%v", in.name, progress), func(b *testing.B) {
				benchSelect(b, in.path, size, progress)
			})
		}
	}
}

// benchSelect runs the select stage on path, with a progress callback that
// counts its calls if asked.
func benchSelect(b *testing.B, path string, size int64, progress bool) {
	b.SetBytes(size)
	bld := &construct.Builder{Dir: b.TempDir(), Tool: "bench"}
	var calls int
	if progress {
		bld.Progress = func(string, int64, int64) { calls++ }
	}
	opt := construct.SelectOptions{Snapshot: path, Filter: arxivsnap.DefaultSpec()}
	cpu0, n := cputime.Process(), 0
	for b.Loop() {
		// Without its manifest the stage is not up to date.
		os.Remove(filepath.Join(bld.Dir, "build", "select.manifest.json"))
		if _, err := bld.Select(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(int64(n)*size)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
	if progress {
		b.ReportMetric(float64(calls)/float64(n), "calls/op")
	}
}
