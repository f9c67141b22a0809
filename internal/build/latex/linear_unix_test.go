//go:build unix

package latex_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/build/latex"
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

// TestLinearTime feeds every reader long runs of unbalanced constructs, the
// shapes that made earlier versions quadratic (20 s and 2 min on 200 KB):
// quadrupling the input must not take much more than four times as long.
// A hostile e-print must not stall the pipeline.
func TestLinearTime(t *testing.T) {
	run := func(s string) {
		latex.StripComments(s)
		latex.Cites(s)
		latex.BibResources(s, "job")
		latex.BibItems(s)
		latex.ToUnicode(s)
	}
	for _, unit := range []string{
		`\'{`, `{`, `\cite[`, `\cite{`, `\iffalse\if`, `\bibitem{k} A. `, `\verb|`, `$^`, `\href{`,
		`\frac{`, `\entry{k}`, "``", `\begin{thebibliography}`, `\newcommand{\a}{`, `\input{`,
		`\field{`, `\bibliography{`,
	} {
		small := strings.Repeat(unit, 5000)
		large := strings.Repeat(unit, 20000)
		ts := minTime(func() { run(small) })
		tl := minTime(func() { run(large) })
		if tl > 10*ts && tl > 100*time.Millisecond {
			t.Errorf("%q: ×5000 took %v, ×20000 took %v: not linear", unit, ts, tl)
		}
	}
}
