package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// IndexTextOptions configure IndexText.
type IndexTextOptions struct {
	// Concurrency bounds pages extracted at once (default GOMAXPROCS).
	Concurrency int
	// MaxBytes caps a page read, as Options.MaxBytes (default
	// DefaultMaxBytes); a run reading with a smaller cap extracts the
	// pages it cuts.
	MaxBytes int64
	// Progress, if set, is called once per index line with a page file,
	// possibly from several goroutines at once.
	Progress func()
}

// IndexTextResult counts what IndexText did with the index lines that
// have a page file.
type IndexTextResult struct {
	// Pages is the number of such lines.
	Pages int `json:"pages"`
	// Written got a sidecar now; Current had a usable one already.
	Written int `json:"written"`
	Current int `json:"current"`
	// Removed counts the sidecar files no index line points to any more
	// (left by an older extractor version, or by a page re-extracted),
	// deleted once the index is written.
	Removed int `json:"removed"`
	// Unreadable maps the URLs that have no sidecar to why: a page file
	// missing or corrupt, or content Extract cannot read. A run extracts
	// (or fails on) them as before.
	Unreadable map[string]string `json:"unreadable"`
}

// IndexText gives every page of the snapshot in dir its extracted content
// (a sidecar of this ExtractorVersion), so that runs reading the snapshot
// do not extract its pages again. Lines whose sidecar is usable are left
// as they are; the others get a new "extracted" key, every other key and
// its order kept. The index is replaced atomically, and only if no one
// appended to it meanwhile. Sidecar files no line points to afterwards
// are deleted. It must not run while another process writes the same
// snapshot (a sidecar that process wrote but has not indexed yet would be
// deleted, and its page extracted again by the runs reading it).
func IndexText(ctx context.Context, dir string, opt IndexTextOptions) (IndexTextResult, error) {
	res := IndexTextResult{Unreadable: map[string]string{}}
	indexPath := filepath.Join(dir, IndexFile)
	f, before, err := inputfile.Open(indexPath)
	if err != nil {
		return res, fmt.Errorf("index text %s: %w", dir, err)
	}
	type line struct {
		raw []byte
		e   *Entry
		ext string // the sidecar file the line points to, if any
	}
	var lines []line
	_, err = scanIndex(f, func(raw []byte, e *Entry) {
		l := line{raw: bytes.Clone(raw), e: e}
		if e != nil && e.Extracted != nil {
			l.ext = e.Extracted.File
		}
		lines = append(lines, l)
	})
	f.Close()
	if err != nil {
		return res, fmt.Errorf("index text %s: %w", dir, err)
	}
	maxBytes := opt.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	progress := opt.Progress
	if progress == nil {
		progress = func() {}
	}
	var mu sync.Mutex
	changed := false
	g, gctx := errgroup.WithContext(ctx)
	limit := opt.Concurrency
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(limit)
	for i := range lines {
		e := lines[i].e
		if e == nil || e.File == "" || e.Status == 0 {
			continue
		}
		res.Pages++
		g.Go(func() error {
			defer progress()
			if err := gctx.Err(); err != nil {
				return err
			}
			x, why, err := indexPage(dir, *e, maxBytes)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				return fmt.Errorf("index text %s: %s: %w", dir, e.URL, err)
			case why != "":
				res.Unreadable[e.URL] = why
			case x == nil:
				res.Current++
			default:
				raw, err := setKey(lines[i].raw, "extracted", x)
				if err != nil {
					return fmt.Errorf("index text %s: %s: %w", dir, e.URL, err)
				}
				lines[i].raw, lines[i].ext = raw, x.File
				res.Written++
				changed = true
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	kept := make(map[string]bool)
	for _, l := range lines {
		if l.ext != "" {
			kept[path.Clean(l.ext)] = true
		}
	}
	if !changed {
		res.Removed, err = pruneSidecars(dir, kept)
		return res, err
	}
	var out bytes.Buffer
	for _, l := range lines {
		out.Write(l.raw)
	}
	now, err := os.Stat(indexPath)
	if err != nil {
		return res, fmt.Errorf("index text %s: %w", dir, err)
	}
	if now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime()) {
		return res, fmt.Errorf("index text %s: %s changed while its pages were read (another writer?); run again: %w", dir, IndexFile, claimtrace.ErrInvalid)
	}
	if err := atomicfile.Write(indexPath, out.Bytes(), before.Mode().Perm()); err != nil {
		return res, fmt.Errorf("index text %s: %w", dir, err)
	}
	res.Removed, err = pruneSidecars(dir, kept)
	return res, err
}

// pruneSidecars deletes the sidecar files of dir's pages directory that
// are not in kept (their slash-separated names relative to dir) and
// returns how many it deleted. Only regular files named as sidecars are
// touched: page bodies, links and directories stay.
func pruneSidecars(dir string, kept map[string]bool) (int, error) {
	des, err := os.ReadDir(filepath.Join(dir, PagesDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("index text %s: list sidecars: %w", dir, err)
	}
	removed := 0
	for _, de := range des {
		name := path.Join(PagesDir, de.Name())
		if !de.Type().IsRegular() || !strings.HasSuffix(name, sidecarSuffix) || kept[name] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("index text %s: remove an unused sidecar: %w", dir, err)
		}
		removed++
	}
	return removed, nil
}

// indexPage reads the page of e and returns the sidecar to point to, or
// nil when its sidecar is usable already, or why it can have none. err is
// an error writing the snapshot.
func indexPage(dir string, e Entry, maxBytes int64) (x *Extracted, why string, err error) {
	body, truncated, err := readSnapshotFile(dir, e.File, maxBytes)
	if err != nil {
		return nil, err.Error(), nil
	}
	sha := hashHex(body)
	if e.SHA256 != "" && !truncated && !strings.EqualFold(e.SHA256, sha) {
		return nil, fmt.Sprintf("page file %s: sha256 %s, index says %s", e.File, sha, e.SHA256), nil
	}
	p := entryPage(e.URL, e)
	p.Body, p.Truncated = body, e.Truncated || truncated
	if e.Extracted != nil {
		if _, err := loadSidecar(dir, e.Extracted, p, sha); err == nil {
			return nil, "", nil
		}
	}
	data, err := encodeSidecar(p, sha)
	if err != nil {
		return nil, err.Error(), nil
	}
	name, sum := sidecarName(data)
	if err := writeShared(dir, name, data); err != nil {
		return nil, "", err
	}
	return &Extracted{File: name, Version: ExtractorVersion, SHA256: sum}, "", nil
}

// setKey sets key to val in the JSON object of an index line (its newline
// kept), keeping the other keys, their order and their values' bytes.
func setKey(line []byte, key string, val any) ([]byte, error) {
	v, err := json.Marshal(val)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("index line is not an object: %w", claimtrace.ErrInvalid)
	}
	var b bytes.Buffer
	b.Grow(len(line) + len(v) + len(key) + 4)
	b.WriteByte('{')
	put := func(k string, raw []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(raw)
	}
	set := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("index line: %w: %w", claimtrace.ErrInvalid, err)
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("index line: %w: %w", claimtrace.ErrInvalid, err)
		}
		switch {
		case k != key:
			put(k, raw)
		case !set:
			put(k, v)
			set = true
		}
	}
	if !set {
		put(key, v)
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}
