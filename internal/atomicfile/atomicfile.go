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
	"strings"
	"time"
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

// tempMarker separates a target's name from the random suffix in the name
// of Write's temporary file: ".<base>.tmp-<digits>".
const tempMarker = ".tmp-"

// IsTemp reports whether name is the name of one of Write's temporary
// files.
func IsTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, tempMarker)
	if i < 2 {
		return false
	}
	suffix := name[i+len(tempMarker):]
	return suffix != "" && !strings.ContainsFunc(suffix, func(r rune) bool { return r < '0' || r > '9' })
}

// RemoveStale removes from dir the temporary files Write leaves when its
// process is killed between creating and renaming them, those last
// modified before before (so a write in flight in another process, whose
// file is newer, is left alone). It returns how many it removed; a file it
// cannot remove is an error naming it, the others are still removed.
func RemoveStale(dir string, before time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var n int
	var errs []error
	for _, de := range entries {
		if !de.Type().IsRegular() || !IsTemp(de.Name()) {
			continue
		}
		fi, err := de.Info()
		if err != nil || !fi.ModTime().Before(before) {
			continue // gone meanwhile, or being written now
		}
		if err := os.Remove(filepath.Join(dir, de.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
