// Package tarx unpacks arXiv e-prints safely. An e-print is a gzip'd tar
// of the LaTeX source, a single gzip'd .tex file, or a plain PDF when the
// authors gave no source. Archives come from the network and are treated as
// hostile: entries may not leave the target folder (no absolute paths, no
// "..", no writing through links), links and special files are skipped,
// and the number of entries of every kind (files, folders, links, special
// files, refused names), the size of each file and the bytes written to
// disk are capped, so tar, gzip and folder bombs stop with a clear error.
package tarx

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// Limits caps what Extract writes. Zero fields take the defaults.
type Limits struct {
	// MaxEntries caps the entries of an archive, whatever their kind:
	// regular files, folders (also those a file's path creates), links,
	// special files and entries refused for their name all count, since
	// each costs an inode or a header to read (default 5,000).
	MaxEntries int
	// MaxFileBytes caps one file (default 64 MiB).
	MaxFileBytes int64
	// MaxTotalBytes caps the bytes written to disk: the files' data plus
	// DirBytes for every folder created (default 512 MiB). It also bounds
	// the decompressed stream of a gzip'd e-print.
	MaxTotalBytes int64
}

// DirBytes is what a folder counts against Limits.MaxTotalBytes: the
// block a folder takes on common file systems.
const DirBytes = 4096

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = 5000
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = 64 << 20
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 512 << 20
	}
	return l
}

// Kind says what an e-print turned out to be.
type Kind string

// Kinds of e-print.
const (
	KindTar    Kind = "tar"    // a (gzip'd) tar archive, extracted
	KindSingle Kind = "single" // a single (gzip'd) TeX file, written as SingleName
	KindPDF    Kind = "pdf"    // a PDF: the authors gave no source; nothing written
)

// SingleName is the file a single-file e-print is written to when its gzip
// header names no usable file.
const SingleName = "main.tex"

// Skipped is an archive entry that was not written.
type Skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Result describes an extraction.
type Result struct {
	Kind    Kind      `json:"kind"`
	Files   []string  `json:"files"`
	Skipped []Skipped `json:"skipped,omitempty"`
	Bytes   int64     `json:"bytes"`
}

// ErrFormat reports an e-print that is none of the known kinds.
var ErrFormat = fmt.Errorf("not a tar, gzip, TeX or PDF e-print: %w", claimtrace.ErrInvalid)

// Extract unpacks the e-print r into dir (which must exist and should be
// empty). name identifies the archive in errors. On error, dir may hold a
// partial extraction: extract into a temporary folder and rename it on
// success.
func Extract(ctx context.Context, r io.Reader, dir, name string, lim Limits) (*Result, error) {
	lim = lim.withDefaults()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", name, err)
	}
	defer root.Close()
	x := &extractor{ctx: ctx, root: root, name: name, lim: lim, res: &Result{}, dirs: map[string]bool{}}

	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(512)
	var stream io.Reader = br
	gzName := ""
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("extract %s: gunzip: %w", name, err)
		}
		defer zr.Close()
		gzName = zr.Name
		// Bound the decompressed stream: file data plus tar headers and
		// padding for the maximum number of entries.
		budget := lim.MaxTotalBytes + int64(lim.MaxEntries)*1536 + 1<<20
		inner := bufio.NewReaderSize(&capReader{r: zr, left: budget, name: name}, 64<<10)
		head, err = inner.Peek(512)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("extract %s: gunzip: %w", name, err)
		}
		stream = inner
	}
	switch {
	case isTar(head):
		x.res.Kind = KindTar
		if err := x.tar(stream); err != nil {
			return nil, err
		}
	case bytes.HasPrefix(head, []byte("%PDF")):
		x.res.Kind = KindPDF
		// Drain nothing: a PDF has no source to extract.
	case looksLikeText(head):
		x.res.Kind = KindSingle
		target := SingleName
		if base := path.Base(gzName); gzName != "" && safeName(base) == nil && strings.HasSuffix(strings.ToLower(base), ".tex") {
			target = base
		}
		if err := x.count(target); err != nil {
			return nil, err
		}
		if err := x.write(target, stream, -1); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("extract %s: %w", name, ErrFormat)
	}
	return x.res, nil
}

type extractor struct {
	ctx     context.Context
	root    *os.Root
	name    string
	lim     Limits
	res     *Result
	entries int             // entries counted against lim.MaxEntries
	disk    int64           // bytes counted against lim.MaxTotalBytes
	dirs    map[string]bool // folders created or counted
}

// count charges one entry against the entry cap.
func (x *extractor) count(name string) error {
	x.entries++
	if x.entries > x.lim.MaxEntries {
		return fmt.Errorf("extract %s: more than %d entries (files, folders, links) at %s: %w", x.name, x.lim.MaxEntries, name, claimtrace.ErrTooLarge)
	}
	return nil
}

// charge counts the folder dir and its parents that were not seen before:
// one entry each (except dir itself when its own header was counted) and
// DirBytes of disk each. The folders are then created by the caller.
func (x *extractor) charge(dir string, counted bool) error {
	for p := dir; p != "." && !x.dirs[p]; p = path.Dir(p) {
		if !counted || p != dir {
			if err := x.count(p + "/"); err != nil {
				return err
			}
		}
		if x.disk+DirBytes > x.lim.MaxTotalBytes {
			return fmt.Errorf("extract %s: over %d bytes in all at %s/: %w", x.name, x.lim.MaxTotalBytes, p, claimtrace.ErrTooLarge)
		}
		x.disk += DirBytes
		x.dirs[p] = true
	}
	return nil
}

// tar extracts every regular file and directory of a tar stream.
func (x *extractor) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("extract %s: read tar: %w", x.name, err)
		}
		entry := hdr.Name
		if err := x.count(entry); err != nil {
			return err
		}
		clean, err := cleanName(entry)
		if err != nil {
			x.skip(entry, err.Error())
			continue
		}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeGNUSparse: // archive/tar reads TypeRegA as TypeReg
			if err := x.write(clean, tr, hdr.Size); err != nil {
				return err
			}
		case tar.TypeDir:
			if clean == "." {
				continue
			}
			if err := x.charge(clean, true); err != nil {
				return err
			}
			if err := x.root.MkdirAll(clean, 0o755); err != nil {
				x.skip(entry, "cannot create folder: "+err.Error())
			}
		case tar.TypeSymlink:
			x.skip(entry, "symbolic link")
		case tar.TypeLink:
			x.skip(entry, "hard link")
		default:
			x.skip(entry, fmt.Sprintf("special file (type %q)", hdr.Typeflag))
		}
	}
}

// write stores one regular file, whose entry the caller counted. size is
// the declared size, -1 if unknown.
func (x *extractor) write(name string, r io.Reader, size int64) error {
	if size > x.lim.MaxFileBytes {
		return fmt.Errorf("extract %s: %s is %d bytes, over the %d-byte cap: %w", x.name, name, size, x.lim.MaxFileBytes, claimtrace.ErrTooLarge)
	}
	if size > 0 && x.disk+size > x.lim.MaxTotalBytes {
		return fmt.Errorf("extract %s: over %d bytes in all at %s: %w", x.name, x.lim.MaxTotalBytes, name, claimtrace.ErrTooLarge)
	}
	if dir := path.Dir(name); dir != "." {
		if err := x.charge(dir, false); err != nil {
			return err
		}
		if err := x.root.MkdirAll(dir, 0o755); err != nil {
			x.skip(name, "cannot create folder: "+err.Error())
			return drain(r, x.lim.MaxFileBytes)
		}
	}
	// A previous entry of the same name may be a link planted by another
	// tool: never open through one.
	if fi, err := x.root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		x.skip(name, "exists and is not a regular file")
		return drain(r, x.lim.MaxFileBytes)
	}
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		x.skip(name, "cannot create: "+err.Error())
		return drain(r, x.lim.MaxFileBytes)
	}
	limit := min(x.lim.MaxFileBytes, x.lim.MaxTotalBytes-x.disk)
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("extract %s: write %s: %w", x.name, name, err)
	}
	if n > limit {
		x.root.Remove(name)
		if n > x.lim.MaxFileBytes {
			return fmt.Errorf("extract %s: %s is over the %d-byte cap: %w", x.name, name, x.lim.MaxFileBytes, claimtrace.ErrTooLarge)
		}
		return fmt.Errorf("extract %s: over %d bytes in all at %s: %w", x.name, x.lim.MaxTotalBytes, name, claimtrace.ErrTooLarge)
	}
	x.res.Bytes += n
	x.disk += n
	x.res.Files = append(x.res.Files, name)
	return nil
}

func (x *extractor) skip(name, reason string) {
	x.res.Skipped = append(x.res.Skipped, Skipped{Name: name, Reason: reason})
}

// drain discards at most max bytes of r.
func drain(r io.Reader, max int64) error {
	_, err := io.Copy(io.Discard, io.LimitReader(r, max))
	return err
}

// cleanName validates an entry name and returns its clean relative form.
func cleanName(name string) (string, error) {
	name = strings.TrimPrefix(name, "./")
	if err := safeName(name); err != nil {
		return "", err
	}
	return path.Clean(name), nil
}

// safeName refuses names that could escape the target folder or are not
// portable file names.
func safeName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case len(name) > 1024:
		return errors.New("name too long")
	case strings.ContainsRune(name, 0):
		return errors.New("NUL in name")
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || (len(name) > 1 && name[1] == ':'):
		return errors.New("absolute path")
	case strings.Contains(name, `\`):
		return errors.New("backslash in name")
	}
	for part := range strings.SplitSeq(strings.TrimSuffix(name, "/"), "/") {
		if part == ".." {
			return errors.New("path traversal")
		}
	}
	if !fs.ValidPath(path.Clean(strings.TrimSuffix(name, "/"))) {
		return errors.New("invalid path")
	}
	if strings.Count(name, "/") > 32 {
		return errors.New("path too deep")
	}
	return nil
}

// isTar recognises a POSIX/GNU tar header block.
func isTar(head []byte) bool {
	if len(head) < 512 {
		return false
	}
	if bytes.Equal(head[257:262], []byte("ustar")) {
		return true
	}
	// Old V7 tar: check the header checksum.
	return tarChecksumOK(head[:512])
}

func tarChecksumOK(h []byte) bool {
	field := bytes.TrimRight(bytes.TrimLeft(h[148:156], " \x00"), " \x00")
	if len(field) == 0 {
		return false
	}
	var want int64
	for _, c := range field {
		if c < '0' || c > '7' {
			return false
		}
		want = want*8 + int64(c-'0')
	}
	var sum int64
	for i, c := range h {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int64(c)
	}
	return sum == want
}

// looksLikeText accepts content that is plausibly a TeX file: no NUL bytes
// in the first block.
func looksLikeText(head []byte) bool {
	return len(head) > 0 && bytes.IndexByte(head, 0) < 0
}

// capReader fails once more than left bytes were read: a gzip bomb stops
// here instead of filling the disk.
type capReader struct {
	r    io.Reader
	left int64
	name string
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("decompressed data of %s exceeds the size cap: %w", c.name, claimtrace.ErrTooLarge)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
