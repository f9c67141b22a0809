package eval

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// outputTree reads every file under dir, by path relative to it, with the
// fields that legitimately differ between two runs of one evaluation (the
// clock) left out of the JSON files.
func outputTree(t *testing.T, dir string) map[string]any {
	t.Helper()
	out := map[string]any{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var v map[string]any
		if json.Unmarshal(b, &v) != nil {
			out[rel] = string(b)
			return nil
		}
		delete(v, "generated_at")
		delete(v, "finished_at")
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dyingLeaser is a Leaser whose worker is killed: it takes leases and never
// gives them back, as a process killed with SIGKILL leaves them.
type dyingLeaser struct{ Leaser }

func (dyingLeaser) ReleaseLease(context.Context, string, string, string, string) error { return nil }

// TestOutputTreesAgree: every output a run names is written on every run,
// whoever computed it. The output folder of a fresh run, of a rerun of the
// finished run into a new folder (every result read from the store), and
// of the surviving worker of two sharing one store, one of them killed
// after finishing some reports and while holding another's lease, hold
// the same files with the same content. Temporary files a killed run left
// in the folder are gone after the successful run; one being written now
// (newer than the run's start) is left alone.
func TestOutputTreesAgree(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testOutputTrees(t, func(t *testing.T) *store.Store {
			st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "workers.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(storetest.EnvPostgres) == "" {
			storetest.PostgresDSN(t) // skips, saying how to run it
		}
		testOutputTrees(t, func(t *testing.T) *store.Store { return openPostgres(t, storetest.PostgresDSN(t)) })
	})
}

// testOutputTrees runs the three and compares their folders; open opens
// an empty store, one per (sub)test.
func testOutputTrees(t *testing.T, open func(t *testing.T) *store.Store) {
	const n = 4
	opts := sharedDemo(t, n)
	opts.Store = open(t)
	base := t.TempDir()
	run := func(t *testing.T, o Options, out string) {
		t.Helper()
		o.OutDir = out
		ev, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	fresh := filepath.Join(base, "fresh")
	run(t, opts, fresh)
	want := outputTree(t, fresh)
	for i := 1; i <= n; i++ {
		id := "2401.0000" + string(rune('0'+i))
		for _, f := range []string{"reports/" + id + ".json", "graphs/" + id + ".json"} {
			if want[f] == nil {
				t.Fatalf("the fresh run wrote no %s", f)
			}
		}
	}

	rerun := filepath.Join(base, "rerun")
	run(t, opts, rerun)
	if diff := cmp.Diff(want, outputTree(t, rerun)); diff != "" {
		t.Errorf("a rerun into a new folder differs from the fresh run (-fresh +rerun):\n%s", diff)
	}

	// Two workers on a store of their own: the first finishes two reports
	// and dies holding the lease on a third.
	t.Run("workers", func(t *testing.T) {
		second := opts
		second.Store = open(t)
		const ttl = 300 * time.Millisecond
		dead := second
		dead.Leaser, dead.LeaseTTL, dead.Owner = dyingLeaser{second.Store}, ttl, "killed"
		dead.Tasks = []string{"2401.00001", "2401.00002"}
		run(t, dead, filepath.Join(base, "killed"))
		ev, err := New(dead)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := second.Store.TryLease(t.Context(), ev.RunID(), unitReport, "2401.00003", "killed", ttl); err != nil || !ok {
			t.Fatalf("lease: %v, %v", ok, err)
		}
		survivor := filepath.Join(base, "survivor")
		stale := []string{filepath.Join(survivor, "reports", ".2401.00001.json.tmp-1234567"), filepath.Join(survivor, "graphs", ".2401.00003.json.tmp-89"), filepath.Join(survivor, ".summary.json.tmp-42")}
		inFlight := filepath.Join(survivor, "reports", ".2401.00002.json.tmp-777")
		for _, p := range append(stale, inFlight) {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(`{"task":"cut sh`), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		old := time.Now().Add(-time.Hour)
		for _, p := range stale {
			os.Chtimes(p, old, old)
		}
		future := time.Now().Add(time.Hour)
		os.Chtimes(inFlight, future, future)
		alive := second
		alive.Leaser, alive.LeaseTTL, alive.Owner = second.Store, ttl, "alive"
		run(t, alive, survivor)
		for _, p := range stale {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s left behind by a killed run is still there after the rerun", p)
			}
		}
		if _, err := os.Stat(inFlight); err != nil {
			t.Errorf("a temporary file newer than the run (another writer's) was removed: %v", err)
		}
		os.Remove(inFlight)
		if diff := cmp.Diff(want, outputTree(t, survivor)); diff != "" {
			t.Errorf("the surviving worker's folder differs from the fresh run (-fresh +survivor):\n%s", diff)
		}
	})
}
