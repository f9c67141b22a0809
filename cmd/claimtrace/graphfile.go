package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
	"github.com/claimtrace/claimtrace/internal/report"
)

// graphLimit is the size limit on graph files: prov.MaxGraphBytes, or
// lower in tests (app.maxGraph).
func (a *app) graphLimit() int64 {
	if a.maxGraph > 0 {
		return min(a.maxGraph, prov.MaxGraphBytes)
	}
	return prov.MaxGraphBytes
}

// softMemoryLimit caps the heap while a large graph file (over 64 MiB) is
// read and audited, unless GOMEMLIMIT already does: the graph and its
// index take about twice the file's size, and with the default collector
// settings the heap could grow to twice that before a collection. 2.5
// times the file's size (at least 1 GiB) leaves room for both; the
// collector works harder near it rather than the process growing.
func softMemoryLimit(fileSize int64) {
	if fileSize <= 64<<20 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return
	}
	debug.SetMemoryLimit(max(1<<30, fileSize*5/2))
}

// readLargeGraph reads a file too large to be a report (over the input
// limit) as a provenance graph: a native graph as a stream, with the index
// its check built (prov.DecodeStreamIndex), a PROV-JSON one whole (ix
// nil), both up to prov.MaxGraphBytes. large is false when the file is
// within the input limit, for the caller to read it as it reads reports
// and small graphs.
func (a *app) readLargeGraph(path string) (g *prov.Graph, ix *prov.Index, large bool, err error) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() <= a.inputLimit() {
		return nil, nil, false, nil // the caller's reading says what is wrong
	}
	if fi.Size() > a.graphLimit() {
		return nil, nil, true, fmt.Errorf("%s is %d bytes, over the %d-byte limit on graph files (and the %d-byte limit on reports): %w",
			path, fi.Size(), a.graphLimit(), a.inputLimit(), claimtrace.ErrTooLarge)
	}
	f, _, err := report.OpenInput(path, a.graphLimit())
	if err != nil {
		return nil, nil, true, err
	}
	defer f.Close()
	format := prov.SniffStream(bufio.NewReader(f))
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, true, fmt.Errorf("%s: %w", path, err)
	}
	softMemoryLimit(fi.Size())
	switch format {
	case prov.FormatNative:
		ix, err := prov.DecodeStreamIndex(bufio.NewReaderSize(f, 1<<20))
		if err != nil {
			return nil, nil, true, fmt.Errorf("%s: %w", path, err)
		}
		prov.NameFromFile(ix.Graph(), path)
		return ix.Graph(), ix, true, nil
	case prov.FormatPROVJSON:
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, nil, true, fmt.Errorf("%s: %w", path, err)
		}
		g, err = provjson.ReadGraph(path, data, format)
		return g, nil, true, err
	}
	return nil, nil, true, fmt.Errorf("%s is %d bytes, over the %d-byte limit on reports, and not a provenance graph (claimtrace's graph JSON or PROV-JSON, whose first member names it; graphs may be up to %d bytes): %w",
		path, fi.Size(), a.inputLimit(), a.graphLimit(), claimtrace.ErrTooLarge)
}
