package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/report"
)

// fixture is a benchmark's input: a dataset with one task per report, the
// reports, a snapshot holding a page of real text for every URL they cite,
// and what the fake needs to count calls per report.
type fixture struct {
	Dataset, Reports, Snapshot string
	// Texts holds each task's report text.
	Texts map[string]string
	// Attribute maps each claim as prompts show it to its task.
	Attribute map[string]string
	// Pages is the number of distinct pages; PageBytes their mean size.
	Pages     int
	PageBytes int
}

// reportSource is one real report taken into a fixture.
type reportSource struct {
	name, text string
}

// loadReports reads n real deep-research reports of a set from the shared
// data: "onyx" (Onyx deep research, up to 100), "openai" (OpenAI deep
// research, up to 8), or "mixed" (half of each, as issue 21 measured).
func loadReports(data, set string, n int) ([]reportSource, error) {
	onyx := func(k int) ([]reportSource, error) {
		dir := filepath.Join(data, "reports/onyx-drb/report_logs")
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(ents, func(a, b os.DirEntry) int { return num(a.Name()) - num(b.Name()) })
		var out []reportSource
		for _, e := range ents[:min(k, len(ents))] {
			text, err := report.Load(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			out = append(out, reportSource{"onyx/" + e.Name(), text})
		}
		return out, nil
	}
	openai := func(k int) ([]reportSource, error) {
		path := filepath.Join(data, "reports/openai-dr-science-drb/data/test_data/raw_data/openai_science_03_17.jsonl")
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var out []reportSource
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() && len(out) < k {
			var v struct {
				ID      int    `json:"id"`
				Article string `json:"article"`
			}
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			out = append(out, reportSource{fmt.Sprintf("openai/%d", v.ID), v.Article})
		}
		return out, sc.Err()
	}
	switch set {
	case "onyx":
		return onyx(n)
	case "openai":
		return openai(n)
	case "mixed":
		a, err := onyx(n - n/2)
		if err != nil {
			return nil, err
		}
		b, err := openai(n / 2)
		return append(a, b...), err
	}
	return nil, fmt.Errorf("report set %q: want onyx, openai or mixed", set)
}

func num(name string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(name, filepath.Ext(name)))
	return n
}

// pageTexts reads the real page texts of the DeepResearch Bench FACT
// outputs (about 90 scraped pages), the pool the snapshot's pages are cut
// from.
func pageTexts(data string) ([]string, error) {
	path := filepath.Join(data, "reports/openai-dr-science-drb/results/fact/dls/validated.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "url_content" && len(s) > 2000 {
					out = append(out, s)
				} else {
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		walk(v)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no page text", path)
	}
	return out, nil
}

// page returns the body text of the page for url: 10–30 KB of real page
// text (the size and the starting page chosen by a hash of the URL), cut
// at a line end.
func page(pool []string, url string) string {
	h := hash32(url)
	size := 10_000 + int(h%20_000)
	var b strings.Builder
	for i := int(h>>8) % len(pool); b.Len() < size; i = (i + 1) % len(pool) {
		b.WriteString(pool[i])
		b.WriteString("\n\n")
	}
	s := b.String()
	if i := strings.LastIndexByte(s[:size], '\n'); i > size/2 {
		s = s[:i]
	} else {
		s = s[:size]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] >= 0x80 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// buildFixture writes a fixture for the reports into dir: task ids
// 2501.00001…, a ground truth holding a third of each report's cited
// titles, and a snapshot page for every cited URL (a scholarly page whose
// citation_title is the work's title, its text 10–30 KB of real pages).
func buildFixture(dir string, reports []reportSource, pool []string) (*fixture, error) {
	fx := &fixture{
		Dataset:   filepath.Join(dir, "dataset"),
		Reports:   filepath.Join(dir, "reports"),
		Snapshot:  filepath.Join(dir, "snap"),
		Texts:     map[string]string{},
		Attribute: map[string]string{},
	}
	gtDir := filepath.Join(fx.Dataset, dataset.GTDir)
	for _, d := range []string{fx.Reports, gtDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	w, err := fetch.CreateSnapshot(fx.Snapshot)
	if err != nil {
		return nil, err
	}
	var tasks []byte
	seen := map[string]bool{}
	total := 0
	for i, r := range reports {
		id := fmt.Sprintf("2501.%05d", i+1)
		fx.Texts[id] = r.text
		tasks = fmt.Appendf(tasks, `{"arxiv_id":%q,"title":"Survey %d (%s)","prompt":"Research this; ensure only papers published before January 2026 are referenced.","application_domain":"D%d"}`+"\n", id, i, r.name, i%10)
		if err := os.WriteFile(filepath.Join(fx.Reports, id+".md"), []byte(r.text), 0o644); err != nil {
			return nil, err
		}
		doc := report.Parse(r.text)
		for _, c := range doc.Claims {
			if t := judge.ClaimText(c.Text); t != "" {
				fx.Attribute[t] = id
			}
		}
		var gt []byte
		for k, c := range doc.Citations {
			if c.URL == "" {
				continue
			}
			title := fmt.Sprintf("Cited work on %s", strings.TrimPrefix(strings.TrimPrefix(c.URL, "https://"), "http://"))
			if k%3 == 0 {
				gt = fmt.Appendf(gt, `{"bib_id":"r%d","title":%q,"author":"A","meta_info":{}}`+"\n", k, title)
			}
			if seen[c.URL] {
				continue
			}
			seen[c.URL] = true
			body := page(pool, c.URL)
			total += len(body)
			var p strings.Builder
			fmt.Fprintf(&p, `<html><head><title>%s</title><meta name="citation_title" content="%s"><meta name="citation_date" content="2024/05/01"></head><body><article><h1>%s</h1>`,
				html.EscapeString(title), html.EscapeString(title), html.EscapeString(title))
			for _, para := range strings.Split(body, "\n") {
				if para = strings.TrimSpace(para); para != "" {
					fmt.Fprintf(&p, "<p>%s</p>\n", html.EscapeString(para))
				}
			}
			p.WriteString("</article></body></html>")
			if err := w.Add(&fetch.Page{URL: c.URL, Status: 200, ContentType: "text/html", Body: []byte(p.String())}); err != nil {
				return nil, err
			}
		}
		if err := os.WriteFile(filepath.Join(gtDir, id+".jsonl"), gt, 0o644); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(fx.Dataset, dataset.TasksFile), tasks, 0o644); err != nil {
		return nil, err
	}
	fx.Pages = len(seen)
	if fx.Pages > 0 {
		fx.PageBytes = total / fx.Pages
	}
	return fx, nil
}
