package construct_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

// progressCall is one call of Builder.Progress.
type progressCall struct {
	Stage       string
	Done, Total int64
}

// recordProgress sets b.Progress to append every call to the returned
// slice. The slice is not locked: the race detector catches concurrent
// calls, and the in-flight count catches them without it.
func recordProgress(t *testing.T, b *construct.Builder) *[]progressCall {
	t.Helper()
	var calls []progressCall
	var inFlight atomic.Int32
	b.Progress = func(stage string, done, total int64) {
		if inFlight.Add(1) != 1 {
			t.Errorf("%s: concurrent Progress calls", stage)
		}
		calls = append(calls, progressCall{stage, done, total})
		inFlight.Add(-1)
	}
	return &calls
}

// checkProgress checks the calls of each stage: one positive total, done
// non-decreasing and never above it, ending at total; it returns the
// calls by stage.
func checkProgress(t *testing.T, calls []progressCall) map[string][]progressCall {
	t.Helper()
	by := map[string][]progressCall{}
	var order []string
	for _, c := range calls {
		if len(by[c.Stage]) == 0 {
			order = append(order, c.Stage)
		}
		by[c.Stage] = append(by[c.Stage], c)
	}
	for _, stage := range order {
		cs := by[stage]
		for i, c := range cs {
			if c.Total <= 0 || c.Total != cs[0].Total {
				t.Errorf("%s call %d: total %d, first %d", stage, i, c.Total, cs[0].Total)
			}
			if c.Done < 0 || c.Done > c.Total {
				t.Errorf("%s call %d: done %d outside 0..%d", stage, i, c.Done, c.Total)
			}
			if i > 0 && c.Done < cs[i-1].Done {
				t.Errorf("%s call %d: done went back from %d to %d", stage, i, cs[i-1].Done, c.Done)
			}
		}
		if last := cs[len(cs)-1]; last.Done != last.Total {
			t.Errorf("%s ended at %d of %d", stage, last.Done, last.Total)
		}
	}
	// Stages report one after the other, never interleaved.
	ended := map[string]bool{}
	for i := 1; i < len(calls); i++ {
		if prev, c := calls[i-1].Stage, calls[i].Stage; c != prev {
			if ended[c] {
				t.Errorf("%s reported again after %s", c, prev)
			}
			ended[prev] = true
		}
	}
	return by
}

func TestProgressAllStages(t *testing.T) {
	es, srv := newServer(t)
	snapshot := testSnapshot(t, t.TempDir())
	fi, err := os.Stat(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(t.TempDir(), srv.URL)
	calls := recordProgress(t, b)
	if err := b.All(context.Background(), allOptions(snapshot), nil); err != nil {
		t.Fatal(err)
	}
	by := checkProgress(t, *calls)
	// Totals: snapshot bytes, then papers (see TestPipelineEndToEnd).
	want := map[string]int64{"select": fi.Size(), "classify": 14, "sources": 13, "refs": 11, "prompts": 10, "domains": 10, "sample": 10}
	got := map[string]int64{}
	for stage, cs := range by {
		got[stage] = cs[0].Total
		if cs[0].Done != 0 {
			t.Errorf("%s: first call at %d, want 0 on a fresh run", stage, cs[0].Done)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}

	// On a rerun select is up to date and reports nothing; sources starts
	// with the twelve papers done before and retries the failed one.
	es.healed.Store(true)
	*calls = nil
	if err := b.All(context.Background(), allOptions(snapshot), nil); err != nil {
		t.Fatal(err)
	}
	by = checkProgress(t, *calls)
	if len(by["select"]) != 0 {
		t.Errorf("up-to-date select reported %v", by["select"])
	}
	if diff := cmp.Diff([]progressCall{{"sources", 12, 13}, {"sources", 13, 13}}, by["sources"]); diff != "" {
		t.Errorf("sources on a rerun (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]progressCall{{"classify", 14, 14}}, by["classify"]); diff != "" {
		t.Errorf("classify on a rerun (-want +got):\n%s", diff)
	}
}

// TestProgressSelect checks that select reports the bytes of the file as
// it reads it, every 4 MiB, for a plain and a gzip'd snapshot: the
// compressed bytes against the size on disk.
func TestProgressSelect(t *testing.T) {
	dir := t.TempDir()
	lines := readLines(t, testSnapshot(t, dir))
	var plain bytes.Buffer
	for i := 0; plain.Len() < 10<<20; i++ {
		for _, l := range lines {
			// A distinct id per round, so gzip cannot shrink it to nothing.
			fmt.Fprintf(&plain, "%s\n", strings.Replace(l, `"id":"`, fmt.Sprintf(`"id":"r%d-`, i), 1))
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	for _, tt := range []struct {
		name     string
		data     []byte
		minCalls int
	}{
		{"snapshot.json", plain.Bytes(), 4}, // 0, 4 MiB, 8 MiB, the end
		{"snapshot.json.gz", gz.Bytes(), 2}, // 0, the end
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			b := &construct.Builder{Dir: t.TempDir()}
			calls := recordProgress(t, b)
			rep, err := b.Select(context.Background(), construct.SelectOptions{Snapshot: path, Filter: arxivsnap.DefaultSpec()})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Manifest.Counts["kept"] == 0 {
				t.Fatal("nothing kept")
			}
			checkProgress(t, *calls)
			if len(*calls) < tt.minCalls || (*calls)[0].Total != int64(len(tt.data)) {
				t.Errorf("calls %v, want at least %d against %d bytes", *calls, tt.minCalls, len(tt.data))
			}
		})
	}
}

// TestProgressReader covers the reader the standalone select wraps around
// its input: a stream of unknown size, and a file that grew after it was
// measured.
func TestProgressReader(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 9<<20)
	for _, tt := range []struct {
		name  string
		total int64
		want  []int64
	}{
		{"stream", 0, []int64{4 << 20, 8 << 20, 9 << 20}},
		{"sized", 9 << 20, []int64{4 << 20, 8 << 20, 9 << 20}},
		{"grown", 6 << 20, []int64{4 << 20, 6 << 20}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			r := construct.NewProgressReader(bytes.NewReader(data), tt.total, func(done, total int64) {
				if total != tt.total {
					t.Errorf("total %d, want %d", total, tt.total)
				}
				got = append(got, done)
			})
			// Read in 1 MiB pieces, as a bufio.Reader does.
			if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, make([]byte, 1<<20)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
		})
	}
}
