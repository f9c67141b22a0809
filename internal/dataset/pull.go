package dataset

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// ReleaseCommit pins the ReportBench v1.1 release that Pull downloads by
// default, so a pulled dataset is the same bytes everywhere.
const ReleaseCommit = "1826140c57cea89e8c2542ed135881ade39a45c3"

// ReleaseBase is the raw-file URL of the public ReportBench repository.
const ReleaseBase = "https://raw.githubusercontent.com/ByteDance-BandAI/ReportBench/" + ReleaseCommit

// PullOptions configures Pull.
type PullOptions struct {
	// Base is the URL that TasksFile and GTDir/<id>.jsonl are relative to.
	Base   string
	Client *http.Client
	// Concurrency bounds parallel downloads.
	Concurrency int
	// MaxBytes caps each downloaded file.
	MaxBytes int64
	// Progress, if set, is called after each file.
	Progress func(done, total int, name string)
}

// PullResult describes a finished download.
type PullResult struct {
	Dir        string            `json:"dir"`
	Base       string            `json:"base"`
	Tasks      int               `json:"tasks"`
	References int               `json:"references"`
	Fetched    int               `json:"fetched"`
	Skipped    int               `json:"skipped"`
	SHA256     map[string]string `json:"sha256"`
	At         time.Time         `json:"at"`
}

// Pull downloads a ReportBench dataset into dir: the tasks file, then the
// ground truth of every task. Files already present and valid are kept, so an
// interrupted pull resumes; each file is written to a temporary name and
// renamed, so no half file is ever left under its real name.
func Pull(ctx context.Context, dir string, opts PullOptions) (*PullResult, error) {
	if opts.Base == "" {
		opts.Base = ReleaseBase
	}
	opts.Base = strings.TrimRight(opts.Base, "/")
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 2 * time.Minute}
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = 8
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 64 << 20
	}
	if err := os.MkdirAll(filepath.Join(dir, GTDir), 0o755); err != nil {
		return nil, fmt.Errorf("pull: %w", err)
	}
	res := &PullResult{Dir: dir, Base: opts.Base, SHA256: map[string]string{}, At: time.Now().UTC()}
	tasksPath := filepath.Join(dir, TasksFile)
	fetched, sum, err := fetchFile(ctx, opts, TasksFile, tasksPath)
	if err != nil {
		return nil, err
	}
	res.SHA256[TasksFile] = sum
	if fetched {
		res.Fetched++
	} else {
		res.Skipped++
	}
	d, err := LoadDataset(tasksPath)
	if err != nil {
		// A corrupt tasks file must not stay behind to be "resumed".
		os.Remove(tasksPath)
		return nil, fmt.Errorf("pull: downloaded tasks do not load: %w", err)
	}
	for _, t := range d.Tasks {
		if _, err := gtName(t.ArXivID); err != nil {
			os.Remove(tasksPath)
			return nil, fmt.Errorf("pull: downloaded tasks do not load: %w", err)
		}
	}
	res.Tasks = len(d.Tasks)
	total := len(d.Tasks) + 1
	if opts.Progress != nil {
		opts.Progress(1, total, TasksFile)
	}
	type result struct {
		name    string
		sum     string
		fetched bool
	}
	results := make([]result, len(d.Tasks))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	done := make(chan string, len(d.Tasks))
	for i, t := range d.Tasks {
		file, _ := gtName(t.ArXivID) // checked above
		name := GTDir + "/" + file
		g.Go(func() error {
			f, sum, err := fetchFile(gctx, opts, name, filepath.Join(dir, GTDir, file))
			if err != nil {
				return err
			}
			results[i] = result{name, sum, f}
			done <- name
			return nil
		})
	}
	go func() {
		n := 1
		for name := range done {
			n++
			if opts.Progress != nil {
				opts.Progress(n, total, name)
			}
		}
	}()
	err = g.Wait()
	close(done)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		res.SHA256[r.name] = r.sum
		if r.fetched {
			res.Fetched++
		} else {
			res.Skipped++
		}
	}
	for _, t := range d.Tasks {
		refs, err := d.GT(t.ArXivID)
		if err != nil {
			return nil, fmt.Errorf("pull: %w", err)
		}
		res.References += len(refs)
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := writeAtomic(filepath.Join(dir, "pull-manifest.json"), append(b, '\n')); err != nil {
		return nil, err
	}
	return res, nil
}

// fetchFile downloads base/name to path unless a valid copy exists. It
// returns whether it downloaded and the file's sha256.
func fetchFile(ctx context.Context, opts PullOptions, name, path string) (bool, string, error) {
	if b, err := inputfile.ReadFile(path, opts.MaxBytes); err == nil && validJSONL(b) == nil {
		return false, hash(b), nil
	}
	url := opts.Base + "/" + name
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return false, "", ctx.Err()
			case <-time.After(time.Duration(1<<attempt) * 500 * time.Millisecond):
			}
		}
		b, retry, err := get(ctx, opts, url)
		if err == nil {
			if err := validJSONL(b); err != nil {
				return false, "", fmt.Errorf("pull %s: %w", url, err)
			}
			if err := writeAtomic(path, b); err != nil {
				return false, "", err
			}
			return true, hash(b), nil
		}
		lastErr = err
		if !retry {
			break
		}
	}
	return false, "", lastErr
}

func get(ctx context.Context, opts PullOptions, url string) ([]byte, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, fmt.Errorf("pull %s: %w", url, err)
	}
	resp, err := opts.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, true, fmt.Errorf("pull %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		hint := ""
		if resp.StatusCode == http.StatusNotFound {
			hint = " (is --from the folder that holds " + TasksFile + "?)"
		}
		return nil, retry, fmt.Errorf("pull %s: HTTP %d%s", url, resp.StatusCode, hint)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, opts.MaxBytes+1))
	if err != nil {
		return nil, true, fmt.Errorf("pull %s: %w", url, err)
	}
	if int64(len(b)) > opts.MaxBytes {
		return nil, false, fmt.Errorf("pull %s: larger than %d bytes", url, opts.MaxBytes)
	}
	return b, false, nil
}

// validJSONL checks that every non-empty line is a JSON object.
func validJSONL(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("empty file")
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || !json.Valid(line) {
			return fmt.Errorf("line %d is not a JSON object", n)
		}
	}
	return sc.Err()
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func writeAtomic(path string, b []byte) error {
	return atomicfile.Write(path, b, 0o600)
}

// Stats summarizes a dataset for `dataset show`.
type Stats struct {
	Tasks     int            `json:"tasks"`
	Domains   map[string]int `json:"domains"`
	GTRefs    int            `json:"gt_refs"`
	GTMissing []string       `json:"gt_missing,omitempty"`
	GTMin     int            `json:"gt_min"`
	GTMax     int            `json:"gt_max"`
	GTMean    float64        `json:"gt_mean"`
}

// Stats reads every ground-truth file and summarizes the dataset.
func (d *Dataset) Stats() Stats {
	st := Stats{Tasks: len(d.Tasks), Domains: map[string]int{}}
	n := 0
	for _, t := range d.Tasks {
		st.Domains[t.Domain]++
		refs, err := d.GT(t.ArXivID)
		if err != nil {
			st.GTMissing = append(st.GTMissing, t.ArXivID)
			continue
		}
		k := len(refs)
		st.GTRefs += k
		if n == 0 || k < st.GTMin {
			st.GTMin = k
		}
		if k > st.GTMax {
			st.GTMax = k
		}
		n++
	}
	if n > 0 {
		st.GTMean = float64(st.GTRefs) / float64(n)
	}
	sort.Strings(st.GTMissing)
	return st
}
