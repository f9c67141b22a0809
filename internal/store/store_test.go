package store

// The conformance suite: every test of this file runs on SQLite, and on
// PostgreSQL when CLAIMTRACE_TEST_POSTGRES holds a URL (storetest.Run), each
// in a fresh database of its own.

import (
	"context"
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// openDSN opens the store at dsn, closed when the test ends.
func openDSN(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// clock returns a Now that starts at start and steps by step on each call.
func clock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	t := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := t
		t = t.Add(step)
		return now
	}
}

// count runs a COUNT(*) query without parameters.
func count(t *testing.T, s *Store, query string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestOpenIsIdempotent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		ms, err := migrationsOf(sqliteDialect.migrations)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			s, err := Open(ctx, dsn)
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			if err := s.EnsureRun(ctx, "r", "eval", "{}"); err != nil {
				t.Fatal(err)
			}
			if got := count(t, s, `SELECT COUNT(*) FROM schema_migrations`); got != len(ms) {
				t.Errorf("open %d: %d migrations recorded, want %d", i, got, len(ms))
			}
			if got := count(t, s, `SELECT COUNT(*) FROM runs`); got != 1 {
				t.Errorf("open %d: %d runs, want 1", i, got)
			}
			s.Close()
		}
	})
}

// TestOpenForms opens SQLite stores under each DSN spelling, and checks
// what a store says about itself on each backend.
func TestOpenForms(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	nested := filepath.Join(dir, "sub", "dir", "t.db")
	tests := []struct {
		dsn, path, mode string
	}{
		{dsn: "sqlite:" + nested, path: nested, mode: "wal"},
		{dsn: "file:" + filepath.Join(dir, "f.db"), path: filepath.Join(dir, "f.db"), mode: "wal"},
		{dsn: filepath.Join(dir, "plain.db"), path: filepath.Join(dir, "plain.db"), mode: "wal"},
		{dsn: ":memory:", path: "", mode: "memory"},
	}
	for _, tt := range tests {
		s, err := Open(ctx, tt.dsn)
		if err != nil {
			t.Fatalf("Open(%s): %v", tt.dsn, err)
		}
		var mode string
		if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		var fk int
		if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if s.Path() != tt.path || s.Backend() != "sqlite" || mode != tt.mode || fk != 1 {
			t.Errorf("Open(%s): path %q backend %q journal %q foreign_keys %d; want %q sqlite %q 1", tt.dsn, s.Path(), s.Backend(), mode, fk, tt.path, tt.mode)
		}
		s.Close()
	}
	t.Run("postgres", func(t *testing.T) {
		dsn := storetest.PostgresDSN(t)
		s := openDSN(t, dsn)
		if s.Path() != "" || s.Backend() != "postgres" || s.String() != RedactDSN(dsn) {
			t.Errorf("path %q backend %q string %q", s.Path(), s.Backend(), s.String())
		}
		if u, err := url.Parse(dsn); err == nil {
			if pw, ok := u.User.Password(); ok && strings.Contains(s.String(), pw+"@") {
				t.Errorf("String() = %q shows the password", s.String())
			}
		}
	})
}

// TestConcurrentOpen opens one new database from several goroutines at once,
// as workers starting together do: every open succeeds and each migration is
// applied once.
func TestConcurrentOpen(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		const n = 6
		stores := make([]*Store, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stores[i], errs[i] = Open(ctx, dsn)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			defer stores[i].Close()
		}
		ms, err := migrationsOf(stores[0].d.migrations)
		if err != nil {
			t.Fatal(err)
		}
		if got := count(t, stores[0], `SELECT COUNT(DISTINCT version) FROM schema_migrations`); got != len(ms) {
			t.Errorf("%d distinct migrations recorded, want %d", got, len(ms))
		}
		if got := count(t, stores[0], `SELECT COUNT(*) FROM schema_migrations`); got != len(ms) {
			t.Errorf("%d migration rows, want %d", got, len(ms))
		}
	})
}

func TestUnits(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		s.Now = clock(at, time.Second)
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
		want := Unit{Run: "r1", Kind: "work", Key: "k", Status: StatusDone, Data: []byte(`{"x":1}`), Attempts: 2, Updated: at.Add(2 * time.Second)}
		if diff := cmp.Diff(want, u); diff != "" {
			t.Errorf("unit (-want +got):\n%s", diff)
		}
		counts, err := s.Counts(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]map[string]int{"work": {"done": 1}}, counts); diff != "" {
			t.Errorf("counts (-want +got):\n%s", diff)
		}
		// Sizes in bytes, multi-byte characters included.
		s.PutUnit(ctx, Unit{Run: "r1", Kind: "work", Key: "utf8", Status: StatusDone, Data: []byte(`{"t":"Zoë 李"}`)})
		for key, want := range map[string]int64{"k": 7, "utf8": int64(len(`{"t":"Zoë 李"}`))} {
			if n, ok, err := s.UnitSize(ctx, "r1", "work", key); err != nil || !ok || n != want {
				t.Errorf("UnitSize(%s) = %d, %v, %v; want %d", key, n, ok, err, want)
			}
		}
		if _, ok, err := s.UnitSize(ctx, "r1", "work", "missing"); err != nil || ok {
			t.Errorf("UnitSize(missing) = %v, %v", ok, err)
		}
	})
}

func TestUnitsRequireRun(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		s := openDSN(t, dsn)
		err := s.PutUnit(context.Background(), Unit{Run: "missing", Kind: "k", Key: "k", Status: StatusDone})
		if err == nil {
			t.Fatal("a unit of an unknown run was accepted: foreign keys are off")
		}
	})
}

func TestConcurrentWriters(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
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
	})
}

// TestTwoStoresShareOneDatabase is the many-workers case: two *Store on one
// DSN (two processes, in production) write the same run, the same units,
// the same page and the ledger at once. Upserts make every write count once.
func TestTwoStoresShareOneDatabase(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		stores := []*Store{openDSN(t, dsn), openDSN(t, dsn)}
		const writers, keys = 4, 25
		body := []byte("<html>shared page</html>")
		var wg sync.WaitGroup
		errs := make(chan error, len(stores)*writers*(keys*3+1))
		for si, s := range stores {
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- s.EnsureRun(ctx, "shared", "eval", "{}")
					for k := 0; k < keys; k++ {
						errs <- s.PutUnit(ctx, Unit{Run: "shared", Kind: "source", Key: fmt.Sprintf("k%02d", k), Status: StatusDone, Data: []byte(fmt.Sprintf(`{"store":%d}`, si))})
						errs <- s.PutPage(ctx, Page{URL: fmt.Sprintf("https://a.example/%d", k%5), Status: 200, Body: body})
						errs <- s.Record(ctx, claimtrace.LLMCall{Run: "shared", Stage: "judge", InputTokens: 10, CacheHit: k%2 == 0})
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		us, err := stores[1].Units(ctx, "shared", "source")
		if err != nil {
			t.Fatal(err)
		}
		if len(us) != keys {
			t.Fatalf("%d units, want %d", len(us), keys)
		}
		for _, u := range us {
			if u.Attempts != len(stores)*writers {
				t.Errorf("unit %s: %d attempts, want %d (one per write)", u.Key, u.Attempts, len(stores)*writers)
			}
		}
		if got := count(t, stores[0], `SELECT COUNT(*) FROM runs`); got != 1 {
			t.Errorf("%d runs, want 1", got)
		}
		if got := count(t, stores[0], `SELECT COUNT(*) FROM blobs`); got != 1 {
			t.Errorf("%d blobs, want 1", got)
		}
		if got := count(t, stores[0], `SELECT COUNT(*) FROM pages`); got != 5 {
			t.Errorf("%d pages, want 5", got)
		}
		tot, err := stores[0].LLMTotals(ctx, "shared")
		if err != nil {
			t.Fatal(err)
		}
		// Every writer records keys calls, the even-numbered ones cache hits.
		perWriter := int64(len(stores) * writers)
		want := LLMTotals{Calls: perWriter * (keys / 2), CacheHits: perWriter * (keys - keys/2), InputTokens: 10 * perWriter * keys}
		if diff := cmp.Diff(want, tot); diff != "" {
			t.Errorf("totals (-want +got):\n%s", diff)
		}
	})
}

func TestPagesDeduplicateBodies(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		body := []byte("<html>same</html>")
		for _, u := range []string{"https://a.example/1", "https://a.example/2"} {
			if err := s.PutPage(ctx, Page{URL: u, Status: 200, ContentType: "text/html", Body: body, FetchedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutPage(ctx, Page{URL: "https://dead.example/", Status: 404, FetchedAt: at, Err: "not found"}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutPage(ctx, Page{URL: "https://big.example/", FinalURL: "https://big.example/x", Status: 200, Body: []byte("%PDF-1.7 …"), Truncated: true, FetchedAt: at}); err != nil {
			t.Fatal(err)
		}
		if blobs := count(t, s, `SELECT COUNT(*) FROM blobs`); blobs != 2 {
			t.Errorf("blobs = %d, want 2", blobs)
		}
		tests := []struct {
			url  string
			want Page
		}{
			{"https://a.example/2", Page{URL: "https://a.example/2", Status: 200, ContentType: "text/html", Body: body,
				SHA256: sha256Hex(body), FetchedAt: at}},
			{"https://dead.example/", Page{URL: "https://dead.example/", Status: 404, Err: "not found", FetchedAt: at}},
			{"https://big.example/", Page{URL: "https://big.example/", FinalURL: "https://big.example/x", Status: 200,
				Body: []byte("%PDF-1.7 …"), SHA256: sha256Hex([]byte("%PDF-1.7 …")), Truncated: true, FetchedAt: at}},
		}
		for _, tt := range tests {
			p, ok, err := s.GetPage(ctx, tt.url)
			if err != nil || !ok {
				t.Fatalf("GetPage(%s) = %v %v", tt.url, ok, err)
			}
			if diff := cmp.Diff(tt.want, p); diff != "" {
				t.Errorf("GetPage(%s) (-want +got):\n%s", tt.url, diff)
			}
		}
		if _, ok, err := s.GetPage(ctx, "https://never.example/"); ok || err != nil {
			t.Errorf("GetPage(never fetched) = %v %v", ok, err)
		}
	})
}

func TestLLMCacheAndLedger(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		c := s.LLMCache()
		if _, ok, _ := c.Get(ctx, "k"); ok {
			t.Fatal("hit on empty cache")
		}
		if err := c.Put(ctx, "k", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if err := c.Put(ctx, "k", []byte("v2")); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := c.Get(ctx, "k"); err != nil || !ok || string(v) != "v2" {
			t.Fatalf("Get = %q %v %v", v, ok, err)
		}
		calls := []claimtrace.LLMCall{
			{Run: "r", Stage: "judge", Provider: "openai", Model: "m", InputTokens: 100, OutputTokens: 10, CachedTokens: 64, ReasoningTokens: 7, Cost: 0.5, Latency: 1500 * time.Millisecond},
			{Run: "r", Stage: "judge", Provider: "openai", Model: "m", CacheHit: true},
			{Run: "r", Stage: "judge", Provider: "openai", Model: "m", Err: "rate limited", Attempts: 3},
			{Run: "r", Stage: "fact_check", Provider: "gemini", Model: "g", InputTokens: 5_000_000_000, Cost: 0.25},
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
		want := LLMTotals{Calls: 3, CacheHits: 1, Failed: 1, InputTokens: 5_000_000_100, OutputTokens: 10, CachedTokens: 64, ReasonTokens: 7, Cost: 0.75}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("totals (-want +got):\n%s", diff)
		}
		none, err := s.LLMTotals(ctx, "no such run")
		if err != nil || none != (LLMTotals{}) {
			t.Errorf("totals of an unknown run = %+v, %v", none, err)
		}
	})
}

func TestTexts(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
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
		if err := s.PutText(ctx, "empty", "", ""); err != nil {
			t.Fatal(err)
		}
		if title, text, ok, err := s.GetText(ctx, "empty"); err != nil || !ok || title != "" || text != "" {
			t.Errorf("GetText(empty) = %q %q %v %v", title, text, ok, err)
		}
	})
}

// TestBytesRoundTrip stores what PostgreSQL's TEXT would refuse: NUL bytes
// and invalid UTF-8, as PDF extraction and binary bodies produce. Content
// comes back byte for byte; titles and error messages come back with those
// bytes replaced by U+FFFD, on both backends alike.
func TestBytesRoundTrip(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		if err := s.EnsureRun(ctx, "r", "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		odd := []byte("a\x00b\xff\xfe c é \x80")
		if err := s.PutUnit(ctx, Unit{Run: "r", Kind: "k", Key: "odd", Status: StatusFailed, Data: odd, Err: "bad \x00 byte \xff"}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutUnit(ctx, Unit{Run: "r", Kind: "k", Key: "nil", Status: StatusDone}); err != nil {
			t.Fatal(err)
		}
		u, _, err := s.GetUnit(ctx, "r", "k", "odd")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(odd, u.Data); diff != "" {
			t.Errorf("unit data (-want +got):\n%s", diff)
		}
		if want := "bad \uFFFD byte \uFFFD"; u.Err != want {
			t.Errorf("unit error = %q, want %q", u.Err, want)
		}
		if u, _, err := s.GetUnit(ctx, "r", "k", "nil"); err != nil || len(u.Data) != 0 {
			t.Errorf("unit without data = %q, %v", u.Data, err)
		}
		if err := s.PutText(ctx, "sha", "T\x00itle", string(odd)); err != nil {
			t.Fatal(err)
		}
		title, text, _, err := s.GetText(ctx, "sha")
		if err != nil || title != "T\uFFFDitle" || text != string(odd) {
			t.Errorf("GetText = %q %q %v", title, text, err)
		}
		bin := []byte{0, 1, 2, 0xff, 0, '\\', 'x', '0', '0'}
		if err := s.LLMCache().Put(ctx, "bin", bin); err != nil {
			t.Fatal(err)
		}
		if v, _, err := s.LLMCache().Get(ctx, "bin"); err != nil || string(v) != string(bin) {
			t.Errorf("cache value = %q %v, want %q", v, err, bin)
		}
		if err := s.PutPage(ctx, Page{URL: "https://bin.example/", Status: 200, Body: bin, Err: "\xff"}); err != nil {
			t.Fatal(err)
		}
		if p, _, err := s.GetPage(ctx, "https://bin.example/"); err != nil || string(p.Body) != string(bin) || p.Err != "\uFFFD" {
			t.Errorf("page = %q %q %v", p.Body, p.Err, err)
		}
	})
}

// TestOrderIsBytewise checks that listings sort keys by bytes on both
// backends (PostgreSQL would otherwise follow the database's locale).
func TestOrderIsBytewise(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		runs := []string{"b", "B", "_x", "a-1", "a_1", "é", "Z", "10", "9"}
		for _, r := range runs {
			if err := s.EnsureRun(ctx, r, "eval", "{}"); err != nil {
				t.Fatal(err)
			}
			for _, k := range runs {
				if err := s.PutUnit(ctx, Unit{Run: r, Kind: "graph", Key: k, Status: StatusDone}); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := []string{"10", "9", "B", "Z", "_x", "a-1", "a_1", "b", "é"}
		us, err := s.Units(ctx, "b", "graph")
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, u := range us {
			keys = append(keys, u.Key)
		}
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("Units keys (-want +got):\n%s", diff)
		}
		all, err := s.UnitsOfKind(ctx, "graph", "")
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, u := range all {
			if u.Key == "Z" {
				order = append(order, u.Run)
			}
		}
		if diff := cmp.Diff(want, order); diff != "" {
			t.Errorf("UnitsOfKind runs (-want +got):\n%s", diff)
		}
	})
}

func TestUnitsOfKindAndRuns(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		s.Now = clock(time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC), time.Second)
		for _, run := range []string{"r1", "r2"} {
			if err := s.EnsureRun(ctx, run, "eval", "{}"); err != nil {
				t.Fatal(err)
			}
			for _, u := range []Unit{
				{Run: run, Kind: "graph", Key: "a", Status: StatusDone, Data: []byte(run)},
				{Run: run, Kind: "graph", Key: "b", Status: StatusFailed},
				{Run: run, Kind: "source", Key: "x", Status: StatusDone},
			} {
				if err := s.PutUnit(ctx, u); err != nil {
					t.Fatal(err)
				}
			}
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
		if err != nil {
			t.Fatal(err)
		}
		want := []Run{
			{ID: "r2", Kind: "eval", Params: "{}", Created: time.Date(2026, 5, 6, 7, 8, 13, 0, time.UTC), Updated: time.Date(2026, 5, 6, 7, 8, 13, 0, time.UTC),
				Units: map[string]int{"graph/done": 1, "graph/failed": 1, "source/done": 1}},
			{ID: "r1", Kind: "eval", Params: "{}", Created: time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC), Updated: time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC),
				Units: map[string]int{"graph/done": 1, "graph/failed": 1, "source/done": 1}},
		}
		if diff := cmp.Diff(want, runs); diff != "" {
			t.Errorf("Runs (-want +got):\n%s", diff)
		}
	})
}

// TestRunsNewestFirst orders runs updated within one second: the stored
// times must sort as text in time order (RFC3339Nano would put "…05Z" after
// "…05.5Z").
func TestRunsNewestFirst(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openDSN(t, dsn)
		base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		for i, run := range []string{"whole", "half", "later"} {
			s.Now = func() time.Time { return base.Add(time.Duration(i) * 500 * time.Millisecond) }
			if err := s.EnsureRun(ctx, run, "eval", "{}"); err != nil {
				t.Fatal(err)
			}
		}
		runs, err := s.Runs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range runs {
			got = append(got, r.ID)
		}
		if diff := cmp.Diff([]string{"later", "half", "whole"}, got); diff != "" {
			t.Errorf("Runs order (-want +got):\n%s", diff)
		}
		// EnsureRun again keeps the creation time and moves the run up.
		s.Now = func() time.Time { return base.Add(time.Hour) }
		if err := s.EnsureRun(ctx, "whole", "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		runs, err = s.Runs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if runs[0].ID != "whole" || !runs[0].Created.Equal(base) || !runs[0].Updated.Equal(base.Add(time.Hour)) {
			t.Errorf("first run after update = %+v", runs[0])
		}
	})
}

// TestRetryBadConn: a statement that meets broken connections is tried
// again a bounded number of times; other errors and cancelled contexts are
// returned at once. (The PostgreSQL case that needs it is TestResumeOnPostgres
// in internal/eval: reads cancelled by an interrupt poison the pool.)
func TestRetryBadConn(t *testing.T) {
	ctx := context.Background()
	calls := 0
	failing := func(n int, err error) func() error {
		calls = 0
		return func() error {
			calls++
			if calls <= n {
				return err
			}
			return nil
		}
	}
	if err := retryBadConn(ctx, failing(badConnRetries, driver.ErrBadConn)); err != nil || calls != badConnRetries+1 {
		t.Errorf("after %d broken connections: err %v after %d calls, want success on the last try", badConnRetries, err, calls)
	}
	if err := retryBadConn(ctx, failing(badConnRetries+1, driver.ErrBadConn)); !errors.Is(err, driver.ErrBadConn) || calls != badConnRetries+1 {
		t.Errorf("always broken: err %v after %d calls, want ErrBadConn after %d", err, calls, badConnRetries+1)
	}
	other := errors.New("syntax error")
	if err := retryBadConn(ctx, failing(1, other)); err != other || calls != 1 {
		t.Errorf("other error: err %v after %d calls, want it returned at once", err, calls)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := retryBadConn(cctx, failing(1, driver.ErrBadConn)); !errors.Is(err, driver.ErrBadConn) || calls != 1 {
		t.Errorf("cancelled: err %v after %d calls, want no retry", err, calls)
	}
}
