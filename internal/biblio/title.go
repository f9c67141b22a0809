package biblio

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NormalizeTitle returns a title reduced to lowercase words, so that the
// spellings of one title in a BibTeX file, on a publisher page and in a
// model's reference list compare equal:
//
//   - LaTeX: formatting commands (\emph, \textbf, \mathcal, …) and math
//     delimiters are dropped, braces removed without a space ("{G}{S}hard" is
//     "gshard"), accent commands (\"{o}, \'e, \c{c}) keep their letter, Greek
//     letter commands become the letter (\alpha is "α"), unknown commands
//     keep their name ("\OCR\" is "ocr"), "--" and "---" are dashes;
//   - Unicode NFKC, then case folding;
//   - diacritics are folded ("Zügner" is "zugner", "Łukasz" is "lukasz"): model
//     output and BibTeX exports drop or keep accents inconsistently, and no
//     two real titles differ only in an accent;
//   - apostrophes are deleted ("Alzheimer's" is "alzheimers");
//   - every other punctuation or symbol character, ASCII or not (dashes,
//     curly quotes, "∞"), separates words; whitespace is collapsed.
//
// Hyphenated compounds become separate words ("Multi-Agent" is "multi agent").
// TitleKey removes the spaces, so "Multi-Agent", "Multi Agent" and
// "multiagent" have one key.
func NormalizeTitle(s string) string {
	if s == "" {
		return ""
	}
	s = expandLaTeX(s)
	ascii := isASCII(s)
	if !ascii {
		s = norm.NFKC.String(s)
		s = strings.ToLower(s)
		s = norm.NFD.String(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r == '\'' || r == '’' || r == 'ʼ' || r == '‘' || r == '`' || r == '´':
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			if f, ok := letterFold[r]; ok {
				b.WriteString(f)
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
		case r == utf8.RuneError:
			space = true
		default:
			space = true
		}
	}
	if ascii {
		return b.String()
	}
	return norm.NFC.String(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// TitleKey returns the normalized title without spaces: the form compared by
// exact title matching and used in "title:" keys.
func TitleKey(s string) string {
	return strings.ReplaceAll(NormalizeTitle(s), " ", "")
}

// letterFold maps letters that carry no combining mark in NFD to their
// unaccented spelling.
var letterFold = map[rune]string{
	'ß': "ss", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'æ': "ae", 'œ': "oe",
	'ı': "i", 'ȷ': "j", 'ħ': "h", 'ŧ': "t", 'ŋ': "n", 'ſ': "s",
}

// latexDropped are LaTeX commands whose name is dropped (their argument, if
// any, is kept as text).
var latexDropped = map[string]bool{
	"text": true, "textbf": true, "textit": true, "textsc": true, "texttt": true, "textrm": true,
	"textsf": true, "textsl": true, "textmd": true, "textup": true, "textnormal": true, "emph": true,
	"mathrm": true, "mathbf": true, "mathit": true, "mathcal": true, "mathbb": true, "mathsf": true,
	"mathtt": true, "mathfrak": true, "mathscr": true, "boldsymbol": true, "bm": true,
	"operatorname": true, "mbox": true, "hbox": true, "textsuperscript": true, "textsubscript": true,
	"ensuremath": true, "protect": true, "relax": true, "xspace": true, "noindent": true, "em": true,
	"bf": true, "it": true, "sc": true, "rm": true, "tt": true, "sf": true, "sl": true,
	"small": true, "large": true, "normalsize": true, "footnotesize": true, "url": true, "nolinkurl": true,
	"left": true, "right": true, "big": true, "bigl": true, "bigr": true, "displaystyle": true,
	"textendash": true, "textemdash": true, "ldots": true, "dots": true, "cdots": true, "quad": true,
	"qquad": true, "textasciicircum": true, "textasciitilde": true, "textquoteright": true,
	"textquoteleft": true, "textquotedblleft": true, "textquotedblright": true, "cite": true,
	"times": true, "cdot": true, "infty": true, "prime": true, "circ": true, "ast": true,
}

// latexLetters are LaTeX commands that stand for a letter.
var latexLetters = map[string]string{
	"ss": "ss", "o": "o", "O": "o", "ae": "ae", "AE": "ae", "oe": "oe", "OE": "oe",
	"aa": "a", "AA": "a", "l": "l", "L": "l", "i": "i", "j": "j",
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
	"zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ",
	"lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
	"tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Gamma": "γ", "Delta": "δ", "Theta": "θ", "Lambda": "λ", "Xi": "ξ", "Pi": "π",
	"Sigma": "σ", "Phi": "φ", "Psi": "ψ", "Omega": "ω",
}

// latexAccentLetters are the accent commands spelled with a letter
// (\c{c}, \v{s}, \H{o}); they are dropped when an argument follows.
var latexAccentLetters = "cvuHdbkrt"

// expandLaTeX rewrites the LaTeX markup that survives in BibTeX titles into
// plain text. It is a cleanup, not a TeX interpreter: unknown commands keep
// their name as a word.
func expandLaTeX(s string) string {
	if !strings.ContainsAny(s, "\\{}$~") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '{', '}', '$':
			continue
		case '~':
			b.WriteByte(' ')
			continue
		case '\\':
		default:
			b.WriteByte(c)
			continue
		}
		// A backslash.
		if i+1 >= len(s) {
			continue
		}
		n := s[i+1]
		if strings.IndexByte("'`^\"~=.", n) >= 0 {
			// Accent on the next letter: drop the command, fold later.
			i++
			continue
		}
		if !isASCIILetter(n) {
			// \& \% \$ \_ \# \\ \, and friends: keep the symbol, which
			// later becomes a separator.
			b.WriteByte(' ')
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		name := s[i+1 : j]
		switch {
		case latexDropped[name]:
			b.WriteByte(' ')
		case latexLetters[name] != "" && (j >= len(s) || !isASCIILetter(s[j])):
			b.WriteString(latexLetters[name])
		case len(name) == 1 && strings.IndexByte(latexAccentLetters, name[0]) >= 0 && j < len(s) && (s[j] == '{' || s[j] == ' '):
			// \c{c}, \v s: drop the accent command.
		default:
			// A garbled "\textCIS2" or "\mathcalV": strip a known command
			// prefix followed by a capital; otherwise keep the name.
			kept := name
			for k := len(name) - 1; k > 0; k-- {
				if latexDropped[name[:k]] && name[k] >= 'A' && name[k] <= 'Z' {
					kept = name[k:]
					break
				}
			}
			b.WriteString(kept)
		}
		i = j - 1
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
