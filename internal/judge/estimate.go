package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/ppi"
)

// Judged is one item a judge labelled: a line of `judge eval --verdicts`.
type Judged struct {
	ID    string
	Label claimtrace.Label
}

// HumanLabel is one human label of an item: a line of a reviews file,
// {"id", "label"}.
type HumanLabel struct {
	ID    string
	Label claimtrace.Label
}

// maxEstimateLine bounds a line of a verdicts or reviews file; a verdict
// line holds its claim and evidence quote, not the source.
const maxEstimateLine = 4 << 20

// ReadVerdicts reads the verdicts `judge eval --verdicts` writes, one JSON
// object a line with the pair's "id" and the judge's label: "predicted"
// (the label scored against the gold labels) or else the verdict's
// "label". name (the file) appears in errors. An id given twice is an
// error: reviews could not say which line they label.
func ReadVerdicts(r io.Reader, name string) ([]Judged, error) {
	var out []Judged
	first := map[string]int{}
	err := eachLine(r, name, func(n int, b []byte) error {
		var v struct {
			ID        json.RawMessage `json:"id"`
			Predicted string          `json:"predicted"`
			Verdict   struct {
				Label string `json:"label"`
			} `json:"verdict"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("want a JSON object with id and predicted: %v: %w", err, claimtrace.ErrInvalid)
		}
		id, err := itemID(v.ID)
		if err != nil {
			return err
		}
		if at, dup := first[id]; dup {
			return fmt.Errorf("id %q is on line %d too: ids must be unique: %w", id, at, claimtrace.ErrInvalid)
		}
		first[id] = n
		raw := v.Predicted
		if raw == "" {
			raw = v.Verdict.Label
		}
		l, err := reviewLabel(raw)
		if err != nil {
			return fmt.Errorf("id %q: %w", id, err)
		}
		out = append(out, Judged{ID: id, Label: l})
		return nil
	})
	return out, err
}

// ReadReviews reads human labels, one {"id", "label"} a line; a label is
// supported, partial, unsupported, contradicted or unknown in any spelling
// the label sets use (labels.ParseLabel), or a boolean. Two labels of one
// id are an error: merge reviewers first.
func ReadReviews(r io.Reader, name string) ([]HumanLabel, error) {
	var out []HumanLabel
	first := map[string]int{}
	err := eachLine(r, name, func(n int, b []byte) error {
		var v struct {
			ID    json.RawMessage `json:"id"`
			Label json.RawMessage `json:"label"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("want a JSON object {\"id\", \"label\"}: %v: %w", err, claimtrace.ErrInvalid)
		}
		id, err := itemID(v.ID)
		if err != nil {
			return err
		}
		if at, dup := first[id]; dup {
			return fmt.Errorf("id %q is reviewed on line %d too: one label an id: %w", id, at, claimtrace.ErrInvalid)
		}
		first[id] = n
		var l claimtrace.Label
		var s string
		if json.Unmarshal(v.Label, &s) == nil {
			l, err = reviewLabel(s)
		} else {
			l, err = labels.ParseLabel(v.Label)
		}
		if err != nil {
			return fmt.Errorf("id %q: %w", id, err)
		}
		out = append(out, HumanLabel{ID: id, Label: l})
		return nil
	})
	return out, err
}

// eachLine calls fn with every non-blank line of r and its number, and
// wraps fn's error with the file and line.
func eachLine(r io.Reader, name string, fn func(n int, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEstimateLine)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := fn(n, b); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: line %d: %w", name, n+1, err)
	}
	return nil
}

// itemID reads an id written as a string or a number.
func itemID(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("no \"id\" (a string or a number): %w", claimtrace.ErrInvalid)
}

// reviewLabel reads a label: unknown as itself, anything else as the
// label sets spell it.
func reviewLabel(s string) (claimtrace.Label, error) {
	if strings.EqualFold(strings.TrimSpace(s), string(claimtrace.Unknown)) {
		return claimtrace.Unknown, nil
	}
	b, _ := json.Marshal(s)
	return labels.ParseLabel(b)
}

// LabelEstimates holds, for each label the judge or the reviewers gave,
// the estimate of its rate: the `judge estimate --json` document.
type LabelEstimates struct {
	Labels map[claimtrace.Label]ppi.Estimate `json:"labels"`
}

// EstimatedLabels is the order labels are printed in.
var EstimatedLabels = []claimtrace.Label{claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown}

// EstimateRates estimates, for each label, the share of the judged items
// humans would give it, from the judge's labels on all of them and the
// reviews of a uniform random sample (ppi.Mean). Reviews of ids the
// judge did not label are an error naming them (the first ten).
func EstimateRates(judged []Judged, reviews []HumanLabel) (LabelEstimates, error) {
	if len(judged) == 0 {
		return LabelEstimates{}, fmt.Errorf("estimate: no judged items: %w", claimtrace.ErrInvalid)
	}
	index := make(map[string]int, len(judged))
	for i, j := range judged {
		index[j.ID] = i
	}
	var missing []string
	for _, r := range reviews {
		if _, ok := index[r.ID]; !ok {
			missing = append(missing, fmt.Sprintf("%q", r.ID))
		}
	}
	if len(missing) > 0 {
		more := ""
		if len(missing) > 10 {
			more = fmt.Sprintf(" and %d more", len(missing)-10)
			missing = missing[:10]
		}
		return LabelEstimates{}, fmt.Errorf("estimate: %d reviews of ids the verdicts do not hold: %s%s: %w",
			len(missing), strings.Join(missing, ", "), more, claimtrace.ErrInvalid)
	}
	present := map[claimtrace.Label]bool{}
	for _, j := range judged {
		present[j.Label] = true
	}
	for _, r := range reviews {
		present[r.Label] = true
	}
	out := LabelEstimates{Labels: map[claimtrace.Label]ppi.Estimate{}}
	for _, l := range EstimatedLabels {
		if !present[l] {
			continue
		}
		d := ppi.Data{Judge: make([]float64, len(judged))}
		for i, j := range judged {
			d.Judge[i] = indicator(j.Label == l)
		}
		for _, r := range reviews {
			d.Reviews = append(d.Reviews, ppi.Review{Item: index[r.ID], Value: indicator(r.Label == l)})
		}
		e, err := ppi.Mean(d)
		if err != nil {
			return LabelEstimates{}, fmt.Errorf("estimate %s: %w", l, err)
		}
		out.Labels[l] = e
	}
	return out, nil
}

// Present lists the labels estimated, in EstimatedLabels order.
func (e LabelEstimates) Present() []claimtrace.Label {
	var out []claimtrace.Label
	for _, l := range EstimatedLabels {
		if _, ok := e.Labels[l]; ok {
			out = append(out, l)
		}
	}
	return slices.Clip(out)
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
