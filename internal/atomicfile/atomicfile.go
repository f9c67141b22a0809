// Package atomicfile writes files so that a reader sees the old content or
// the new, never part of either: the data goes to a temporary file of a
// unique name in the same directory, is synced, and is renamed over the
// target. Two processes writing one path at once each use their own
// temporary file; the last rename wins.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, atomically, with permissions perm. The
// directory must exist. On failure the temporary file is removed and path
// is left as it was.
func Write(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	_, werr := f.Write(data)
	err = errors.Join(werr, f.Chmod(perm), f.Sync(), f.Close())
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable where the file system can sync a
// directory; elsewhere the file's own sync must do.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
