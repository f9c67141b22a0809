package latex_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/latex"
)

// FuzzLaTeX runs comment stripping, cite extraction, bibliography
// resolution, .bbl reading and LaTeX→Unicode on arbitrary text.
func FuzzLaTeX(f *testing.F) {
	for _, seed := range []string{
		`\documentclass{article}\begin{document}\cite{a,b} % \cite{c}` + "\n" + `\end{document}`,
		`\citep[see][p.~3]{e} \parencites(a)(b)[c][d]{x}[e]{y} \nocite{z}`,
		`Fr{\'e}d{\'e}ric \v{s} \'\i{} $\alpha^{2}$ \(x\) --- `,
		"\\iffalse \\cite{x} \\else \\cite{y} \\fi \\verb|%| \\begin{comment}%\\end{comment}",
		`\newcommand{\d}{refs}\bibliography{\d/a,b}\addbibresource[x]{c.bib}`,
		"\\begin{thebibliography}{9}\\bibitem[l]{k} A.~B, ``T,'' 2020.\\end{thebibliography}",
		`\entry{k}{article}{}\name{author}{1}{}{{{}{family={D},given={J}}}}\field{title}{T}\endentry`,
		`\'`, `{`, `}`, `\\%`, `\verb`, `$`, `\href{`, `\frac{a}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		stripped := latex.StripComments(src)
		if len(stripped) > len(src) {
			t.Fatalf("StripComments grew the text: %d > %d", len(stripped), len(src))
		}
		for _, c := range latex.Cites(src) {
			if c.Offset < 0 || c.Offset >= len(src) || src[c.Offset] != '\\' {
				t.Fatalf("cite offset %d does not point at a backslash", c.Offset)
			}
			for _, k := range c.Keys {
				if k == "" || k != strings.TrimSpace(k) || strings.ContainsAny(k, ",{}#\\") {
					t.Fatalf("bad key %q", k)
				}
			}
		}
		latex.BibResources(src, "job")
		for _, it := range latex.BibItems(src) {
			if it.Key == "" {
				t.Fatal("item without key")
			}
		}
		u := latex.ToUnicode(src)
		if utf8.ValidString(src) && !utf8.ValidString(u) {
			t.Fatalf("ToUnicode(%q) = %q: invalid UTF-8", src, u)
		}
		if !strings.ContainsAny(src, `\`) && strings.ContainsAny(u, "{}") {
			t.Fatalf("ToUnicode(%q) = %q kept braces", src, u)
		}
		if u != strings.TrimSpace(u) || strings.Contains(u, "  ") {
			t.Fatalf("ToUnicode(%q) = %q: white space not collapsed", src, u)
		}
	})
}
