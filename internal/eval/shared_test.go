package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
	"github.com/claimtrace/claimtrace/internal/store"
)

// TestSharedScrapedPages evaluates the 8 DeepResearch Bench reports of the
// "dls" system whose cited pages another tool scraped (DRB FACT's
// validated.jsonl: 90 pages, walls and stubs among them), offline from a
// snapshot of that text made in a temporary directory, and logs how their
// citations are labelled: the figures of docs/scoring.md. The reports have
// no ReportBench ground truth; the point is which citations count against
// precision (unresolvable) and which are out of it.
//
//	go test ./internal/eval -run TestSharedScrapedPages -v
func TestSharedScrapedPages(t *testing.T) {
	src := sharedtest.Dir(t, "reports/openai-dr-science-drb/results/fact/dls")
	f, err := os.Open(filepath.Join(src, "validated.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	for _, d := range []string{"ds/" + dataset.GTDir, "reports", "snap/pages"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	var tasks, index strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	pages := 0
	for n := 1; sc.Scan(); n++ {
		var rec struct {
			Article   string `json:"article"`
			Citations map[string]struct {
				Content string `json:"url_content"`
			} `json:"citations_deduped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("9901.%05d", n)
		tasks.WriteString(`{"arxiv_id":"` + id + `","title":"Task ` + id + `","prompt":"p"}` + "\n")
		os.WriteFile(filepath.Join(dir, "ds", dataset.GTDir, id+".jsonl"), []byte(`{"bib_id":"none","title":"No Such Reference In Any Report","author":"X","meta_info":{}}`+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "reports", id+".md"), []byte(rec.Article), 0o644)
		urls := make([]string, 0, len(rec.Citations))
		for u := range rec.Citations {
			urls = append(urls, u)
		}
		sort.Strings(urls)
		for _, u := range urls {
			if strings.TrimSpace(u) == "" {
				continue
			}
			pages++
			name := fmt.Sprintf("pages/%d.txt", pages)
			os.WriteFile(filepath.Join(dir, "snap", name), []byte(rec.Citations[u].Content), 0o644)
			b, _ := json.Marshal(map[string]any{"url": u, "status": 200, "content_type": "text/plain", "file": name})
			index.Write(append(b, '\n'))
		}
	}
	os.WriteFile(filepath.Join(dir, "ds", dataset.TasksFile), []byte(tasks.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "snap", "index.jsonl"), []byte(index.String()), 0o644)

	ds, err := dataset.LoadDataset(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fetch.OpenSnapshot(filepath.Join(dir, "snap"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	offline, err := judge.NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	canon := func(u string) string {
		if c, err := biblio.CanonicalURL(u); err == nil {
			return c
		}
		return u
	}
	out := filepath.Join(dir, "out")
	ev, err := New(Options{Dataset: ds, ReportsDir: filepath.Join(dir, "reports"), OutDir: out, Mode: "offline", Snapshot: snap.Dir(),
		Store: st, Fetcher: fetch.New(fetch.Options{Offline: true, Snapshot: snap, Canon: canon}), Judge: offline, JudgeName: "offline"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Read the outputs generically, so this test runs unchanged on older
	// commits (before/after figures).
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Reports  int                        `json:"reports"`
		Citation map[string]json.RawMessage `json:"citation"`
		Cited    map[string]json.RawMessage `json:"cited"`
		AAR      map[string]json.RawMessage `json:"aar"`
	}
	json.Unmarshal(b, &sum)
	reasons := map[string]int{}
	entries, _ := os.ReadDir(filepath.Join(out, "reports"))
	for _, e := range entries {
		r, err := os.ReadFile(filepath.Join(out, "reports", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Citation struct {
				Unmatched []struct {
					Reason, Detail string
				} `json:"unmatched"`
			} `json:"citation"`
		}
		json.Unmarshal(r, &res)
		for _, u := range res.Citation.Unmatched {
			reasons[u.Reason]++
			if u.Reason != score.ReasonNotInGT {
				reasons[u.Reason+" ("+u.Detail+")"]++
			}
		}
	}
	t.Logf("%d reports, %d pages", sum.Reports, pages)
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %-60s %d", k, reasons[k])
	}
	for _, k := range []string{"papers", "web", "unresolvable", "unverifiable", "compat_precision", "precision"} {
		t.Logf("citation.%s = %s", k, sum.Citation[k])
	}
	for _, k := range []string{"match_rate", "pairs", "judged", "unknown"} {
		t.Logf("cited.%s = %s", k, sum.Cited[k])
	}
	for _, k := range []string{"psnd", "micro_psnd", "psnd_unverifiable", "micro_psnd_unverifiable"} {
		t.Logf("aar.%s = %s", k, sum.AAR[k])
	}
}
