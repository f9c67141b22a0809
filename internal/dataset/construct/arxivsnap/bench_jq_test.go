package arxivsnap_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/claimtrace/claimtrace/internal/cputime"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

// jqFilter is the default filter in jq: first version year ≥ 2020 (the
// same as ≥ 2020-01-01), title, comments and licence.
const jqFilter = `select(
  ((.versions[0].created // "") | split(" ") | (.[3] // "0") | tonumber) >= 2020
  and ((.title // "") | test("\\b(survey|review)"; "i"))
  and ((.comments // "") | test("(publish|accept)"; "i"))
  and ((.license // "") | IN("http://creativecommons.org/licenses/by/4.0/",
        "http://creativecommons.org/licenses/by-sa/4.0/",
        "http://creativecommons.org/publicdomain/zero/1.0/",
        "http://arxiv.org/licenses/nonexclusive-distrib/1.0/")))`

// BenchmarkSelectVsJQ generates a snapshot of CLAIMTRACE_BENCH_SNAPSHOT_GB
// gigabytes in a temporary folder and filters it once with Select and once
// with jq, reporting both throughputs (MB/s) and the kept counts. It is
// skipped unless the variable is set:
//
//	CLAIMTRACE_BENCH_SNAPSHOT_GB=4 go test ./internal/dataset/construct/arxivsnap -run XXX -bench SelectVsJQ -benchtime 1x
func BenchmarkSelectVsJQ(b *testing.B) {
	gb, _ := strconv.ParseFloat(os.Getenv("CLAIMTRACE_BENCH_SNAPSHOT_GB"), 64)
	if gb <= 0 {
		b.Skip("set CLAIMTRACE_BENCH_SNAPSHOT_GB to the snapshot size to generate")
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		b.Skip("jq not installed")
	}
	path := filepath.Join(b.TempDir(), "snapshot.json")
	size := writeSnapshot(b, path, int64(gb*(1<<30)))
	f := mustFilter(b, arxivsnap.DefaultSpec())
	for b.Loop() {
		in, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		cpu0 := cputime.Process()
		start := time.Now()
		st, err := arxivsnap.Select(context.Background(), bufio.NewReaderSize(in, 1<<20), io.Discard, f, arxivsnap.Options{})
		ours := time.Since(start)
		oursCPU := cputime.Process() - cpu0
		in.Close()
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		cmd := exec.Command(jq, "-c", jqFilter, path)
		var out countWriter
		cmd.Stdout = &out
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		theirs := time.Since(start)
		theirsCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		mb := float64(size) / 1e6
		b.ReportMetric(mb/ours.Seconds(), "select_MB/s")
		b.ReportMetric(mb/theirs.Seconds(), "jq_MB/s")
		b.ReportMetric(oursCPU.Seconds(), "select_cpu_s")
		b.ReportMetric(theirsCPU.Seconds(), "jq_cpu_s")
		b.ReportMetric(float64(st.Kept), "select_kept")
		b.ReportMetric(float64(out.lines), "jq_kept")
		b.Logf("%.0f MB, %d records: select %v wall, %v CPU (%.0f MB/s, kept %d); jq %v wall, %v CPU (%.0f MB/s, kept %d)",
			mb, st.Records, ours.Round(time.Millisecond), oursCPU.Round(time.Millisecond), mb/ours.Seconds(), st.Kept,
			theirs.Round(time.Millisecond), theirsCPU.Round(time.Millisecond), mb/theirs.Seconds(), out.lines)
	}
}

// writeSnapshot writes generated records with distinct ids until the file
// reaches size bytes, and returns its size.
func writeSnapshot(b *testing.B, path string, size int64) int64 {
	lines, _ := genSnapshot(20000, 2)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 4<<20)
	var n int64
	for round := 0; n < size; round++ {
		for _, l := range lines {
			// "id":"YYMM.NNNNN" → a distinct id per round.
			l = bytes.Replace(l, []byte(`"id":"`), []byte(fmt.Sprintf(`"id":"r%d-`, round)), 1)
			w.Write(l)
			w.WriteByte('\n')
			n += int64(len(l) + 1)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

type countWriter struct{ lines int }

func (c *countWriter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte("\n"))
	return len(p), nil
}
