package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/demo"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// demoRun materializes the bundled example and returns evaluation options
// reading it offline from its snapshot.
func demoRun(t *testing.T) (Options, string) {
	t.Helper()
	dir := t.TempDir()
	if err := demo.Materialize(dir); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.LoadDataset(filepath.Join(dir, demo.DatasetDir))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fetch.OpenSnapshot(filepath.Join(dir, demo.SnapshotDir))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	canon := func(u string) string {
		c, err := biblio.CanonicalURL(u)
		if err != nil {
			return u
		}
		return c
	}
	return Options{
		Dataset: ds, ReportsDir: filepath.Join(dir, demo.ReportsDir), OutDir: filepath.Join(dir, "out"),
		Mode: "offline", Snapshot: snap.Dir(), Store: st, Concurrency: 2,
		Fetcher: fetch.New(fetch.Options{Offline: true, Snapshot: snap, Canon: canon}),
	}, dir
}

// TestDemo checks every citation of the bundled report against what the
// example was written to exercise.
func TestDemo(t *testing.T) {
	opts, _ := demoRun(t)
	// The default judge of `claimtrace demo`, so its verdicts are checked too.
	var err error
	if opts.Judge, err = judge.NewDefaultOffline(); err != nil {
		t.Fatal(err)
	}
	opts.JudgeName = "offline"
	ev, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reports != 1 || sum.ReportsFailed != 0 {
		t.Fatalf("reports = %d, failed = %d (%+v)", sum.Reports, sum.ReportsFailed, sum.Failures)
	}
	res, err := ReadResult(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	matched := map[string]string{}
	for _, m := range res.Citation.Matched {
		matched[m.BibID] = m.Method
	}
	wantMatched := []string{
		"lewis2020retrieval", "guu2020realm", "karpukhin2020dense", "khattab2020colbert", "robertson2009bm25",
		"gao2022precise", "ma2023query", "izacard2021leveraging", "borgeaud2022improving", "ram2023incontext",
		"shi2023replug", "liu2023lost", "jiang2023active", "trivedi2022interleaving", "asai2023selfrag",
		"es2023ragas", "chen2023benchmarking",
	}
	sort.Strings(wantMatched)
	var gotMatched []string
	for k := range matched {
		gotMatched = append(gotMatched, k)
	}
	sort.Strings(gotMatched)
	if diff := cmp.Diff(wantMatched, gotMatched); diff != "" {
		t.Errorf("matched references (-want +got):\n%s", diff)
	}
	reasons := map[string]string{}
	for _, u := range res.Citation.Unmatched {
		reasons[u.URL] = u.Reason
	}
	wantReasons := map[string]string{
		"https://arxiv.org/abs/2312.10997":                                                                      score.ReasonSourceSurvey,
		"https://arxiv.org/abs/2201.11903":                                                                      score.ReasonNotInGT,
		"https://arxiv.org/abs/2401.15884":                                                                      score.ReasonPostCutoff,
		"https://www.rag-research-hub.example.org/papers/fusion-retrieval-2023":                                 score.ReasonUnresolvable,
		"https://en.wikipedia.org/wiki/Retrieval-augmented_generation":                                          score.ReasonNotAPaper,
		"https://www.vectorstore-blog.example.com/posts/why-rag-needs-a-vector-database?utm_source=chatgpt.com": score.ReasonNotAPaper,
		// A bot wall (403) whose URL holds a PII: a paper by that identity.
		"https://www.sciencedirect.com/science/article/pii/S1532046424000152": score.ReasonNotInGT,
		// A bot wall without identity: alive but unreadable, in strict
		// precision, out of the verifiable-only bound.
		"https://www.clinical-ai-weekly.example.com/2024/05/retrieval-in-triage": score.ReasonUnverifiable,
	}
	if diff := cmp.Diff(wantReasons, reasons); diff != "" {
		t.Errorf("unmatched reasons (-want +got):\n%s", diff)
	}
	c := res.Citation
	if c.Hits != 17 || c.Papers != 21 || c.Unresolvable != 1 || c.Unverifiable != 1 || c.Web != 2 || c.GTSize != 24 {
		t.Errorf("counts: hits %d papers %d unresolvable %d unverifiable %d web %d gt %d", c.Hits, c.Papers, c.Unresolvable, c.Unverifiable, c.Web, c.GTSize)
	}
	// The claim that shrinks RETRO's database tenfold is contradicted by the
	// sentence of its source that states the real size.
	var contradicted []string
	for _, cl := range res.Claims {
		for _, v := range cl.Verdicts {
			if v.Label == claimtrace.Contradicted {
				contradicted = append(contradicted, v.URL+" | "+cl.Text)
				if !strings.Contains(v.Evidence, "2 trillion token database") {
					t.Errorf("contradicted without the conflicting sentence as evidence: %q", v.Evidence)
				}
			}
		}
	}
	wantContra := []string{"https://arxiv.org/abs/2112.04426 | With a 200 billion token database, RETRO obtains performance comparable to GPT-3 on the Pile [8]."}
	if diff := cmp.Diff(wantContra, contradicted); diff != "" {
		t.Errorf("contradicted pairs (-want +got):\n%s", diff)
	}
	if c.Precision == nil || *c.Precision != 17.0/23 || *c.PrecisionVerifiable != 17.0/22 || *c.CompatPrecision != 17.0/21 || c.Recall != 17.0/24 {
		t.Errorf("precision %v verifiable %v compat %v recall %v", deref(c.Precision), deref(c.PrecisionVerifiable), deref(c.CompatPrecision), c.Recall)
	}
	// DPR is cited by its arXiv URL and its DOI: one reference.
	for _, m := range c.Matched {
		if m.BibID == "karpukhin2020dense" && len(m.URLs) != 2 {
			t.Errorf("DPR urls = %v, want the arXiv and the DOI URL", m.URLs)
		}
	}
	// Tool chatter is not a claim; every claim has a valid span.
	text, _ := os.ReadFile(filepath.Join(opts.ReportsDir, demo.TaskID+".md"))
	for _, cl := range res.Claims {
		if cl.Start < 0 || cl.End > len(text) || string(text[cl.Start:cl.End]) != cl.Text {
			t.Errorf("claim %s span [%d,%d) does not match its text", cl.ID, cl.Start, cl.End)
		}
		if cl.Start < len("I'll research") {
			t.Errorf("tool chatter became claim %s: %q", cl.ID, cl.Text)
		}
	}
	if res.AAR.PCov == nil || *res.AAR.PCov <= 0 || *res.AAR.PCov >= 1 {
		t.Errorf("pcov = %v, want strictly between 0 and 1 (uncited and fabricated-only claims exist)", res.AAR.PCov)
	}
	b, _ := os.ReadFile(filepath.Join(opts.OutDir, "summary.json"))
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]string{
		{"reports"}, {"citation", "precision"}, {"citation", "recall"}, {"citation", "micro_precision"},
		{"citation", "micro_recall"}, {"citation", "refs_per_report"}, {"cited", "match_rate"},
		{"cited", "statements_per_report"}, {"cited", "unknown"}, {"non_cited", "factual_accuracy"},
		{"non_cited", "statements_per_report"}, {"non_cited", "undecided"}, {"aar", "pcov"}, {"aar", "psnd"},
		{"aar", "ctran"}, {"aar", "conflicts_found"}, {"aar", "conflicts_disclosed"}, {"aar", "aeff_proxy"}, {"llm", "calls"}, {"llm", "input_tokens"},
		{"llm", "output_tokens"}, {"llm", "cache_hits"},
	} {
		var v any = raw
		for _, k := range path {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			var present bool
			v, present = m[k]
			if !present {
				t.Errorf("summary.json lacks %v", path)
				break
			}
		}
	}
}

// countingFetcher counts fetches per URL and can cancel the run after n.
type countingFetcher struct {
	inner  Fetcher
	mu     sync.Mutex
	counts map[string]int
	calls  atomic.Int64
	after  int64
	cancel context.CancelFunc
}

func (f *countingFetcher) Fetch(ctx context.Context, u string) (*fetch.Page, error) {
	if f.after > 0 && f.calls.Add(1) > f.after {
		f.cancel()
		return nil, ctx.Err()
	}
	f.mu.Lock()
	f.counts[u]++
	f.mu.Unlock()
	return f.inner.Fetch(ctx, u)
}

// TestResume interrupts a run, reruns it and checks that the result equals
// an uninterrupted run and that no source was fetched twice.
func TestResume(t *testing.T) {
	opts, _ := demoRun(t)
	ref, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ref.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
	if err != nil {
		t.Fatal(err)
	}

	opts2, _ := demoRun(t)
	ctx, cancel := context.WithCancel(context.Background())
	cf := &countingFetcher{inner: opts2.Fetcher, counts: map[string]int{}, after: 8, cancel: cancel}
	opts2.Fetcher = cf
	opts2.Concurrency = 1
	ev, err := New(opts2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v, want context.Canceled", err)
	}
	cf.after = 0
	ev2, err := New(opts2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev2.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for u, n := range cf.counts {
		if n > 1 {
			t.Errorf("%s fetched %d times across the interrupted run and the resume", u, n)
		}
	}
	got, err := os.ReadFile(filepath.Join(opts2.OutDir, "reports", demo.TaskID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var a, b Result
	if err := json.Unmarshal(want, &a); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatalf("decode: %v", err)
	}
	a.File, b.File = "", ""
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("resumed result differs from an uninterrupted run (-want +got):\n%s", diff)
	}
}

// TestClaimGapsAreWords checks that a claim without complete provenance
// says why in words.
func TestClaimGapsAreWords(t *testing.T) {
	opts, _ := demoRun(t)
	ev, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := ReadResult(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	gaps := map[string]int{}
	for _, c := range res.Claims {
		if c.Complete != (c.Gap == "") {
			t.Errorf("claim %s: complete %v but gap %q", c.ID, c.Complete, c.Gap)
		}
		if c.Gap != "" {
			gaps[c.Gap]++
		}
	}
	if gaps["no source"] == 0 || gaps["unresolved source"] == 0 || len(gaps) != 2 {
		t.Errorf("gaps = %v, want no source and unresolved source", gaps)
	}
}
