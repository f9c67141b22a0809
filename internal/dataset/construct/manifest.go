package construct

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"time"
)

// FormatVersion versions the layout of the build folder and manifests.
const FormatVersion = "claimtrace-build/1"

// Manifest records how a stage output was made: inputs, parameters,
// counts, tool versions and time. A stage whose manifest is complete and
// whose inputs and parameters are unchanged is not run again.
type Manifest struct {
	Stage    string            `json:"stage"`
	Format   string            `json:"format"`
	Tool     string            `json:"tool"`
	Go       string            `json:"go"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished"`
	Complete bool              `json:"complete"`
	Inputs   []Input           `json:"inputs"`
	Params   map[string]string `json:"params"`
	Counts   map[string]int64  `json:"counts"`
	// Output is the main output, relative to the dataset folder.
	Output string `json:"output"`
}

// Input identifies one input file: size and modification time always,
// SHA-256 for files up to 256 MiB (hashing a multi-GB snapshot would cost
// more than the stage).
type Input struct {
	Path    string    `json:"path"`
	Bytes   int64     `json:"bytes"`
	ModTime time.Time `json:"mod_time"`
	SHA256  string    `json:"sha256,omitempty"`
}

// describeInput stats (and maybe hashes) a file.
func describeInput(path string) (Input, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Input{}, fmt.Errorf("stage input: %w", err)
	}
	in := Input{Path: path, Bytes: fi.Size(), ModTime: fi.ModTime().UTC()}
	if fi.Mode().IsRegular() && fi.Size() <= 256<<20 {
		f, err := os.Open(path)
		if err != nil {
			return Input{}, fmt.Errorf("stage input: %w", err)
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return Input{}, fmt.Errorf("hash %s: %w", path, err)
		}
		in.SHA256 = hex.EncodeToString(h.Sum(nil))
	}
	return in, nil
}

func newManifest(stage, tool string, now time.Time) *Manifest {
	return &Manifest{
		Stage:   stage,
		Format:  FormatVersion,
		Tool:    tool,
		Go:      runtime.Version(),
		Started: now.UTC(),
		Params:  map[string]string{},
		Counts:  map[string]int64{},
	}
}

// readManifest returns the manifest at path, or nil when there is none.
func readManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return &m, nil
}

func writeManifest(path string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest %s: %w", path, err)
	}
	return writeFileAtomic(path, append(data, '\n'))
}

// sameRun reports whether a previous manifest was made from the same
// inputs with the same parameters, and finished.
func sameRun(old *Manifest, inputs []Input, params map[string]string) bool {
	if old == nil || !old.Complete || old.Format != FormatVersion || len(old.Inputs) != len(inputs) || len(old.Params) != len(params) {
		return false
	}
	for i, in := range inputs {
		o := old.Inputs[i]
		if o.Path != in.Path || o.Bytes != in.Bytes || !o.ModTime.Equal(in.ModTime) || o.SHA256 != in.SHA256 {
			return false
		}
	}
	for k, v := range params {
		if old.Params[k] != v {
			return false
		}
	}
	return true
}
