//go:build unix

package bibtex_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/build/bibtex"
)

// minTime returns the least CPU time of three runs of f: CPU time, not
// wall time, so that other processes on the machine do not skew it.
func minTime(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := cpuTime()
		f()
		best = min(best, cpuTime()-start)
	}
	return best
}

// cpuTime returns the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
		ts := minTime(func() { bibtex.Parse("slow.bib", small) })
		tl := minTime(func() { bibtex.Parse("slow.bib", large) })
		if tl > 10*ts && tl > 100*time.Millisecond {
			t.Errorf("%q: ×5000 took %v, ×20000 took %v: not linear", unit, ts, tl)
		}
	}
}
