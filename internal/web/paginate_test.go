package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/store"
)

func TestPaginate(t *testing.T) {
	para := func(s string) string { return s + "\n\n" }
	three := para("Alpha one.") + para("Beta two.") + para("Gamma three.")
	at := func(text, sub string) span {
		i := strings.Index(text, sub)
		return span{Start: i, End: i + len(sub)}
	}
	fence := "Intro line.\n\n```\ncode a\n\ncode b\n```\n\nAfter.\n"
	long := strings.Repeat("word ", 40) // 200 bytes, one line
	tests := []struct {
		name      string
		text      string
		spans     []span
		per, size int
		want      []textPage
	}{
		{"fits", three, []span{at(three, "Alpha one."), at(three, "Beta two.")}, 5, 1000, []textPage{{0, len(three)}}},
		// Two claims a page: the page ends at the blank line after the
		// second paragraph, not inside the third claim.
		{"claims", three, []span{at(three, "Alpha one."), at(three, "Beta two."), at(three, "Gamma three.")}, 2, 1000,
			[]textPage{{0, strings.Index(three, "Gamma")}, {strings.Index(three, "Gamma"), len(three)}}},
		// Bytes: 25 bytes a page; the blank lines at 12 and 23 are the cuts.
		{"bytes", three, nil, 100, 25, []textPage{{0, 23}, {23, len(three)}}},
		// The blank line inside the fence is not a cut; the one after it is.
		{"fence", fence, nil, 100, 27, []textPage{{0, 13}, {13, strings.Index(fence, "After")}, {strings.Index(fence, "After"), len(fence)}}},
		// One long line: cut after the last space before the limit.
		{"line", long, nil, 100, 64, []textPage{{0, 60}, {60, 120}, {120, 180}, {180, 200}}},
		// A claim longer than a page is cut at a space and goes on.
		{"long claim", long, []span{{Start: 0, End: 200}}, 100, 128, []textPage{{0, 125}, {125, 200}}},
		// A page ends before a claim when no blank line is in reach.
		{"before claim", "One claim. Two claim. Three.", []span{{Start: 0, End: 10}, {Start: 11, End: 21}, {Start: 22, End: 28}}, 1, 1000,
			[]textPage{{0, 11}, {11, 22}, {22, 28}}},
		{"empty", "", nil, 10, 100, []textPage{{0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := paginate(tt.text, cleanSpans(tt.text, tt.spans), tt.per, tt.size)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(textPage{})); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
	// Multi-byte text: no page cuts a rune.
	zh := strings.Repeat("中产阶层的收入", 50)
	for _, p := range paginate(zh, nil, 10, 64) {
		if !boundary(zh, p.From) || !boundary(zh, p.To) {
			t.Fatalf("page %+v cuts a rune", p)
		}
	}
}

// bigFixture stores a finished report of n claims, one sentence each
// ("[1]" cited), with its report file, as the pipeline would, and serves
// it with pageClaims claims a page.
func bigFixture(t testing.TB, n, pageClaims int) *fixture {
	t.Helper()
	dir := t.TempDir()
	st := openStore(t, dir)
	var b strings.Builder
	res := eval.Result{Task: "big", Status: store.StatusDone}
	for i := range n {
		if i%10 == 0 {
			b.WriteString("\n## Part " + fmt.Sprint(i/10) + "\n\n")
		}
		s := b.Len()
		fmt.Fprintf(&b, "Measurement %d of the *series* reached %d units [1].", i, i*7)
		res.Claims = append(res.Claims, eval.ClaimResult{ID: fmt.Sprintf("c%d", i+1), Text: b.String()[s:], Start: s, End: b.Len(), Cited: true, Citations: []string{"https://data.example.org/series"}})
		b.WriteString(" ")
	}
	b.WriteString("\n\n[1] https://data.example.org/series\n")
	res.File = filepath.Join(dir, "big.md")
	if err := os.WriteFile(res.File, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	res.SHA256 = hex.EncodeToString(sum[:])
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"sha256": res.SHA256, "result": json.RawMessage(raw)})
	ctx := context.Background()
	if err := st.EnsureRun(ctx, "run-big", "audit", "{}"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutUnit(ctx, store.Unit{Run: "run-big", Kind: unitReport, Key: "big", Status: store.StatusDone, Data: data}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Store: st, PageClaims: pageClaims, Now: func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, run: "run-big", task: "big", dir: dir, srv: srv}
	return serveHTTP(t, f)
}

// firstIDs matches the first highlight piece of each claim on a page.
var firstIDs = regexp.MustCompile(`id="claim-(c\d+)"`)

func TestAuditViewPages(t *testing.T) {
	f := bigFixture(t, 1000, 150)
	code, body, _ := f.get(t, f.reportPath())
	if code != http.StatusOK {
		t.Fatalf("GET: %d", code)
	}
	ids := firstIDs.FindAllStringSubmatch(body, -1)
	if len(ids) == 0 || len(ids) > 150 || ids[0][1] != "c1" {
		t.Fatalf("page 1 shows %d claims (first %v), want 1 to 150 from c1", len(ids), ids[:min(1, len(ids))])
	}
	m := regexp.MustCompile(`page 1 of (\d+)`).FindStringSubmatch(body)
	if m == nil || m[1] == "1" {
		t.Fatalf("no pager on a report of 1,000 claims")
	}
	for _, s := range []string{`rel="next"`, "Claims on page 1: " + fmt.Sprint(len(ids)) + " of 1000", `data-total="1000"`} {
		if !strings.Contains(body, s) {
			t.Errorf("page 1 lacks %q", s)
		}
	}
	// Every claim is on exactly one page, in order.
	var seen []string
	pages := 0
	for p := 1; ; p++ {
		code, body, _ := f.get(t, fmt.Sprintf("%s?page=%d", f.reportPath(), p))
		if code == http.StatusNotFound {
			break
		}
		if code != http.StatusOK || p > 50 {
			t.Fatalf("page %d: %d", p, code)
		}
		pages++
		for _, m := range firstIDs.FindAllStringSubmatch(body, -1) {
			seen = append(seen, m[1])
		}
	}
	want := make([]string, 1000)
	for i := range want {
		want[i] = fmt.Sprintf("c%d", i+1)
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("claims over the pages (-want +got):\n%s", diff)
	}
	// A deep link to a late claim lands on its page, selected.
	code, body, _ = f.get(t, f.reportPath()+"?claim=c777")
	if code != http.StatusOK || !strings.Contains(body, `id="claim-c777" class="claim st-unknown selected"`) || !strings.Contains(body, `id="claim-panel"`) {
		t.Errorf("?claim=c777: %d, the claim selected on its page: %v", code, strings.Contains(body, `id="claim-c777"`))
	}
	for q, want := range map[string]int{"?page=0": 400, "?page=x": 400, "?page=01": 400, fmt.Sprintf("?page=%d", pages+1): 404, "?claim=c99999": 404} {
		if code, _, _ := f.get(t, f.reportPath()+q); code != want {
			t.Errorf("GET %s: %d, want %d", q, code, want)
		}
	}
}

func TestPageClaimsOption(t *testing.T) {
	for _, n := range []int{-1, MaxPageClaims + 1} {
		if _, err := New(Options{Store: openStore(t, t.TempDir()), PageClaims: n}); err == nil {
			t.Errorf("PageClaims %d accepted", n)
		}
	}
}

// TestAuditPageIsBounded renders the first page of a report of 60,000
// claims: the page holds one page's claims whatever the report's size.
func TestAuditPageIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a report of 60,000 claims")
	}
	f := bigFixture(t, 60000, DefaultPageClaims)
	start := time.Now()
	code, body, _ := f.get(t, f.reportPath()+"?claim=c59000")
	took := time.Since(start)
	if code != http.StatusOK {
		t.Fatalf("GET: %d", code)
	}
	if n := len(firstIDs.FindAllString(body, -1)); n > DefaultPageClaims+1 {
		t.Errorf("one page shows %d claims", n)
	}
	if len(body) > 1<<20 {
		t.Errorf("one page is %d bytes", len(body))
	}
	t.Logf("page of a 60,000-claim report: %d bytes in %v", len(body), took)
}

// BenchmarkAuditPageLarge measures one page of a report of 60,000 claims
// (go test ./internal/web/ -run XXX -bench AuditPageLarge -benchtime 5x).
func BenchmarkAuditPageLarge(b *testing.B) {
	f := bigFixture(b, 60000, DefaultPageClaims)
	var ms runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := f.ts.Client().Get(f.ts.URL + f.reportPath() + "?page=100")
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("GET: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "MiB-heap-sys")
}

// serveHTTP serves f.srv on a loopback test server.
func serveHTTP(t testing.TB, f *fixture) *fixture {
	t.Helper()
	f.ts = httptest.NewServer(f.srv)
	t.Cleanup(f.ts.Close)
	return f
}
