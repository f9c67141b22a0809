package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/realdata"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// TestDataCommands: data list names every set; data pull refuses an
// unknown one with the names there are, and pulls one set from a mirror
// (the shared folder served as the raw-file host serves the repository).
func TestDataCommands(t *testing.T) {
	out, errOut, code := cli(t, "data", "list", "--json")
	var rows []struct {
		Name, Repo, Commit string
		Files              int
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) < 10 {
		t.Fatalf("data list --json: exit %d, %s\n%s", code, errOut, out)
	}
	if _, errOut, code := cli(t, "data", "pull", "--dir", t.TempDir(), "--only", "nosuch"); code == 0 || !strings.Contains(errOut, "attributionbench") {
		t.Errorf("an unknown set: exit %d, %s", code, errOut)
	}

	root := sharedtest.Dir(t, "prov")
	sets, _ := realdata.Sets()
	set, _ := realdata.Select(sets, []string{"prov-toolbox-schema"})
	f := set[0].Files[0]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/"+set[0].Repo+"/"+set[0].Commit+"/"+f.Source {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(root, f.Path))
	}))
	defer srv.Close()
	dir := t.TempDir()
	out, errOut, code = cli(t, "data", "pull", "--dir", dir, "--only", "prov-toolbox-schema", "--from", srv.URL)
	if code != 0 || !strings.Contains(out, "1 downloaded") {
		t.Fatalf("data pull: exit %d, %s\n%s", code, errOut, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "prov", f.Path)); err != nil {
		t.Error(err)
	}
	out, _, code = cli(t, "data", "pull", "--dir", dir, "--only", "prov-toolbox-schema", "--from", srv.URL)
	if code != 0 || !strings.Contains(out, "1 already there") {
		t.Errorf("second pull: %s", out)
	}
}
