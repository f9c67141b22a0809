package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenIsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "t.db")
	for i := 0; i < 2; i++ {
		s, err := Open(ctx, "sqlite:"+path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if err := s.EnsureRun(ctx, "r", "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}

func TestOpenRejectsPostgresForNowWithoutLeakingPassword(t *testing.T) {
	_, err := Open(context.Background(), "postgres://u:hunter2@db/x")
	if err == nil {
		t.Fatal("want error")
	}
	if got := err.Error(); strings.Contains(got, "hunter2") {
		t.Errorf("error leaks the password: %s", got)
	}
}

func TestUnits(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.EnsureRun(ctx, "r1", "eval", `{"a":1}`); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.GetUnit(ctx, "r1", "work", "k"); err != nil || ok {
		t.Fatalf("GetUnit on empty store = %v, %v", ok, err)
	}
	if err := s.PutUnit(ctx, Unit{Run: "r1", Kind: "work", Key: "k", Status: StatusFailed, Err: "boom"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutUnit(ctx, Unit{Run: "r1", Kind: "work", Key: "k", Status: StatusDone, Data: []byte(`{"x":1}`)}); err != nil {
		t.Fatal(err)
	}
	u, ok, err := s.GetUnit(ctx, "r1", "work", "k")
	if err != nil || !ok {
		t.Fatalf("GetUnit = %v, %v", ok, err)
	}
	if u.Status != StatusDone || string(u.Data) != `{"x":1}` || u.Err != "" || u.Attempts != 2 {
		t.Errorf("unit = %+v", u)
	}
	counts, err := s.Counts(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]map[string]int{"work": {"done": 1}}, counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

func TestUnitsRequireRun(t *testing.T) {
	s := openTest(t)
	err := s.PutUnit(context.Background(), Unit{Run: "missing", Kind: "k", Key: "k", Status: StatusDone})
	if err == nil {
		t.Fatal("a unit of an unknown run was accepted: foreign keys are off")
	}
}

func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.EnsureRun(ctx, "r", "eval", "{}"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				errs <- s.PutUnit(ctx, Unit{Run: "r", Kind: "work", Key: fmt.Sprintf("%d-%d", g, i), Status: StatusDone})
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	us, err := s.Units(ctx, "r", "work")
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 400 {
		t.Errorf("stored %d units, want 400", len(us))
	}
}

func TestPagesDeduplicateBodies(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	body := []byte("<html>same</html>")
	for _, u := range []string{"https://a.example/1", "https://a.example/2"} {
		if err := s.PutPage(ctx, Page{URL: u, Status: 200, ContentType: "text/html", Body: body, FetchedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutPage(ctx, Page{URL: "https://dead.example/", Status: 404, FetchedAt: at}); err != nil {
		t.Fatal(err)
	}
	var blobs int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM blobs`).Scan(&blobs); err != nil {
		t.Fatal(err)
	}
	if blobs != 1 {
		t.Errorf("blobs = %d, want 1", blobs)
	}
	p, ok, err := s.GetPage(ctx, "https://a.example/2")
	if err != nil || !ok {
		t.Fatalf("GetPage = %v %v", ok, err)
	}
	if string(p.Body) != string(body) || p.Status != 200 || !p.FetchedAt.Equal(at) || p.SHA256 == "" {
		t.Errorf("page = %+v", p)
	}
	dead, ok, err := s.GetPage(ctx, "https://dead.example/")
	if err != nil || !ok || dead.Status != 404 || len(dead.Body) != 0 {
		t.Errorf("dead page = %+v %v %v", dead, ok, err)
	}
}

func TestLLMCacheAndLedger(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	c := s.LLMCache()
	if _, ok, _ := c.Get(ctx, "k"); ok {
		t.Fatal("hit on empty cache")
	}
	if err := c.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.Get(ctx, "k"); err != nil || !ok || string(v) != "v" {
		t.Fatalf("Get = %q %v %v", v, ok, err)
	}
	calls := []claimtrace.LLMCall{
		{Run: "r", Stage: "judge", Provider: "openai", Model: "m", InputTokens: 100, OutputTokens: 10, Cost: 0.5},
		{Run: "r", Stage: "judge", Provider: "openai", Model: "m", CacheHit: true},
		{Run: "r", Stage: "judge", Provider: "openai", Model: "m", Err: "rate limited", Attempts: 3},
		{Run: "other", InputTokens: 5},
	}
	for _, call := range calls {
		if err := s.Record(ctx, call); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.LLMTotals(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	want := LLMTotals{Calls: 2, CacheHits: 1, Failed: 1, InputTokens: 100, OutputTokens: 10, Cost: 0.5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
}

func TestTexts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, _, ok, err := s.GetText(ctx, "abc"); ok || err != nil {
		t.Fatalf("GetText on empty store = %v %v", ok, err)
	}
	if err := s.PutText(ctx, "abc", "Title", "Body text."); err != nil {
		t.Fatal(err)
	}
	// The first extraction wins: the same bytes always give the same text.
	if err := s.PutText(ctx, "abc", "Other", "Other text."); err != nil {
		t.Fatal(err)
	}
	title, text, ok, err := s.GetText(ctx, "abc")
	if err != nil || !ok || title != "Title" || text != "Body text." {
		t.Errorf("GetText = %q %q %v %v", title, text, ok, err)
	}
}

func TestUnitsOfKindAndRuns(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, run := range []string{"r1", "r2"} {
		if err := s.EnsureRun(ctx, run, "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		s.PutUnit(ctx, Unit{Run: run, Kind: "graph", Key: "a", Status: StatusDone, Data: []byte(run)})
		s.PutUnit(ctx, Unit{Run: run, Kind: "graph", Key: "b", Status: StatusFailed})
		s.PutUnit(ctx, Unit{Run: run, Kind: "source", Key: "x", Status: StatusDone})
	}
	all, err := s.UnitsOfKind(ctx, "graph", "")
	if err != nil || len(all) != 2 || all[0].Run != "r1" || string(all[1].Data) != "r2" {
		t.Fatalf("UnitsOfKind(all) = %+v, %v", all, err)
	}
	one, err := s.UnitsOfKind(ctx, "graph", "r2")
	if err != nil || len(one) != 1 || one[0].Run != "r2" {
		t.Fatalf("UnitsOfKind(r2) = %+v, %v", one, err)
	}
	runs, err := s.Runs(ctx)
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	if runs[0].Units["graph/done"] != 1 || runs[0].Units["graph/failed"] != 1 || runs[0].Units["source/done"] != 1 {
		t.Errorf("run units = %v", runs[0].Units)
	}
}
