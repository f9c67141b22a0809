package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/score"
)

// printCitations lists how each cited work of a report was judged.
func printCitations(w io.Writer, r *eval.Result) {
	if r.Citation == nil {
		return
	}
	fmt.Fprintf(w, "\n%s: %d claims (%d cited), PCov %s\n", r.Task, r.Stats.Claims, r.Stats.CitedClaims, pct(r.AAR.PCov))
	fmt.Fprintf(w, "matched ground-truth references (%d):\n", len(r.Citation.Matched))
	for _, m := range r.Citation.Matched {
		fmt.Fprintf(w, "  %-12s %-28s %s\n", m.Method, shorten(m.BibID, 28), matchedWhat(m))
	}
	fmt.Fprintf(w, "not counted as hits (%d):\n", len(r.Citation.Unmatched))
	for _, u := range r.Citation.Unmatched {
		what := u.URL
		if what == "" {
			what = "“" + u.Title + "”"
		}
		fmt.Fprintf(w, "  %-20s %s\n", u.Reason, shorten(what, 80))
		if u.StatedTitle != "" {
			fmt.Fprintf(w, "  %-20s   the report says “%s”, the work is “%s”\n", "", shorten(u.StatedTitle, 60), shorten(u.Title, 60))
		}
	}
	if c := r.Citation; c.Precision != nil {
		fmt.Fprintf(w, "precision %s strict, %s over verifiable citations only", frac(c.Precision), frac(c.PrecisionVerifiable))
		if c.Flagged {
			fmt.Fprintf(w, "; FLAGGED: %s", strings.Join(c.Flags, ", "))
		}
		fmt.Fprintln(w)
	}
}

func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// matchedWhat shows what a cited work matched by: its URL or title, and,
// when the identifier that matched is not the one the URL shows (an arXiv
// URL whose paper's DOI matched the ground truth's), which it was.
func matchedWhat(m score.Matched) string {
	what := m.URL
	if what == "" {
		return shorten("“"+m.Title+"”", 70)
	}
	low := strings.ToLower(what)
	switch {
	case m.Method == "doi" && !strings.Contains(low, "doi.org/") && !strings.Contains(low, "/doi/"):
		return shorten(what, 60) + " (by its paper's DOI)"
	case m.Method == "arxiv_id" && !strings.Contains(low, "arxiv.org"):
		return shorten(what, 60) + " (by its paper's arXiv id)"
	}
	return shorten(what, 70)
}
