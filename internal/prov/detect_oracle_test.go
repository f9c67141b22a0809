package prov

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/claimtrace/claimtrace/internal/lexical"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// The offline detector as it was before its sentences became compact
// (indexed, their analysis allocated only for those compared): the oracle
// FuzzDetectOracle holds Detect equal to.

// detectOracle is Detect over full analysed sentences.
func (o Offline) detectOracle(ctx context.Context, texts []SourceText) ([]Conflict, error) {
	o = o.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sents := o.analyseOracle(texts)
	cands, err := o.candidatesOracle(ctx, sents)
	if err != nil {
		return nil, err
	}
	var out []Conflict
	seen := make(map[[3]string]bool)
	an := lexical.NewAnalyzer()
	for _, p := range cands {
		a, b := &sents[p.pair[0]], &sents[p.pair[1]]
		a.complete(an)
		b.complete(an)
		kind, entity := compare(a, b, p.polarity, p.numbers)
		if kind == "" {
			continue
		}
		c := Conflict{
			A: texts[a.src].ID, B: texts[b.src].ID, Entity: entity,
			SnippetA: snippet(a.text), SnippetB: snippet(b.text),
			Kind: kind, Detector: "offline",
		}
		k := [3]string{c.A, c.B, strings.ToLower(entity)}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out, nil
}

// analyseOracle is analyse returning full analysed sentences.
func (o Offline) analyseOracle(texts []SourceText) []analysed {
	workers := min(runtime.GOMAXPROCS(0), len(texts)/parallelTexts)
	if workers <= 1 {
		return o.analyseChunkOracle(texts, 0, false)
	}
	parts := make([][]analysed, workers)
	var wg sync.WaitGroup
	size := (len(texts) + workers - 1) / workers
	for w := range workers {
		from, to := w*size, min((w+1)*size, len(texts))
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = o.analyseChunkOracle(texts[from:to], from, false)
		}()
	}
	wg.Wait()
	return slices.Concat(parts...)
}

// analyseChunkOracle is analyseChunk returning full analysed sentences.
func (o Offline) analyseChunkOracle(texts []SourceText, base int, keep bool) []analysed {
	var out []analysed
	an := lexical.NewAnalyzer()
	intern := map[string]string{}
	var ltoks []lexical.Token // reused unless kept
	var toks []token
	var buf []string // a sentence's stems, then copied
	for si, t := range texts {
		sents := splitSentences(t.Text)
		out = slices.Grow(out, len(sents))
		for _, s := range sents {
			text := t.Text[s.start:s.end]
			if len(text) > 16*o.MaxWords || !prose(text) {
				continue // far too long to be one statement, or not prose
			}
			if keep {
				ltoks = an.Tokenize(text)
				toks = make([]token, 0, len(ltoks))
			} else {
				ltoks = an.AppendTokens(ltoks[:0], text, 0)
			}
			toks = appendTokens(toks[:0], text, ltoks)
			if len(toks) > o.MaxWords {
				continue
			}
			buf = buf[:0]
			for _, tk := range toks {
				if tk.stem == "" {
					continue
				}
				st, ok := tk.stem, keep // a few texts' stems are not worth interning
				if !ok {
					if st, ok = intern[tk.stem]; !ok {
						st = tk.stem
						intern[st] = st
					}
				}
				buf = append(buf, st)
			}
			slices.Sort(buf)
			buf = slices.Compact(buf)
			if len(buf) < min(o.MinShared, o.NumberMinShared) {
				continue
			}
			a := analysed{src: base + si, text: text, stems: slices.Clone(buf)}
			if keep {
				a.toks, a.lex = toks, ltoks
			}
			out = append(out, a)
		}
	}
	return out
}

// candidatesOracle is candidates over full analysed sentences.
func (o Offline) candidatesOracle(ctx context.Context, sents []analysed) ([]candidate, error) {
	post := make(map[string][]int32)
	for i, s := range sents {
		for _, st := range s.stems {
			post[st] = append(post[st], int32(i))
		}
	}
	// Common stems say nothing about topic and would make this quadratic.
	maxDF := max(24, len(sents)/200)
	count := make([]int32, len(sents))
	var touched []int32
	var out []candidate
	minShared, minOverlap := min(o.MinShared, o.NumberMinShared), min(o.MinOverlap, o.NumberMinOverlap)
	for i := range sents {
		if i%512 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, st := range sents[i].stems {
			p := post[st]
			if len(p) > maxDF {
				continue
			}
			for _, j := range p {
				if int(j) <= i || sents[j].src == sents[i].src {
					continue
				}
				if count[j] == 0 {
					touched = append(touched, j)
				}
				count[j]++
			}
		}
		slices.Sort(touched)
		for _, j := range touched {
			if count[j] >= 2 || minShared <= 1 {
				shared := sharedStems(sents[i].stems, sents[j].stems)
				union := len(sents[i].stems) + len(sents[j].stems) - shared
				if shared >= minShared && float64(shared) >= minOverlap*float64(union) {
					close := shared >= o.MinShared && float64(shared) >= o.MinOverlap*float64(union)
					numbers := shared >= o.NumberMinShared && float64(shared) >= o.NumberMinOverlap*float64(union)
					out = append(out, candidate{pair: [2]int32{int32(i), j}, polarity: close, numbers: numbers})
				}
			}
			count[j] = 0
		}
		touched = touched[:0]
	}
	return out, nil
}

// FuzzDetectOracle: Detect, over compact sentences analysed only when
// compared, finds what the oracle over full sentences finds, in its order.
func FuzzDetectOracle(f *testing.F) {
	f.Add("Metformin reduced mortality in elderly diabetic patients. It did not lower costs for the clinics.",
		"Metformin did not reduce mortality in elderly diabetic patients.", "Costs for the clinics were lowered by metformin.")
	f.Add("The model reached 92% accuracy on the ImageNet validation set.", "The model reached 71% accuracy on the ImageNet validation set.",
		"On the ImageNet validation set the model reached 92% accuracy, the authors wrote.")
	f.Add("Spending reached $600 billion in 2023 on cloud services.", "Spending reached $1.2-1.5 trillion in 2023 on cloud services.", "")
	f.Add("Latency rose after the change. 延迟在更改后下降了。", "Latency fell after the change; it wasn't 3x lower.", "Latency didn't rise after the change.")
	f.Add("Freight on the Danube fell by 12% in 2021 compared with the year before.",
		"Freight on the Danube rose by 12% in 2021 compared with the year before.",
		"Freight on the Danube grew 40% in 2021 compared with the year before, shippers said.")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		texts := []SourceText{{ID: "A", Text: a}, {ID: "B", Text: b}, {ID: "C", Text: c}, {ID: "A2", Text: a + " " + c}}
		ctx := context.Background()
		got, err := Offline{}.Detect(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Offline{}.detectOracle(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Detect found %+v, the oracle %+v", got, want)
		}
	})
}

// TestDetectOracleShared: on the pages of the shared reports, each
// report's and all of them together, Detect finds what the oracle finds.
func TestDetectOracleShared(t *testing.T) {
	dir := sharedtest.Dir(t, "reports/openai-dr-science-drb/results/fact/dls")
	f, err := os.Open(filepath.Join(dir, "validated.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	reports, total := 0, 0
	var all []SourceText
	for sc.Scan() {
		var rec struct {
			Pages map[string]struct {
				Text string `json:"url_content"`
			} `json:"citations_deduped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		var texts []SourceText
		for url, p := range rec.Pages {
			texts = append(texts, SourceText{ID: url, Text: p.Text})
		}
		slices.SortFunc(texts, func(a, b SourceText) int { return strings.Compare(a.ID, b.ID) })
		got, err := Offline{}.Detect(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Offline{}.detectOracle(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("report %d: Detect found %d conflicts, the oracle %d", reports, len(got), len(want))
		}
		reports++
		total += len(got)
		all = append(all, texts...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if reports == 0 {
		t.Fatal("no reports read")
	}
	got, err := Offline{}.Detect(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Offline{}.detectOracle(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("all pages: Detect found %d conflicts, the oracle %d", len(got), len(want))
	}
	t.Logf("%d reports: %d conflicts, the same; their %d pages together: %d conflicts, the same", reports, total, len(all), len(got))
}

// TestDetectOracleConflictPairs: on the labelled conflict pairs, each pair
// alone and all passages together (where sentences of many sources share
// stems), Detect finds what the oracle finds, and finds some.
func TestDetectOracleConflictPairs(t *testing.T) {
	var pairs []conflictPair
	for _, f := range [][2]string{{"conflictpairs", "conflict_pairs_dev.jsonl"}, {"conflictpairs", "conflict_pairs_heldout.jsonl"}, {"conflictpairs3", "conflict_pairs.jsonl"}} {
		pairs = append(pairs, readConflictPairsFile(t, f[0], f[1])...)
	}
	ctx := context.Background()
	var all []SourceText
	found := 0
	for _, p := range pairs {
		texts := []SourceText{{ID: p.ID + "/a", Text: p.A}, {ID: p.ID + "/b", Text: p.B}}
		all = append(all, texts...)
		got, err := Offline{}.Detect(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Offline{}.detectOracle(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("pair %s: Detect found %+v, the oracle %+v", p.ID, got, want)
		}
		found += len(got)
	}
	got, err := Offline{}.Detect(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Offline{}.detectOracle(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("all passages: Detect found %d conflicts, the oracle %d", len(got), len(want))
	}
	if found == 0 || len(got) == 0 {
		t.Errorf("%d conflicts in pairs, %d among all passages: the comparison compared nothing", found, len(got))
	}
	t.Logf("%d pairs: %d conflicts; all %d passages together: %d", len(pairs), found, len(all), len(got))
}
