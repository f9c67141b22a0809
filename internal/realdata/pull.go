package realdata

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/backoff"
)

// PullOptions configures Pull.
type PullOptions struct {
	// Base is the raw-file host (DefaultBase when empty): a file is read
	// from Base/OWNER/REPO/COMMIT/PATH.
	Base   string
	Client *http.Client
	// Concurrency bounds parallel downloads (default 4).
	Concurrency int
	// Attempts bounds tries per file on 429, 5xx and network errors
	// (default 4).
	Attempts int
	// Progress, if set, is called after each file, under a lock.
	Progress func(done, total int, set, path string)
}

// PullResult says what Pull did.
type PullResult struct {
	Dir     string   `json:"dir"`
	Sets    []string `json:"sets"`
	Files   int      `json:"files"`
	Bytes   int64    `json:"bytes"`
	Fetched int      `json:"fetched"`
	Kept    int      `json:"kept"` // already there with the right sha256
	// Failed lists the files that could not be had, each with its reason;
	// Pull returns an error when it is not empty, after trying them all.
	Failed []string `json:"failed,omitempty"`
}

// Pull downloads the files of sets into dir, each to dir/SET.DIR/PATH. A
// file already there with its sha256 is kept, so an interrupted pull
// resumes; a download whose size or sha256 is not the manifest's is
// refused (never written); each file is written to a temporary name and
// renamed. Every file is tried; the error lists the ones that failed.
// Pull writes dir/SOURCES.md: each set's repository, commit and license.
func Pull(ctx context.Context, dir string, sets []Set, opts PullOptions) (*PullResult, error) {
	if opts.Base == "" {
		opts.Base = DefaultBase
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 5 * time.Minute}
	}
	opts.Concurrency = cmpOr(opts.Concurrency, 4)
	opts.Attempts = cmpOr(opts.Attempts, 4)
	res := &PullResult{Dir: dir}
	type job struct {
		set  Set
		file File
	}
	var jobs []job
	for _, s := range sets {
		res.Sets = append(res.Sets, s.Name)
		for _, f := range s.Files {
			jobs = append(jobs, job{s, f})
			res.Bytes += f.Size
		}
	}
	res.Files = len(jobs)
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	for _, j := range jobs {
		g.Go(func() error {
			fetched, err := pullFile(gctx, dir, j.set, j.file, opts)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && gctx.Err() != nil:
				return gctx.Err()
			case err != nil:
				res.Failed = append(res.Failed, err.Error())
			case fetched:
				res.Fetched++
			default:
				res.Kept++
			}
			done++
			if opts.Progress != nil {
				opts.Progress(done, len(jobs), j.set.Name, j.file.Path)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	if err := writeSources(dir, sets); err != nil {
		return res, err
	}
	if len(res.Failed) > 0 {
		return res, fmt.Errorf("pull: %d of %d files failed (rerun to retry them; the others are kept):\n  %s", len(res.Failed), len(jobs), strings.Join(res.Failed, "\n  "))
	}
	return res, nil
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// localPath is where f of s lives under dir. A path that would leave the
// set's folder is refused (the manifest is ours, but a path is never
// trusted to stay inside without checking).
func localPath(dir string, s Set, f File) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(s.Dir), filepath.FromSlash(f.Path))
	base := filepath.Join(dir, filepath.FromSlash(s.Dir))
	if rel, err := filepath.Rel(base, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s/%s: a path outside its set: %w", s.Dir, f.Path, claimtrace.ErrInvalid)
	}
	return p, nil
}

// pullFile makes f of s present under dir: kept when its sha256 is right,
// downloaded otherwise. It reports whether it downloaded.
func pullFile(ctx context.Context, dir string, s Set, f File, opts PullOptions) (bool, error) {
	dst, err := localPath(dir, s, f)
	if err != nil {
		return false, err
	}
	if b, err := os.ReadFile(dst); err == nil && int64(len(b)) == f.Size && sum(b) == f.SHA256 {
		return false, nil
	}
	url := s.URL(opts.Base, f)
	var last error
	for attempt := 0; attempt < opts.Attempts; attempt++ {
		b, retry, wait, err := get(ctx, opts.Client, url, f.Size)
		if err == nil {
			if got := sum(b); got != f.SHA256 {
				return false, fmt.Errorf("%s/%s from %s: sha256 %s, want %s (the repository changed at that commit, or a mirror serves another file): %w", s.Dir, f.Path, url, got[:12], f.SHA256[:12], claimtrace.ErrInvalid)
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return false, fmt.Errorf("%s: %w", dst, err)
			}
			if err := atomicfile.Write(dst, b, 0o644); err != nil {
				return false, fmt.Errorf("%s: %w", dst, err)
			}
			return true, nil
		}
		last = err
		if !retry {
			break
		}
		if err := backoff.Sleep(ctx, backoff.Delay(500*time.Millisecond, 20*time.Second, attempt, wait)); err != nil {
			return false, err
		}
	}
	return false, fmt.Errorf("%s/%s: %w", s.Dir, f.Path, last)
}

// get downloads url, reading at most size bytes plus one. It says whether
// a failure is worth retrying and how long the server asked to wait.
func get(ctx context.Context, c *http.Client, url string, size int64) (b []byte, retry bool, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, 0, fmt.Errorf("%s: %w", url, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, 0, ctx.Err()
		}
		return nil, true, 0, fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retry, backoff.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	b, err = io.ReadAll(io.LimitReader(resp.Body, size+1))
	switch {
	case err != nil:
		return nil, true, 0, fmt.Errorf("%s: %w", url, err)
	case int64(len(b)) != size:
		// A short body is a cut connection (retried); a long one is
		// another file.
		return nil, int64(len(b)) < size, 0, fmt.Errorf("%s: %d bytes, want %d: %w", url, len(b), size, errSize)
	}
	return b, false, 0, nil
}

var errSize = errors.New("not the manifest's size")

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeSources writes dir/SOURCES.md: where each set pulled comes from.
func writeSources(dir string, sets []Set) error {
	var b strings.Builder
	b.WriteString("# Where these files come from\n\nWritten by `claimtrace data pull`: every file is a byte-for-byte copy of a file of a public repository at a pinned commit (checked by sha256).\n\n| set | folder | repository @ commit | license | files |\n|---|---|---|---|---|\n")
	for _, s := range sets {
		fmt.Fprintf(&b, "| %s | %s | %s @ %s | %s | %d |\n", s.Name, s.Dir, s.Repo, s.Commit, s.License, len(s.Files))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, "SOURCES.md"), []byte(b.String()), 0o644)
}
