package latex_test

import (
	"testing"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/latex"
)

func TestToUnicode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Plain title", "Plain title"},
		{"{{Business Process Management}}", "Business Process Management"},
		{`Fr{\'e}d{\'e}ric`, "Frédéric"},
		{`Fr\'ed\'eric`, "Frédéric"},
		{`Breitenb{\"u}cher`, "Breitenbücher"},
		{`Mart{\'i}n-Mart{\'i}n`, "Martín-Martín"},
		{`Mart{\'\i}n`, "Martín"},
		{`Mart\'{\i}n`, "Martín"},
		{`Ba{\~n}uelos`, "Bañuelos"},
		{`{\v S}egvi{\'c}`, "Šegvić"},
		{`\v{s}\v s`, "šš"},
		{`Erd\H{o}s`, "Erdős"},
		{`Gar\c{c}on \c c`, "Garçon ç"},
		{`\k{a}`, "ą"},
		{`\aa{}ngstr\"om \AA`, "ångström Å"},
		{`S{\o}ren H{\o}gnason \O`, "Søren Høgnason Ø"},
		{`Stra{\ss}e {\l}{\'o}d{\'z} \L`, "Straße łódź Ł"},
		{`\ae\ \oe\ \AE`, "æ œ Æ"},
		{`Blockchains\textendash{{The YAWL Example}}`, "Blockchains–The YAWL Example"},
		{`pages 217--226 and 1---2`, "pages 217–226 and 1—2"},
		{`Data \& Knowledge, 50\% \$5 \#1 a\_b`, "Data & Knowledge, 50% $5 #1 a_b"},
		{`Fig.~1 and Sec.\ 2`, "Fig. 1 and Sec. 2"},
		{"``Quoted'' text", "“Quoted” text"},
		{`\emph{Deep} \textbf{Learning} \textit{for} \texttt{Code}`, "Deep Learning for Code"},
		{`{\em et~al.}`, "et al."},
		{`Learning Spherical Convolution for $360^\circ$ Recognition`, "Learning Spherical Convolution for 360° Recognition"},
		{`The $\kappa$-statistics and $\alpha\beta$`, "The κ-statistics and αβ"},
		{`CP\(^2\): Copy-Paste`, "CP2: Copy-Paste"},
		{`$O(n^{2})$ time`, "O(n2) time"},
		{`\url{http://a.org/x_y}`, "http://a.org/x_y"},
		{`\href{http://a.org}{the site}`, "the site"},
		{`Title\footnote{A note.} end`, "Title end"},
		{`\unknowncommand{Kept text}`, "Kept text"},
		{`  lots   of
		   space  `, "lots of space"},
		{`\ldots{} and \dots`, "… and …"},
		{`\'{}`, ""},
		{`trailing \`, "trailing"},
	}
	for _, tt := range tests {
		if got := latex.ToUnicode(tt.in); got != tt.want {
			t.Errorf("ToUnicode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestToUnicodeKeepDashes(t *testing.T) {
	got := latex.ToUnicodeWith(`217--226, \textendash{} 1---2`, latex.UnicodeOptions{KeepDashes: true})
	if want := "217--226, – 1---2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
