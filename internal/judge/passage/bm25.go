package passage

import (
	"cmp"
	"math"
	"slices"
)

// Options tune passage location. The zero value means the defaults.
type Options struct {
	// Window is the number of consecutive sentences in a window (default 3).
	// Windows overlap: one starts at every sentence.
	Window int
	// MaxWindowBytes stops a window from growing past this many bytes; it
	// always holds at least one sentence (default 1600).
	MaxWindowBytes int
	// K1 and B are the BM25 parameters (defaults 1.2 and 0.75).
	K1, B float64
	// BigramBoost is added to a window's score for each distinct claim
	// bigram (two adjacent content words) it contains (default 1; negative
	// disables).
	BigramBoost float64
	// NumberBoost is added for each distinct claim number it contains
	// (default 1; negative disables).
	NumberBoost float64
	// Rerank is how many of the best BM25 windows are re-scored with the
	// boosts (default 40).
	Rerank int
}

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = 3
	}
	if o.MaxWindowBytes <= 0 {
		o.MaxWindowBytes = 1600
	}
	if o.K1 <= 0 {
		o.K1 = 1.2
	}
	if o.B <= 0 {
		o.B = 0.75
	}
	if o.BigramBoost == 0 {
		o.BigramBoost = 1
	}
	if o.NumberBoost == 0 {
		o.NumberBoost = 1
	}
	if o.Rerank <= 0 {
		o.Rerank = 40
	}
	return o
}

// Passage is a window of consecutive sentences of a source.
type Passage struct {
	// Span is the byte range in the source, from the first sentence's start
	// to the last sentence's end.
	Span
	// First and Last are sentence indices: the window holds [First, Last).
	First, Last int
	// Score is the BM25 score plus boosts; higher is more relevant.
	Score float64
}

// Text returns the passage's text: a verbatim substring of src.
func (p Passage) Text(src string) string { return src[p.Start:p.End] }

type posting struct {
	window int32
	tf     int32
}

type window struct {
	first, last int // sentences [first, last)
	length      int // indexed terms
}

// Index is a source text prepared for ranking: sentences, tokens and a BM25
// inverted index over windows. Build one per source and rank every claim
// citing that source against it. An Index memoizes stems and is not safe
// for concurrent use.
type Index struct {
	text    string
	opt     Options
	an      *Analyzer
	sents   []Span
	toks    []Token
	sentTok []int // tokens of sentence i are toks[sentTok[i]:sentTok[i+1]]
	windows []window
	vocab   map[string]int32
	// postings of term id are posts[postStart[id]:postStart[id+1]], in
	// window order: one array for the source, not a slice a term. They
	// are built on the second ranking or by IndexTerms (buildPostings): a
	// source ranked for a single claim, as the live API does, is scanned
	// instead (queryPostings).
	posts     []posting
	postStart []int32
	rankings  int
	// tokID is the term id of each token, -1 for one not indexed.
	tokID  []int32
	avgLen float64
}

// NewIndex analyses text and builds the window index.
func NewIndex(text string, opt Options) *Index {
	// Sized for English text, a token every 5 to 7 bytes, so that the
	// tokens of most texts fit without growing the slice.
	ix := &Index{text: text, opt: opt.withDefaults(), an: NewAnalyzer(), toks: make([]Token, 0, len(text)/5+8)}
	ix.sents = Sentences(text)
	ix.sentTok = make([]int, len(ix.sents)+1)
	for i, s := range ix.sents {
		ix.sentTok[i] = len(ix.toks)
		ix.toks = ix.an.AppendTokens(ix.toks, text[s.Start:s.End], s.Start)
	}
	ix.sentTok[len(ix.sents)] = len(ix.toks)
	ix.buildWindows()
	return ix
}

func indexed(t Token) bool { return t.Content() || t.Kind == Number }

// vocabHint is the size to give the vocabulary of a text of about n
// indexed tokens: a short text repeats few of its words, a long one most.
func vocabHint(n int) int {
	if n <= 256 {
		return n
	}
	return 256 + (n-256)/3
}

// buildWindows numbers the indexed terms and lays out the windows; their
// postings wait for buildPostings. Its slices and map are sized before
// they are filled, so none grows more than once: an excerpt of a page is
// indexed for a single claim as often as a page for many.
func (ix *Index) buildWindows() {
	n := len(ix.sents)
	if n == 0 {
		ix.vocab = make(map[string]int32)
		return
	}
	// About half the tokens are indexed.
	ix.vocab = make(map[string]int32, vocabHint(len(ix.toks)/2))
	ix.tokID = make([]int32, len(ix.toks))
	// before[i]: the indexed tokens before sentence i.
	before := make([]int, n+1)
	for i := range n {
		c := 0
		for k := ix.sentTok[i]; k < ix.sentTok[i+1]; k++ {
			t := &ix.toks[k]
			if !indexed(*t) {
				ix.tokID[k] = -1
				continue
			}
			c++
			id, ok := ix.vocab[t.Term]
			if !ok {
				id = int32(len(ix.vocab))
				ix.vocab[t.Term] = id
			}
			ix.tokID[k] = id
		}
		before[i+1] = before[i] + c
	}
	// One window starts at every sentence until a window reaches the end;
	// a window's length is its indexed tokens.
	ix.windows = make([]window, 0, n)
	total := 0
	for first := 0; first < n; first++ {
		last := first + 1
		for last < first+ix.opt.Window && last < n && ix.sents[last].End-ix.sents[first].Start <= ix.opt.MaxWindowBytes {
			last++
		}
		length := before[last] - before[first]
		ix.windows = append(ix.windows, window{first: first, last: last, length: length})
		total += length
		if last == n {
			break
		}
	}
	ix.avgLen = float64(total) / float64(len(ix.windows))
	if ix.avgLen == 0 {
		ix.avgLen = 1
	}
}

// IndexTerms builds the inverted index of every term now rather than at
// the second ranking, for a caller that will rank the source for several
// queries. Rankings are the same either way.
func (ix *Index) IndexTerms() {
	if ix.postStart == nil && len(ix.windows) > 0 {
		ix.buildPostings()
	}
}

// buildPostings builds the inverted index of the windows: the postings
// of every term, grouped by term, each term's in window order.
func (ix *Index) buildPostings() {
	nv := len(ix.vocab)
	// seen[id] is one past the last window counted for the term; counts[id]
	// its frequency in the window being read; postStart[id+1] first counts
	// the term's windows, then, summed, ends its postings.
	ints := make([]int32, 3*nv+1)
	seen, counts, postStart := ints[:nv:nv], ints[nv:2*nv:2*nv], ints[2*nv:]
	for w, win := range ix.windows {
		for _, id := range ix.tokID[ix.sentTok[win.first]:ix.sentTok[win.last]] {
			if id >= 0 && seen[id] != int32(w)+1 {
				seen[id] = int32(w) + 1
				postStart[id+1]++
			}
		}
	}
	for id := range nv {
		postStart[id+1] += postStart[id]
	}
	// Each term's postings in window order, the cursors (next) reusing seen.
	next := seen
	copy(next, postStart[:nv])
	ix.posts = make([]posting, postStart[nv])
	for w, win := range ix.windows {
		ids := ix.tokID[ix.sentTok[win.first]:ix.sentTok[win.last]]
		for _, id := range ids {
			if id >= 0 {
				counts[id]++
			}
		}
		for _, id := range ids {
			if id >= 0 && counts[id] > 0 {
				ix.posts[next[id]] = posting{window: int32(w), tf: counts[id]}
				next[id]++
				counts[id] = 0
			}
		}
	}
	ix.postStart = postStart
}

// Text returns the indexed source text.
func (ix *Index) Text() string { return ix.text }

// Sentences returns the sentence spans of the source.
func (ix *Index) Sentences() []Span { return ix.sents }

// Tokens returns every token of the source, in order, with source offsets.
func (ix *Index) Tokens() []Token { return ix.toks }

// SentenceTokens returns the tokens of sentence i.
func (ix *Index) SentenceTokens(i int) []Token { return ix.toks[ix.sentTok[i]:ix.sentTok[i+1]] }

// SentenceRangeTokens returns the tokens of sentences [first, last).
func (ix *Index) SentenceRangeTokens(first, last int) []Token {
	return ix.toks[ix.sentTok[first]:ix.sentTok[last]]
}

// PassageTokens returns the tokens of a passage returned by Rank.
func (ix *Index) PassageTokens(p Passage) []Token {
	return ix.toks[ix.sentTok[p.First]:ix.sentTok[p.Last]]
}

// Contains reports whether term (a Token.Term) occurs anywhere in the source.
func (ix *Index) Contains(term string) bool {
	_, ok := ix.vocab[term]
	return ok
}

// Terms returns the number of distinct indexed terms (content words and
// numbers) of the source.
func (ix *Index) Terms() int { return len(ix.vocab) }

// Tokenize analyses other text (a claim) with the index's analyzer.
func (ix *Index) Tokenize(s string) []Token { return ix.an.Tokenize(s) }

// Rank returns up to k passages most relevant to query, best first. Only
// windows sharing at least one term with the query are returned.
func (ix *Index) Rank(query string, k int) []Passage {
	return ix.RankTokens(ix.an.Tokenize(query), k)
}

// RankTokens is Rank for a query already tokenized with Tokenize.
func (ix *Index) RankTokens(query []Token, k int) []Passage {
	if k <= 0 || len(ix.windows) == 0 {
		return nil
	}
	var ids []int32 // the ids scored, in query order: a query has a few dozen terms
	for _, t := range query {
		if !indexed(t) {
			continue
		}
		if id, ok := ix.vocab[t.Term]; ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	ix.rankings++
	if ix.rankings > 1 && ix.postStart == nil {
		ix.buildPostings()
	}
	var qposts []posting
	var qstart []int32
	if ix.postStart == nil {
		qposts, qstart = ix.queryPostings(ids)
	}
	scores := make([]float64, len(ix.windows))
	hit := make([]bool, len(ix.windows))
	var cands []int
	nw := float64(len(ix.windows))
	for q, id := range ids {
		var ps []posting
		if qstart != nil {
			ps = qposts[qstart[q]:qstart[q+1]]
		} else {
			ps = ix.posts[ix.postStart[id]:ix.postStart[id+1]]
		}
		df := float64(len(ps))
		idf := math.Log(1 + (nw-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := ix.opt.K1 * (1 - ix.opt.B + ix.opt.B*float64(ix.windows[p.window].length)/ix.avgLen)
			scores[p.window] += idf * tf * (ix.opt.K1 + 1) / (tf + norm)
			if !hit[p.window] {
				hit[p.window] = true
				cands = append(cands, int(p.window))
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// A total order (ties by window), so any sort gives the same ranking.
	byScore := func(c []int) {
		slices.SortFunc(c, func(a, b int) int {
			if scores[a] != scores[b] {
				return cmp.Compare(scores[b], scores[a])
			}
			return cmp.Compare(a, b)
		})
	}
	byScore(cands)
	if len(cands) > ix.opt.Rerank {
		cands = cands[:ix.opt.Rerank]
	}
	bigrams, numbers := ix.queryPhrases(query)
	if len(bigrams) > 0 || len(numbers) > 0 {
		got := make([]bool, len(bigrams)+len(numbers))
		role := ix.phraseRoles(bigrams, numbers)
		for _, w := range cands {
			scores[w] += ix.boost(ix.windows[w], bigrams, numbers, role, got)
		}
		byScore(cands)
	}
	if len(cands) > k {
		cands = cands[:k]
	}
	out := make([]Passage, len(cands))
	for i, w := range cands {
		win := ix.windows[w]
		out[i] = Passage{
			Span:  Span{ix.sents[win.first].Start, ix.sents[win.last-1].End},
			First: win.first,
			Last:  win.last,
			Score: scores[w],
		}
	}
	return out
}

// queryPostings returns the postings of the term ids (those of ids[q]
// are posts[start[q]:start[q+1]]) as buildPostings would, read by one
// scan of the source's tokens: cheaper than indexing every term when the
// source is ranked once.
func (ix *Index) queryPostings(ids []int32) (posts []posting, start []int32) {
	n := len(ix.sents)
	slot := make([]int32, len(ix.vocab)) // 1 + the query index of a term id, 0 for none
	for q, id := range ids {
		slot[id] = int32(q) + 1
	}
	// counts[q*n+s]: how often the term of ids[q] occurs in sentence s.
	counts := make([]int32, len(ids)*n)
	for s := range n {
		for _, id := range ix.tokID[ix.sentTok[s]:ix.sentTok[s+1]] {
			if id >= 0 && slot[id] > 0 {
				counts[int(slot[id]-1)*n+s]++
			}
		}
	}
	start = make([]int32, len(ids)+1)
	for q := range ids {
		row := counts[q*n : (q+1)*n]
		for w, win := range ix.windows {
			tf := int32(0)
			for _, c := range row[win.first:win.last] {
				tf += c
			}
			if tf > 0 {
				posts = append(posts, posting{window: int32(w), tf: tf})
			}
		}
		start[q+1] = int32(len(posts))
	}
	return posts, start
}

// Bigram is two adjacent content terms, the unit of phrase matching.
type Bigram struct{ A, B string }

// Bigrams returns the distinct bigrams of adjacent content tokens; stop
// words between two content words do not break adjacency ("rate of
// inflation" yields rate–inflation), anything else does not occur.
func Bigrams(toks []Token) []Bigram {
	var out []Bigram
	// A claim has a few dozen bigrams, found again by a scan; a longer
	// text's are also kept in seen.
	var seen map[Bigram]bool
	prev := ""
	for _, t := range toks {
		if !t.Content() {
			continue
		}
		if prev != "" {
			b := Bigram{prev, t.Term}
			dup := seen[b]
			if seen == nil {
				dup = slices.Contains(out, b)
			}
			if !dup {
				out = append(out, b)
				switch {
				case seen != nil:
					seen[b] = true
				case len(out) > scanBigrams:
					seen = make(map[Bigram]bool, 2*len(out))
					for _, o := range out {
						seen[o] = true
					}
				}
			}
		}
		prev = t.Term
	}
	return out
}

// scanBigrams is how many bigrams Bigrams finds by a scan before it keeps
// a set of them.
const scanBigrams = 32

// queryPhrases lists the distinct bigrams and numbers of a query that
// occur in the source, by the term ids of the index, in query order: a
// window's boost counts the distinct ones it holds, found by their place
// in these lists (a query has a few dozen). A bigram is keyed by
// bigramKey.
func (ix *Index) queryPhrases(query []Token) ([]uint64, []int32) {
	var bigrams []uint64
	for _, b := range Bigrams(query) {
		a, okA := ix.vocab[b.A]
		c, okB := ix.vocab[b.B]
		if okA && okB {
			bigrams = append(bigrams, bigramKey(a, c)) // distinct, as the bigrams are
		}
	}
	var numbers []int32
	for _, t := range query {
		if t.Kind != Number {
			continue
		}
		if id, ok := ix.vocab[t.Term]; ok && !slices.Contains(numbers, id) {
			numbers = append(numbers, id)
		}
	}
	return bigrams, numbers
}

// bigramKey is the key of the bigram of term ids a, b.
func bigramKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// The parts a term id plays in a query's phrases (phraseRoles).
const (
	roleNumber       = 1 << iota // one of its numbers
	roleBigramFirst              // the first term of one of its bigrams
	roleBigramSecond             // the second term of one of its bigrams
)

// phraseRoles flags each term id of the index by its parts in the
// query's bigrams and numbers (queryPhrases), so boost looks a token up
// in those lists only where it can be found: most tokens of a window are
// in neither.
func (ix *Index) phraseRoles(bigrams []uint64, numbers []int32) []uint8 {
	role := make([]uint8, len(ix.vocab))
	for _, k := range bigrams {
		role[int32(uint32(k>>32))] |= roleBigramFirst
		role[int32(uint32(k))] |= roleBigramSecond
	}
	for _, id := range numbers {
		role[id] |= roleNumber
	}
	return role
}

// boost is the window's bonus for the query's bigrams and numbers it
// holds; role is phraseRoles(bigrams, numbers) and got is scratch space
// of len(bigrams)+len(numbers).
func (ix *Index) boost(w window, bigrams []uint64, numbers []int32, role []uint8, got []bool) float64 {
	clear(got)
	gotB, gotN := got[:len(bigrams)], got[len(bigrams):]
	from, to := ix.sentTok[w.first], ix.sentTok[w.last]
	prev := int32(-1)
	for k := from; k < to; k++ {
		id := ix.tokID[k]
		if id < 0 {
			continue // neither a content word nor a number
		}
		t := &ix.toks[k]
		if t.Kind == Number && role[id]&roleNumber != 0 {
			if n := slices.Index(numbers, id); n >= 0 {
				gotN[n] = true
			}
		}
		if !t.Content() {
			continue
		}
		if prev >= 0 && role[prev]&roleBigramFirst != 0 && role[id]&roleBigramSecond != 0 {
			if n := slices.Index(bigrams, bigramKey(prev, id)); n >= 0 {
				gotB[n] = true
			}
		}
		prev = id
	}
	return max(ix.opt.BigramBoost, 0)*float64(count(gotB)) + max(ix.opt.NumberBoost, 0)*float64(count(gotN))
}

// count is the number of true values.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
