// Package judge decides whether a source supports a cited claim and
// measures judges against human labels. Non-cited claims are fact-checked
// by package factcheck, two-way entailment for the contradiction detector
// is package entail, and identifying a scholarly page is package identify.
//
// Three cited-statement judges share one method, JudgeSource (all claims
// citing one source at once): the deterministic Offline judge; LLMJudge,
// one model call per source with its best passages first (for prefix
// caching) and the claims after, every evidence quote checked to be a
// verbatim passage of the source and re-asked once when it is not; and
// ReportBenchJudge, the paper's A.4 prompts one pair per call, for parity
// studies. Model errors are returned as errors, never turned into verdicts.
//
// The Offline judge is lexical, not natural-language inference: it ranks
// passages of the source with BM25 (package passage), then scores the best
// ones by how much of the claim they repeat — stemmed content words,
// adjacent-word bigrams, named entities, numbers with their units. It
// calls a claim contradicted when the one sentence of the source that
// repeats most of it (the aligned sentence) states a different quantity of
// the same kind, reverses a direction or comparison word in the same
// frame, replaces a name in the same frame, or differs in negation in the
// clause that says what the claim says (contradict.go), and that sentence
// repeats enough of the claim (Calibration.Contradiction). It cannot
// recognise paraphrase, and it mistakes a passage that mentions
// everything but asserts something else for support. Its weights and
// thresholds come from a calibration file fitted on labelled pairs
// (Calibrate); how well it agrees with human labels is measured by
// Evaluate and reported, not assumed.
//
// The shipped calibration (calibration.json) was fitted with `claimtrace
// judge calibrate` on the calibration half of the shared AttributionBench
// and WiCE labels (labels.SplitCalib), the contradiction threshold chosen
// for the precision of contradicted with Citation-Integrity's train split
// and the independent pairs (testdata/independentpairs) added (see
// Calibrate and docs/judges.md for the figures);
// calibration_citing.json, fitted on Citation-Integrity's train split
// alone, is for biomedical citing sentences and is chosen, never the
// default, with --calibration citing (OpenCalibration). The cues
// catch the minimal pairs of testdata/minimalpairs, but on real
// refutations, which mostly say that the cited paper does not back the
// sentence rather than state its negation, they rarely fire.
package judge

import (
	"context"
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// OfflineName is the Judge field of the Offline judge's verdicts.
const OfflineName = "offline"

// candidates is how many ranked passages are scored per claim; the best
// scoring one gives the verdict and the evidence.
const candidates = 5

// Offline is the deterministic, network-free judge. It is safe for
// concurrent use.
type Offline struct {
	cal Calibration
	opt passage.Options
	// opposites are the stems of opposite meaning (WordNet's antonyms
	// and the quantifier opposites, lexical.OppositeTable).
	opposites *lexical.Opposites
}

// NewOffline returns an offline judge using cal (see DefaultCalibration).
func NewOffline(cal Calibration) (*Offline, error) {
	if err := cal.Validate(); err != nil {
		return nil, err
	}
	return newOffline(cal), nil
}

// NewDefaultOffline returns the offline judge with the shipped calibration:
// the one `eval`, `audit`, `gate`, the live API and MCP use unless told
// otherwise.
func NewDefaultOffline() (*Offline, error) {
	cal, err := DefaultCalibration()
	if err != nil {
		return nil, err
	}
	return NewOffline(cal)
}

func newOffline(cal Calibration) *Offline {
	return &Offline{cal: cal, opt: passage.Options{Window: cal.Window}, opposites: lexical.OppositeTable()}
}

// Calibration returns the judge's calibration.
func (j *Offline) Calibration() Calibration { return j.cal }

// Judge judges one claim against one source.
func (j *Offline) Judge(ctx context.Context, claim, source string) (claimtrace.Verdict, error) {
	vs, err := j.JudgeSource(ctx, source, []string{claim})
	if err != nil {
		return claimtrace.Verdict{}, err
	}
	return vs[0], nil
}

// JudgeSource judges every claim citing one source, indexing the source
// once. Verdicts are in the order of claims; their URL is left for the
// caller. Evidence is always a verbatim substring of source.
func (j *Offline) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	ix := newSourceIndex(passage.NewIndex(source, j.opt))
	if len(claims) > 1 {
		ix.IndexTerms() // every claim is ranked against it
	}
	out := make([]claimtrace.Verdict, len(claims))
	for i, c := range claims {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("offline judge: %w", err)
		}
		f := j.analyze(ix, c)
		out[i] = j.cal.decide(&f, source)
	}
	return out, nil
}

// claimInfo is what the judge reads from a claim.
type claimInfo struct {
	text       string
	toks       []passage.Token
	terms      map[string]bool
	bigrams    []passage.Bigram
	entities   [][]string
	quantities []quantity
	negated    bool
	// words numbers every string the judge looks for in a source's
	// tokens, so a passage is read against the claim with one lookup a
	// token and without a set of its own words: the claim's terms first
	// (ids 0 to len(terms)-1), then the words of its entities, its
	// numbers and the other words of its bigrams. kinds flags each id
	// (claimTerm, claimNumber); entityIDs are the ids of each entity's
	// words, bigramKeys the id pairs of the bigrams (bigramKey).
	words      map[string]int32
	kinds      []uint8
	entityIDs  [][]int32
	bigramKeys []uint64
	// hitSeen is sentenceHits' scratch space, one flag a word id.
	hitSeen []bool
	// frames are frameTokens(text, toks), read when a cue first needs
	// them (framesRead).
	frames     []frameToken
	framesRead bool
	// wordIDs holds the claim word ids of the tokens of the source's
	// sentences read so far (sentenceWords), those of sentence s from
	// wordAt[s]-1; wordAt[s] is 0 for a sentence not read.
	wordIDs []int32
	wordAt  []int32
}

// tokenWords appends to dst the claim word id of each of toks (words),
// -1 for a token whose term is none of them.
func (ci *claimInfo) tokenWords(toks []passage.Token, dst []int32) []int32 {
	for _, t := range toks {
		k, ok := ci.words[t.Term]
		if !ok {
			k = -1
		}
		dst = append(dst, k)
	}
	return dst
}

// sentenceWords returns the claim word ids of the tokens of sentence s of
// the source (tokenWords), looked up once a sentence: the ranked passages
// overlap, and inspect and alignedSentence read the same sentences. ix
// is the index the claim was read against.
func (ci *claimInfo) sentenceWords(ix *sourceIndex, s int) []int32 {
	if ci.wordAt == nil {
		ci.wordAt = make([]int32, len(ix.Sentences()))
	}
	n := len(ix.SentenceTokens(s))
	if at := ci.wordAt[s]; at > 0 {
		return ci.wordIDs[at-1 : int(at-1)+n]
	}
	at := len(ci.wordIDs)
	ci.wordIDs = ci.tokenWords(ix.SentenceTokens(s), ci.wordIDs)
	ci.wordAt[s] = int32(at) + 1
	return ci.wordIDs[at : at+n]
}

// frameTokens returns frameTokens(ci.text, ci.toks), read once.
func (ci *claimInfo) frameTokens() []frameToken {
	if !ci.framesRead {
		ci.frames, ci.framesRead = frameTokens(ci.text, ci.toks), true
	}
	return ci.frames
}

// The kinds of a claim word (claimInfo.kinds).
const (
	claimTerm   = 1 << iota // one of the claim's terms
	claimNumber             // the term of one of the claim's numbers
)

// number gives the claim's terms, entity words, numbers and bigram words
// their ids.
func (ci *claimInfo) number() {
	ci.words = make(map[string]int32, len(ci.terms)+4)
	id := func(t string, kind uint8) int32 {
		k, ok := ci.words[t]
		if !ok {
			k = int32(len(ci.words))
			ci.words[t] = k
			ci.kinds = append(ci.kinds, 0)
		}
		ci.kinds[k] |= kind
		return k
	}
	for t := range ci.terms {
		id(t, claimTerm)
	}
	if len(ci.entities) > 0 {
		n := 0
		for _, e := range ci.entities {
			n += len(e)
		}
		ids := make([]int32, 0, n)
		ci.entityIDs = make([][]int32, len(ci.entities))
		for i, e := range ci.entities {
			from := len(ids)
			for _, t := range e {
				ids = append(ids, id(t, 0))
			}
			ci.entityIDs[i] = ids[from:len(ids):len(ids)]
		}
	}
	for _, t := range ci.toks {
		if t.Kind == passage.Number {
			id(t.Term, claimNumber)
		}
	}
	ci.bigramKeys = make([]uint64, len(ci.bigrams))
	for k, b := range ci.bigrams {
		ci.bigramKeys[k] = bigramKey(id(b.A, 0), id(b.B, 0))
	}
	ci.hitSeen = make([]bool, len(ci.words))
}

// bigramKey is the key of the bigram of claim word ids a, b.
func bigramKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// bigram returns the index of the claim's bigram of word ids a, b, or -1.
func (ci *claimInfo) bigram(a, b int32) int {
	k := bigramKey(a, b)
	for i, c := range ci.bigramKeys {
		if c == k {
			return i
		}
	}
	return -1
}

// candidate holds the features of one ranked passage.
type candidate struct {
	p         passage.Passage
	evidence  passage.Span
	covHit    int
	bigramHit int
	entityHit int
	nums      numberCheck
}

// features is everything decide needs; Calibrate computes it once per
// labelled pair and re-scores it under each candidate calibration.
type features struct {
	unknown                  string // why the pair cannot be judged
	terms, bigrams, entities int
	numbers                  int
	docHit                   int // claim terms found anywhere in the source
	cands                    []candidate
	// conflict is the contradiction cue of the sentence best aligned with
	// the claim, if any (see findConflict).
	conflict     conflict
	conflictSpan passage.Span
}

func (j *Offline) analyze(ix *sourceIndex, raw string) features {
	ci := j.readClaim(ix, raw)
	f := features{terms: len(ci.terms), bigrams: len(ci.bigrams), entities: len(ci.entities), numbers: len(ci.quantities)}
	if strings.TrimSpace(ix.Text()) == "" || ix.Terms() < j.cal.MinSourceTerms {
		f.unknown = fmt.Sprintf("source too short to judge (%d distinct words)", ix.Terms())
		return f
	}
	if len(ci.terms) == 0 {
		f.unknown = "claim has no content words"
		return f
	}
	for t := range ci.terms {
		if ix.Contains(t) {
			f.docHit++
		}
	}
	ps := ix.RankTokens(ci.toks, candidates)
	// The ranked passages overlap (a window starts at every sentence):
	// whether a sentence shares a claim word or number is read once.
	shares := make([]sentenceShare, len(ix.Sentences()))
	for _, p := range ps {
		f.cands = append(f.cands, j.inspect(ix, &ci, p, shares))
	}
	f.conflict = j.findConflict(ix, &ci, ps)
	if f.conflict.kind != "" {
		f.conflictSpan = ix.Sentences()[f.conflict.sent]
	}
	return f
}

func (j *Offline) readClaim(ix *sourceIndex, raw string) claimInfo {
	text := cleanClaim(raw)
	toks := ix.Tokenize(text)
	ci := claimInfo{text: text, toks: toks, terms: make(map[string]bool, len(toks))}
	ci.quantities = sentenceQuantities(text, ci.toks)
	// The words of a quantity ("million", "kilometres", "half", "March",
	// "doubled") are matched as the quantity, in whatever form the source
	// writes it, not as words the source must repeat.
	inQuantity := make([]bool, len(ci.toks))
	for _, q := range ci.quantities {
		for k := q.Tok; k <= q.Last && k < len(inQuantity); k++ {
			inQuantity[k] = true
		}
	}
	for i, t := range ci.toks {
		if t.Content() && !inQuantity[i] {
			ci.terms[t.Term] = true
		}
	}
	ci.bigrams = passage.Bigrams(ci.toks)
	ci.entities = entities(text, ci.toks)
	ci.negated = negated(text, ci.toks)
	ci.number()
	return ci
}

// sentenceShare memoizes whether a sentence of the source shares a claim
// word or number (inspect): unread, or read and found to or not to.
type sentenceShare uint8

const (
	shareUnread sentenceShare = iota
	shareNone
	shareSome
)

// inspect computes the features of passage p for the claim; shares is
// the claim's memo of sharesClaim, one entry a sentence of the source.
func (j *Offline) inspect(ix *sourceIndex, ci *claimInfo, p passage.Passage, shares []sentenceShare) candidate {
	c := candidate{p: p}
	// have[k]: the claim word of id k occurs in the passage (stop words
	// too: entities such as "WHO"); hasBigram[k]: its bigram k does.
	have := make([]bool, len(ci.words)+len(ci.bigrams))
	hasBigram := have[len(ci.words):]
	prev := int32(-1) // the id of the last content word, -1 for none or not the claim's
	for s := p.First; s < p.Last; s++ {
		ids := ci.sentenceWords(ix, s)
		for i, t := range ix.SentenceTokens(s) {
			if t.Kind == passage.Number {
				continue
			}
			k := ids[i]
			if k >= 0 {
				have[k] = true
			}
			if t.Content() {
				if prev >= 0 && k >= 0 {
					if b := ci.bigram(prev, k); b >= 0 {
						hasBigram[b] = true
					}
				}
				prev = k
			}
		}
	}
	for k := range len(ci.terms) {
		if have[k] {
			c.covHit++
		}
	}
	for _, b := range hasBigram {
		if b {
			c.bigramHit++
		}
	}
	for _, e := range ci.entityIDs {
		all := true
		for _, k := range e {
			all = all && have[k]
		}
		if all {
			c.entityHit++
		}
	}
	if len(ci.quantities) > 0 {
		c.nums = checkNumbers(ci.quantities, ix.quantities(ix.PassageTokens(p)))
	}

	// The evidence runs from the first to the last sentence that shares a
	// claim word or number, so it stays a contiguous substring of the
	// source.
	first, last := -1, -1
	for s := p.First; s < p.Last; s++ {
		if shares[s] == shareUnread {
			shares[s] = shareNone
			if sharesClaim(ix.SentenceTokens(s), ci.sentenceWords(ix, s), ci) {
				shares[s] = shareSome
			}
		}
		if shares[s] == shareSome {
			if first < 0 {
				first = s
			}
			last = s
		}
	}
	sents := ix.Sentences()
	if first < 0 {
		first, last = p.First, p.Last-1
	}
	c.evidence = passage.Span{Start: sents[first].Start, End: sents[last].End}
	return c
}

// sharesClaim reports whether toks (a sentence's, of claim word ids
// ids) hold a claim word or a number of the claim.
func sharesClaim(toks []passage.Token, ids []int32, ci *claimInfo) bool {
	for i, t := range toks {
		if k := ids[i]; k >= 0 && (t.Content() && ci.kinds[k]&claimTerm != 0 || t.Kind == passage.Number && ci.kinds[k]&claimNumber != 0) {
			return true
		}
	}
	return false
}

func numberIn(term string, toks []passage.Token) bool {
	for _, t := range toks {
		if t.Kind == passage.Number && t.Term == term {
			return true
		}
	}
	return false
}

// score is the support score of candidate c in [0, 1] under the calibration.
func (cal *Calibration) score(f *features, c *candidate) float64 {
	w := cal.Weights
	num := w.Coverage * ratio(c.covHit, f.terms)
	den := w.Coverage
	if f.bigrams > 0 {
		num += w.Bigram * ratio(c.bigramHit, f.bigrams)
		den += w.Bigram
	}
	if f.entities > 0 {
		num += w.Entity * ratio(c.entityHit, f.entities)
		den += w.Entity
	}
	base := 0.0
	if den > 0 {
		base = num / den
	}
	s := (1-w.Document)*base + w.Document*ratio(f.docHit, f.terms)
	if c.nums.total > 0 {
		s *= 1 - cal.NumberPenalty*float64(c.nums.total-c.nums.matched)/float64(c.nums.total)
	}
	if k := f.conflict.kind; k != "" && k != conflictNumber {
		s *= 1 - cal.NegationPenalty
	}
	return min(max(s, 0), 1)
}

// best returns the index of the best-scoring candidate and its score, or
// -1 and the score without a passage.
func (cal *Calibration) best(f *features) (int, float64) {
	bi, bs := -1, (cal.Weights.Document)*ratio(f.docHit, f.terms)
	for i := range f.cands {
		if s := cal.score(f, &f.cands[i]); bi < 0 || s > bs {
			bi, bs = i, s
		}
	}
	return bi, bs
}

// contradicted reports whether the sentence aligned with the claim
// carries a contradiction cue while repeating enough of the claim (cover)
// to be about the same thing.
func (cal *Calibration) contradicted(f *features) bool {
	return f.conflict.kind != "" && f.conflict.cover+1e-9 >= cal.Contradiction
}

// label maps a score to a label by the thresholds.
func (cal *Calibration) label(s float64) claimtrace.Label {
	// The epsilon matches Calibrate's binning of scores into threshold steps.
	switch {
	case s+1e-9 >= cal.Supported:
		return claimtrace.Supported
	case s+1e-9 >= cal.Partial:
		return claimtrace.Partial
	}
	return claimtrace.Unsupported
}

func (cal *Calibration) decide(f *features, source string) claimtrace.Verdict {
	v := claimtrace.Verdict{Judge: OfflineName}
	if f.unknown != "" {
		v.Label, v.Reason = claimtrace.Unknown, f.unknown
		return v
	}
	bi, s := cal.best(f)
	if bi < 0 {
		v.Label, v.Strength = claimtrace.Unsupported, s
		v.Reason = fmt.Sprintf("no passage of the source shares a word with the claim (score %.2f)", s)
		return v
	}
	c := &f.cands[bi]
	v.Evidence = source[c.evidence.Start:c.evidence.End]
	v.Strength = s
	v.Label = cal.label(s)
	v.Reason = reason(f, c, s)
	if cal.contradicted(f) {
		// The evidence is the sentence that contradicts the claim.
		sp := f.conflictSpan
		v.Label, v.Strength, v.Evidence = claimtrace.Contradicted, 0, source[sp.Start:sp.End]
		v.Reason = fmt.Sprintf("contradicted: %s in the sentence that repeats %.0f%% of the claim's words; %s", f.conflict, 100*f.conflict.cover, v.Reason)
	}
	return v
}

func reason(f *features, c *candidate, s float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lexical score %.2f: best passage has %d/%d claim words", s, c.covHit, f.terms)
	if f.entities > 0 {
		fmt.Fprintf(&b, ", %d/%d names", c.entityHit, f.entities)
	}
	if c.nums.total > 0 {
		fmt.Fprintf(&b, ", %d/%d numbers", c.nums.matched, c.nums.total)
	}
	if cue := f.conflict.String(); cue != "" {
		b.WriteString("; " + cue)
	}
	return b.String()
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
