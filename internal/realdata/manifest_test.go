package realdata

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

var update = flag.Bool("update", false, "write manifest.json from the shared data folder")

// curated are the files the shared folder's curator wrote beside the
// copies (where each came from): not in any repository, not pulled.
var curated = map[string]bool{"SOURCE.txt": true, "SOURCE.md": true, "SOURCES.md": true, "RENAMED_FILES.tsv": true}

// TestManifest checks manifest.json against the shared data folder: every
// file of every set is there with its size and sha256, and every file
// there belongs to one set. With -update it writes manifest.json from the
// folder instead.
func TestManifest(t *testing.T) {
	root := sharedtest.Root()
	if root == "" {
		t.Skip("shared data not found (../shared/data or $CLAIMTRACE_SHARED_DATA): the manifest cannot be checked against it")
	}
	sets := catalog()
	found := map[string][]File{}
	owner := map[string]string{} // file under root → set
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if curated[d.Name()] || rel == "README.md" {
			return nil
		}
		for _, s := range sets {
			in, ok := strings.CutPrefix(rel, s.Dir+"/")
			if !ok || !s.owns(in) {
				continue
			}
			if prev, taken := owner[rel]; taken {
				t.Errorf("%s belongs to sets %s and %s", rel, prev, s.Name)
			}
			owner[rel] = s.Name
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			found[s.Name] = append(found[s.Name], File{Path: in, Source: s.sourceOf(in), Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])})
		}
		if _, ok := owner[rel]; !ok {
			t.Errorf("%s belongs to no set: add it to catalog()", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range found {
		slices.SortFunc(found[name], func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	}
	if *update {
		b, err := json.MarshalIndent(found, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("manifest.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	listed, err := Sets()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range listed {
		if len(s.Files) == 0 {
			t.Errorf("set %s lists no file", s.Name)
		}
		if !slices.Equal(s.Files, found[s.Name]) {
			t.Errorf("set %s: manifest.json (%d files) differs from %s (%d files); rerun with -update if the folder is right", s.Name, len(s.Files), filepath.Join(root, s.Dir), len(found[s.Name]))
		}
	}
}
