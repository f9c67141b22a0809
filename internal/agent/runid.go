package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
)

// RunID names a run in the store: the reports directory dir (made
// absolute) and the settings of m that determine its reports, so a rerun
// into the same directory with the same settings continues the same run
// (its cached calls and units), and any other settings make a new one.
func RunID(dir string, m Manifest) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	h := sha256.New()
	for _, s := range []string{Version, abs, m.Model, m.Search, m.Reader, fmt.Sprint(m.MaxToolCalls, m.SearchResults, m.ReadChars, m.MaxTokens), m.Template.SHA256, m.Template.BuiltinSHA256} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "agent-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// Versions lists the versions a run manifest records: the agent's, Go's,
// and from the build information the program's, its VCS revision and the
// model providers' SDK modules.
func Versions() map[string]string {
	v := map[string]string{"agent": Version, "go": runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v["claimtrace"] = bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			v[s.Key] = s.Value
		}
	}
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/openai/openai-go/v3", "google.golang.org/genai", "github.com/anthropics/anthropic-sdk-go":
			v[d.Path] = d.Version
		}
	}
	return v
}
