package latex_test

import (
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/build/latex"
)

// TestLinearTime feeds every reader long runs of unbalanced constructs, the
// shapes that made earlier versions quadratic (20 s and 2 min on 200 KB).
// A hostile e-print must not stall the pipeline.
func TestLinearTime(t *testing.T) {
	for _, unit := range []string{
		`\'{`, `{`, `\cite[`, `\cite{`, `\iffalse\if`, `\bibitem{k} A. `, `\verb|`, `$^`, `\href{`,
		`\frac{`, `\entry{k}`, "``", `\begin{thebibliography}`, `\newcommand{\a}{`, `\input{`,
		`\field{`, `\bibliography{`,
	} {
		s := strings.Repeat(unit, 20000)
		start := time.Now()
		latex.StripComments(s)
		latex.Cites(s)
		latex.BibResources(s, "job")
		latex.BibItems(s)
		latex.ToUnicode(s)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q × 20000 took %v", unit, d)
		}
	}
}
