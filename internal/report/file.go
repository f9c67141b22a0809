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
		return nil, err
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
		return nil, err
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

// regular refuses anything but a regular file, naming what it is.
func regular(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	what := "a special file (" + m.Type().String() + ")"
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s is %s, not a regular file; give a regular file: %w", path, what, claimtrace.ErrInvalid)
}

func tooLarge(path string, size, max int64) error {
	if size < 0 {
		return fmt.Errorf("%s grew past the %d-byte limit on input files while being read: %w", path, max, claimtrace.ErrTooLarge)
	}
	return fmt.Errorf("%s is %d bytes, over the %d-byte limit on input files (real reports are well under 1 MiB); check that this is the right file, or split it: %w", path, size, max, claimtrace.ErrTooLarge)
}
