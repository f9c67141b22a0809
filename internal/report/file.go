package report

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/claimtrace/claimtrace"
)

// ReadFile reads an input file a user named on the command line or put in
// a reports folder: a report, a provenance graph, a provider's response.
// Every command that reads such a file goes through it, so they all share
// one size limit and one refusal of what is not a file:
//
//   - Only a regular file (or a link to one) is read. A named pipe, a
//     device, a socket or a folder is refused before it is opened, and the
//     file is opened without blocking (O_NONBLOCK) and checked again once
//     open, so that a FIFO swapped in meanwhile cannot hang the command.
//   - A file over max bytes is refused from its size before any of it is
//     read; one that grows while being read is refused after max+1 bytes.
//     Memory stays bounded by max whatever the file's size.
//
// Errors name the file and wrap claimtrace.ErrInvalid (not a regular
// file), claimtrace.ErrTooLarge (over max, with the limit) or the I/O
// error.
func ReadFile(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, fmt.Errorf("%w; give a regular file", err)
	}
	if fi.Size() > max {
		return nil, tooLarge(path, fi.Size(), max)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := regular(path, fi); err != nil {
		return nil, fmt.Errorf("%w; give a regular file", err)
	}
	if fi.Size() > max {
		return nil, tooLarge(path, fi.Size(), max)
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(buf.Len()) > max {
		return nil, tooLarge(path, -1, max)
	}
	return buf.Bytes(), nil
}

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

func tooLarge(path string, size, max int64) error {
	if size < 0 {
		return fmt.Errorf("%s grew past the %d-byte limit on input files while being read: %w", path, max, claimtrace.ErrTooLarge)
	}
	return fmt.Errorf("%s is %d bytes, over the %d-byte limit on input files (real reports are well under 1 MiB); check that this is the right file, or split it: %w", path, size, max, claimtrace.ErrTooLarge)
}
