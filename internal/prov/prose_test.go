package prov

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// proseCases are sentences written for this test, prose and not.
var proseCases = []struct {
	s    string
	want bool
}{
	{"The Rhine carried 12% more freight in 2023 than a year before.", true},
	{"  Rivers flood more often where the banks are paved.", true},
	{"[12] Smith, J. Rivers of Europe. 2019.", false},
	{"3. Meyer, river traffic in Basel", false},
	{"- a bullet point about barges", false},
	{"See https://example.org/rhine for the figures.", false},
	{"as [the survey](x) says", false},
	{"M. Saffman, T. G. Walker, and K. Mølmer wrote it.", false},
	{"| year | tonnes |", false},
	{"Freight grew in the U.S. and in the E.U. alike.", true},
	{"", true},
}

func TestProse(t *testing.T) {
	for _, tc := range proseCases {
		if got := prose(tc.s); got != tc.want {
			t.Errorf("prose(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestAnalyseParallel: analysing many texts in parallel gives what one
// pass gives, in the same order.
func TestAnalyseParallel(t *testing.T) {
	subjects := []string{"The Rhine", "Freight on the Danube", "Barge traffic at Basel", "The port of Rotterdam", "River cruise demand"}
	verbs := []string{"rose by", "fell by", "did not change by", "grew by", "dropped by"}
	var texts []SourceText
	for i := range 3 * parallelTexts {
		texts = append(texts, SourceText{ID: fmt.Sprintf("s%d", i), Text: fmt.Sprintf("%s %s %d%% in %d compared with the year before. Shippers reported longer waits at locks number %d.",
			subjects[i%len(subjects)], verbs[(i/7)%len(verbs)], i%91, 2000+i%25, i%13)})
	}
	o := Offline{}.withDefaults()
	par, one := o.analyse(texts), o.analyseChunk(texts, 0, false)
	if len(par) != len(one) || len(par) == 0 {
		t.Fatalf("%d sentences in parallel, %d in one pass", len(par), len(one))
	}
	for i := range par {
		if par[i].src != one[i].src || par[i].text != one[i].text || !slices.Equal(par[i].stems, one[i].stems) {
			t.Fatalf("sentence %d differs: %+v vs %+v", i, par[i], one[i])
		}
	}
}

// TestAnalyseKeepsTokens: sentences analysed with their tokens kept
// (Analyse) complete as those analysed without (Detect's).
func TestAnalyseKeepsTokens(t *testing.T) {
	text := "The ferry didn't carry 1.2 million passengers in 2021, the Harbour Board said. " +
		"In phase 2 the GPT-4 system WON'T answer 40% of questions; recall@20 rose since 2019.\n" +
		"Costs would fall by a third under the cheaper scenario, according to the Ministry of Transport."
	o := Offline{}.withDefaults()
	kept, dropped := o.analyseChunk([]SourceText{{Text: text}}, 0, true), o.analyseChunk([]SourceText{{Text: text}}, 0, false)
	if len(kept) != 3 || len(dropped) != len(kept) {
		t.Fatalf("%d sentences kept, %d without tokens, want 3", len(kept), len(dropped))
	}
	an := lexical.NewAnalyzer()
	for i := range kept {
		if kept[i].full == nil || kept[i].full.toks == nil || dropped[i].full != nil {
			t.Fatalf("sentence %d: tokens kept %v, analysis without %v", i, kept[i].full != nil, dropped[i].full != nil)
		}
		if diff := cmp.Diff(dropped[i].analysis(an), kept[i].analysis(an), cmp.AllowUnexported(analysed{}, token{}, alignment{})); diff != "" {
			t.Errorf("sentence %d (-without +kept):\n%s", i, diff)
		}
	}
}
