package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/report"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Unit kinds the pipeline stores and the server reads.
const (
	unitReport = "report"
	unitGraph  = "graph"
)

// maxName caps run ids and task ids taken from a URL.
const maxName = 200

// checkName validates a run id or task id taken from a URL path: 1 to
// maxName bytes of UTF-8 text, no control characters, no slashes, not a
// dot segment.
func checkName(what, v string) error {
	bad := v == "" || len(v) > maxName || !utf8.ValidString(v) || v == "." || v == ".." ||
		strings.ContainsAny(v, `/\`) || strings.ContainsFunc(v, unicode.IsControl)
	if bad {
		return fmt.Errorf("%s %q: want 1 to %d printable characters without slashes: %w", what, clip(v, 80), maxName, claimtrace.ErrInvalid)
	}
	return nil
}

// checkClaimID validates a claim id: 1 to 64 ASCII letters, digits and
// "._:-" (the pipeline writes c1, c2, …).
func checkClaimID(v string) error {
	ok := v != "" && len(v) <= 64
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:-", c) >= 0
	}
	if !ok {
		return fmt.Errorf("claim id %q: want 1 to 64 letters, digits or ._:-: %w", clip(v, 80), claimtrace.ErrInvalid)
	}
	return nil
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// runName reads and validates the {run} path value.
func runName(r *http.Request) (string, error) {
	run := r.PathValue("run")
	return run, checkName("run", run)
}

// reportNames reads and validates the {run} and {task} path values.
func reportNames(r *http.Request) (run, task string, err error) {
	run, task = r.PathValue("run"), r.PathValue("task")
	if err := checkName("run", run); err != nil {
		return "", "", err
	}
	if err := checkName("task", task); err != nil {
		return "", "", err
	}
	return run, task, nil
}

// findRun returns the stored run with the given id.
func (s *Server) findRun(ctx context.Context, id string) (store.Run, error) {
	runs, err := s.st.Runs(ctx)
	if err != nil {
		return store.Run{}, err
	}
	for _, r := range runs {
		if r.ID == id {
			return r, nil
		}
	}
	return store.Run{}, fmt.Errorf("run %q: %w", id, claimtrace.ErrNotFound)
}

// storedReport is the report unit's data as the pipeline writes it, with
// the result kept as the bytes stored.
type storedReport struct {
	SHA256 string          `json:"sha256"`
	Result json.RawMessage `json:"result"`
}

// loaded is one report of a run, read from the store.
type loaded struct {
	Run, Task string
	Raw       json.RawMessage // the result as stored (eval.Result JSON)
	Res       *eval.Result

	// Read once per loaded report by the pages that show many of its
	// claims (the static export has every panel): the graph's index (or
	// why there is none) and the source texts by sha. A loaded report
	// belongs to one request, so no lock.
	graphRead bool
	graph     *prov.Index
	graphMiss string
	texts     map[string]string
}

// loadRaw reads the report unit of task in run, leaving the result
// undecoded.
func (s *Server) loadRaw(ctx context.Context, run, task string) (storedReport, error) {
	u, ok, err := s.st.GetUnit(ctx, run, unitReport, task)
	if err != nil {
		return storedReport{}, err
	}
	if !ok {
		return storedReport{}, fmt.Errorf("report %q in run %q: %w", task, run, claimtrace.ErrNotFound)
	}
	return decodeRaw(run, task, u.Data)
}

// decodeRaw reads a report unit's data, leaving the result undecoded.
func decodeRaw(run, task string, data []byte) (storedReport, error) {
	var sr storedReport
	if err := json.Unmarshal(data, &sr); err != nil || len(sr.Result) == 0 || string(sr.Result) == "null" {
		return storedReport{}, fmt.Errorf("report %q in run %q: stored result unreadable: %v", task, run, err)
	}
	return sr, nil
}

// loadReport reads the report unit of task in run.
func (s *Server) loadReport(ctx context.Context, run, task string) (*loaded, error) {
	sr, err := s.loadRaw(ctx, run, task)
	if err != nil {
		return nil, err
	}
	return decodeReport(run, task, sr)
}

// decodeReport decodes a stored report's result.
func decodeReport(run, task string, sr storedReport) (*loaded, error) {
	var res eval.Result
	if err := json.Unmarshal(sr.Result, &res); err != nil {
		return nil, fmt.Errorf("report %q in run %q: stored result: %w", task, run, err)
	}
	if res.SHA256 == "" {
		res.SHA256 = sr.SHA256
	}
	return &loaded{Run: run, Task: task, Raw: sr.Result, Res: &res}, nil
}

// loadGraph reads the provenance graph of task in run, as stored and
// decoded; a missing graph is ErrNotFound. The graph is not validated:
// callers index it (prov.NewIndex) or validate it. The pipeline wrote it,
// so the schema check of prov.Unmarshal, which costs more than the rest of
// a claim panel, is left to imports of foreign graphs.
func (s *Server) loadGraph(ctx context.Context, run, task string) ([]byte, *prov.Graph, error) {
	u, ok, err := s.st.GetUnit(ctx, run, unitGraph, task)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("graph of report %q in run %q: %w", task, run, claimtrace.ErrNotFound)
	}
	var g prov.Graph
	if err := json.Unmarshal(u.Data, &g); err != nil {
		return nil, nil, fmt.Errorf("graph of report %q in run %q: %v: %w", task, run, err, claimtrace.ErrInvalid)
	}
	return u.Data, &g, nil
}

// reportText is the text shown in the audit view with each claim's span in
// it (Ref: the claim's index in the result).
type reportText struct {
	Text  string
	Spans []span
	// Note says why the text was rebuilt from the claims, when it was.
	Note string
}

// textOf returns the report's text: the file the pipeline read, when it
// still exists and hashes to the stored sha256; else the claims' texts
// laid end to end, saying so.
func textOf(res *eval.Result) reportText {
	var why string
	switch text, err := report.Load(res.File); {
	case res.File == "":
		why = "the stored result names no report file"
	case err != nil:
		why = fmt.Sprintf("the report file cannot be read (%v)", err)
	case res.SHA256 == "":
		why = fmt.Sprintf("the stored result has no sha256 to check %s against", res.File)
	case sha(text) != res.SHA256:
		why = fmt.Sprintf("the report file %s changed since it was evaluated (sha256 %.12s…, evaluated %.12s…)", res.File, sha(text), res.SHA256)
	default:
		spans := make([]span, len(res.Claims))
		for i, c := range res.Claims {
			spans[i] = span{Start: c.Start, End: c.End, Ref: i}
		}
		return reportText{Text: text, Spans: spans}
	}
	rt := rebuild(res.Claims)
	rt.Note = why + ": the text below is rebuilt from the claims alone (headings, lists and the reference list are missing)"
	return rt
}

// rebuild lays the claims' texts end to end in document order: a space
// between claims that were a byte apart, a blank line elsewhere.
func rebuild(claims []eval.ClaimResult) reportText {
	order := make([]int, len(claims))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return claims[a].Start - claims[b].Start })
	var b strings.Builder
	var spans []span
	prevEnd := -1
	for _, i := range order {
		c := claims[i]
		if b.Len() > 0 {
			if c.Start-prevEnd <= 1 {
				b.WriteString(" ")
			} else {
				b.WriteString("\n\n")
			}
		}
		spans = append(spans, span{Start: b.Len(), End: b.Len() + len(c.Text), Ref: i})
		b.WriteString(c.Text)
		prevEnd = c.End
	}
	return reportText{Text: b.String(), Spans: spans}
}

func sha(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}
