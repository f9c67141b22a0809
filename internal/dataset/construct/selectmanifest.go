package construct

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

// SelectManifestSuffix is appended to a standalone select's output file to
// name its manifest.
const SelectManifestSuffix = ".manifest.json"

// WriteSelectManifest records a standalone select run (the select stage
// outside a build folder, which keeps no Manifest) beside its output out:
// the snapshot read, the filter, the counts, when it started and how long
// it took.
func WriteSelectManifest(out, snapshot string, spec arxivsnap.FilterSpec, st arxivsnap.Stats, start time.Time, elapsed time.Duration) error {
	m := struct {
		Stage    string               `json:"stage"`
		Input    string               `json:"input"`
		Output   string               `json:"output"`
		Filter   arxivsnap.FilterSpec `json:"filter"`
		Stats    arxivsnap.Stats      `json:"stats"`
		Started  time.Time            `json:"started"`
		Seconds  float64              `json:"seconds"`
		Complete bool                 `json:"complete"`
	}{StageSelect, snapshot, out, spec, st, start.UTC(), elapsed.Seconds(), true}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out+SelectManifestSuffix, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("select manifest: %w", err)
	}
	return nil
}
