// Package dataset reads ReportBench-format datasets (the released layout:
// ReportBench_v1.1.jsonl and ReportBench_v1.1_GT/<arxiv_id>.jsonl), pulls
// the released v1.1 pinned to its commit, and reads each task's knowledge
// cutoff from its prompt. Building a dataset from arXiv is construct's job;
// scoring reports against one is score's.
package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
)

// TasksFile and GTDir are the names of the released ReportBench layout.
const (
	TasksFile = "ReportBench_v1.1.jsonl"
	GTDir     = "ReportBench_v1.1_GT"
)

// maxLine bounds one JSONL line (a task or a reference).
const maxLine = 16 << 20

// Dataset is a ReportBench dataset directory.
type Dataset struct {
	Dir      string
	TaskPath string
	GTPath   string
	Tasks    []claimtrace.Task
	byID     map[string]int
}

// LoadDataset reads the tasks of the dataset at dir. dir may be the dataset
// folder (holding ReportBench_v1.1.jsonl and ReportBench_v1.1_GT/, or another
// *.jsonl with a matching <name>_GT folder, as `claimtrace build` writes) or
// the tasks file itself.
func LoadDataset(dir string) (*Dataset, error) {
	taskPath, err := findTasks(dir)
	if err != nil {
		return nil, err
	}
	// A named pipe is never opened: opening one waits for a writer.
	if fi, err := os.Stat(taskPath); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("dataset %s: %w: not a regular file (%s)", taskPath, claimtrace.ErrInvalid, fi.Mode().Type())
	}
	f, err := os.Open(taskPath)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	d := &Dataset{
		Dir:      filepath.Dir(taskPath),
		TaskPath: taskPath,
		GTPath:   filepath.Join(filepath.Dir(taskPath), strings.TrimSuffix(filepath.Base(taskPath), ".jsonl")+"_GT"),
		byID:     map[string]int{},
	}
	err = eachLine(f, taskPath, func(t claimtrace.Task, line int) error {
		if t.ArXivID == "" {
			return fmt.Errorf("%s:%d: %w: task without arxiv_id", taskPath, line, claimtrace.ErrInvalid)
		}
		if _, dup := d.byID[t.ArXivID]; dup {
			return fmt.Errorf("%s:%d: %w: duplicate task %s", taskPath, line, claimtrace.ErrInvalid, t.ArXivID)
		}
		d.byID[t.ArXivID] = len(d.Tasks)
		d.Tasks = append(d.Tasks, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Tasks) == 0 {
		return nil, fmt.Errorf("%s: %w: no tasks", taskPath, claimtrace.ErrInvalid)
	}
	return d, nil
}

func findTasks(dir string) (string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("dataset %s: %w (download one with: claimtrace dataset pull --dir %s)", dir, err, dir)
	}
	if !fi.IsDir() {
		return dir, nil
	}
	p := filepath.Join(dir, TasksFile)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var cands []string
	for _, m := range matches {
		gt := strings.TrimSuffix(m, ".jsonl") + "_GT"
		if st, err := os.Stat(gt); err == nil && st.IsDir() {
			cands = append(cands, m)
		}
	}
	sort.Strings(cands)
	switch len(cands) {
	case 0:
		return "", fmt.Errorf("dataset %s: %w: no %s (or other tasks .jsonl with a _GT folder); download one with: claimtrace dataset pull --dir %s", dir, claimtrace.ErrNotFound, TasksFile, dir)
	case 1:
		return cands[0], nil
	}
	return "", fmt.Errorf("dataset %s: %w: several task files (%s); pass the file itself", dir, claimtrace.ErrInvalid, strings.Join(cands, ", "))
}

// Task returns the task with the given arXiv id.
func (d *Dataset) Task(id string) (claimtrace.Task, bool) {
	i, ok := d.byID[id]
	if !ok {
		return claimtrace.Task{}, false
	}
	return d.Tasks[i], true
}

// gtName returns the file name of task id's ground truth: the id and
// ".jsonl", the slash of an old-form arXiv id turned into "_" as `claimtrace
// build` names it (hep-th/9901001 → hep-th_9901001.jsonl). Task ids come
// from a downloaded file: one that would name a file outside the
// ground-truth folder ("..", "../x", "a/b/c", ".hidden") is refused.
func gtName(id string) (string, error) {
	name := strings.Replace(id, "/", "_", 1)
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, "/\\\x00") || !filepath.IsLocal(name) {
		return "", fmt.Errorf("task id %q cannot name a ground-truth file: %w", id, claimtrace.ErrInvalid)
	}
	return name + ".jsonl", nil
}

// GT reads the ground-truth references of task id, with the whitespace
// inside their identifier fields removed (biblio.CompactReference).
func (d *Dataset) GT(id string) ([]claimtrace.Reference, error) {
	name, err := gtName(id)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(d.GTPath, name)
	// A named pipe is never opened: opening one waits for a writer.
	if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("ground truth of %s: %w: %s is not a regular file (%s)", id, claimtrace.ErrInvalid, p, fi.Mode().Type())
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("ground truth of %s: %w: %s is missing", id, claimtrace.ErrNotFound, p)
	}
	if err != nil {
		return nil, fmt.Errorf("ground truth of %s: %w", id, err)
	}
	defer f.Close()
	var refs []claimtrace.Reference
	err = eachLine(f, p, func(r claimtrace.Reference, _ int) error {
		// Identifiers split by whitespace in the released files (220 DOIs
		// of v1.1) are read whole.
		refs = append(refs, biblio.CompactReference(r))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return refs, nil
}

// eachLine decodes each non-blank line of the JSONL file name (read from
// r) as a T and hands it to fn with its line number. A line that does not
// decode is an error naming the file and line.
func eachLine[T any](r io.Reader, name string, fn func(v T, line int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("%s:%d: %w: %v", name, line, claimtrace.ErrInvalid, err)
		}
		if err := fn(v, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return nil
}
