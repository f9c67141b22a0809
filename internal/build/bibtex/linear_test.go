package bibtex_test

import (
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/build/bibtex"
)

// TestLinearTime feeds the parser long runs of broken entries: recovery
// must not rescan the rest of the file for each one.
func TestLinearTime(t *testing.T) {
	for _, unit := range []string{
		"@a{k,f={\n", "@a{k,f=\"\n", "@a{\n", "@string{x=\n", "@comment{\n", "@a{k,f=x#\n", "@a{k,f={}\n", "@",
	} {
		src := []byte(strings.Repeat(unit, 20000))
		start := time.Now()
		bibtex.Parse("slow.bib", src)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q × 20000 took %v", unit, d)
		}
	}
}
