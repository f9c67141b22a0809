package report

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// sharedReport is one real report of the shared data.
type sharedReport struct {
	corpus, name, text string
}

// loadSharedReports reads every report of the shared data: Markdown files
// through Load, JSONL lines ({"id", "prompt", "article"}) through Decode.
func loadSharedReports(tb testing.TB) []sharedReport {
	tb.Helper()
	root := sharedtest.Dir(tb, "reports")
	var out []sharedReport
	add := func(corpus, pattern string) {
		files, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil || len(files) == 0 {
			tb.Fatalf("no reports match %s: %v", pattern, err)
		}
		sort.Strings(files)
		for _, f := range files {
			if filepath.Ext(f) == ".jsonl" {
				fh, err := os.Open(f)
				if err != nil {
					tb.Fatal(err)
				}
				sc := bufio.NewScanner(fh)
				sc.Buffer(make([]byte, 1<<20), 1<<26)
				n := 0
				for sc.Scan() {
					if len(bytes.TrimSpace(sc.Bytes())) == 0 {
						continue
					}
					n++
					name := filepath.Base(f) + ":" + strconv.Itoa(n) + ".json"
					text, err := Decode(name, sc.Bytes())
					if err != nil {
						tb.Fatalf("%s: %v", name, err)
					}
					out = append(out, sharedReport{corpus, name, text})
				}
				fh.Close()
				continue
			}
			text, err := Load(f)
			if err != nil {
				tb.Fatalf("%v", err)
			}
			rel, _ := filepath.Rel(root, f)
			out = append(out, sharedReport{corpus, rel, text})
		}
	}
	add("onyx", "onyx-drb/report_logs/*.md")
	add("claude37", "claude37-drb/data/test_data/raw_data/*.jsonl")
	add("openai-dr", "openai-dr-science-drb/data/test_data/raw_data/*.jsonl")
	add("openai-dr", "openai-dr-science-drb/data/test_data/raw_data/*.md")
	add("deepscholar", "deepscholar-bench/tests/baselines_results/*/*/*.md")
	add("massgen", "deepscholar-massgen/outputs/results_minimax/*/final_report.md")
	return out
}

var (
	onyxMarker = regexp.MustCompile(`\[\[\d+\]\]\(https?://`)
	labelRE    = regexp.MustCompile(`\d+`)
	// listLine matches the shape of a reference-list line ("[3] https://…",
	// "[3] [7] https://…"), which must never be a claim.
	listLine = regexp.MustCompile(`^(?:\[\d+\]\s*)+(?:https?://|www\.)`)
)

// TestSharedReports parses every shared report and checks the invariants,
// then the per-corpus expectations: Onyx's [[n]](url) markers become URL
// citations, Claude's [n] markers resolve through the reference list.
func TestSharedReports(t *testing.T) {
	reports := loadSharedReports(t)
	type stats struct {
		reports, claims, cited, cites, listEntries, numbered, dangling, noTarget, urls int
	}
	by := map[string]*stats{}
	var onyxMarkers, onyxURL int
	for _, r := range reports {
		doc := Parse(r.text)
		if err := checkDocument(r.text, doc); err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		st := by[r.corpus]
		if st == nil {
			st = &stats{}
			by[r.corpus] = st
		}
		st.reports++
		st.claims += len(doc.Claims)
		for _, c := range doc.Claims {
			if c.Cited() {
				st.cited++
			}
		}
		labels := map[string]bool{} // labels of the reference-list entries
		for _, c := range doc.Citations {
			if c.Kind == claimtrace.KindListEntry {
				for _, l := range labelRE.FindAllString(c.Marker, -1) {
					labels["["+l+"]"] = true
				}
			}
		}
		for _, c := range doc.Citations {
			switch c.Kind {
			case claimtrace.KindListEntry:
				st.listEntries++
				continue
			case claimtrace.KindNumbered:
				st.numbered++
				if !c.HasTarget() {
					st.noTarget++
					if !labels[c.Marker] {
						st.dangling++
					}
				}
			}
			st.cites++
			if c.URL != "" {
				st.urls++
			}
		}
		for _, c := range doc.Claims {
			if listLine.MatchString(c.Text) {
				t.Errorf("%s: claim %s looks like a reference-list entry: %.120q", r.name, c.ID, c.Text)
			}
		}
		if len(doc.Claims) == 0 {
			t.Errorf("%s: no claims", r.name)
		}
		if r.corpus == "onyx" {
			// A marker counts when a link citation with its URL starts at
			// it, or when it lies in a reference-list entry with a URL.
			for _, m := range onyxMarker.FindAllStringIndex(r.text, -1) {
				onyxMarkers++
				for _, c := range doc.Citations {
					if c.URL != "" && (c.Kind == claimtrace.KindLink && c.Start == m[0] || c.Kind == claimtrace.KindListEntry && c.Start <= m[0] && m[1] <= c.End) {
						onyxURL++
						break
					}
				}
			}
		}
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := by[n]
		t.Logf("%-12s reports %3d  claims %6d (cited %5d)  in-text citations %6d (with URL %6d)  numbered %5d (no entry %4d, entry without target %3d)  list entries %5d",
			n, s.reports, s.claims, s.cited, s.cites, s.urls, s.numbered, s.dangling, s.noTarget-s.dangling, s.listEntries)
	}
	if onyxMarkers == 0 {
		t.Fatal("no [[n]](url) markers in the Onyx reports")
	}
	rate := float64(onyxURL) / float64(onyxMarkers)
	t.Logf("onyx: %d of %d [[n]](url) markers became URL citations (%.4f)", onyxURL, onyxMarkers, rate)
	if rate < 0.95 {
		t.Errorf("onyx: only %.3f of [[n]](url) markers became URL citations, want ≥ 0.95", rate)
	}
	c := by["claude37"]
	if c == nil || c.numbered == 0 {
		t.Fatal("no numbered markers in the Claude reports")
	}
	res := 1 - float64(c.noTarget)/float64(c.numbered)
	t.Logf("claude37: %d of %d [n] markers resolve (%.4f)", c.numbered-c.noTarget, c.numbered, res)
	if res < 0.95 {
		t.Errorf("claude37: only %.3f of [n] markers resolve, want ≥ 0.95", res)
	}
}
