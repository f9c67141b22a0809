// Package demo holds the bundled offline example that `claimtrace demo`
// evaluates: one ReportBench-format task with its ground truth, one report
// written in several citation styles, and a frozen snapshot of every page
// the report cites. All of it was written for claimtrace; none of it is
// copied from the ReportBench release.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed data
var data embed.FS

// Paths of the example's parts, relative to the directory Materialize writes.
const (
	DatasetDir  = "dataset"
	ReportsDir  = "reports"
	SnapshotDir = "snapshot"
	TaskID      = "2312.10997"
)

// FS returns the example as a file system rooted at its data directory.
func FS() fs.FS {
	sub, err := fs.Sub(data, "data")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return sub
}

// Materialize writes the example under dir.
func Materialize(dir string) error {
	return fs.WalkDir(FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(FS(), path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		return nil
	})
}
