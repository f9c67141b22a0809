package labels

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// CorpusFile is the name of the corpus a SciFact-layout claims file reads
// its documents from: the file of that name in the same folder.
const CorpusFile = "corpus.jsonl"

// Span is a byte range [Start, End) of a pair's Evidence.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Doc is one document of a SciFact-layout corpus: a title and the
// abstract's sentences.
type Doc struct {
	Title    string
	Abstract []string
}

// Corpus maps a document id (as written in the file, digits for SciFact)
// to its document.
type Corpus map[string]Doc

// corpusLine is one line of corpus.jsonl.
type corpusLine struct {
	DocID    json.RawMessage `json:"doc_id"`
	Title    string          `json:"title"`
	Abstract []string        `json:"abstract"`
}

// ReadCorpus reads a SciFact-layout corpus: one {"doc_id", "title",
// "abstract": [sentence, …]} a line.
func ReadCorpus(r io.Reader, name string) (Corpus, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	c := make(Corpus)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l corpusLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("corpus %s:%d: %w: %w", name, line, err, claimtrace.ErrInvalid)
		}
		id := idString(l.DocID)
		if id == "" {
			return nil, fmt.Errorf("corpus %s:%d: no \"doc_id\": %w", name, line, claimtrace.ErrInvalid)
		}
		c[id] = Doc{Title: l.Title, Abstract: l.Abstract}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("corpus %s: line %d: %w", name, line+1, err)
	}
	return c, nil
}

// readCorpusBeside reads the corpus.jsonl in the folder of the claims file
// path.
func readCorpusBeside(path string) (Corpus, error) {
	p := filepath.Join(filepath.Dir(path), CorpusFile)
	f, _, err := inputfile.Open(p)
	if err != nil {
		return nil, fmt.Errorf("labels %s is in the SciFact layout, which needs %s beside it: %w", path, CorpusFile, err)
	}
	defer f.Close()
	return ReadCorpus(f, p)
}

// sciFactLine is one claim line of the SciFact layout.
type sciFactLine struct {
	ID       json.RawMessage `json:"id"`
	Claim    string          `json:"claim"`
	Evidence map[string][]struct {
		Sentences []int  `json:"sentences"`
		Label     string `json:"label"`
	} `json:"evidence"`
	CitedDocIDs []json.RawMessage `json:"cited_doc_ids"`
}

// isSciFact tells a SciFact claim line by its fields: "cited_doc_ids", or
// an "evidence" that is a JSON object (keyed by document id) and no
// top-level "label".
func isSciFact(l *line) bool {
	b := bytes.TrimSpace(l.Evidence)
	return l.CitedDocIDs != nil || (len(b) > 0 && b[0] == '{' && l.Label == nil)
}

// sciFactPairs turns one SciFact claim line into one pair per cited
// document, as a report's claim citing several sources is judged once per
// source. The evidence a judge reads is the whole document, title and
// every abstract sentence, one a line; the labelled sentences become the
// pair's Rationale. A document with no evidence entry is NOT_ENOUGH_INFO,
// which is unsupported: the document does not back the claim.
func sciFactPairs(b []byte, dataset string, corpus Corpus) ([]Pair, error) {
	var l sciFactLine
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("scifact claim: %w: %w", err, claimtrace.ErrInvalid)
	}
	id := idString(l.ID)
	if id == "" {
		return nil, fmt.Errorf("scifact claim: no \"id\": %w", claimtrace.ErrInvalid)
	}
	docs := make([]string, 0, len(l.CitedDocIDs)+len(l.Evidence))
	seen := make(map[string]bool)
	for _, raw := range l.CitedDocIDs {
		if d := idString(raw); d != "" && !seen[d] {
			seen[d] = true
			docs = append(docs, d)
		}
	}
	var extra []string // evidence of documents the line does not list as cited
	for d := range l.Evidence {
		if !seen[d] {
			extra = append(extra, d)
		}
	}
	sort.Strings(extra)
	docs = append(docs, extra...)
	if len(docs) == 0 {
		return nil, fmt.Errorf("scifact claim %s: no cited document: %w", id, claimtrace.ErrInvalid)
	}
	out := make([]Pair, 0, len(docs))
	for _, d := range docs {
		doc, ok := corpus[d]
		if !ok {
			return nil, fmt.Errorf("scifact claim %s: document %s is not in %s: %w", id, d, CorpusFile, claimtrace.ErrInvalid)
		}
		p := Pair{ID: id + "/" + d, Dataset: dataset, Claim: l.Claim, Label: claimtrace.Unsupported, Format: FormatSciFact}
		var b strings.Builder
		starts := make([]int, len(doc.Abstract))
		if t := strings.TrimSpace(doc.Title); t != "" {
			b.WriteString(t)
			b.WriteString("\n")
		}
		for i, s := range doc.Abstract {
			starts[i] = b.Len()
			b.WriteString(s)
			b.WriteString("\n")
		}
		p.Evidence = strings.TrimSuffix(b.String(), "\n")
		var label claimtrace.Label
		for _, e := range l.Evidence[d] {
			got, err := sciFactLabel(e.Label)
			if err != nil {
				return nil, fmt.Errorf("scifact claim %s document %s: %w", id, d, err)
			}
			if label != "" && got != label {
				return nil, fmt.Errorf("scifact claim %s document %s: both %s and %s: %w", id, d, label, got, claimtrace.ErrInvalid)
			}
			label = got
			for _, s := range e.Sentences {
				if s < 0 || s >= len(doc.Abstract) {
					return nil, fmt.Errorf("scifact claim %s document %s: sentence %d of %d: %w", id, d, s, len(doc.Abstract), claimtrace.ErrInvalid)
				}
				p.Rationale = append(p.Rationale, Span{Start: starts[s], End: starts[s] + len(doc.Abstract[s])})
			}
		}
		if label != "" {
			p.Label = label
		}
		sort.Slice(p.Rationale, func(i, k int) bool { return p.Rationale[i].Start < p.Rationale[k].Start })
		p.Rationale = dedupSpans(p.Rationale)
		out = append(out, p)
	}
	return out, nil
}

// sciFactLabel maps SciFact's and CitInt's rationale labels.
func sciFactLabel(s string) (claimtrace.Label, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "SUPPORT", "SUPPORTS":
		return claimtrace.Supported, nil
	case "REFUTE", "REFUTES", "CONTRADICT", "CONTRADICTS":
		return claimtrace.Contradicted, nil
	case "NOT_ENOUGH_INFO", "NEI":
		return claimtrace.Unsupported, nil
	}
	return "", fmt.Errorf("label %q: want SUPPORT, REFUTE (CONTRADICT) or NOT_ENOUGH_INFO: %w", s, claimtrace.ErrInvalid)
}

func dedupSpans(s []Span) []Span {
	out := s[:0]
	for i, sp := range s {
		if i == 0 || sp != s[i-1] {
			out = append(out, sp)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
