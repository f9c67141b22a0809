package main

import (
	"runtime/debug"
	"testing"
)

// TestStartupDependencies keeps out of the binary a module whose package
// initialisation every command paid at start-up and that nothing needs:
// OpenCensus, which older Google Cloud authentication (under the Gemini
// SDK) linked (docs/operations.md, "Start-up and release builds"). The
// test binary links what the command links, plus test code.
func TestStartupDependencies(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this test binary")
	}
	linked := map[string]bool{}
	for _, d := range bi.Deps {
		linked[d.Path] = true
	}
	if !linked["github.com/spf13/cobra"] || !linked["google.golang.org/genai"] {
		t.Fatalf("build information lists neither cobra nor genai among %d modules: it cannot say what is linked", len(bi.Deps))
	}
	if linked["go.opencensus.io"] {
		t.Errorf("go.opencensus.io is linked into claimtrace: its package initialisation runs before every command")
	}
}
