package biblio

import (
	"strings"

	"github.com/claimtrace/claimtrace"
)

// Match methods, in the order Index.Match tries them.
const (
	MethodArXivID = "arxiv_id"
	MethodDOI     = "doi"
	// MethodExtID is a match by an ExtID (PubMed, PMC, PII, OpenReview, ACL
	// Anthology) that the work's URL and the reference's both carry.
	MethodExtID      = "ext_id"
	MethodURL        = "url"
	MethodTitle      = "title"
	MethodFuzzyTitle = "fuzzy_title"
)

// Match is a cited work matched to a ground-truth reference.
type Match struct {
	// Ref is the index (into the references given to NewIndex) of the
	// matched reference's group representative: the lowest index among the
	// references Distinct counts as one. Counting distinct Ref values over a
	// report's matches therefore counts distinct references.
	Ref    int
	BibID  string  // bib_id of references[Ref]
	Method string  // MethodArXivID, MethodDOI, MethodURL, MethodTitle or MethodFuzzyTitle
	Score  float64 // 1 for identifier and exact-title matches; title similarity for fuzzy ones
}

// minFuzzyRunes is the shortest title (in runes, spaces removed) that may
// match fuzzily: below it one edit turns one real title into another
// ("machine learning" / "machine unlearning").
const minFuzzyRunes = 20

// Index matches cited works against one survey's ground-truth references.
// It is built once and safe for concurrent use.
type Index struct {
	refs     []claimtrace.Reference
	keys     [][]rune   // TitleKey of each reference, as runes
	words    [][]string // all words of each normalized title
	rep      []int      // group representative of each reference
	distinct int

	byArXiv, byDOI, byURL, byTitle map[string]int // → representative
	byExt                          map[string]int // ExtID.Key → representative
	byToken                        map[string][]int32
}

// NewIndex indexes refs by arXiv id, DOI, canonical URL, title key and
// title words.
//
// Identifiers come from a reference's meta_info: eprint and arxivid fields,
// "arXiv preprint arXiv:…" in journal (or note, howpublished, booktitle),
// CoRR's volume "abs/…", a 10.48550/arXiv DOI, doi, and the url, opturl and
// howpublished links (including their DOIs and arXiv ids), with the
// whitespace that splits an identifier removed (CompactReference); a DOI
// cut down to its prefix is no identity (DOI).
//
// References are grouped as one distinct reference when they share a title
// key, an arXiv id or a DOI (union of the three relations). Each group is
// represented by its lowest index. A URL shared by references of different
// groups is ambiguous and not used for matching.
func NewIndex(refs []claimtrace.Reference) *Index {
	n := len(refs)
	ix := &Index{
		refs:    refs,
		keys:    make([][]rune, n),
		words:   make([][]string, n),
		rep:     make([]int, n),
		byArXiv: map[string]int{},
		byDOI:   map[string]int{},
		byURL:   map[string]int{},
		byExt:   map[string]int{},
		byTitle: map[string]int{},
		byToken: map[string][]int32{},
	}
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		if ra < rb {
			parent[rb] = ra
		} else {
			parent[ra] = rb
		}
	}
	first := func(m map[string]int, k string, i int) {
		if k == "" {
			return
		}
		if j, ok := m[k]; ok {
			union(j, i)
			return
		}
		m[k] = i
	}
	ids := make([]refIDs, n)
	for i, r := range refs {
		ids[i] = referenceIDs(r)
		t := NormalizeTitle(r.Title)
		ix.words[i] = strings.Fields(t)
		key := strings.ReplaceAll(t, " ", "")
		ix.keys[i] = []rune(key)
		first(ix.byTitle, key, i)
		first(ix.byArXiv, ids[i].arxiv, i)
		first(ix.byDOI, ids[i].doi, i)
	}
	groups := 0
	for i := range refs {
		ix.rep[i] = find(i)
		if ix.rep[i] == i {
			groups++
		}
	}
	ix.distinct = groups
	for _, m := range []map[string]int{ix.byTitle, ix.byArXiv, ix.byDOI} {
		for k, i := range m {
			m[k] = ix.rep[i]
		}
	}
	ambiguous, ambiguousExt := map[string]bool{}, map[string]bool{}
	for i := range refs {
		for _, u := range ids[i].urls {
			if j, ok := ix.byURL[u]; ok && j != ix.rep[i] {
				ambiguous[u] = true
			}
			if _, ok := ix.byURL[u]; !ok {
				ix.byURL[u] = ix.rep[i]
			}
		}
		for _, x := range ids[i].ext {
			if j, ok := ix.byExt[x]; ok && j != ix.rep[i] {
				ambiguousExt[x] = true
			}
			if _, ok := ix.byExt[x]; !ok {
				ix.byExt[x] = ix.rep[i]
			}
		}
		seen := map[string]bool{}
		for _, w := range ix.words[i] {
			if isStopword(w) || seen[w] {
				continue
			}
			seen[w] = true
			ix.byToken[w] = append(ix.byToken[w], int32(i))
		}
	}
	for u := range ambiguous {
		delete(ix.byURL, u)
	}
	for x := range ambiguousExt {
		delete(ix.byExt, x)
	}
	return ix
}

// Len returns the number of references indexed, duplicates included.
func (ix *Index) Len() int { return len(ix.refs) }

// Distinct returns the number of distinct references: references sharing a
// title key, an arXiv id or a DOI count once (see NewIndex).
func (ix *Index) Distinct() int { return ix.distinct }

// Match finds the ground-truth reference a cited work is: by arXiv id, DOI,
// another identifier its URL carries (ExternalID: PubMed, PMC, PII,
// OpenReview, ACL Anthology), canonical URL, exact title key, then fuzzy
// title, stopping at the first method that finds one. It reports false when
// none does.
//
// The fuzzy step accepts at most one edit for titles under 60 runes (spaces
// removed), two under 90 and three above, on titles of at least 20 runes.
// It rejects a candidate when one title's words are a run of the other's (a
// different paper whose title extends the reference's by whole words:
// "Deep residual learning" vs "Deep residual learning for image recognition",
// "The problem of hidden variables…" vs "On the problem of hidden
// variables…"), and when the words that differ
// include a number, a Roman numeral or a single letter ("Qwen2" vs "Qwen2.5",
// "Part I" vs "Part II", "2D scans" vs "4D scans", "vitamin C" vs "vitamin D").
// Subtitle variants (a title with and without its ": subtitle") are not
// accepted: the ground truth itself holds distinct papers that differ only so
// ("Gender Bias in Coreference Resolution", Rudinger et al. 2018, and "…:
// Evaluation and Debiasing Methods", Zhao et al. 2018).
func (ix *Index) Match(w claimtrace.Work) (Match, bool) {
	if id := workArXiv(w); id != "" {
		if i, ok := ix.byArXiv[id]; ok {
			return ix.match(i, MethodArXivID, 1), true
		}
	}
	if d := workDOI(w); d != "" {
		if i, ok := ix.byDOI[d]; ok {
			return ix.match(i, MethodDOI, 1), true
		}
	}
	for _, u := range workURLs(w) {
		if x, ok := ExternalID(u); ok {
			if i, ok := ix.byExt[x.Key()]; ok {
				return ix.match(i, MethodExtID, 1), true
			}
		}
	}
	for _, u := range workURLs(w) {
		if c, err := CanonicalURL(u); err == nil {
			if i, ok := ix.byURL[c]; ok {
				return ix.match(i, MethodURL, 1), true
			}
		}
	}
	t := NormalizeTitle(w.Title)
	if t == "" {
		return Match{}, false
	}
	key := strings.ReplaceAll(t, " ", "")
	if i, ok := ix.byTitle[key]; ok {
		return ix.match(i, MethodTitle, 1), true
	}
	if i, score, ok := ix.fuzzy(t, []rune(key)); ok {
		return ix.match(i, MethodFuzzyTitle, score), true
	}
	return Match{}, false
}

func (ix *Index) match(i int, method string, score float64) Match {
	r := ix.rep[i]
	return Match{Ref: r, BibID: ix.refs[r].BibID, Method: method, Score: score}
}

// fuzzy finds the closest acceptable reference title (see Match).
func (ix *Index) fuzzy(title string, key []rune) (int, float64, bool) {
	if len(key) < minFuzzyRunes {
		return 0, 0, false
	}
	qwords := strings.Fields(title)
	var toks []string
	seen := map[string]bool{}
	for _, w := range qwords {
		if !isStopword(w) && !seen[w] {
			seen[w] = true
			toks = append(toks, w)
		}
	}
	if len(toks) == 0 {
		return 0, 0, false
	}
	counts := make([]uint16, len(ix.refs))
	var cands []int32
	for _, t := range toks {
		for _, i := range ix.byToken[t] {
			if counts[i] == 0 {
				cands = append(cands, i)
			}
			counts[i]++
		}
	}
	// An edit changes at most two words (it may join or split them), so a
	// title within the budget shares all but 2·budget of the query's words.
	need := max((len(toks)+1)/2, len(toks)-2*allowedEdits(len(key)+3))
	best, bestDist := -1, 0
	var bestLen int
	var rows [2][]int
	for _, c := range cands {
		i := int(c)
		if int(counts[i]) < need {
			continue
		}
		rk := ix.keys[i]
		if len(rk) < minFuzzyRunes {
			continue
		}
		maxLen := max(len(rk), len(key))
		allowed := allowedEdits(maxLen)
		if abs(len(rk)-len(key)) > allowed || (best >= 0 && abs(len(rk)-len(key)) > bestDist) {
			continue
		}
		d := boundedLevenshteinBuf(key, rk, allowed, &rows)
		if d > allowed || d == 0 {
			continue
		}
		if best >= 0 && (d > bestDist || (d == bestDist && ix.rep[i] >= ix.rep[best])) {
			continue
		}
		if !fuzzyAcceptable(key, rk, qwords, ix.words[i]) {
			continue
		}
		best, bestDist, bestLen = i, d, maxLen
	}
	if best < 0 {
		return 0, 0, false
	}
	return best, 1 - float64(bestDist)/float64(bestLen), true
}

// allowedEdits is the edit budget for titles whose longer key has n runes.
func allowedEdits(n int) int {
	switch {
	case n < 60:
		return 1
	case n < 90:
		return 2
	default:
		return 3
	}
}

// fuzzyAcceptable applies the rejection rules of Match to two titles within
// the edit budget.
func fuzzyAcceptable(a, b []rune, aw, bw []string) bool {
	if containsWords(aw, bw) || containsWords(bw, aw) {
		return false
	}
	diff := map[string]int{}
	for _, w := range aw {
		diff[w]++
	}
	for _, w := range bw {
		diff[w]--
	}
	for w, n := range diff {
		if n == 0 {
			continue
		}
		if len([]rune(w)) == 1 || romanNumerals[w] || strings.ContainsAny(w, "0123456789") {
			return false
		}
	}
	return true
}

// containsWords reports whether short is a contiguous run of long's words
// (and shorter): a title that extends another by whole words.
func containsWords(long, short []string) bool {
	if len(short) >= len(long) || len(short) == 0 {
		return false
	}
outer:
	for i := 0; i+len(short) <= len(long); i++ {
		for j := range short {
			if long[i+j] != short[j] {
				continue outer
			}
		}
		return true
	}
	return false
}

var romanNumerals = map[string]bool{
	"i": true, "ii": true, "iii": true, "iv": true, "v": true, "vi": true, "vii": true,
	"viii": true, "ix": true, "x": true, "xi": true, "xii": true, "xiii": true, "xiv": true, "xv": true,
}

// stopwords are not used to find fuzzy candidates (they would make every
// title a candidate); they still count in the comparison itself.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "for": true, "and": true, "in": true, "on": true,
	"to": true, "with": true, "by": true, "from": true, "via": true, "using": true, "at": true,
	"as": true, "is": true, "are": true, "its": true, "or": true, "into": true, "towards": true,
	"toward": true, "based": true, "we": true, "do": true, "not": true, "be": true, "can": true,
}

func isStopword(w string) bool { return stopwords[w] }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// boundedLevenshtein returns the edit distance between a and b, or any value
// above k once the distance is known to exceed k. It fills only the diagonal
// band of width 2k+1, so it costs O(k·len).
func boundedLevenshtein(a, b []rune, k int) int {
	var rows [2][]int
	return boundedLevenshteinBuf(a, b, k, &rows)
}

// boundedLevenshteinBuf is boundedLevenshtein reusing the two rows in buf.
func boundedLevenshteinBuf(a, b []rune, k int, buf *[2][]int) int {
	if abs(len(a)-len(b)) > k {
		return k + 1
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	const inf = 1 << 30
	if cap(buf[0]) < len(b)+1 {
		buf[0] = make([]int, len(b)+1, 2*len(b)+2)
		buf[1] = make([]int, len(b)+1, 2*len(b)+2)
	}
	prev, cur := buf[0][:len(b)+1], buf[1][:len(b)+1]
	for j := range prev {
		if j <= k {
			prev[j] = j
		} else {
			prev[j] = inf
		}
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		for j := range cur {
			cur[j] = inf
		}
		if i <= k {
			cur[0] = i
		}
		rowMin := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := prev[j-1] + cost
			if prev[j]+1 < v {
				v = prev[j] + 1
			}
			if cur[j-1]+1 < v {
				v = cur[j-1] + 1
			}
			cur[j] = v
			if v < rowMin {
				rowMin = v
			}
		}
		if rowMin > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > k {
		return k + 1
	}
	return prev[len(b)]
}

// refIDs are the identifiers of one ground-truth reference.
type refIDs struct {
	arxiv, doi string
	urls       []string // canonical
	ext        []string // ExtID keys
}

// referenceIDs extracts identifiers from a reference's meta_info (see NewIndex).
func referenceIDs(r claimtrace.Reference) refIDs {
	r = CompactReference(r)
	meta := make(map[string]string, len(r.Meta))
	for k, v := range r.Meta {
		meta[strings.ToLower(k)] = v
	}
	var ids refIDs
	for _, k := range []string{"arxivid", "arxiv", "eprint", "journal", "doi", "url", "opturl", "note", "howpublished", "booktitle", "publisher"} {
		v := meta[k]
		if v == "" {
			continue
		}
		if k == "journal" || k == "note" || k == "howpublished" || k == "booktitle" || k == "publisher" {
			if !strings.Contains(strings.ToLower(v), "arxiv") {
				continue
			}
		}
		if id := ArXivID(v); id != "" {
			ids.arxiv = id
			break
		}
	}
	if ids.arxiv == "" && strings.EqualFold(strings.TrimSpace(meta["journal"]), "corr") {
		if v := strings.TrimSpace(meta["volume"]); strings.HasPrefix(strings.ToLower(v), "abs/") {
			ids.arxiv = ArXivID(v[4:])
		}
	}
	for _, k := range []string{"doi", "url", "opturl", "eprint", "howpublished", "note"} {
		if d := DOI(meta[k]); d != "" {
			ids.doi = d
			break
		}
	}
	for _, k := range []string{"url", "opturl", "howpublished", "note", "eprint"} {
		v := meta[k]
		i := strings.Index(strings.ToLower(v), "http")
		if i < 0 {
			continue
		}
		u := v[i:]
		if j := strings.IndexAny(u, " \t\n}"); j >= 0 {
			u = u[:j]
		}
		if c, err := CanonicalURL(u); err == nil {
			ids.urls = append(ids.urls, c)
		}
		if x, ok := ExternalID(u); ok {
			ids.ext = append(ids.ext, x.Key())
		}
	}
	if x, ok := pubMedID(strings.TrimSpace(meta["pmid"])); ok {
		ids.ext = append(ids.ext, x.Key())
	}
	if x, ok := pmcID(strings.TrimSpace(meta["pmcid"])); ok {
		ids.ext = append(ids.ext, x.Key())
	}
	return ids
}
