//go:build unix

package latex_test

import (
	"github.com/claimtrace/claimtrace/internal/cputime"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/latex"
)

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
		ts := cputime.Min(func() { run(small) })
		tl := cputime.Min(func() { run(large) })
		if tl > 10*ts && tl > 100*time.Millisecond {
			t.Errorf("%q: ×5000 took %v, ×20000 took %v: not linear", unit, ts, tl)
		}
	}
}
