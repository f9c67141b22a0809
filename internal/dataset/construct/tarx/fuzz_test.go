package tarx_test

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/tarx"
)

// FuzzExtract unpacks arbitrary bytes: it must not panic, must not write
// beside the target folder, and every file it reports must exist inside.
func FuzzExtract(f *testing.F) {
	f.Add(makeTar(f, []entry{{name: "a.tex", body: "x"}, {name: "d/", typ: tar.TypeDir}, {name: "d/b.bib", body: "@misc{k}"}}))
	f.Add(gz(f, makeTar(f, []entry{{name: "../x", body: "x"}, {name: "l", typ: tar.TypeSymlink, linkname: "/"}}), ""))
	f.Add(gz(f, []byte(`\documentclass{article}`), "main.tex"))
	f.Add([]byte("%PDF-1.4"))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		res, err := tarx.Extract(context.Background(), bytes.NewReader(data), dir, "fuzz", tarx.Limits{MaxEntries: 50, MaxFileBytes: 1 << 20, MaxTotalBytes: 4 << 20})
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Fatalf("wrote beside the folder: %v", entries)
		}
		if err != nil {
			return
		}
		for _, name := range res.Files {
			fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("reported file %q: %v", name, err)
			}
		}
	})
}
