package report

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// TestFACTAgreement compares our deterministic cited-statement extraction
// with DeepResearch Bench FACT's LLM extraction on the same OpenAI Deep
// Research reports: the (statement, URL) pairs FACT found, how many of their
// URLs we also find cited, and how many of their statements overlap one of
// our claims citing the same URL.
func TestFACTAgreement(t *testing.T) {
	dir := sharedtest.Dir(t, "reports/openai-dr-science-drb")
	articles := map[string]string{}
	f, err := os.Open(filepath.Join(dir, "data/test_data/raw_data/openai_science_03_17.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r struct {
			ID      json.Number `json:"id"`
			Article string      `json:"article"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		articles[r.ID.String()] = r.Article
	}
	f.Close()
	g, err := os.Open(filepath.Join(dir, "results/fact/openai_science_03_17/extracted.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	canon := func(u string) string {
		c, err := biblio.CanonicalURL(u)
		if err != nil {
			return u
		}
		return c
	}
	var theirPairs, ourPairs, theirURLs, sharedURLs, covered int
	sc = bufio.NewScanner(g)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r struct {
			ID        json.Number `json:"id"`
			Citations []struct {
				Fact string `json:"fact"`
				URL  string `json:"url"`
			} `json:"citations"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		text, ok := articles[r.ID.String()]
		if !ok {
			continue
		}
		doc := Parse(text)
		claimsByURL := map[string][]string{}
		for _, c := range doc.Claims {
			seen := map[string]bool{}
			for _, i := range c.Citations {
				u := doc.Citations[i].URL
				if u == "" || seen[canon(u)] {
					continue
				}
				seen[canon(u)] = true
				claimsByURL[canon(u)] = append(claimsByURL[canon(u)], c.Text)
				ourPairs++
			}
		}
		urls := map[string]bool{}
		for _, p := range r.Citations {
			theirPairs++
			cu := canon(p.URL)
			urls[cu] = true
			for _, ct := range claimsByURL[cu] {
				if overlap(p.Fact, ct) >= 0.6 {
					covered++
					break
				}
			}
		}
		for u := range urls {
			theirURLs++
			if len(claimsByURL[u]) > 0 {
				sharedURLs++
			}
		}
	}
	if theirPairs == 0 {
		t.Fatal("no FACT pairs read")
	}
	urlShare := float64(sharedURLs) / float64(theirURLs)
	pairShare := float64(covered) / float64(theirPairs)
	t.Logf("FACT: %d (statement, URL) pairs, %d URLs; ours: %d pairs; FACT URLs we find cited: %d (%.3f); FACT statements overlapping one of our claims citing the same URL (≥60%% of words): %d (%.3f)",
		theirPairs, theirURLs, ourPairs, sharedURLs, urlShare, covered, pairShare)
	if urlShare < 0.9 {
		t.Errorf("only %.3f of the URLs FACT found cited are cited in our parse", urlShare)
	}
}

// overlap is the share of a's words found in b.
func overlap(a, b string) float64 {
	words := strings.FieldsFunc(strings.ToLower(a), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	if len(words) == 0 {
		return 0
	}
	lb := strings.ToLower(b)
	n := 0
	for _, w := range words {
		if strings.Contains(lb, w) {
			n++
		}
	}
	return float64(n) / float64(len(words))
}
