package construct_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

func TestWriteSelectManifest(t *testing.T) {
	out := filepath.Join(t.TempDir(), "surveys.jsonl")
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	st := arxivsnap.Stats{Records: 10, Kept: 3, Bytes: 1234}
	if err := construct.WriteSelectManifest(out, "snap.json", arxivsnap.DefaultSpec(), st, start, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out + construct.SelectManifestSuffix)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("manifest is not JSON: %v\n%s", err, data)
	}
	want := map[string]any{"stage": "select", "input": "snap.json", "output": out, "started": "2026-01-02T02:04:05Z", "seconds": 1.5, "complete": true}
	for k, w := range want {
		if diff := cmp.Diff(w, got[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	if stats, _ := got["stats"].(map[string]any); stats == nil || got["filter"] == nil {
		t.Errorf("manifest lacks the stats or the filter:\n%s", data)
	}
}
