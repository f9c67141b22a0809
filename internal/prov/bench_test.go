package prov

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/cputime"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// generated builds a graph of n claims shaped like an agent-recorded report
// at scale: n/4 sources (every tenth unresolved, with a 40-word excerpt),
// n/8 reasoning steps each using two sources (every 50th step without
// input), and per claim two supports edges from sources (ν spread over
// [0, 1), every seventh unknown), one edge from a reasoning step for half
// of the claims, a contradicts edge for every twentieth claim, and n/1000
// conflicts between sources.
func generated(n int) *Graph {
	ns, nr := max(n/4, 2), max(n/8, 1)
	excerpt := "Retrieval augmentation improved answer accuracy on long-form question answering benchmarks " +
		"across several domains while the largest models gained less than the smaller ones in the reported trials."
	g := &Graph{
		Sources:   make([]Source, ns),
		Reasoning: make([]Reasoning, nr),
		Claims:    make([]Claim, n),
		Edges:     make([]Edge, 0, 3*n),
	}
	for i := range g.Sources {
		g.Sources[i] = Source{ID: "s" + strconv.Itoa(i), Excerpt: excerpt, Resolved: i%10 != 0}
	}
	for i := range g.Reasoning {
		g.Reasoning[i] = Reasoning{ID: "r" + strconv.Itoa(i), Type: Synthesis}
		if i%50 != 0 {
			g.Edges = append(g.Edges,
				Edge{From: g.Sources[(2*i)%ns].ID, To: g.Reasoning[i].ID, Rel: Supports, Strength: Nu(0.8)},
				Edge{From: g.Sources[(2*i+1)%ns].ID, To: g.Reasoning[i].ID, Rel: Supports, Strength: Nu(0.7)})
		}
	}
	for i := range g.Claims {
		id := "c" + strconv.Itoa(i)
		g.Claims[i] = Claim{ID: id, Statement: "claim", Location: Location{Start: 10 * i, End: 10*i + 9}}
		a, b := (i*7)%ns, (i*7+3)%ns
		var nu *float64
		if i%7 != 0 {
			nu = Nu(float64(i%100) / 100)
		}
		g.Edges = append(g.Edges, Edge{From: g.Sources[a].ID, To: id, Rel: Supports, Strength: nu},
			Edge{From: g.Sources[b].ID, To: id, Rel: Supports, Strength: Nu(0.9)})
		if i%2 == 0 {
			g.Edges = append(g.Edges, Edge{From: g.Reasoning[i%nr].ID, To: id, Rel: Supports, Strength: Nu(0.85)})
		}
		if i%20 == 0 {
			g.Edges = append(g.Edges, Edge{From: g.Sources[(i*11+5)%ns].ID, To: id, Rel: Contradicts})
		}
	}
	for i := 0; i < max(n/1000, 1); i++ {
		g.Conflicts = append(g.Conflicts, Conflict{A: g.Sources[(i*13)%ns].ID, B: g.Sources[(i*13+1)%ns].ID, Entity: "accuracy"})
	}
	return g
}

// BenchmarkMetrics computes every AAR metric, per claim and per report, on
// a generated graph of one million claims. It reports ns/claim; the index
// is built once outside the loop (BenchmarkIndex measures it).
func BenchmarkMetrics(b *testing.B) {
	const n = 1_000_000
	g := generated(n)
	ix, err := NewIndex(g)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := ix.Metrics(DefaultTau); err != nil {
			b.Fatal(err)
		}
	}
	reportPerClaim(b, cputime.Process()-cpu, n)
}

// reportPerClaim reports wall-clock and CPU nanoseconds per claim (CPU
// time includes the garbage collector's work on other threads).
func reportPerClaim(b *testing.B, cpu time.Duration, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/claim")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/claim")
}

// BenchmarkIndex validates and indexes the same graph (string ids to
// integers, CSR adjacency, acyclicity).
func BenchmarkIndex(b *testing.B) {
	const n = 1_000_000
	g := generated(n)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := NewIndex(g); err != nil {
			b.Fatal(err)
		}
	}
	reportPerClaim(b, cputime.Process()-cpu, n)
}

// realSources reads the fetched page texts a real deep-research report
// cited (DeepResearch Bench FACT outputs, report "dls" id 64: 34 pages,
// about 1 MB of text).
func realSources(tb testing.TB, id int) []SourceText {
	dir := sharedtest.Dir(tb, "reports/openai-dr-science-drb/results/fact/dls")
	f, err := os.Open(filepath.Join(dir, "validated.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			ID    int `json:"id"`
			Pages map[string]struct {
				Text string `json:"url_content"`
			} `json:"citations_deduped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatal(err)
		}
		if rec.ID != id {
			continue
		}
		var out []SourceText
		for url, p := range rec.Pages {
			out = append(out, SourceText{ID: url, Text: p.Text})
		}
		slices.SortFunc(out, func(a, b SourceText) int { return cmpString(a.ID, b.ID) })
		return out
	}
	tb.Fatalf("report %d not in %s", id, dir)
	return nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// BenchmarkOfflineDetector runs the contradiction detector over the full
// texts of the sources of one real report.
func BenchmarkOfflineDetector(b *testing.B) {
	texts := realSources(b, 64)
	size := 0
	for _, t := range texts {
		size += len(t.Text)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := (Offline{}).Detect(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}
