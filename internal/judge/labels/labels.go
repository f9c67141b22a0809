// Package labels reads human-labelled claim–evidence pairs, the ground
// truth that judges are measured and calibrated against. Three line formats
// are recognised, line by line, so files can be concatenated:
//
//   - plain JSONL: {"claim", "evidence" (string or list of strings), "label"
//     (supported / partial / unsupported / contradicted and common synonyms,
//     or a boolean), optional "id" and "source"};
//   - AttributionBench: {"claim", "references": [...], "attribution_label":
//     "attributable" | "not attributable", "src_dataset", "id"};
//   - WiCE (claim level): {"claim", "evidence": [sentences of the cited
//     page], "label": "supported" | "partially_supported" | "not_supported",
//     "supporting_sentences", "meta": {"id"}};
//   - the SciFact layout (SciFact, Citation-Integrity, …): {"id", "claim",
//     "evidence": {doc_id: [{"sentences", "label": "SUPPORT" | "REFUTE" |
//     "CONTRADICT"}]}, "cited_doc_ids"}, the documents read from
//     corpus.jsonl beside the claims file. Each cited document gives one
//     pair: SUPPORT → supported, REFUTE / CONTRADICT → contradicted, no
//     evidence (NOT_ENOUGH_INFO) → unsupported.
//
// A deterministic hash split (Split) divides every dataset into a
// calibration half and a test half, so thresholds are fitted on one half
// and reported on the other.
package labels

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// Dataset names of the recognised formats.
const (
	AttributionBench = "attributionbench"
	WiCE             = "wice"
)

// Format is the shape of one labelled line.
type Format string

// Line formats.
const (
	FormatPlain            Format = "jsonl"
	FormatAttributionBench Format = "attributionbench"
	FormatWiCE             Format = "wice"
	FormatSciFact          Format = "scifact"
)

// Pair is one labelled claim–evidence pair.
type Pair struct {
	// ID identifies the pair within its dataset (the file's id, or a hash of
	// claim and evidence when the line has none); the split hashes it.
	ID string `json:"id"`
	// Dataset is "attributionbench", "wice", for plain lines their
	// "source" field, else the file's base name, and for SciFact-layout
	// lines the name of the folder holding the file ("citint").
	Dataset string `json:"dataset"`
	// Subset is a dataset's component (AttributionBench's src_dataset).
	Subset   string `json:"subset,omitempty"`
	Claim    string `json:"claim"`
	Evidence string `json:"evidence"`
	// Label is the gold label: supported, partial, unsupported or contradicted.
	Label  claimtrace.Label `json:"label"`
	Format Format           `json:"format"`
	// Line is the 1-based line number in the file read.
	Line int `json:"line"`
	// Rationale holds the spans of Evidence that the annotators marked as
	// the reason for the label (SciFact's rationale sentences), if any.
	Rationale []Span `json:"rationale,omitempty"`
}

// MaxLineBytes bounds one JSONL line (WiCE lines hold whole web pages).
const MaxLineBytes = 64 << 20

// ReadFile reads a label file.
func ReadFile(path string) ([]Pair, error) {
	return ReadFileContext(context.Background(), path)
}

// ReadFileContext reads a label file until ctx ends. Only a regular file
// is opened (inputfile.Open): a named pipe or a device is refused at once.
func ReadFileContext(ctx context.Context, path string) ([]Pair, error) {
	f, _, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	defer f.Close()
	ps, err := Read(inputfile.Reader(ctx, f), path)
	if cerr := ctx.Err(); cerr != nil {
		// The line cut short by the cancelled read is no parse error.
		return nil, fmt.Errorf("labels %s: %w", path, cerr)
	}
	return ps, err
}

// Read reads labelled pairs from r; name (a file path) appears in errors
// and, without its extension, is the dataset name of plain lines that carry
// no "source". SciFact-layout lines read their documents from corpus.jsonl
// in name's folder (once, at the first such line).
func Read(r io.Reader, name string) ([]Pair, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	if base == "" || base == "." || base == "/" {
		base = string(FormatPlain)
	}
	sciDataset := filepath.Base(filepath.Dir(name))
	if sciDataset == "" || sciDataset == "." || sciDataset == string(filepath.Separator) {
		sciDataset = base
	}
	var corpus Corpus
	var out []Pair
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		l, err := decodeLine(b)
		if err != nil {
			return nil, fmt.Errorf("labels %s:%d: %w", name, line, err)
		}
		if isSciFact(&l) {
			if l.Claim == nil {
				return nil, fmt.Errorf("labels %s:%d: no \"claim\" field: %w", name, line, claimtrace.ErrInvalid)
			}
			if corpus == nil {
				if corpus, err = readCorpusBeside(name); err != nil {
					return nil, err
				}
			}
			ps, err := sciFactPairs(b, sciDataset, corpus)
			if err != nil {
				return nil, fmt.Errorf("labels %s:%d: %w", name, line, err)
			}
			for _, p := range ps {
				p.Line = line
				out = append(out, p)
			}
			continue
		}
		p, err := parseDecoded(&l, base)
		if err != nil {
			return nil, fmt.Errorf("labels %s:%d: %w", name, line, err)
		}
		p.Line = line
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("labels %s: line %d: %w", name, line+1, err)
	}
	return out, nil
}

// line is the union of the fields of the three formats.
type line struct {
	ID                  json.RawMessage `json:"id"`
	Claim               *string         `json:"claim"`
	Evidence            json.RawMessage `json:"evidence"`
	Label               json.RawMessage `json:"label"`
	Source              string          `json:"source"`
	References          []string        `json:"references"`
	AttributionLabel    *string         `json:"attribution_label"`
	SrcDataset          string          `json:"src_dataset"`
	SupportingSentences json.RawMessage `json:"supporting_sentences"`
	Meta                map[string]any  `json:"meta"`
	CitedDocIDs         json.RawMessage `json:"cited_doc_ids"`
}

// format tells the format of a decoded line by its fields.
func (l *line) format() Format {
	switch {
	case l.AttributionLabel != nil:
		return FormatAttributionBench
	case l.SupportingSentences != nil || (l.Meta != nil && isArray(l.Evidence)):
		return FormatWiCE
	}
	return FormatPlain
}

// ParseLine parses one non-empty line in any of the formats but the
// SciFact layout (which needs its corpus: see Read); dataset names plain
// lines without a "source".
func ParseLine(b []byte, dataset string) (Pair, error) {
	l, err := decodeLine(b)
	if err != nil {
		return Pair{}, err
	}
	if isSciFact(&l) {
		return Pair{}, fmt.Errorf("a SciFact-layout line needs its %s: read the file: %w", CorpusFile, claimtrace.ErrInvalid)
	}
	return parseDecoded(&l, dataset)
}

func decodeLine(b []byte) (line, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return line{}, fmt.Errorf("not a JSON object: %w: %w", err, claimtrace.ErrInvalid)
	}
	return l, nil
}

func parseDecoded(l *line, dataset string) (Pair, error) {
	if l.Claim == nil {
		return Pair{}, fmt.Errorf("no \"claim\" field: %w", claimtrace.ErrInvalid)
	}
	p := Pair{Claim: *l.Claim, Format: l.format()}
	var err error
	switch p.Format {
	case FormatAttributionBench:
		p.Dataset, p.Subset = AttributionBench, l.SrcDataset
		p.Evidence = strings.Join(l.References, "\n\n")
		switch strings.TrimSpace(strings.ToLower(*l.AttributionLabel)) {
		case "attributable":
			p.Label = claimtrace.Supported
		case "not attributable", "not_attributable":
			p.Label = claimtrace.Unsupported
		default:
			return Pair{}, fmt.Errorf("attribution_label %q: want attributable or not attributable: %w", *l.AttributionLabel, claimtrace.ErrInvalid)
		}
		p.ID = idString(l.ID)
	case FormatWiCE:
		p.Dataset = WiCE
		var sents []string
		if err := json.Unmarshal(l.Evidence, &sents); err != nil {
			return Pair{}, fmt.Errorf("wice evidence: want a list of sentences: %w", claimtrace.ErrInvalid)
		}
		p.Evidence = strings.Join(sents, "\n")
		if p.Label, err = ParseLabel(l.Label); err != nil {
			return Pair{}, err
		}
		if id, ok := l.Meta["id"].(string); ok {
			p.ID = id
		}
	default:
		p.Dataset = dataset
		if l.Source != "" {
			p.Dataset = l.Source
		}
		if p.Evidence, err = evidenceText(l.Evidence); err != nil {
			return Pair{}, err
		}
		if p.Label, err = ParseLabel(l.Label); err != nil {
			return Pair{}, err
		}
		p.ID = idString(l.ID)
	}
	if p.ID == "" {
		sum := sha256.Sum256([]byte(p.Claim + "\x00" + p.Evidence))
		p.ID = "sha256:" + hex.EncodeToString(sum[:8])
	}
	return p, nil
}

func isArray(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '['
}

// evidenceText accepts a string or a list of strings (joined by newlines).
func evidenceText(raw json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return "", fmt.Errorf("no \"evidence\" field: %w", claimtrace.ErrInvalid)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return strings.Join(list, "\n"), nil
	}
	return "", fmt.Errorf("evidence: want a string or a list of strings: %w", claimtrace.ErrInvalid)
}

func idString(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String()
	}
	return ""
}

// ParseLabel maps a gold label — a string in any common spelling, a
// boolean, or 0/1 — to a verdict label. Booleans mean supported or not.
func ParseLabel(raw json.RawMessage) (claimtrace.Label, error) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || string(b) == "null" {
		return "", fmt.Errorf("no \"label\" field: %w", claimtrace.ErrInvalid)
	}
	var s string
	switch {
	case string(b) == "true" || string(b) == "1":
		return claimtrace.Supported, nil
	case string(b) == "false" || string(b) == "0":
		return claimtrace.Unsupported, nil
	case json.Unmarshal(b, &s) != nil:
		return "", fmt.Errorf("label %s: want a string or a boolean: %w", b, claimtrace.ErrInvalid)
	}
	norm := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch norm {
	case "supported", "support", "supports", "entailment", "entailed", "entails", "attributable",
		"true", "yes", "1", "correct", "fully_supported":
		return claimtrace.Supported, nil
	case "partial", "partially", "partially_supported", "partly_supported", "partially_attributable",
		"partial_support":
		return claimtrace.Partial, nil
	case "unsupported", "not_supported", "not_attributable", "unattributable", "not_entailed",
		"neutral", "not_enough_info", "nei", "insufficient", "false", "no", "0", "incorrect":
		return claimtrace.Unsupported, nil
	case "contradicted", "contradiction", "contradicts", "contradictory", "refuted", "refutes":
		return claimtrace.Contradicted, nil
	}
	return "", fmt.Errorf("label %q: want supported, partial, unsupported, contradicted or a boolean: %w", s, claimtrace.ErrInvalid)
}
