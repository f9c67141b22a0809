package labels

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

func TestReadSciFact(t *testing.T) {
	got, err := ReadFile(filepath.Join("testdata", "scifact", "claims.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	statins := "Statins and stroke in older adults\nWe followed 4,210 adults over 70 for six years.\nStatin use reduced the risk of ischaemic stroke by 18%.\nNo effect on haemorrhagic stroke was seen."
	vitamin := "Vitamin D supplements did not lower fracture rates in the trial.\nAdherence was above 90%."
	nurses := "A cohort of night-shift nurses\nNight-shift work was associated with higher body mass index."
	span := func(text, sentence string) Span {
		i := strings.Index(text, sentence)
		if i < 0 {
			t.Fatalf("%q not in %q", sentence, text)
		}
		return Span{Start: i, End: i + len(sentence)}
	}
	want := []Pair{
		{ID: "1/101", Dataset: "scifact", Claim: "Statins reduced the risk of ischaemic stroke in adults over 70 [<|multi_cit|>].", Evidence: statins,
			Label: claimtrace.Supported, Format: FormatSciFact, Line: 1, Rationale: []Span{span(statins, "Statin use reduced the risk of ischaemic stroke by 18%.")}},
		{ID: "2/102", Dataset: "scifact", Claim: "Vitamin D supplements lowered fracture rates [<|multi_cit|>].", Evidence: vitamin,
			Label: claimtrace.Contradicted, Format: FormatSciFact, Line: 2, Rationale: []Span{span(vitamin, "Vitamin D supplements did not lower fracture rates in the trial.")}},
		{ID: "3/103", Dataset: "scifact", Claim: "Night-shift nurses sleep less than day-shift nurses (<|multi_cit|>).", Evidence: nurses,
			Label: claimtrace.Unsupported, Format: FormatSciFact, Line: 4},
		{ID: "4/101", Dataset: "scifact", Claim: "Statins prevent both kinds of stroke.", Evidence: statins, Label: claimtrace.Contradicted, Format: FormatSciFact, Line: 5,
			Rationale: []Span{span(statins, "Statin use reduced the risk of ischaemic stroke by 18%."), span(statins, "No effect on haemorrhagic stroke was seen.")}},
		{ID: "4/103", Dataset: "scifact", Claim: "Statins prevent both kinds of stroke.", Evidence: nurses, Label: claimtrace.Unsupported, Format: FormatSciFact, Line: 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadFile(scifact) mismatch (-want +got):\n%s", diff)
	}
	for _, p := range got {
		for _, r := range p.Rationale {
			if s := p.Evidence[r.Start:r.End]; strings.Contains(s, "\n") || s == "" {
				t.Errorf("%s: rationale span %v = %q, want one sentence", p.ID, r, s)
			}
		}
	}
}

func TestReadSciFactErrors(t *testing.T) {
	if _, err := ReadFile(filepath.Join("testdata", "scifact-nocorpus", "claims.jsonl")); err == nil || !strings.Contains(err.Error(), CorpusFile) {
		t.Errorf("claims without a corpus: error %v, want one naming %s", err, CorpusFile)
	}
	corpus := Corpus{"7": {Title: "T", Abstract: []string{"One sentence.", "Two sentences."}}}
	tests := []struct {
		name, input, wantSub string
	}{
		{"unknown document", `{"id": 1, "claim": "x", "evidence": {}, "cited_doc_ids": [8]}`, "document 8 is not in"},
		{"sentence out of range", `{"id": 1, "claim": "x", "evidence": {"7": [{"sentences": [2], "label": "SUPPORT"}]}, "cited_doc_ids": [7]}`, "sentence 2 of 2"},
		{"negative sentence", `{"id": 1, "claim": "x", "evidence": {"7": [{"sentences": [-1], "label": "SUPPORT"}]}, "cited_doc_ids": [7]}`, "sentence -1"},
		{"unknown label", `{"id": 1, "claim": "x", "evidence": {"7": [{"sentences": [0], "label": "MAYBE"}]}, "cited_doc_ids": [7]}`, `label "MAYBE"`},
		{"both labels", `{"id": 1, "claim": "x", "evidence": {"7": [{"sentences": [0], "label": "SUPPORT"}, {"sentences": [1], "label": "REFUTE"}]}, "cited_doc_ids": [7]}`, "both supported and contradicted"},
		{"no id", `{"claim": "x", "evidence": {}, "cited_doc_ids": [7]}`, `no "id"`},
		{"no document", `{"id": 1, "claim": "x", "evidence": {}, "cited_doc_ids": []}`, "no cited document"},
		{"not json", `{"id": 1, "claim": "x", "evidence": [1], "cited_doc_ids": [7]}`, "scifact claim"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sciFactPairs([]byte(tt.input), "d", corpus)
			if err == nil || !strings.Contains(err.Error(), tt.wantSub) {
				t.Fatalf("sciFactPairs(%s) error = %v, want one containing %q", tt.input, err, tt.wantSub)
			}
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("error %v is not ErrInvalid", err)
			}
		})
	}
	if _, err := ParseLine([]byte(`{"id": 1, "claim": "x", "evidence": {}, "cited_doc_ids": [7]}`), "d"); err == nil {
		t.Error("ParseLine of a SciFact line without its corpus: nil error")
	}
}

// FuzzSciFactPairs: any claim line gives pairs whose rationale spans are
// whole sentences of their evidence, or an error; never a panic.
func FuzzSciFactPairs(f *testing.F) {
	f.Add(`{"id": 1, "claim": "x", "evidence": {"7": [{"sentences": [1, 0], "label": "SUPPORT"}]}, "cited_doc_ids": [7, 9]}`)
	f.Add(`{"id": "a", "claim": "", "evidence": {"9": [{"sentences": [0], "label": "refute"}]}}`)
	f.Add(`{"id": 2, "claim": "x", "evidence": {}, "cited_doc_ids": ["7", 7]}`)
	corpus := Corpus{"7": {Title: "Title", Abstract: []string{"One.", "Two é."}}, "9": {Abstract: []string{"Only."}}}
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := sciFactPairs([]byte(in), "d", corpus)
		if err != nil {
			return
		}
		if len(ps) == 0 {
			t.Fatal("no pairs and no error")
		}
		for _, p := range ps {
			doc := corpus[p.ID[strings.LastIndex(p.ID, "/")+1:]]
			for _, r := range p.Rationale {
				if r.Start < 0 || r.End > len(p.Evidence) || r.Start > r.End {
					t.Fatalf("span %v out of %d bytes", r, len(p.Evidence))
				}
				found := false
				for _, s := range doc.Abstract {
					found = found || p.Evidence[r.Start:r.End] == s
				}
				if !found {
					t.Fatalf("span %v = %q is not a sentence", r, p.Evidence[r.Start:r.End])
				}
			}
		}
	})
}
