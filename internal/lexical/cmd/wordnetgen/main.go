// Command wordnetgen builds lexical's table of opposite words
// (internal/lexical/opposites.txt) from WordNet 3.0, so that the table the
// judge and the contradiction detector embed is reproducible rather than a
// hand list:
//
//	apt-get install wordnet-base     # Debian: WordNet 3.0 in /usr/share/wordnet
//	go generate ./internal/lexical   # runs: go run ./cmd/wordnetgen -out opposites.txt
//
// Two words are opposites when WordNet links them by an antonym pointer
// ("increase"/"decrease", "expand"/"contract", "many"/"few"). The
// opposition is carried to
//
//   - the other words of each synset ("widen", "broaden") and their
//     derivationally related forms ("lose" → "loss", "profit" as a noun);
//   - for verbs, the troponyms of each synset two levels down (increase →
//     grow → expand; decrease → decline, shrink, drop), one level or none
//     where the tree is large ("change"/"stay"), without their
//     derivations ("magnify" is a troponym of "increase", "magnitude" no
//     opposite of "reduction");
//   - inflections: WordNet's exception lists ("risen", "fell", "grown",
//     "shrank") and, for short adjectives, regular comparatives and
//     superlatives ("higher", "lowest"), since Snowball leaves those stems
//     apart.
//
// Every word so collected must be a single word tagged in WordNet's
// semantic concordance (the index's tagsense_cnt). A synonym or
// derivation must have its sense among its first four or tagged at least
// three times (cntlist.rev), a troponym among its first two or tagged at
// least twice ("decline" as "decrease" is its fourth sense, tagged twice;
// "show" as a troponym of "affirm" is neither): rare words and rare
// senses are left out, for precision. Stop words (lexical.IsStopWord:
// "more", "few", "all"), words of fewer than three letters, negations
// ("never") and multi-word entries are left out; the quantifier
// opposites are lexical's own short list. Every word is written as its
// lexical.Stem, one line a stem with its opposites after it, each pair
// once.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 database directory (data.*, index.*, *.exc)")
	out := flag.String("out", "opposites.txt", "file to write")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	wn, err := load(dir)
	if err != nil {
		return err
	}
	pairs := wn.opposites()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := write(f, pairs); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	return f.Close()
}

// posFiles names WordNet's files by part of speech.
var posFiles = map[byte]string{'n': "noun", 'v': "verb", 'a': "adj", 'r': "adv"}

// synsetID is a part of speech and a byte offset in its data file.
type synsetID struct {
	pos byte
	off string
}

// pointer is one pointer of a synset: its symbol, its target and, for
// lexical pointers, the source and target word numbers (1-based; 0 for a
// pointer between whole synsets).
type pointer struct {
	sym            string
	to             synsetID
	source, target int
}

type synset struct {
	words []string
	ptrs  []pointer
}

type wordnet struct {
	synsets map[synsetID]*synset
	// rank is the sense number of a word in a synset (1 = most frequent).
	rank map[string]int
	// tagged holds the words (by part of speech) with at least one sense
	// tagged in the semantic concordance.
	tagged map[string]bool
	// forms maps a base form to its irregular inflections.
	forms map[string][]string
	// tags counts the concordance tags of a sense, keyed by
	// senseKey(lemma, pos, sense number).
	tags map[string]int
}

func senseKey(lemma string, pos byte, sense int) string {
	return lemma + "|" + string(pos) + "|" + strconv.Itoa(sense)
}

func rankKey(w string, id synsetID) string { return w + "|" + string(id.pos) + id.off }

func load(dir string) (*wordnet, error) {
	wn := &wordnet{synsets: map[synsetID]*synset{}, rank: map[string]int{}, tagged: map[string]bool{}, forms: map[string][]string{}, tags: map[string]int{}}
	for pos, name := range posFiles {
		if err := eachLine(filepath.Join(dir, "data."+name), func(line string) error { return wn.readSynset(pos, line) }); err != nil {
			return nil, err
		}
		if err := eachLine(filepath.Join(dir, "index."+name), func(line string) error { return wn.readIndex(pos, line) }); err != nil {
			return nil, err
		}
		if err := eachLine(filepath.Join(dir, name+".exc"), wn.readException); err != nil {
			return nil, err
		}
	}
	if err := eachLine(filepath.Join(dir, "cntlist.rev"), wn.readCount); err != nil {
		return nil, err
	}
	return wn, nil
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "  ") || line == "" { // the licence header
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// readSynset reads one line of a data file:
// offset lex_filenum ss_type w_cnt word lex_id… p_cnt (sym offset pos src/tgt)… | gloss.
func (wn *wordnet) readSynset(pos byte, line string) error {
	head, _, _ := strings.Cut(line, "|")
	f := strings.Fields(head)
	if len(f) < 4 {
		return fmt.Errorf("short synset line")
	}
	id := synsetID{pos, f[0]}
	wc, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil {
		return fmt.Errorf("word count %q: %w", f[3], err)
	}
	i := 4
	s := &synset{}
	for range wc {
		if i+1 >= len(f) {
			return fmt.Errorf("synset %s: words run past the line", f[0])
		}
		w := strings.ToLower(f[i])
		if k := strings.IndexByte(w, '('); k > 0 { // adjective markers: "galore(ip)"
			w = w[:k]
		}
		s.words = append(s.words, w)
		i += 2
	}
	if i >= len(f) {
		return fmt.Errorf("synset %s: no pointer count", f[0])
	}
	pc, err := strconv.Atoi(f[i])
	if err != nil {
		return fmt.Errorf("pointer count %q: %w", f[i], err)
	}
	i++
	for range pc {
		if i+3 >= len(f) {
			return fmt.Errorf("synset %s: pointers run past the line", f[0])
		}
		p := pointer{sym: f[i], to: synsetID{f[i+2][0], f[i+1]}}
		if p.to.pos == 's' { // an adjective satellite lives in data.adj
			p.to.pos = 'a'
		}
		st := f[i+3]
		if len(st) == 4 {
			src, err1 := strconv.ParseInt(st[:2], 16, 32)
			tgt, err2 := strconv.ParseInt(st[2:], 16, 32)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("synset %s: source/target %q", f[0], st)
			}
			p.source, p.target = int(src), int(tgt)
		}
		s.ptrs = append(s.ptrs, p)
		i += 4
	}
	wn.synsets[id] = s
	return nil
}

// readIndex reads one line of an index file:
// lemma pos synset_cnt p_cnt ptr_symbol… sense_cnt tagsense_cnt offset….
func (wn *wordnet) readIndex(pos byte, line string) error {
	f := strings.Fields(line)
	if len(f) < 4 {
		return fmt.Errorf("short index line")
	}
	pc, err := strconv.Atoi(f[3])
	if err != nil {
		return fmt.Errorf("pointer count %q: %w", f[3], err)
	}
	k := 4 + pc
	if k+2 > len(f) {
		return fmt.Errorf("index %s: fields run past the line", f[0])
	}
	tagged, err := strconv.Atoi(f[k+1])
	if err != nil {
		return fmt.Errorf("tagsense count %q: %w", f[k+1], err)
	}
	if tagged > 0 {
		wn.tagged[f[0]+"|"+string(pos)] = true
	}
	for n, off := range f[k+2:] {
		wn.rank[rankKey(f[0], synsetID{pos, off})] = n + 1
	}
	return nil
}

// readException reads "form base…" from an exception list.
func (wn *wordnet) readException(line string) error {
	f := strings.Fields(line)
	if len(f) < 2 {
		return fmt.Errorf("short exception line")
	}
	for _, base := range f[1:] {
		if !slices.Contains(wn.forms[base], f[0]) {
			wn.forms[base] = append(wn.forms[base], f[0])
		}
	}
	return nil
}

// readCount reads "lemma%ss_type:… sense_number tag_cnt" from cntlist.rev.
func (wn *wordnet) readCount(line string) error {
	f := strings.Fields(line)
	if len(f) != 3 {
		return fmt.Errorf("want 3 fields, have %d", len(f))
	}
	lemma, rest, ok := strings.Cut(f[0], "%")
	if !ok || rest == "" {
		return fmt.Errorf("sense key %q", f[0])
	}
	pos := map[byte]byte{'1': 'n', '2': 'v', '3': 'a', '4': 'r', '5': 'a'}[rest[0]]
	sense, err1 := strconv.Atoi(f[1])
	n, err2 := strconv.Atoi(f[2])
	if pos == 0 || err1 != nil || err2 != nil {
		return fmt.Errorf("count line %q", line)
	}
	wn.tags[senseKey(lemma, pos, sense)] += n
	return nil
}

// maxRank and treeDepth bound how far an opposition is carried (see the
// command's doc).
const (
	maxRank         = 4
	maxTroponymRank = 2
	minTroponymTags = 2
	minTags         = 3
	maxTree         = 150
)

var treeDepth = map[byte]int{'v': 2}

// common reports a single word tagged in the concordance whose sense in
// synset id is among its first maxRank or tagged at least minTags times
// ("fall" as "decrease" is its tenth verb sense, tagged 3 times).
func (wn *wordnet) common(w string, id synsetID) bool {
	r := wn.rank[rankKey(w, id)]
	if !single(w) || r == 0 || !wn.tagged[w+"|"+string(id.pos)] {
		return false
	}
	return r <= maxRank || wn.tags[senseKey(w, id.pos, r)] >= minTags
}

func single(w string) bool { return !strings.ContainsAny(w, "_-.'") }

// side collects the words that carry the meaning of word w of synset id,
// each with the part of speech it was found as: w itself, the common
// words of the synset and of its troponyms or hyponyms (treeDepth levels,
// fewer where the tree is larger than maxTree: "change" has 693
// troponyms one level down, "increase" 36), and their derivations.
func (wn *wordnet) side(w string, id synsetID) map[string]byte {
	out := map[string]byte{w: id.pos}
	wn.derive(w, id, out)
	depth := treeDepth[id.pos]
	for depth > 0 && wn.treeSize(id, depth) > maxTree {
		depth--
	}
	var walk func(id synsetID, level int)
	walk = func(id synsetID, level int) {
		s := wn.synsets[id]
		if s == nil {
			return
		}
		for _, x := range s.words {
			if _, seen := out[x]; seen {
				continue
			}
			switch {
			case level == 0 && wn.common(x, id):
				out[x] = id.pos
				wn.derive(x, id, out)
			case level > 0 && wn.primary(x, id):
				out[x] = id.pos
			}
		}
		if level == depth {
			return
		}
		for _, p := range s.ptrs {
			if p.sym == "~" && p.to.pos == id.pos {
				walk(p.to, level+1)
			}
		}
	}
	walk(id, 0)
	return out
}

// primary reports a tagged single word whose sense in synset id is one of
// its first maxTroponymRank, or tagged at least minTroponymTags times: a
// troponym is carried over only where it is what the word often means
// ("grow" as "increase in size", "decline" as "decrease"; not "show" as
// "affirm").
func (wn *wordnet) primary(w string, id synsetID) bool {
	r := wn.rank[rankKey(w, id)]
	if !single(w) || r == 0 || !wn.tagged[w+"|"+string(id.pos)] {
		return false
	}
	return r <= maxTroponymRank || wn.tags[senseKey(w, id.pos, r)] >= minTroponymTags
}

// treeSize counts the words of synset id and its troponyms or hyponyms
// down to depth, rare ones too.
func (wn *wordnet) treeSize(id synsetID, depth int) int {
	s := wn.synsets[id]
	if s == nil {
		return 0
	}
	n := len(s.words)
	if depth > 0 {
		for _, p := range s.ptrs {
			if p.sym == "~" && p.to.pos == id.pos {
				n += wn.treeSize(p.to, depth-1)
			}
		}
	}
	return n
}

// derive adds the common derivationally related forms of word w of
// synset id.
func (wn *wordnet) derive(w string, id synsetID, out map[string]byte) {
	s := wn.synsets[id]
	for _, p := range s.ptrs {
		if p.sym != "+" || p.source < 1 || p.source > len(s.words) || s.words[p.source-1] != w {
			continue
		}
		t := wn.synsets[p.to]
		if t == nil || p.target < 1 || p.target > len(t.words) {
			continue
		}
		if x := t.words[p.target-1]; wn.common(x, p.to) {
			if _, seen := out[x]; !seen {
				out[x] = p.to.pos
			}
		}
	}
}

// inflections returns w and its inflected forms whose stems Snowball does
// not join: irregular forms, and comparatives and superlatives of
// adjectives.
func (wn *wordnet) inflections(w string, adjective bool) []string {
	out := append([]string{w}, wn.forms[w]...)
	if adjective && comparable(w) {
		switch {
		case strings.HasSuffix(w, "e"):
			out = append(out, w+"r", w+"st")
		case strings.HasSuffix(w, "y"):
			out = append(out, w[:len(w)-1]+"ier", w[:len(w)-1]+"iest")
		default:
			out = append(out, w+"er", w+"est")
			if n := len(w); n >= 3 && isConsonant(w[n-1]) && isVowel(w[n-2]) && isConsonant(w[n-3]) && w[n-1] != 'w' {
				out = append(out, w+w[n-1:]+"er", w+w[n-1:]+"est") // big → bigger
			}
		}
	}
	return out
}

// comparable reports an adjective short enough to take -er and -est
// ("high", "wide", "early"), not a participle or a long derived one
// ("reduced", "restrictive", "critical").
func comparable(w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, suf := range []string{"ed", "ing", "ive", "al", "ic", "ous", "ful", "less", "ble", "ant", "ent", "ary", "ory", "ist", "ish", "or", "ar"} {
		if strings.HasSuffix(w, suf) {
			return false
		}
	}
	groups, prev := 0, false
	for i := 0; i < len(w); i++ {
		v := isVowel(w[i]) || w[i] == 'y' && i > 0
		if v && !prev {
			groups++
		}
		prev = v
	}
	return groups <= 2
}

func isVowel(c byte) bool     { return strings.IndexByte("aeiou", c) >= 0 }
func isConsonant(c byte) bool { return c >= 'a' && c <= 'z' && !isVowel(c) }

// opposites returns the table: each stem with the stems opposed to it,
// every pair under its smaller stem.
func (wn *wordnet) opposites() map[string]map[string]bool {
	pairs := map[string]map[string]bool{}
	add := func(a, b string) {
		if a > b {
			a, b = b, a
		}
		if pairs[a] == nil {
			pairs[a] = map[string]bool{}
		}
		pairs[a][b] = true
	}
	stems := func(words map[string]byte) map[string]bool {
		out := map[string]bool{}
		for w, pos := range words {
			for _, f := range wn.inflections(w, pos == 'a') {
				if usable(f) {
					out[lexical.Stem(f)] = true
				}
			}
		}
		return out
	}
	for id, s := range wn.synsets {
		for _, p := range s.ptrs {
			if p.sym != "!" || p.source < 1 || p.source > len(s.words) {
				continue
			}
			t := wn.synsets[p.to]
			if t == nil || p.target < 1 || p.target > len(t.words) {
				continue
			}
			a, b := s.words[p.source-1], t.words[p.target-1]
			if !single(a) || !single(b) {
				continue
			}
			sa := stems(wn.side(a, id))
			sb := stems(wn.side(b, p.to))
			for x := range sa {
				for y := range sb {
					if x != y && !sa[y] && !sb[x] {
						add(x, y)
					}
				}
			}
		}
	}
	return pairs
}

// usable reports a word the table may hold: ASCII letters only, at least
// three of them, not a stop word or a negation ("never"/"ever" is the
// judge's negation cue, not a pair of opposites).
func usable(w string) bool {
	if len(w) < 3 || lexical.IsStopWord(w) || lexical.IsNegation(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// header is the table's first lines: where it comes from and WordNet's
// licence, which asks that its notice appear on every copy.
const header = `# Opposite words, one stem a line followed by the stems opposed to it.
# Generated by internal/lexical/cmd/wordnetgen (go generate ./internal/lexical) from WordNet 3.0;
# do not edit. WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# Permission to use, copy, modify and distribute this software and database and its documentation
# for any purpose and without fee or royalty is hereby granted, provided that you agree to comply
# with the following copyright notice and statements, including the disclaimer, and that the same
# appear on ALL copies of the software, database and documentation, including modifications that
# you make for internal use or for distribution. THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND
# PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF
# EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF
# MERCHANTABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE,
# DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR
# OTHER RIGHTS. The name of Princeton University or Princeton may not be used in advertising or
# publicity pertaining to distribution of the software and/or database. Title to copyright in this
# software, database and any associated documentation shall at all times remain with Princeton
# University and LICENSEE agrees to preserve same.
`

func write(w io.Writer, pairs map[string]map[string]bool) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(header)
	keys := make([]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		opp := make([]string, 0, len(pairs[k]))
		for o := range pairs[k] {
			opp = append(opp, o)
		}
		slices.Sort(opp)
		fmt.Fprintf(bw, "%s %s\n", k, strings.Join(opp, " "))
	}
	return bw.Flush()
}
