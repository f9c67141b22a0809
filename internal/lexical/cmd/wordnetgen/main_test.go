package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReproduces regenerates the table from the WordNet installed by
// Debian's wordnet-base and requires the committed opposites.txt to be
// exactly that output. It skips where WordNet is not installed.
func TestReproduces(t *testing.T) {
	const dir = "/usr/share/wordnet"
	if _, err := os.Stat(filepath.Join(dir, "data.verb")); err != nil {
		t.Skipf("WordNet not installed (apt-get install wordnet-base): %v", err)
	}
	out := filepath.Join(t.TempDir(), "opposites.txt")
	if err := run(dir, out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "opposites.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("regenerated table (%d bytes) differs from internal/lexical/opposites.txt (%d bytes): run go generate ./internal/lexical", len(got), len(want))
	}
}

// TestReadGarbage feeds each reader lines that are not WordNet's: each
// must return an error naming the problem, never panic.
func TestReadGarbage(t *testing.T) {
	wn := &wordnet{synsets: map[synsetID]*synset{}, rank: map[string]int{}, tagged: map[string]bool{}, forms: map[string][]string{}, tags: map[string]int{}}
	for _, line := range []string{
		"", "00001740", "00001740 29 v zz breathe 0", "00001740 29 v 02 breathe 0",
		"00001740 29 v 01 breathe 0 xx", "00001740 29 v 01 breathe 0 002 ! 00002 v",
		"00001740 29 v 01 breathe 0 001 ! 00002325 v 0x01 | gloss",
	} {
		if err := wn.readSynset('v', line); err == nil {
			t.Errorf("readSynset(%q) = nil error", line)
		}
	}
	for _, line := range []string{"", "abc n", "abc n 1 x", "abc n 1 1 !", "abc n 1 0 1 x 0001"} {
		if err := wn.readIndex('n', line); err == nil {
			t.Errorf("readIndex(%q) = nil error", line)
		}
	}
	for _, line := range []string{"", "abc", "abc%2:30:00:: 1", "abc 1 2", "abc%9:1 1 2", "abc%2:30 x 2"} {
		if err := wn.readCount(line); err == nil {
			t.Errorf("readCount(%q) = nil error", line)
		}
	}
	if err := wn.readException("lone"); err == nil {
		t.Error("readException(lone) = nil error")
	}
	if len(wn.synsets) != 0 || len(wn.rank) != 0 || len(wn.tags) != 0 {
		t.Errorf("garbage stored: %d synsets, %d ranks, %d counts", len(wn.synsets), len(wn.rank), len(wn.tags))
	}
}

// TestOppositesSmall builds the table from a five-synset WordNet written
// for this test: "increase" and "decrease" are antonyms, "increase" has
// the derivation "increment", and "grow" is a troponym of "increase" with
// "grew" as an irregular form and "growth" as its own derivation. All but
// "growth" are opposed to "decrease" (a troponym's derivations are not
// carried over), and none to "increase".
func TestOppositesSmall(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"data.verb": "00000001 30 v 01 increase 0 003 ! 00000002 v 0101 ~ 00000003 v 0000 + 00000005 n 0101 | become bigger\n" +
			"00000002 30 v 01 decrease 0 001 ! 00000001 v 0101 | become smaller\n" +
			"00000003 30 v 01 grow 0 002 @ 00000001 v 0000 + 00000004 n 0101 | increase in size\n",
		"data.noun": "00000004 22 n 01 growth 0 001 + 00000003 v 0101 | a process of becoming larger\n" +
			"00000005 22 n 01 increment 0 001 + 00000001 v 0101 | an amount of increase\n",
		"data.adj":    "",
		"data.adv":    "",
		"index.verb":  "increase v 1 3 ! ~ + 1 1 00000001\ndecrease v 1 1 ! 1 1 00000002\ngrow v 1 2 @ + 1 1 00000003\n",
		"index.noun":  "growth n 1 1 + 1 1 00000004\nincrement n 1 1 + 1 1 00000005\n",
		"index.adj":   "",
		"index.adv":   "",
		"verb.exc":    "grew grow\n",
		"noun.exc":    "",
		"adj.exc":     "",
		"adv.exc":     "",
		"cntlist.rev": "grow%2:30:00:: 1 5\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wn, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := wn.opposites()
	for _, p := range [][2]string{{"decreas", "increas"}, {"decreas", "grow"}, {"decreas", "grew"}, {"decreas", "increment"}} {
		if !got[p[0]][p[1]] {
			t.Errorf("%s/%s missing from %v", p[0], p[1], got)
		}
	}
	if got["decreas"]["growth"] || got["grow"]["increas"] || got["increas"]["grow"] {
		t.Errorf("growth carried over, or increase and grow opposed: %v", got)
	}
}

// FuzzReadSynset: any line is read or refused with an error, never a
// panic, and a synset read has its words.
func FuzzReadSynset(f *testing.F) {
	f.Add("00000001 30 v 01 increase 0 002 ! 00000002 v 0101 ~ 00000003 v 0000 | become bigger")
	f.Add("00000004 22 n 02 growth 0 increase(a) 1 000 | x")
	f.Fuzz(func(t *testing.T, line string) {
		wn := &wordnet{synsets: map[synsetID]*synset{}, rank: map[string]int{}, tagged: map[string]bool{}, forms: map[string][]string{}, tags: map[string]int{}}
		if err := wn.readSynset('v', line); err != nil {
			return
		}
		for _, s := range wn.synsets {
			for _, p := range s.ptrs {
				if p.source < 0 || p.target < 0 {
					t.Fatalf("pointer %+v", p)
				}
			}
		}
		_ = wn.readIndex('v', line)
		_ = wn.readCount(line)
		_ = wn.readException(line)
		wn.opposites()
	})
}
