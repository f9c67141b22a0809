package report

import (
	"os"

	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// OpenInput opens an input file for reading as a stream, with ReadFile's
// checks: only a regular file (inputfile.Open: refused before it is
// opened, and checked again once open without blocking), and none over max
// bytes, refused from its size. It returns the open file and its size; the
// caller closes it. It is for inputs read piece by piece (a provenance
// graph of a million claims) rather than whole.
func OpenInput(path string, max int64) (*os.File, int64, error) {
	f, fi, err := inputfile.Open(path)
	if err != nil {
		return nil, 0, err
	}
	if fi.Size() > max {
		f.Close()
		return nil, 0, inputfile.TooLarge(path, fi.Size(), max)
	}
	return f, fi.Size(), nil
}
