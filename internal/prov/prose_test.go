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

// TestAnalyseAsDetect: a text analysed alone (Analyse, stems not
// interned) has the sentences, stems and cues Detect's analysis gives it,
// and its sentences complete alike.
func TestAnalyseAsDetect(t *testing.T) {
	text := "The ferry didn't carry 1.2 million passengers in 2021, the Harbour Board said. " +
		"In phase 2 the GPT-4 system WON'T answer 40% of questions; recall@20 rose since 2019.\n" +
		"Costs would fall by a third under the cheaper scenario, according to the Ministry of Transport. " +
		"Ridership of the night buses held steady through the winter months."
	o := Offline{}.withDefaults()
	alone, many := o.Analyse(text).sents, o.analyseChunk([]SourceText{{Text: text}}, 0, false)
	if len(alone) != 4 || len(many) != len(alone) {
		t.Fatalf("%d sentences analysed alone, %d with others, want 4", len(alone), len(many))
	}
	want := []cues{cueNumber, cueNumber | cueUp, cueNumber | cueDown, 0}
	an := lexical.NewAnalyzer()
	for i := range alone {
		a, m := alone[i], many[i]
		if a.text != m.text || !slices.Equal(a.stems, m.stems) || !slices.Equal(a.heads, m.heads) || a.cues != m.cues || a.full != nil || m.full != nil {
			t.Fatalf("sentence %d: alone %+v, with others %+v", i, a, m)
		}
		if a.cues != want[i] {
			t.Errorf("sentence %d: cues %03b, want %03b", i, a.cues, want[i])
		}
		if diff := cmp.Diff(m.analysis(an), a.analysis(an), cmp.AllowUnexported(analysed{}, token{}, alignment{})); diff != "" {
			t.Errorf("sentence %d (-with others +alone):\n%s", i, diff)
		}
	}
}
