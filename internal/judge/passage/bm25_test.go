package passage

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// page is a hand-made web page: navigation, an unrelated section, the
// passage that matters, and a section that repeats the topic words without
// the claim's specifics.
const page = `Skip to content
Home | About | Contact

# Tozzer Library
The Tozzer Library is part of the Harvard Library system. It began as the library of the Peabody Museum in 1866.
Today the library's collection holds more than 260,000 volumes on anthropology and archaeology. The first book acquired by the Peabody Museum Library is still on its shelves.
Opening hours vary during holidays.

# Visiting
Visitors must show a Harvard ID. The reading room seats forty people.
Photography is allowed without flash. Lockers are available near the entrance.

# Other libraries
Many libraries hold anthropology books. Some libraries hold museum books too.
`

func TestRankFindsTheRelevantPassage(t *testing.T) {
	ix := NewIndex(page, Options{Window: 2})
	tests := []struct {
		query string
		want  string // must be inside the top passage
	}{
		{"The Tozzer library holds over 260,000 volumes.", "260,000 volumes"},
		{"The first book acquired by the Peabody Museum Library", "first book acquired"},
		{"Visitors need a Harvard ID to enter the reading room.", "Harvard ID"},
		{"Photography without flash is permitted.", "Photography is allowed"},
	}
	for _, tt := range tests {
		ps := ix.Rank(tt.query, 3)
		if len(ps) == 0 {
			t.Errorf("Rank(%q) returned nothing", tt.query)
			continue
		}
		if got := ps[0].Text(page); !strings.Contains(got, tt.want) {
			t.Errorf("Rank(%q)[0] = %q, want it to contain %q", tt.query, got, tt.want)
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].Score > ps[i-1].Score {
				t.Errorf("Rank(%q): scores not descending: %v then %v", tt.query, ps[i-1].Score, ps[i].Score)
			}
		}
	}
}

func TestRankBoostsPhrasesAndNumbers(t *testing.T) {
	// Both sentences share "museum" and "book" with the query; only the
	// second has the bigram "museum book"…"first book" and the number.
	src := "A book about a museum. Museum visitors bought a book.\n\nThe museum's first book arrived in 1866."
	ix := NewIndex(src, Options{Window: 1})
	ps := ix.Rank("The museum's first book arrived in 1866", 3)
	if len(ps) == 0 || !strings.Contains(ps[0].Text(src), "1866") {
		t.Fatalf("Rank top = %+v, want the 1866 sentence", ps)
	}
	noBoost := NewIndex(src, Options{Window: 1, BigramBoost: -1, NumberBoost: -1})
	boosted := ps[0].Score
	plain := noBoost.Rank("The museum's first book arrived in 1866", 1)[0].Score
	if boosted <= plain {
		t.Errorf("boosted score %v not above unboosted %v", boosted, plain)
	}
}

func TestRankNoOverlap(t *testing.T) {
	ix := NewIndex(page, Options{})
	if ps := ix.Rank("quantum chromodynamics lattice", 5); len(ps) != 0 {
		t.Errorf("Rank with no shared term = %+v, want none", ps)
	}
	if ps := NewIndex("", Options{}).Rank("anything", 5); ps != nil {
		t.Errorf("Rank on empty source = %+v, want nil", ps)
	}
	if ps := ix.Rank("Tozzer", 0); ps != nil {
		t.Errorf("Rank(k=0) = %+v, want nil", ps)
	}
}

func TestWindowsCoverEverySentence(t *testing.T) {
	for _, w := range []int{1, 2, 3, 5, 50} {
		ix := NewIndex(page, Options{Window: w, MaxWindowBytes: 120})
		covered := make([]bool, len(ix.Sentences()))
		for _, win := range ix.windows {
			if win.last-win.first > w {
				t.Errorf("window %d: %+v longer than %d sentences", w, win, w)
			}
			for s := win.first; s < win.last; s++ {
				covered[s] = true
			}
		}
		for i, c := range covered {
			if !c {
				t.Errorf("window %d: sentence %d %q in no window", w, i, page[ix.Sentences()[i].Start:ix.Sentences()[i].End])
			}
		}
	}
}

func FuzzRank(f *testing.F) {
	f.Add(page, "Tozzer library 260,000 volumes")
	f.Add("北京是中国的首都。上海是最大的城市！", "北京 首都")
	f.Add("a. b. c.", "")
	f.Fuzz(func(t *testing.T, src, query string) {
		ix := NewIndex(src, Options{Window: 3})
		for _, p := range ix.Rank(query, 5) {
			if p.Start < 0 || p.End > len(src) || p.Start >= p.End {
				t.Fatalf("passage %+v out of bounds for source of %d bytes", p, len(src))
			}
			if p.First < 0 || p.Last > len(ix.Sentences()) || p.First >= p.Last {
				t.Fatalf("passage %+v has bad sentence range", p)
			}
			if !strings.Contains(src, p.Text(src)) {
				t.Fatalf("passage text not a substring")
			}
		}
	})
}

// wicePages loads the claims and cited pages of the shared WiCE labels.
func wicePages(tb testing.TB) (claims, pages []string, support [][][]int) {
	tb.Helper()
	path := filepath.Join(sharedtest.Dir(tb, "labels/wice"), "dev.jsonl")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var row struct {
			Claim      string   `json:"claim"`
			Evidence   []string `json:"evidence"`
			Supporting [][]int  `json:"supporting_sentences"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			tb.Fatal(err)
		}
		claims = append(claims, row.Claim)
		pages = append(pages, strings.Join(row.Evidence, "\n"))
		support = append(support, row.Supporting)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return claims, pages, support
}

// TestWiCEPassageRecall measures passage location on real pages. WiCE
// annotators list, per claim, alternative sets of supporting sentences.
// "any" counts claims with at least one supporting sentence inside the
// top-k passages; "set" counts claims with one whole set inside them. The
// floors sit below the measured figures so that a regression fails; the
// lead baseline (the first k windows of the page) is logged for contrast.
func TestWiCEPassageRecall(t *testing.T) {
	claims, pages, support := wicePages(t)
	const k = 5
	var anyHit, setHit, leadAny, total int
	for i, claim := range claims {
		if len(support[i]) == 0 || len(support[i][0]) == 0 {
			continue
		}
		total++
		// WiCE evidence is one sentence a line: map lines to byte ranges.
		lineStart := []int{0}
		for j := 0; j < len(pages[i]); j++ {
			if pages[i][j] == '\n' {
				lineStart = append(lineStart, j+1)
			}
		}
		lineStart = append(lineStart, len(pages[i])+1)
		inside := func(ps []Passage, line int) bool {
			for _, p := range ps {
				if line+1 < len(lineStart) && lineStart[line] < p.End && lineStart[line+1]-1 > p.Start {
					return true
				}
			}
			return false
		}
		ix := NewIndex(pages[i], Options{Window: 3})
		top := ix.Rank(claim, k)
		var lead []Passage
		for w := 0; w < k && w < len(ix.windows); w++ {
			win := ix.windows[w]
			lead = append(lead, Passage{Span: Span{ix.sents[win.first].Start, ix.sents[win.last-1].End}})
		}
		a, s, l := false, false, false
		for _, group := range support[i] {
			all := true
			for _, line := range group {
				in := inside(top, line)
				a = a || in
				all = all && in
				l = l || inside(lead, line)
			}
			s = s || all
		}
		for _, ok := range []struct {
			hit bool
			n   *int
		}{{a, &anyHit}, {s, &setHit}, {l, &leadAny}} {
			if ok.hit {
				*ok.n++
			}
		}
	}
	rec := func(n int) float64 { return float64(n) / float64(total) }
	t.Logf("WiCE passage recall@%d over %d supported or partial claims: any %.3f, whole set %.3f (lead-%d baseline: any %.3f)",
		k, total, rec(anyHit), rec(setHit), k, rec(leadAny))
	if rec(anyHit) < 0.95 || rec(setHit) < 0.65 {
		t.Errorf("passage recall@%d: any %.3f (want ≥ 0.95), set %.3f (want ≥ 0.65)", k, rec(anyHit), rec(setHit))
	}
}

func BenchmarkNewIndexWiCE(b *testing.B) {
	_, pages, _ := wicePages(b)
	bytes := 0
	for _, p := range pages {
		bytes += len(p)
	}
	b.SetBytes(int64(bytes / len(pages)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		NewIndex(pages[i%len(pages)], Options{})
	}
}

func BenchmarkRankWiCE(b *testing.B) {
	claims, pages, _ := wicePages(b)
	ixs := make([]*Index, len(pages))
	for i, p := range pages {
		ixs[i] = NewIndex(p, Options{})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % len(claims)
		ixs[j].Rank(claims[j], 5)
	}
}
