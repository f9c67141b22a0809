// Package inputfile opens the files claimtrace reads but did not write —
// reports, label sets, calibrations, configuration files, snapshot
// indexes, results of earlier runs — with one check: only a regular file
// (or a link to one) is opened. A named pipe would block whoever opens it
// until a writer comes, a device such as /dev/zero never ends, and a
// folder is a mistake; each is refused, before it is opened and again once
// open (a FIFO swapped in between the two is caught), with an error that
// names the file and says what it is. Files are opened without blocking
// (O_NONBLOCK on Unix), and readers made with Reader stop at the first
// read after their context ends, so a command reading a large file stops
// when it is cancelled.
package inputfile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/claimtrace/claimtrace"
)

// NotRegularError is an input that is not a regular file: a folder, a
// named pipe, a device or a socket. It matches claimtrace.ErrInvalid.
type NotRegularError struct {
	Path string
	// Kind says what the file is ("a named pipe (FIFO)").
	Kind string
}

func (e *NotRegularError) Error() string {
	return e.Path + " is " + e.Kind + ", not a regular file"
}

// Is makes errors.Is(err, claimtrace.ErrInvalid) hold.
func (e *NotRegularError) Is(target error) bool { return target == claimtrace.ErrInvalid }

// Regular returns nil when path is a regular file or a link to one, a
// *NotRegularError when it is something else, or the error of stat. It
// never opens the file, so it cannot block on a named pipe: a folder
// listing checks its entries with it before reading any.
func Regular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return regular(path, fi)
}

// regular refuses anything but a regular file, naming what it is.
func regular(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	kind := "a special file (" + m.Type().String() + ")"
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		kind = "a folder"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return &NotRegularError{Path: path, Kind: kind}
}

// Open opens path for reading when it is a regular file (or a link to
// one), with its size. Anything else is refused with a *NotRegularError
// (claimtrace.ErrInvalid) before it is opened, or once open when it was
// swapped meanwhile; other errors are those of stat and open, naming the
// file.
func Open(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, nil, fmt.Errorf("%w; give a regular file", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := regular(path, fi); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%w; give a regular file", err)
	}
	return f, fi, nil
}

// ReadFile reads a whole input file of at most max bytes. A file over max
// is refused from its size before any of it is read; one that grows while
// being read is refused after max+1 bytes, so memory stays bounded by max
// whatever the file's size. Errors name the file and wrap
// claimtrace.ErrInvalid (not a regular file), claimtrace.ErrTooLarge (over
// max, with the limit) or the I/O error.
func ReadFile(path string, max int64) ([]byte, error) {
	return ReadFileContext(context.Background(), path, max)
}

// ReadFileContext is ReadFile stopping with ctx's error once ctx ends.
func ReadFileContext(ctx context.Context, path string, max int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, fmt.Errorf("%w; give a regular file", err)
	}
	if fi.Size() > max {
		return nil, TooLarge(path, fi.Size(), max)
	}
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, TooLarge(path, fi.Size(), max)
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(Reader(ctx, f), max+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(buf.Len()) > max {
		return nil, TooLarge(path, -1, max)
	}
	return buf.Bytes(), nil
}

// TooLarge is the error for a file of size bytes over the limit max; a
// negative size means the file grew past max while being read.
func TooLarge(path string, size, max int64) error {
	if size < 0 {
		return fmt.Errorf("%s grew past the %d-byte limit on input files while being read: %w", path, max, claimtrace.ErrTooLarge)
	}
	return fmt.Errorf("%s is %d bytes, over the %d-byte limit on input files (real reports are well under 1 MiB); check that this is the right file, or split it: %w", path, size, max, claimtrace.ErrTooLarge)
}

// Reader returns r reading until ctx ends: the first Read after that
// returns ctx's error, so a loop over a large file stops when its command
// is cancelled.
func Reader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	// Reads of at most 1 MiB, so that a caller asking for a large buffer
	// still sees cancellation within one small read.
	if len(p) > 1<<20 {
		p = p[:1<<20]
	}
	return c.r.Read(p)
}

// OpenInRoot is Open for name inside the folder dir, through os.Root: no
// path leaves dir, links included.
func OpenInRoot(dir, name string) (*os.File, fs.FileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	fi, err := root.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if err := regular(name, fi); err != nil {
		return nil, nil, err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := regular(name, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
