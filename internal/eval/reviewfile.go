package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// maxReviewLine bounds a line of a reviews file.
const maxReviewLine = 1 << 20

// ReadReviewFile reads human labels of a run's review units, one
// {"id", "label"} a line: id is the unit's ID (task/claim for a non-cited
// claim, task/claim/url for a pair, as `claimtrace review sample --out`
// writes them), label a verdict label for a pair (supported, partial,
// unsupported, contradicted, unknown) and true, false or undecided (or a
// JSON boolean) for a non-cited claim. name (the file) appears in errors,
// with the line.
func ReadReviewFile(r io.Reader, name string) ([]HumanReview, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxReviewLine)
	var out []HumanReview
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		rv, err := parseReviewLine(b)
		if err != nil {
			return nil, fmt.Errorf("reviews %s:%d: %w", name, n, err)
		}
		out = append(out, rv)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reviews %s: line %d: %w", name, n+1, err)
	}
	return out, nil
}

func parseReviewLine(b []byte) (HumanReview, error) {
	var v struct {
		ID    *string         `json:"id"`
		Label json.RawMessage `json:"label"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return HumanReview{}, fmt.Errorf("want a JSON object {\"id\", \"label\"}: %v: %w", err, claimtrace.ErrInvalid)
	}
	if v.ID == nil {
		return HumanReview{}, fmt.Errorf("no \"id\": %w", claimtrace.ErrInvalid)
	}
	u, err := ParseReviewID(*v.ID)
	if err != nil {
		return HumanReview{}, err
	}
	var label string
	switch l := string(bytes.TrimSpace(v.Label)); {
	case u.Kind == ReviewFact && (l == "true" || l == "false"):
		label = l
	case json.Unmarshal(v.Label, &label) != nil:
		return HumanReview{}, fmt.Errorf("id %q: label %s: want a string: %w", *v.ID, clip(l, 40), claimtrace.ErrInvalid)
	}
	label = strings.ToLower(strings.TrimSpace(label))
	allowed := []string{string(claimtrace.Supported), string(claimtrace.Partial), string(claimtrace.Unsupported), string(claimtrace.Contradicted), string(claimtrace.Unknown)}
	if u.Kind == ReviewFact {
		allowed = []string{string(claimtrace.FactTrue), string(claimtrace.FactFalse), string(claimtrace.FactUndecided)}
	}
	for _, a := range allowed {
		if label == a {
			return HumanReview{Task: u.Task, Claim: u.Claim, URL: u.URL, Label: label}, nil
		}
	}
	return HumanReview{}, fmt.Errorf("id %q is a %s: label %q, want one of %s: %w", *v.ID, kindName(u.Kind), clip(label, 40), strings.Join(allowed, ", "), claimtrace.ErrInvalid)
}

func kindName(kind string) string {
	if kind == ReviewFact {
		return "non-cited claim"
	}
	return "(claim, source) pair"
}
