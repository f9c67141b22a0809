package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/store"
)

// staticAudit is the audit view of a static export: every claim's panel is
// in the page, shown when its claim is selected (CSS :target on a fixed
// anchor before it, so that the page does not scroll).
type staticAudit struct {
	auditPage
	Panels []*claimPanel
}

// Exported says what Export wrote.
type Exported struct {
	Dir     string   `json:"dir"`
	Index   string   `json:"index"`
	Reports []string `json:"reports"`
	// Failed lists reports whose page could not be made, with the reason.
	Failed map[string]string `json:"failed,omitempty"`
}

// Export writes a stored run as static HTML into dir: index.html, the
// run's reports and their figures, and one page per report with the same
// audit view as the server's (each claim beside the evidence passage of
// each source, verdicts, provenance path, AAR figures), every claim's panel
// included. The pages load nothing and run no script (a Content-Security-
// Policy forbids both), so they can be mailed, archived or opened from
// disk; all report and source text is escaped as on the server. Tasks
// restricts the reports (all when empty).
func (s *Server) Export(ctx context.Context, run, dir string, tasks []string) (*Exported, error) {
	if err := checkName("run", run); err != nil {
		return nil, err
	}
	r, err := s.findRun(ctx, run)
	if err != nil {
		return nil, err
	}
	fig, err := s.reportLines(ctx, run)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	want := map[string]bool{}
	for _, t := range tasks {
		want[t] = true
	}
	now := s.now()
	out := &Exported{Dir: dir, Index: filepath.Join(dir, "index.html"), Failed: map[string]string{}}
	var kept []ReportLine
	for _, l := range fig.Lines {
		if len(want) > 0 && !want[l.Task] {
			continue
		}
		name := exportName(l.Task)
		l.Href = name
		kept = append(kept, l)
		if l.Status == store.StatusFailed || l.Error != "" {
			continue // listed in the index with its error; no page
		}
		page, err := s.staticReport(ctx, run, l.Task, "index.html", now)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out.Failed[l.Task] = err.Error()
			continue
		}
		if err := writeFileAtomic(filepath.Join(dir, name), page); err != nil {
			return nil, err
		}
		out.Reports = append(out.Reports, filepath.Join(dir, name))
	}
	index := runPage{base: base{Title: "Run " + run, Static: true, Generated: &now}, Run: r, Reports: kept, Effort: effort(fig.Timings), Agreement: fig.Agreement}
	if index.Sample, err = s.reviewSample(ctx, run, r.Params, false, false, fig.units); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := s.pages["static-run.html"].ExecuteTemplate(&buf, "layout", index); err != nil {
		return nil, fmt.Errorf("export index: %w", err)
	}
	if err := writeFileAtomic(out.Index, buf.Bytes()); err != nil {
		return nil, err
	}
	return out, nil
}

// ExportReport writes the static audit page of one report of a run to
// path (see Export), without an index.
func (s *Server) ExportReport(ctx context.Context, run, task, path string) error {
	if err := checkName("run", run); err != nil {
		return err
	}
	if err := checkName("task", task); err != nil {
		return err
	}
	page, err := s.staticReport(ctx, run, task, "", s.now())
	if err != nil {
		return err
	}
	return writeFileAtomic(path, page)
}

// staticReport renders one report's static audit page; runHref links the
// run's index ("" for none).
func (s *Server) staticReport(ctx context.Context, run, task, runHref string, now time.Time) ([]byte, error) {
	l, ts, reviews, err := s.loadAudit(ctx, run, task)
	if err != nil {
		return nil, err
	}
	data := staticAudit{auditPage: auditPage{base: base{Title: task + " — audit", Static: true, Generated: &now}, Run: run, Task: task,
		RunHref: runHref, Res: l.Res, Effort: effort(ts)}}
	data.claims("", reviews, nil)
	for i, c := range l.Res.Claims {
		data.Claims[i].Href = "#panel-" + c.ID
		p, err := s.panel(ctx, l, c.ID, ts, reviews)
		if err != nil {
			return nil, err
		}
		p.Static, p.Writable = true, false
		data.Panels = append(data.Panels, p)
	}
	rt := textOf(l.Res)
	data.TextNote = rt.Note
	data.render(rt.Text, cleanSpans(rt.Text, rt.Spans), textPage{From: 0, To: len(rt.Text)})
	var buf bytes.Buffer
	if err := s.pages["static-audit.html"].ExecuteTemplate(&buf, "layout", data); err != nil {
		return nil, fmt.Errorf("export %s: %w", task, err)
	}
	return buf.Bytes(), nil
}

// exportName is the file name of a report's page: its task id when that is
// a plain name, else the safe characters and a hash (two ids never share a
// file).
func exportName(task string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, task)
	if safe != task || strings.HasPrefix(safe, ".") || safe == "index" {
		sum := sha256.Sum256([]byte(task))
		safe = strings.TrimLeft(safe, ".") + "-" + hex.EncodeToString(sum[:4])
	}
	return safe + ".html"
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so a reader never sees half a page.
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
