package prov

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOfflineIndexAddReusesIDs: a text compared with one index and added
// to another (whose stem ids differ), or added without being compared,
// leaves that index finding what an index of plain additions finds.
func TestOfflineIndexAddReusesIDs(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 22))
	topics := []string{"open-domain QA", "clinical triage", "legal search"}
	var texts []string
	for range 40 {
		texts = append(texts, randomSource(r, topics))
	}
	o := Offline{}
	plain, mixed, other := o.NewIndex(), o.NewIndex(), o.NewIndex()
	// other holds the texts in reverse: its ids are not mixed's.
	for k := len(texts) - 1; k >= 0; k-- {
		if err := other.Add(fmt.Sprintf("r%d", k), o.Analyse(texts[k])); err != nil {
			t.Fatal(err)
		}
	}
	found := 0
	for k, text := range texts {
		id := fmt.Sprintf("s%d", k)
		want, err := plain.Conflicts(ctx, id, o.Analyse(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := plain.Add(id, o.Analyse(text)); err != nil {
			t.Fatal(err)
		}
		a := o.Analyse(text)
		switch k % 3 {
		case 0: // compared with mixed itself
			got, err := mixed.Conflicts(ctx, id, a)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("text %d: %+v, want %+v", k, got, want)
			}
		case 1: // compared with another index
			if _, err := other.Conflicts(ctx, id, a); err != nil {
				t.Fatal(err)
			}
		}
		if err := mixed.Add(id, a); err != nil {
			t.Fatal(err)
		}
		found += len(want)
	}
	if found == 0 {
		t.Fatal("no conflicts: the sessions do not exercise the index")
	}
	probe := o.Analyse(texts[3] + " " + texts[17])
	want, err := plain.Conflicts(ctx, "probe", probe)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mixed.Conflicts(ctx, "probe", o.Analyse(texts[3]+" "+texts[17]))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("after mixed additions: %+v, want %+v (not none)", got, want)
	}
	if !slices.Equal(mixed.stems, plain.stems) || !slices.EqualFunc(mixed.post, plain.post, slices.Equal) {
		t.Fatalf("stems or postings differ: %d and %d stems", len(mixed.stems), len(plain.stems))
	}
	for i := range plain.sents {
		m, p := mixed.sents[i], plain.sents[i]
		if !slices.Equal(m.stems, p.stems) || !slices.Equal(m.heads, p.heads) || m.cues != p.cues || m.src != p.src {
			t.Fatalf("sentence %d: %+v, want %+v", i, m, p)
		}
	}
}
