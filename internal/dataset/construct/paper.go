package construct

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

// Paper is a candidate survey: the snapshot record the stages read, and
// the record itself so that the task file can carry it unchanged.
type Paper struct {
	ID         string               `json:"id"`
	Title      string               `json:"title"`
	Abstract   string               `json:"abstract"`
	Comments   string               `json:"comments"`
	Categories string               `json:"categories"`
	License    string               `json:"license"`
	Versions   []claimtrace.Version `json:"versions"`
	// Record is the snapshot line as selected.
	Record json.RawMessage `json:"-"`
}

// ParsePaper reads a snapshot line (or a line of ReportBench_v1.1.jsonl,
// whose identifier is "arxiv_id").
func ParsePaper(line []byte) (Paper, error) {
	var p struct {
		Paper
		ArXivID string `json:"arxiv_id"`
	}
	if err := json.Unmarshal(line, &p); err != nil {
		return Paper{}, fmt.Errorf("snapshot record: %w", err)
	}
	if p.ID == "" {
		p.ID = p.ArXivID
	}
	if p.ID == "" {
		return Paper{}, fmt.Errorf("snapshot record without id: %w", claimtrace.ErrInvalid)
	}
	p.Paper.Record = append(json.RawMessage(nil), line...)
	p.Paper.Title = oneLine(p.Paper.Title)
	p.Paper.Abstract = oneLine(p.Paper.Abstract)
	return p.Paper, nil
}

// oneLine joins the snapshot's wrapped lines ("…at Tevatron and\n  LHC").
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// LastVersion returns the creation time of the paper's last version, the
// survey's citation horizon, or the zero time.
func (p Paper) LastVersion() time.Time {
	for i := len(p.Versions) - 1; i >= 0; i-- {
		if t, err := time.Parse(time.RFC1123, p.Versions[i].Created); err == nil {
			return t.UTC()
		}
		if d := arxivsnap.ParseCreated(p.Versions[i].Created); d != 0 {
			return time.Date(d/10000, time.Month(d/100%100), d%100, 0, 0, 0, 0, time.UTC)
		}
	}
	return time.Time{}
}

// Completer is the model call the LLM-backed stages need: send a prompt,
// decode the JSON answer into out. stage names the call for accounting
// ("build.classify", "build.prompts", "build.domains"). The LLM layer
// provides it; the offline implementations need none.
type Completer interface {
	CompleteJSON(ctx context.Context, stage, prompt string, out any) error
}
