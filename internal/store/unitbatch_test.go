package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// TestPutUnits: a batch stores every unit as PutUnit would (a key already
// stored counts one more attempt), and a batch with one unit that cannot
// be stored stores none, naming the unit.
func TestPutUnits(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		for _, run := range []string{"r1", "r2"} {
			if err := s.EnsureRun(ctx, run, "live", "{}"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutUnit(ctx, Unit{Run: "r1", Kind: "op", Key: "k0", Status: StatusDone, Data: []byte(`{"v":0}`)}); err != nil {
			t.Fatal(err)
		}
		var batch []Unit
		for i := range 3 {
			for _, run := range []string{"r1", "r2"} {
				batch = append(batch, Unit{Run: run, Kind: "op", Key: fmt.Sprintf("k%d", i), Status: StatusDone, Data: []byte(fmt.Sprintf(`{"v":%d}`, i+1))})
			}
		}
		if err := s.PutUnits(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for _, u := range batch {
			got, ok, err := s.GetUnit(ctx, u.Run, u.Kind, u.Key)
			if err != nil || !ok {
				t.Fatalf("unit %s/%s: %v, %v", u.Run, u.Key, ok, err)
			}
			attempts := 1
			if u.Run == "r1" && u.Key == "k0" {
				attempts = 2
			}
			if string(got.Data) != string(u.Data) || got.Attempts != attempts {
				t.Errorf("unit %s/%s: data %s, %d attempts; want %s, %d", u.Run, u.Key, got.Data, got.Attempts, u.Data, attempts)
			}
		}
		bad := []Unit{
			{Run: "r1", Kind: "op", Key: "k9", Status: StatusDone, Data: []byte(`{}`)},
			{Run: "no-such-run", Kind: "op", Key: "k9", Status: StatusDone, Data: []byte(`{}`)},
		}
		err := s.PutUnits(ctx, bad)
		if err == nil || !strings.Contains(err.Error(), "op/k9") {
			t.Fatalf("a batch with a unit of an unknown run: %v, want an error naming op/k9", err)
		}
		if _, ok, err := s.GetUnit(ctx, "r1", "op", "k9"); err != nil || ok {
			t.Errorf("the batch's good unit was stored (%v, %v): want none of a failed batch", ok, err)
		}
		if err := s.PutUnits(ctx, nil); err != nil {
			t.Errorf("an empty batch: %v", err)
		}
	})
}

// BenchmarkPutUnits compares storing units one commit each with storing
// them in batches of 4 (what 8 concurrent sessions on 2 cores make).
func BenchmarkPutUnits(b *testing.B) {
	data := []byte(`{"kind":"source","source":{"id":"s1","excerpt":"` + strings.Repeat("evidence ", 170) + `"}}`)
	for _, size := range []int{1, 4} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			ctx := context.Background()
			s := openDSN(b, "sqlite:"+b.TempDir()+"/bench.db")
			if err := s.EnsureRun(ctx, "r", "live", "{}"); err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				batch := make([]Unit, size)
				for i := range batch {
					batch[i] = Unit{Run: "r", Kind: "op", Key: fmt.Sprintf("%09d", n), Status: StatusDone, Data: data}
					n++
				}
				if err := s.PutUnits(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n), "µs/unit")
		})
	}
}
