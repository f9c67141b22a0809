package report

import (
	"fmt"
	"os"
)

// OpenInput opens an input file for reading as a stream, with ReadFile's
// checks: only a regular file (refused before it is opened, and checked
// again once open without blocking), and none over max bytes, refused
// from its size. It returns the open file and its size; the caller closes
// it. It is for inputs read piece by piece (a provenance graph of a
// million claims) rather than whole.
func OpenInput(path string, max int64) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if err := regular(path, fi); err != nil {
		return nil, 0, fmt.Errorf("%w; give a regular file", err)
	}
	if fi.Size() > max {
		return nil, 0, tooLarge(path, fi.Size(), max)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, 0, err
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := regular(path, fi); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%w; give a regular file", err)
	}
	if fi.Size() > max {
		f.Close()
		return nil, 0, tooLarge(path, fi.Size(), max)
	}
	return f, fi.Size(), nil
}
