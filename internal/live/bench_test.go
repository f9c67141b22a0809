package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// factCitation is one cited page of a DeepResearch Bench FACT run: the page
// text as FACT scraped it, the statements of the report citing it, and the
// FACT pipeline's LLM label for each (supported, unsupported, unknown).
type factCitation struct {
	URL     string
	Content string
	Facts   []string
	Labels  []string
}

// loadFACT reads the shared FACT outputs of the `dls` system on the
// OpenAI-Deep-Research science prompts: one report a line.
func loadFACT(tb testing.TB) [][]factCitation {
	tb.Helper()
	dir := sharedtest.Dir(tb, "reports/openai-dr-science-drb/results/fact/dls")
	f, err := os.Open(filepath.Join(dir, "validated.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var reports [][]factCitation
	for sc.Scan() {
		var rec struct {
			Citations map[string]struct {
				Facts    []string `json:"facts"`
				Content  string   `json:"url_content"`
				Validate []struct {
					Idx    int    `json:"idx"`
					Result string `json:"result"`
				} `json:"validate_res"`
			} `json:"citations_deduped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatal(err)
		}
		var cits []factCitation
		for u, c := range rec.Citations {
			if u == "" {
				continue // statements FACT could not attach to a URL
			}
			fc := factCitation{URL: u, Content: cutUTF8(c.Content, MaxText), Facts: c.Facts, Labels: make([]string, len(c.Facts))}
			for _, v := range c.Validate {
				if v.Idx >= 0 && v.Idx < len(fc.Labels) {
					fc.Labels[v.Idx] = v.Result
				}
			}
			cits = append(cits, fc)
		}
		slices.SortFunc(cits, func(a, b factCitation) int { return compareStrings(a.URL, b.URL) })
		reports = append(reports, cits)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return reports
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// recordReport records one report's sources in a new session and returns
// the session id and the source id of each URL.
func recordReport(tb testing.TB, svc *Service, name string, cits []factCitation) (string, map[string]string) {
	tb.Helper()
	sid := mustOpen(tb, svc, name)
	ids := make(map[string]string, len(cits))
	for i, c := range cits {
		id := fmt.Sprintf("s%d", i+1)
		in := SourceInput{ID: id, URL: c.URL, Excerpt: c.Content}
		if _, err := svc.AddSource(context.Background(), sid, in); err != nil {
			tb.Fatalf("source %s: %v", c.URL, err)
		}
		ids[c.URL] = id
	}
	return sid, ids
}

// TestFACTStatementsThroughTheGate replays the 249 statement–URL pairs of
// eight real deep-research reports through live sessions, as an agent
// recording them would, and compares the gate with FACT's LLM labels. The
// offline judge is lexical, so the figures are its, not a ceiling; the test
// asserts only that the gate separates the labels at all.
func TestFACTStatementsThroughTheGate(t *testing.T) {
	reports := loadFACT(t)
	svc := testService(t, Options{})
	type tally struct{ n, gated int }
	byLabel := map[string]*tally{}
	var latencies []time.Duration
	for ri, cits := range reports {
		sid, ids := recordReport(t, svc, fmt.Sprintf("fact-%d", ri), cits)
		for _, c := range cits {
			for k, fact := range c.Facts {
				start := time.Now()
				res, err := svc.AddClaim(context.Background(), sid, ClaimInput{Statement: fact, Supports: []string{ids[c.URL]}})
				latencies = append(latencies, time.Since(start))
				if err != nil {
					t.Fatalf("claim %q: %v", fact, err)
				}
				label := c.Labels[k]
				if label == "" {
					label = "missing"
				}
				if byLabel[label] == nil {
					byLabel[label] = &tally{}
				}
				byLabel[label].n++
				if res.Gated {
					byLabel[label].gated++
				}
			}
		}
	}
	slices.Sort(latencies)
	total := 0
	for label, c := range byLabel {
		total += c.n
		t.Logf("FACT label %-11s %3d statements, %3d gated (%.1f%%)", label, c.n, c.gated, 100*float64(c.gated)/float64(c.n))
	}
	t.Logf("%d statements; add_claim latency p50 %v, p90 %v, max %v", total, latencies[len(latencies)/2], latencies[len(latencies)*9/10], latencies[len(latencies)-1])
	sup, uns := byLabel["supported"], byLabel["unsupported"]
	if sup == nil || uns == nil {
		t.Fatalf("labels %v: want supported and unsupported statements", byLabel)
	}
	if rs, ru := float64(sup.gated)/float64(sup.n), float64(uns.gated)/float64(uns.n); ru <= rs {
		t.Errorf("the gate holds back %.2f of FACT-unsupported statements and %.2f of supported ones: no separation", ru, rs)
	}
}

// stubJudge answers instantly, to measure what the service adds around the
// judge: validation, the store write, the gate.
type stubJudge struct{}

func (stubJudge) JudgeSource(_ context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	out := make([]claimtrace.Verdict, len(claims))
	for i := range out {
		out[i] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 0.9, Evidence: cutUTF8(source, 80), Judge: "stub"}
	}
	return out, nil
}

// BenchmarkAddClaim measures add_claim on real data: the sources of the
// first FACT report (15 scraped pages, median 10 KB of text) recorded as
// excerpts, then its statements added as claims citing their page, each
// judged, stored in SQLite and gated. A session is restarted every
// sessionClaims claims, so the figure is the mean over sessions growing
// from 0 to that size.
func BenchmarkAddClaim(b *testing.B) {
	const sessionClaims = 250
	reports := loadFACT(b)
	cits := reports[0]
	type pair struct{ url, fact string }
	var pairs []pair
	for _, c := range cits {
		for _, f := range c.Facts {
			pairs = append(pairs, pair{c.URL, f})
		}
	}
	for _, bc := range []struct {
		name  string
		judge Judge
	}{{"offline", nil}, {"stub-judge", stubJudge{}}} {
		b.Run(bc.name, func(b *testing.B) {
			svc := testService(b, Options{Judge: bc.judge})
			var sid string
			var ids map[string]string
			n := 0
			for b.Loop() {
				if n%sessionClaims == 0 {
					b.StopTimer()
					sid, ids = recordReport(b, svc, fmt.Sprintf("bench-%d", n), cits)
					b.StartTimer()
				}
				p := pairs[n%len(pairs)]
				if _, err := svc.AddClaim(context.Background(), sid, ClaimInput{Statement: p.fact, Supports: []string{ids[p.url]}}); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
}

// BenchmarkRecordSources measures add_source on real data: the 15 scraped
// pages of the first FACT report recorded one after the other in a fresh
// session (one op = one page), with and without the offline contradiction
// detector comparing each new page with the earlier ones.
func BenchmarkRecordSources(b *testing.B) {
	cits := loadFACT(b)[0]
	for _, bc := range []struct {
		name     string
		detector prov.Detector
	}{{"no-detector", nil}, {"offline-detector", prov.Offline{}}} {
		b.Run(bc.name, func(b *testing.B) {
			svc := testService(b, Options{Detector: bc.detector})
			n := 0
			var sid string
			for b.Loop() {
				if n%len(cits) == 0 {
					b.StopTimer()
					sid = mustOpen(b, svc, fmt.Sprintf("src-%d", n))
					b.StartTimer()
				}
				c := cits[n%len(cits)]
				if _, err := svc.AddSource(context.Background(), sid, SourceInput{URL: c.URL, Excerpt: c.Content}); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
}

// heldOutAttribution returns the held-out (test) half of the shared
// AttributionBench pairs: claims with the evidence passages a system cited,
// labelled by people. The shipped offline calibration was fitted on the
// other half.
func heldOutAttribution(tb testing.TB) []labels.Pair {
	tb.Helper()
	dir := sharedtest.Dir(tb, "labels/attributionbench")
	pairs, err := labels.ReadFile(filepath.Join(dir, "dev.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	return labels.Filter(pairs, labels.SplitTest)
}

// TestAttributionBenchThroughTheGate records each held-out AttributionBench
// pair the way an agent would — the cited passage as a source's excerpt,
// then the claim citing it — and compares the gate with the human label.
func TestAttributionBenchThroughTheGate(t *testing.T) {
	pairs := heldOutAttribution(t)
	svc := testService(t, Options{})
	gated := map[claimtrace.Label][2]int{} // label → {n, gated}
	var sid string
	for i, p := range pairs {
		if i%100 == 0 {
			sid = mustOpen(t, svc, fmt.Sprintf("ab-%d", i/100))
		}
		src := mustSource(t, svc, sid, SourceInput{Title: "evidence of " + p.ID, Excerpt: cutUTF8(p.Evidence, MaxText)})
		res := mustClaim(t, svc, sid, ClaimInput{Statement: p.Claim, Supports: []string{src.Source.ID}})
		c := gated[p.Label]
		c[0]++
		if res.Gated {
			c[1]++
		}
		gated[p.Label] = c
	}
	for label, c := range gated {
		t.Logf("human label %-12s %3d pairs, %3d gated (%.1f%%)", label, c[0], c[1], 100*float64(c[1])/float64(c[0]))
	}
	sup, uns := gated[claimtrace.Supported], gated[claimtrace.Unsupported]
	if sup[0] == 0 || uns[0] == 0 {
		t.Fatalf("labels %v: want attributable and non-attributable pairs", gated)
	}
	if rs, ru := float64(sup[1])/float64(sup[0]), float64(uns[1])/float64(uns[0]); ru <= rs {
		t.Errorf("the gate holds back %.2f of non-attributable claims and %.2f of attributable ones: no separation", ru, rs)
	}
}

// BenchmarkAddClaimShortExcerpts measures add_claim in the common live case:
// short excerpts the agent quotes (the held-out AttributionBench evidence
// passages), one source and one claim each, sessions of up to 200 claims.
func BenchmarkAddClaimShortExcerpts(b *testing.B) {
	pairs := heldOutAttribution(b)
	svc := testService(b, Options{})
	var sid string
	n := 0
	ids := make([]string, len(pairs))
	for b.Loop() {
		if n%200 == 0 {
			b.StopTimer()
			sid = mustOpen(b, svc, fmt.Sprintf("short-%d", n))
			for i := range ids {
				ids[i] = ""
			}
			b.StartTimer()
		}
		k := n % len(pairs)
		if ids[k] == "" {
			b.StopTimer()
			ids[k] = mustSource(b, svc, sid, SourceInput{Title: "evidence", Excerpt: cutUTF8(pairs[k].Evidence, MaxText)}).Source.ID
			b.StartTimer()
		}
		if _, err := svc.AddClaim(context.Background(), sid, ClaimInput{Statement: pairs[k].Claim, Supports: []string{ids[k]}}); err != nil {
			b.Fatal(err)
		}
		n++
	}
}
