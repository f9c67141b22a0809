package latex_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/latex"
)

func TestStripComments(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"line comment", "a % comment \\cite{x}\nb", "a \nb"},
		{"escaped percent", `50\% of \cite{x} % gone`, `50\% of \cite{x} `},
		{"line break then comment", `end\\% gone` + "\nnext", `end\\` + "\nnext"},
		{"comment at end without newline", "text %\\cite{hidden}", "text "},
		{"comment environment", "a\n\\begin{comment}\n\\cite{x}\n\\end{comment}\nb", "a\n\n\n\nb"},
		{"verbatim environment", "a \\begin{verbatim}\\cite{x} % not a comment\\end{verbatim} b", "a  b"},
		{"verb", `see \verb|\cite{x}| and \verb+%+ too`, "see  and  too"},
		{"iffalse block", "a \\iffalse \\cite{x}\n\\fi b", "a \n b"},
		{"nested if inside iffalse", "a \\iffalse \\ifx\\a\\b x\\fi \\cite{y} \\fi b", "a  b"},
		{"iffalse else branch kept", "a \\iffalse \\cite{x} \\else \\cite{y} \\fi b", `a  \cite{y} \fi b`},
		{"iffalsex is another command", `\iffalsex y`, `\iffalsex y`},
		{"percent inside iffalse", "\\iffalse % \\fi\n\\fi kept", "\n kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := latex.StripComments(tt.in); got != tt.want {
				t.Errorf("StripComments(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCites(t *testing.T) {
	text := `Plain \cite{a}, many \cite{b, c ,d}. natbib \citep[see][p.~3]{e} \citet*{f}
\citealp{g} \citeauthor{h} \citeyear{i} \Citet{j} \citeyearpar{k} \citenum{l}.
biblatex \autocite{m} \parencite[chap.~2]{n} \textcite{o} \footcite{p} \smartcite{q}
\Parencite{r} \supercite{s} \fullcite{t} \cites{u}{v} \parencites(pre)(post)[a][b]{w}[c]{x}
apacite \citeA{y} \citeNP{z} \shortcite{aa}; misc \onlinecite{bb} \upcite{cc}
\nocite{excluded} \nocite{*} \citestyle{plain} \citetext{no keys}
macro \newcommand{\mycite}[1]{\cite{#1}} and group \cite{a}{\bf not keys}
\cite [opt] {spaced} \cite{}`
	var got []string
	for _, c := range latex.Cites(text) {
		got = append(got, c.Keys...)
	}
	want := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
		"r", "s", "t", "u", "v", "w", "x", "y", "z", "aa", "bb", "cc", "a", "spaced"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cited keys (-want +got):\n%s", diff)
	}
	distinct := latex.CitedKeys(text)
	if len(distinct) != len(want)-1 || distinct[0] != "a" {
		t.Errorf("CitedKeys = %v: want %d distinct keys in first-citation order", distinct, len(want)-1)
	}
	first := latex.Cites(`x \citep[p.~2]{key}`)[0]
	if first.Command != "citep" || first.Offset != 2 {
		t.Errorf("Cite = %+v, want command citep at offset 2", first)
	}
}

func TestIsCiteCommand(t *testing.T) {
	for name, want := range map[string]bool{
		"cite": true, "citep": true, "Textcite": true, "citeA": true, "footcitetext": true,
		"nocite": false, "citestyle": false, "bibliographystyle": false, "section": false, "excite": true,
	} {
		if got := latex.IsCiteCommand(name); got != want {
			t.Errorf("IsCiteCommand(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestBibResources(t *testing.T) {
	text := `\newcommand{\bibdir}{refs}
\def\other{extra}
\bibliography{main, \bibdir/more,other.bib}
\addbibresource[location=local]{\other.bib}
\addbibresource{main.bib}
\nobibliography{\jobname}
\bibliographystyle{plain}`
	got := latex.BibResources(text, "paper")
	want := []string{"main.bib", "refs/more.bib", "other.bib", "extra.bib", "paper.bib"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BibResources (-want +got):\n%s", diff)
	}
}

func TestBibItems(t *testing.T) {
	text := `\begin{thebibliography}{10}
\bibitem{ieee}
D.~Driess, F.~Xia, and P.~Florence, OQ{PaLM-E}: An embodied multimodal
  language model,'' in {\em Proc. ICML}, 2023.

\bibitem[Smith et~al.(2020)]{natbib}
J.~Smith and K.~Lee.
\newblock Deep learning for {GRAFCET}.
\newblock In \emph{ETFA}, pages 1--8, 2020.

\bibitem{etal}
A.~Brohan, N.~Brown, {\em et~al.}, OQ{RT-1}: Robotics transformer,'' 2022.

\bibitem{plain} Doe, J., Roe, R. (2019). A plain entry without markup. Journal of Things.

\bibitem{ieee} E.~Late, OQRedefined,'' 2024.
\end{thebibliography}`
	text = strings.ReplaceAll(text, "OQ", "``")
	got := latex.BibItems(text)
	type short struct{ Key, Title, Author, Year string }
	var gotShort []short
	for _, it := range got {
		year := ""
		for _, f := range it.Fields {
			if f.Name == "year" {
				year = f.Value
			}
		}
		gotShort = append(gotShort, short{it.Key, it.Title, it.Author, year})
	}
	want := []short{
		{"ieee", "Redefined", "E. Late", "2024"},
		{"natbib", "Deep learning for GRAFCET", "J. Smith and K. Lee", "2020"},
		{"etal", "RT-1: Robotics transformer", "A. Brohan and N. Brown and others", "2022"},
		{"plain", "A plain entry without markup", "Doe, J. and Roe, R.", "2019"},
	}
	if diff := cmp.Diff(want, gotShort); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestBibItemsBiblatex(t *testing.T) {
	bbl := `\refsection{0}
  \datalist[entry]{nty/global//global/global}
    \entry{doe2020}{article}{}
      \name{author}{2}{}{%
        {{hash=1}{%
           family={Doe},
           familyi={D\bibinitperiod},
           given={Jane},
           giveni={J\bibinitperiod}}}%
        {{hash=2}{%
           family={Garc{\'i}a},
           given={Luis},
           prefix={de},
           prefixi={d\bibinitperiod}}}%
      }
      \list{publisher}{1}{%
        {Springer}%
      }
      \field{title}{A {Biblatex} Title}
      \field{journaltitle}{Journal of Tests}
      \field{year}{2020}
      \verb{doi}
      \verb 10.1000/xyz
      \endverb
    \endentry
  \enddatalist
\endrefsection`
	got := latex.BibItems(bbl)
	if len(got) != 1 {
		t.Fatalf("got %d items, want 1", len(got))
	}
	it := got[0]
	if it.Key != "doe2020" || it.Title != "A Biblatex Title" || it.Author != "Doe, Jane and de García, Luis" {
		t.Errorf("item = %+v", it)
	}
	fields := map[string]string{}
	for _, f := range it.Fields {
		fields[f.Name] = f.Value
	}
	for k, v := range map[string]string{"journal": "Journal of Tests", "year": "2020", "doi": "10.1000/xyz", "publisher": "Springer"} {
		if fields[k] != v {
			t.Errorf("field %s = %q, want %q", k, fields[k], v)
		}
	}
}
