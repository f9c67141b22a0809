package tarx_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/tarx"
)

// entry is one member of a generated tar.
type entry struct {
	name     string
	typ      byte
	body     string
	size     int64 // declared size when body is empty and size > 0 (zeros are written)
	linkname string
}

func makeTar(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		size := int64(len(e.body))
		if e.size > 0 {
			size = e.size
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o4755, Linkname: e.linkname, Format: tar.FormatPAX}
		if typ == tar.TypeReg || e.size > 0 {
			hdr.Size = size
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("header %s: %v", e.name, err)
		}
		if hdr.Size > 0 {
			if e.body != "" {
				tw.Write([]byte(e.body))
			} else if size > 0 {
				chunk := make([]byte, 1<<20)
				for left := size; left > 0; left -= int64(len(chunk)) {
					tw.Write(chunk[:min(int64(len(chunk)), left)])
				}
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gz(t testing.TB, data []byte, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Name = name
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// extract runs Extract into a fresh folder inside a parent folder, so the
// test can check that nothing was written beside it.
func extract(t *testing.T, data []byte, lim tarx.Limits) (*tarx.Result, string, error) {
	t.Helper()
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := tarx.Extract(context.Background(), bytes.NewReader(data), dir, "2101.00001", lim)
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("something was written beside the target folder: %v", entries)
	}
	return res, dir, err
}

// tree lists the files (with content) and folders under dir.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			out[rel+"/"] = ""
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
			if fi, _ := d.Info(); fi.Mode().Perm()&0o7000 != 0 || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s has mode %v, want 0644", rel, fi.Mode())
			}
		default:
			out[rel] = "<" + d.Type().String() + ">"
		}
		return nil
	})
	return out
}

func TestExtractTar(t *testing.T) {
	data := gz(t, makeTar(t, []entry{
		{name: "./", typ: tar.TypeDir},
		{name: "main.tex", body: `\documentclass{article}`},
		{name: "sections/", typ: tar.TypeDir},
		{name: "sections/intro.tex", body: "intro"},
		{name: "figs/deep/a.pdf", body: "%PDF-1.4"},
		{name: "main.tex", body: "second copy wins"},
	}), "")
	res, dir, err := extract(t, data, tarx.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"main.tex": "second copy wins", "sections/": "", "sections/intro.tex": "intro",
		"figs/": "", "figs/deep/": "", "figs/deep/a.pdf": "%PDF-1.4",
	}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	if res.Kind != tarx.KindTar || len(res.Files) != 4 || res.Bytes != int64(len("intro")+len("%PDF-1.4")+len(`\documentclass{article}`)+len("second copy wins")) {
		t.Errorf("result %+v", res)
	}
}

func TestExtractUncompressedTar(t *testing.T) {
	res, dir, err := extract(t, makeTar(t, []entry{{name: "a.tex", body: "A"}}), tarx.Limits{})
	if err != nil || res.Kind != tarx.KindTar {
		t.Fatalf("Extract = %+v, %v", res, err)
	}
	if got := tree(t, dir); got["a.tex"] != "A" {
		t.Errorf("tree = %v", got)
	}
}

func TestExtractSingle(t *testing.T) {
	for _, tt := range []struct {
		name, gzName, want string
	}{
		{"header names a tex file", "survey.tex", "survey.tex"},
		{"no name", "", tarx.SingleName},
		{"a path keeps only its base name", "../../evil.tex", "evil.tex"},
		{"not a tex name", "paper.sh", tarx.SingleName},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, dir, err := extract(t, gz(t, []byte("\\documentclass{article}\n\\begin{document}x\\end{document}\n"), tt.gzName), tarx.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tarx.KindSingle || !cmp.Equal(res.Files, []string{tt.want}) {
				t.Errorf("result %+v, want single file %s", res, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, tt.want)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestExtractPDF(t *testing.T) {
	res, dir, err := extract(t, []byte("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n1 0 obj"), tarx.Limits{})
	if err != nil || res.Kind != tarx.KindPDF {
		t.Fatalf("Extract = %+v, %v", res, err)
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("a PDF e-print should write nothing, wrote %v", got)
	}
}

func TestExtractUnknown(t *testing.T) {
	_, _, err := extract(t, []byte{0x89, 'P', 'N', 'G', 0, 0, 0, 13}, tarx.Limits{})
	if !errors.Is(err, tarx.ErrFormat) || !strings.Contains(err.Error(), "2101.00001") {
		t.Errorf("Extract(PNG) = %v, want ErrFormat naming the archive", err)
	}
	_, _, err = extract(t, []byte{0x1f, 0x8b, 8, 0, 1, 2}, tarx.Limits{})
	if err == nil || !strings.Contains(err.Error(), "2101.00001") {
		t.Errorf("Extract(truncated gzip) = %v, want an error naming the archive", err)
	}
}

// TestExtractHostile feeds archives built to escape the folder: every
// dangerous entry is skipped with a reason, and the safe ones are kept.
func TestExtractHostile(t *testing.T) {
	data := gz(t, makeTar(t, []entry{
		{name: "../escape.tex", body: "x"},
		{name: "a/../../escape2.tex", body: "x"},
		{name: "/etc/cron.d/evil", body: "x"},
		{name: `C:\evil.tex`, body: "x"},
		{name: `sub\..\..\win.tex`, body: "x"},
		{name: "link", typ: tar.TypeSymlink, linkname: "/etc"},
		{name: "link/passwd", body: "through the link"},
		{name: "rel", typ: tar.TypeSymlink, linkname: "../.."},
		{name: "hard", typ: tar.TypeLink, linkname: "/etc/passwd"},
		{name: "dev", typ: tar.TypeChar},
		{name: "fifo", typ: tar.TypeFifo},
		{name: "ok.tex", body: "safe"},
	}), "")
	res, dir, err := extract(t, data, tarx.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"ok.tex": "safe", "link/": "", "link/passwd": "through the link"}, tree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Name+": "+s.Reason)
	}
	want := []string{
		"../escape.tex: path traversal", "a/../../escape2.tex: path traversal", "/etc/cron.d/evil: absolute path",
		`C:\evil.tex: absolute path`, `sub\..\..\win.tex: backslash in name`, "link: symbolic link",
		"rel: symbolic link", "hard: hard link", "dev: special file (type '3')", "fifo: special file (type '6')",
	}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// TestExtractPreexistingLink checks that a link already inside the target
// folder is never written through.
func TestExtractPreexistingLink(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	os.Mkdir(dir, 0o755)
	outside := filepath.Join(parent, "victim.txt")
	os.WriteFile(outside, []byte("original"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "main.tex")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(parent, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	data := makeTar(t, []entry{{name: "main.tex", body: "overwrite"}, {name: "up/victim.txt", body: "overwrite"}, {name: "ok.tex", body: "ok"}})
	res, err := tarx.Extract(context.Background(), bytes.NewReader(data), dir, "x", tarx.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "original" {
		t.Fatalf("file outside the folder was overwritten: %q", b)
	}
	if !slices.Equal(res.Files, []string{"ok.tex"}) || len(res.Skipped) != 2 {
		t.Errorf("result %+v", res)
	}
}

func TestExtractLimits(t *testing.T) {
	many := make([]entry, 30)
	for i := range many {
		many[i] = entry{name: strings.Repeat("d/", i%3) + "f" + string(rune('a'+i)) + ".tex", body: "x"}
	}
	tests := []struct {
		name string
		data []byte
		lim  tarx.Limits
		msg  string
	}{
		{"too many files", gz(t, makeTar(t, many), ""), tarx.Limits{MaxEntries: 10}, "more than 10 entries"},
		{"declared size over the file cap", makeTar(t, []entry{{name: "big.tex", size: 5 << 20}}), tarx.Limits{MaxFileBytes: 1 << 20}, "over the 1048576-byte cap"},
		{"total over the cap", makeTar(t, []entry{{name: "a", size: 600 << 10}, {name: "b", size: 600 << 10}}), tarx.Limits{MaxTotalBytes: 1 << 20}, "over 1048576 bytes in all"},
		{"gzip bomb: single file", gz(t, bytes.Repeat([]byte("a"), 8<<20), "bomb.tex"), tarx.Limits{MaxFileBytes: 1 << 20, MaxTotalBytes: 2 << 20}, "over the 1048576-byte cap"},
		{"gzip bomb: padding in skipped entries", gz(t, makeTar(t, []entry{{name: "../pad", size: 12 << 20}}), ""),
			tarx.Limits{MaxTotalBytes: 1 << 20, MaxEntries: 10}, "decompressed data"},
		{"deep path", makeTar(t, []entry{{name: strings.Repeat("d/", 40) + "x.tex", body: "x"}}), tarx.Limits{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _, err := extract(t, tt.data, tt.lim)
			if tt.msg == "" {
				if err != nil || len(res.Files) != 0 || len(res.Skipped) != 1 {
					t.Errorf("Extract = %+v, %v; want the entry skipped", res, err)
				}
				return
			}
			if !errors.Is(err, claimtrace.ErrTooLarge) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "2101.00001") {
				t.Errorf("Extract = %v; want ErrTooLarge naming the archive and %q", err, tt.msg)
			}
		})
	}
}

func TestExtractCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tarx.Extract(ctx, bytes.NewReader(makeTar(t, []entry{{name: "a", body: "x"}})), t.TempDir(), "x", tarx.Limits{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Extract on a cancelled context = %v", err)
	}
}

// TestExtractEntryBombs checks that every entry counts against MaxEntries,
// not only regular files: a small archive of folders, links or special
// files must not create an unbounded number of inodes (issue 14 item 5: a
// 7.3 MB e-print made 1,001,001 folders).
func TestExtractEntryBombs(t *testing.T) {
	n := 40
	bomb := func(mk func(i int) entry) []byte {
		es := make([]entry, n)
		for i := range es {
			es[i] = mk(i)
		}
		return gz(t, makeTar(t, es), "")
	}
	tests := []struct {
		name string
		data []byte
		msg  string
	}{
		{"folders", bomb(func(i int) entry { return entry{name: fmt.Sprintf("d%d/", i), typ: tar.TypeDir} }), "more than 10 entries"},
		{"folders a file's path creates", bomb(func(i int) entry { return entry{name: fmt.Sprintf("d%d/e/f.tex", i), body: "x"} }), "more than 10 entries"},
		{"nested folders", makeTar(t, []entry{{name: strings.Repeat("d/", 20), typ: tar.TypeDir}}), "more than 10 entries"},
		{"symbolic links", bomb(func(i int) entry { return entry{name: fmt.Sprintf("l%d", i), typ: tar.TypeSymlink, linkname: "x"} }), "more than 10 entries"},
		{"hard links", bomb(func(i int) entry { return entry{name: fmt.Sprintf("h%d", i), typ: tar.TypeLink, linkname: "x"} }), "more than 10 entries"},
		{"special files", bomb(func(i int) entry { return entry{name: fmt.Sprintf("p%d", i), typ: tar.TypeFifo} }), "more than 10 entries"},
		{"refused names", bomb(func(i int) entry { return entry{name: fmt.Sprintf("../x%d", i), body: "x"} }), "more than 10 entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, dir, err := extract(t, tt.data, tarx.Limits{MaxEntries: 10})
			if !errors.Is(err, claimtrace.ErrTooLarge) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Extract = %v; want ErrTooLarge with %q", err, tt.msg)
			}
			if got := len(tree(t, dir)); got > 10 {
				t.Errorf("%d entries on disk, over the cap of 10", got)
			}
		})
	}
}

// TestExtractFolderBytes checks that folders count against MaxTotalBytes
// as the disk block each one takes.
func TestExtractFolderBytes(t *testing.T) {
	es := make([]entry, 300)
	for i := range es {
		es[i] = entry{name: fmt.Sprintf("d%d/", i), typ: tar.TypeDir}
	}
	_, dir, err := extract(t, makeTar(t, es), tarx.Limits{MaxTotalBytes: 1 << 20})
	if !errors.Is(err, claimtrace.ErrTooLarge) || !strings.Contains(err.Error(), "over 1048576 bytes in all") {
		t.Errorf("Extract = %v; want ErrTooLarge over 1048576 bytes in all", err)
	}
	if got := len(tree(t, dir)); got > 256 {
		t.Errorf("%d folders on disk, over what 1 MiB allows", got)
	}
}
