package passage

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// newIndexRef is NewIndex as it was before buildWindows sized its slices
// from counts taken first: the reference the fast one must agree with.
func newIndexRef(text string, opt Options) *Index {
	// Sized for English text: a token every 6 bytes, a new indexed term
	// every 40.
	ix := &Index{text: text, opt: opt.withDefaults(), an: NewAnalyzer(), vocab: make(map[string]int32, len(text)/40+1),
		toks: make([]Token, 0, len(text)/6+1)}
	ix.sents = Sentences(text)
	ix.sentTok = make([]int, len(ix.sents)+1)
	for i, s := range ix.sents {
		ix.sentTok[i] = len(ix.toks)
		ix.toks = ix.an.AppendTokens(ix.toks, text[s.Start:s.End], s.Start)
	}
	ix.sentTok[len(ix.sents)] = len(ix.toks)
	ix.buildWindowsRef()
	return ix
}

func (ix *Index) buildWindowsRef() {
	n := len(ix.sents)
	if n == 0 {
		return
	}
	// Term ids per sentence (those of sentence i are
	// ids[idStart[i]:idStart[i+1]]), so windows are counted without maps.
	ids := make([]int32, 0, len(ix.toks))
	idStart := make([]int, n+1)
	ix.tokID = make([]int32, len(ix.toks))
	for i := range ix.sents {
		idStart[i] = len(ids)
		for k := ix.sentTok[i]; k < ix.sentTok[i+1]; k++ {
			t := ix.toks[k]
			if !indexed(t) {
				ix.tokID[k] = -1
				continue
			}
			id, ok := ix.vocab[t.Term]
			if !ok {
				id = int32(len(ix.vocab))
				ix.vocab[t.Term] = id
			}
			ids = append(ids, id)
			ix.tokID[k] = id
		}
	}
	idStart[n] = len(ids)
	sentIDs := func(i int) []int32 { return ids[idStart[i]:idStart[i+1]] }
	counts := make([]int32, len(ix.vocab))
	var touched []int32
	// Postings in window order with their term ids, then grouped by term
	// (a counting sort, which keeps each term's windows in order).
	type termPosting struct {
		id int32
		posting
	}
	flat := make([]termPosting, 0, 2*len(ids))
	perTerm := make([]int32, len(ix.vocab)+1)
	total := 0
	// One window starts at every sentence until a window reaches the end.
	for first := 0; first < n; first++ {
		last := first + 1
		for last < first+ix.opt.Window && last < n && ix.sents[last].End-ix.sents[first].Start <= ix.opt.MaxWindowBytes {
			last++
		}
		w := int32(len(ix.windows))
		length := 0
		touched = touched[:0]
		for s := first; s < last; s++ {
			for _, id := range sentIDs(s) {
				if counts[id] == 0 {
					touched = append(touched, id)
				}
				counts[id]++
				length++
			}
		}
		for _, id := range touched {
			flat = append(flat, termPosting{id, posting{window: w, tf: counts[id]}})
			perTerm[id+1]++
			counts[id] = 0
		}
		ix.windows = append(ix.windows, window{first: first, last: last, length: length})
		total += length
		if last == n {
			break
		}
	}
	for id := range len(ix.vocab) {
		perTerm[id+1] += perTerm[id]
	}
	ix.postStart = perTerm
	ix.posts = make([]posting, len(flat))
	next := slices.Clone(perTerm[:len(ix.vocab)])
	for _, p := range flat {
		ix.posts[next[p.id]] = p.posting
		next[p.id]++
	}
	ix.avgLen = float64(total) / float64(len(ix.windows))
	if ix.avgLen == 0 {
		ix.avgLen = 1
	}
}

// checkIndex holds NewIndex, its postings built, equal to its reference
// on text, under the default options and narrow windows, and the postings
// queryPostings reads equal to the index's.
func checkIndex(t *testing.T, text string) {
	t.Helper()
	for _, opt := range []Options{{}, {Window: 1}, {Window: 5, MaxWindowBytes: 120}} {
		got, want := NewIndex(text, opt), newIndexRef(text, opt)
		// Every term's postings read by a scan are the inverted index's.
		all := make([]int32, len(got.vocab))
		for id := range all {
			all[id] = int32(id)
		}
		if len(got.windows) > 0 { // RankTokens reads no postings of a text without windows
			posts, start := got.queryPostings(all)
			got.buildPostings()
			if !slices.Equal(posts, got.posts) || !slices.Equal(start, got.postStart) {
				t.Fatalf("queryPostings on %q, %+v: %v %v, buildPostings %v %v", text, opt, posts, start, got.posts, got.postStart)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("NewIndex(%q, %+v) differs from the reference:\n got %+v\nwant %+v", text, opt, got, want)
		}
	}
}

func TestNewIndexAgreesWithReference(t *testing.T) {
	checkIndex(t, page)
	checkIndex(t, "The dam holds 4.2 km³ of water. It was finished in 1964, after nine years. The dam's water feeds three cities; the cities grew.")
	checkIndex(t, strings.Repeat("Rain fell on the hills. ", 90)) // one term, many windows
	checkIndex(t, "of the and. To be or not to be.")              // no indexed term
	checkIndex(t, "")
	checkIndex(t, "  \n\n ")
}

func FuzzNewIndexAgreesWithReference(f *testing.F) {
	f.Add("Wells ran dry in 2019. Farmers dug deeper wells; 40% of them failed. The region's rain returned in 2021.")
	f.Add(page)
	f.Add("東京の人口は増えた。The population of Tokyo grew by 1,200 people.")
	f.Fuzz(func(t *testing.T, text string) {
		checkIndex(t, text)
	})
}
