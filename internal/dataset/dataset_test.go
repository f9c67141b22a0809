package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

func TestLoadDataset(t *testing.T) {
	for _, dir := range []string{"testdata/mini", "testdata/mini/ReportBench_v1.1.jsonl"} {
		d, err := LoadDataset(dir)
		if err != nil {
			t.Fatalf("LoadDataset(%s): %v", dir, err)
		}
		if len(d.Tasks) != 2 {
			t.Fatalf("tasks = %d, want 2", len(d.Tasks))
		}
		task, ok := d.Task("2401.00001")
		if !ok || task.Domain != "Information and Retrieval Systems" || len(task.Versions) != 2 {
			t.Errorf("task = %+v, %v", task, ok)
		}
		refs, err := d.GT("2401.00001")
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) != 3 || refs[2].Meta["doi"] != "10.18653/v1/2020.emnlp-main.550" {
			t.Errorf("refs = %+v", refs)
		}
		if _, err := d.GT("2302.00002"); !errors.Is(err, claimtrace.ErrNotFound) || !strings.Contains(err.Error(), "2302.00002.jsonl") {
			t.Errorf("missing GT error = %v, want ErrNotFound naming the file", err)
		}
	}
}

func TestLoadDatasetErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadDataset(dir); !errors.Is(err, claimtrace.ErrNotFound) || !strings.Contains(err.Error(), "dataset pull") {
		t.Errorf("empty dir: %v, want ErrNotFound with a hint", err)
	}
	bad := filepath.Join(dir, TasksFile)
	os.WriteFile(bad, []byte("{\"arxiv_id\":\"1\",\"prompt\":\"p\"}\n{not json\n"), 0o644)
	_, err := LoadDataset(dir)
	if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("corrupt line: %v, want ErrInvalid naming line 2", err)
	}
	os.WriteFile(bad, []byte("{\"arxiv_id\":\"1\",\"prompt\":\"p\"}\n{\"arxiv_id\":\"1\",\"prompt\":\"q\"}\n"), 0o644)
	if _, err := LoadDataset(dir); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate task: %v", err)
	}
}

func TestCutoff(t *testing.T) {
	day := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		prompt   string
		versions []claimtrace.Version
		want     time.Time
		source   string
	}{
		{"ensure only papers published before April 2025 are referenced.", nil, day(2025, 4), "prompt"},
		{"cite only work prior to August 2023.", nil, day(2023, 8), "prompt"},
		{"All referenced papers must be publicly available before **October 2024**.", nil, day(2024, 10), "prompt"},
		{"must only refer to papers written before [December 2021], with", nil, day(2021, 12), "prompt"},
		{"published no later than June 2023.", nil, day(2023, 7), "prompt"},
		{"papers before 2022 only", nil, day(2022, 1), "prompt"},
		{"Research STPA for learning-enabled systems.", []claimtrace.Version{{Created: "Mon, 1 Jan 2024 10:00:00 GMT"}, {Created: "Tue, 21 Feb 2023 18:51:19 GMT"}}, day(2024, 2), "last_version"},
		{"nothing here", nil, time.Time{}, "none"},
	}
	for _, tt := range tests {
		got, src := Cutoff(claimtrace.Task{Prompt: tt.prompt, Versions: tt.versions})
		if !got.Equal(tt.want) || src != tt.source {
			t.Errorf("Cutoff(%q) = %v %s, want %v %s", tt.prompt, got, src, tt.want, tt.source)
		}
	}
}

// TestReleasedDataset loads the real ReportBench v1.1 release.
func TestReleasedDataset(t *testing.T) {
	dir := sharedtest.Dir(t, "reportbench-v1.1")
	d, err := LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tasks) != 100 {
		t.Errorf("tasks = %d, want 100", len(d.Tasks))
	}
	st := d.Stats()
	if st.GTRefs != 16204 || len(st.GTMissing) != 0 {
		t.Errorf("stats = %+v, want 16204 refs and none missing", st)
	}
	if len(st.Domains) != 10 {
		t.Errorf("domains = %v, want 10", st.Domains)
	}
	fromPrompt := 0
	for _, task := range d.Tasks {
		c, src := Cutoff(task)
		if c.IsZero() {
			t.Errorf("%s: no cutoff", task.ArXivID)
		}
		if src == "prompt" {
			fromPrompt++
		}
		if _, ok := LastVersion(task); !ok {
			t.Errorf("%s: no parsable version date in %+v", task.ArXivID, task.Versions)
		}
	}
	// "on or before M Y" includes month M: the bound is the month after.
	for id, want := range map[string]string{"2105.01605": "2021-06-01", "2207.14394": "2022-09-01", "2205.08977": "2022-06-01", "2011.13534": "2021-03-01", "2312.04861": "2025-04-01"} {
		task, ok := d.Task(id)
		if !ok {
			t.Errorf("task %s missing", id)
			continue
		}
		if c, _ := Cutoff(task); c.Format(time.DateOnly) != want {
			t.Errorf("%s: cutoff %s, want %s", id, c.Format(time.DateOnly), want)
		}
	}
	if fromPrompt < 99 {
		t.Errorf("cutoff read from the prompt for %d tasks, want at least 99", fromPrompt)
	}
}

// TestReleasedSplitDOIs: the released ground truth of 2307.11556 holds two
// Elsevier DOIs split by whitespace after "10.1016/j" (Perin 2013 and
// Julius 2019). Read whole, they are two works: 29 distinct references,
// not 28, and neither paper's DOI finds the other.
func TestReleasedSplitDOIs(t *testing.T) {
	d, err := LoadDataset(sharedtest.Dir(t, "reportbench-v1.1"))
	if err != nil {
		t.Fatal(err)
	}
	refs, err := d.GT("2307.11556")
	if err != nil {
		t.Fatal(err)
	}
	ix := biblio.NewIndex(refs)
	if ix.Distinct() != 29 {
		t.Errorf("2307.11556 has %d distinct works, want 29", ix.Distinct())
	}
	for _, c := range []struct{ doi, bib string }{{"10.1016/j.conengprac.2012.05.002", "Perin.13"}, {"10.1016/j.ifacol.2019.11.457", "Julius.19"}} {
		m, ok := ix.Match(claimtrace.Work{DOI: c.doi})
		if !ok || m.BibID != c.bib {
			t.Errorf("DOI %s matched %+v (%v), want %s", c.doi, m, ok, c.bib)
		}
	}
	split := 0
	for _, id := range []string{"2307.11556"} {
		rs, _ := d.GT(id)
		for _, r := range rs {
			if v := r.Meta["doi"]; strings.ContainsAny(strings.TrimSpace(v), " \t\n") {
				split++
			}
		}
	}
	if split != 0 {
		t.Errorf("%d DOIs still hold whitespace after loading", split)
	}
}
