//go:build unix

package bibtex_test

import (
	"github.com/claimtrace/claimtrace/internal/cputime"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/bibtex"
)

// TestLinearTime feeds the parser long runs of broken entries: recovery
// must not rescan the rest of the file for each one. Quadrupling the input
// must not take much more than four times as long (a quadratic parser
// takes sixteen).
func TestLinearTime(t *testing.T) {
	for _, unit := range []string{
		"@a{k,f={\n", "@a{k,f=\"\n", "@a{\n", "@string{x=\n", "@comment{\n", "@a{k,f=x#\n", "@a{k,f={}\n", "@",
	} {
		small := []byte(strings.Repeat(unit, 5000))
		large := []byte(strings.Repeat(unit, 20000))
		ts := cputime.Min(func() { bibtex.Parse("slow.bib", small) })
		tl := cputime.Min(func() { bibtex.Parse("slow.bib", large) })
		if tl > 10*ts && tl > 100*time.Millisecond {
			t.Errorf("%q: ×5000 took %v, ×20000 took %v: not linear", unit, ts, tl)
		}
	}
}
