package latex

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// UnicodeOptions tunes ToUnicodeWith.
type UnicodeOptions struct {
	// KeepDashes leaves "--" and "---" as written instead of turning them
	// into en and em dashes. ReportBench's released ground truth keeps them
	// in page ranges ("217--226").
	KeepDashes bool
}

// ToUnicode turns a LaTeX text fragment, such as a BibTeX title or author
// list, into plain Unicode: accents (\'e, \"{o}, {\v s}, \'\i) become
// composed characters, special letters (\o, \ss, \l) and symbols
// (\textendash, \&, --, “…”) their Unicode forms, font and grouping markup
// ({{Braces}}, \emph{x}, \textbf{x}) is removed keeping the text, simple
// math ($\alpha$, $360^\circ$) is rendered, and white space is collapsed.
// Unknown commands are dropped; their braced arguments are kept as text.
func ToUnicode(s string) string { return ToUnicodeWith(s, UnicodeOptions{}) }

// ToUnicodeWith is ToUnicode with options.
func ToUnicodeWith(s string, opt UnicodeOptions) string {
	if !strings.ContainsAny(s, "\\{}$~-`'") && !hasSpaceRun(s) {
		return norm.NFC.String(s)
	}
	c := &converter{opt: opt, s: s, braces: indexBraces(s)}
	out := c.convert(0, len(s), 0)
	return collapse(norm.NFC.String(out))
}

// maxDepth bounds the nesting of command arguments that are converted
// recursively; deeper input is flattened.
const maxDepth = 64

// accents maps accent commands to combining characters.
var accents = map[string]rune{
	"'": '\u0301', "`": '\u0300', "^": '\u0302', "\"": '\u0308', "~": '\u0303',
	"=": '\u0304', ".": '\u0307', "u": '\u0306', "v": '\u030C', "H": '\u030B',
	"c": '\u0327', "k": '\u0328', "r": '\u030A', "d": '\u0323', "b": '\u0331',
	"t": '\u0361',
}

// symbols maps argument-less commands to their text.
var symbols = map[string]string{
	"textendash": "–", "textemdash": "—", "ldots": "…", "dots": "…", "textellipsis": "…",
	"cdots": "⋯", "textquoteleft": "‘", "textquoteright": "’", "textquotedblleft": "“",
	"textquotedblright": "”", "guillemotleft": "«", "guillemotright": "»", "textbullet": "•",
	"textperiodcentered": "·", "S": "§", "P": "¶", "copyright": "©", "textcopyright": "©",
	"textregistered": "®", "texttrademark": "™", "pounds": "£", "textsterling": "£",
	"euro": "€", "texteuro": "€", "textdegree": "°", "degree": "°", "dag": "†", "ddag": "‡",
	"textdagger": "†", "textdaggerdbl": "‡", "i": "ı", "j": "ȷ", "o": "ø", "O": "Ø",
	"ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "ss": "ß", "SS": "SS",
	"l": "ł", "L": "Ł", "dh": "ð", "DH": "Ð", "th": "þ", "TH": "Þ", "ng": "ŋ", "NG": "Ŋ",
	"dj": "đ", "DJ": "Đ", "textless": "<", "textgreater": ">", "textbackslash": "\\",
	"textbar": "|", "textasciitilde": "~", "textasciicircum": "^", "textunderscore": "_",
	"LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "LaTeXe": "LaTeX2e", "slash": "/",
	"newblock": " ", "par": " ", "quad": " ", "qquad": " ", "enspace": " ", "thinspace": " ",
	"nobreakspace": " ", "space": " ", "newline": " ", "linebreak": " ", "break": " ",
	"relax": "", "protect": "", "noindent": "", "unskip": "", "ignorespaces": "",
	"bf": "", "it": "", "em": "", "sc": "", "rm": "", "tt": "", "sf": "", "sl": "", "small": "",
	"bfseries": "", "itshape": "", "scshape": "", "rmfamily": "", "ttfamily": "", "upshape": "",
	"normalfont": "", "footnotesize": "", "scriptsize": "", "large": "", "Large": "", "centering": "",
	"and": " and ", "textsection": "§", "textparagraph": "¶", "checkmark": "✓",
	"textasteriskcentered": "*", "textexclamdown": "¡", "textquestiondown": "¿",
	"textordfeminine": "ª", "textordmasculine": "º", "textmu": "µ", "textpm": "±",
	"texttimes": "×", "textdiv": "÷", "textonehalf": "½", "textperthousand": "‰",
	// math
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
	"zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
	"lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ",
	"varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "ϕ",
	"varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
	"Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ",
	"Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "pm": "±", "mp": "∓", "times": "×", "div": "÷",
	"cdot": "·", "circ": "∘", "bullet": "•", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥",
	"neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "equiv": "≡",
	"propto": "∝", "infty": "∞", "rightarrow": "→", "to": "→", "leftarrow": "←",
	"gets": "←", "Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔",
	"Leftrightarrow": "⇔", "mapsto": "↦", "partial": "∂", "nabla": "∇", "sum": "∑",
	"prod": "∏", "int": "∫", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆",
	"supset": "⊃", "cup": "∪", "cap": "∩", "emptyset": "∅", "forall": "∀", "exists": "∃",
	"neg": "¬", "wedge": "∧", "vee": "∨", "ell": "ℓ", "hbar": "ℏ", "star": "⋆", "ast": "∗",
	"backslash": "\\", "prime": "′", "langle": "⟨", "rangle": "⟩", "lvert": "|", "rvert": "|",
	"vert": "|", "mid": "|", "ll": "≪", "gg": "≫", "log": "log", "ln": "ln", "exp": "exp",
	"sin": "sin", "cos": "cos", "tan": "tan", "max": "max", "min": "min", "lim": "lim",
	"arg": "arg", "det": "det", "dim": "dim", "deg": "deg", "sup": "sup", "inf": "inf",
	"left": "", "right": "", "big": "", "Big": "", "bigl": "", "bigr": "", "displaystyle": "",
	"aleph": "ℵ", "Re": "ℜ", "Im": "ℑ", "wp": "℘", "top": "⊤", "bot": "⊥", "oplus": "⊕",
	"otimes": "⊗", "uparrow": "↑", "downarrow": "↓",
}

// keepArg lists one-argument commands whose argument is kept as text.
var keepArg = map[string]bool{
	"textbf": true, "textit": true, "emph": true, "texttt": true, "textsc": true, "textrm": true,
	"textsf": true, "textsl": true, "textup": true, "textmd": true, "textnormal": true,
	"mathrm": true, "mathbf": true, "mathit": true, "mathsf": true, "mathtt": true,
	"mathcal": true, "mathbb": true, "mathfrak": true, "mathscr": true, "boldsymbol": true,
	"bm": true, "text": true, "mbox": true, "hbox": true, "makebox": true, "fbox": true,
	"uppercase": true, "lowercase": true, "MakeUppercase": true, "MakeLowercase": true,
	"textsuperscript": true, "textsubscript": true, "ensuremath": true, "operatorname": true,
	"underline": true, "uline": true, "url": true, "path": true, "nolinkurl": true,
	"doi": true, "acronym": true, "acs": true, "acl": true, "ac": true,
	"enquote": true, "mkbibquote": true, "mkbibemph": true, "mkbibitalic": true, "mkbibbold": true,
}

// dropArgs lists commands dropped together with their arguments (count).
var dropArgs = map[string]int{
	"cite": 1, "citep": 1, "citet": 1, "ref": 1, "eqref": 1, "label": 1, "footnote": 1,
	"thanks": 1, "index": 1, "vspace": 1, "hspace": 1, "noopsort": 1, "nocite": 1,
	"pagebreak": 0, "color": 1, "hyphenation": 1, "phantom": 1, "vphantom": 1, "hphantom": 1,
	"includegraphics": 1, "bibliographystyle": 1, "textcolor": 1, "urlprefix": 0, "urlstyle": 1,
	"natexlab": 0, "BIBentryALTinterwordspacing": 0, "BIBentrySTDinterwordspacing": 0,
}

// converter renders one string. Positions are absolute offsets into s;
// braces are paired once, so that unbalanced input costs linear time.
type converter struct {
	opt    UnicodeOptions
	s      string
	braces *braceIndex
}

// group returns the content span of the {group} at i (s[i] == '{') within
// [i, hi) and the offset after it. An unbalanced group runs to hi.
func (c *converter) group(i, hi int) (lo, end, next int) {
	if j := c.braces.closeOf(i); j >= 0 && j < hi {
		return i + 1, j, j + 1
	}
	return i + 1, hi, hi
}

// convert renders s[lo:hi]; depth counts nested argument conversions.
func (c *converter) convert(lo, hi, depth int) string {
	s := c.s
	var b strings.Builder
	b.Grow(hi - lo)
	math := false
	for i := lo; i < hi; {
		ch := s[i]
		switch ch {
		case '{', '}':
			i++
		case '~':
			b.WriteByte(' ')
			i++
		case '$':
			math = !math
			i++
		case '^', '_':
			if !math {
				b.WriteByte(ch)
				i++
				continue
			}
			i++
			if ch == '^' {
				if strings.HasPrefix(s[i:hi], "\\circ") {
					b.WriteString("°")
					i += len("\\circ")
				} else if strings.HasPrefix(s[i:hi], "{\\circ}") {
					b.WriteString("°")
					i += len("{\\circ}")
				}
			}
		case '-':
			switch {
			case !c.opt.KeepDashes && strings.HasPrefix(s[i:hi], "---"):
				b.WriteString("—")
				i += 3
			case !c.opt.KeepDashes && strings.HasPrefix(s[i:hi], "--"):
				b.WriteString("–")
				i += 2
			default:
				b.WriteByte('-')
				i++
			}
		case '`':
			if strings.HasPrefix(s[i:hi], "``") {
				b.WriteString("“")
				i += 2
			} else {
				b.WriteString("‘")
				i++
			}
		case '\'':
			if strings.HasPrefix(s[i:hi], "''") {
				b.WriteString("”")
				i += 2
			} else {
				b.WriteByte('\'')
				i++
			}
		case '\\':
			out, next := c.command(i, hi, depth, &math)
			b.WriteString(out)
			i = next
		default:
			b.WriteByte(ch)
			i++
		}
	}
	return b.String()
}

// command renders the command at s[i] == '\\' (within [i, hi)) with its
// arguments and returns the text and the offset after it.
func (c *converter) command(i, hi, depth int, math *bool) (string, int) {
	s := c.s[:hi]
	if hi-i < 2 {
		return "", hi
	}
	name, n := commandName(s[i:])
	end := i + n
	if !isLetter(s[i+1]) {
		switch name {
		case "\\", " ", ",", ";", ":":
			return " ", end
		case "-", "/", "@", "!":
			return "", end
		case "(", "[":
			*math = true
			return "", end
		case ")", "]":
			*math = false
			return "", end
		}
		if _, ok := accents[name]; !ok {
			// \& \% \$ \# \_ \{ \} and any other escaped character.
			return name, end
		}
	}
	if mark, ok := accents[name]; ok {
		// An accent's argument may follow blanks: \' e, \v s.
		p := skipBlanks(s, end)
		arg, next := c.argument(p, hi, depth)
		if next == p {
			return "", end
		}
		return applyAccent(arg, mark), next
	}
	// Control words eat the blanks after them.
	end = skipBlanks(s, end)
	if sym, ok := symbols[name]; ok {
		return sym, end
	}
	switch name {
	case "href":
		p := end
		if p < hi && s[p] == '{' {
			_, _, p = c.group(p, hi)
		}
		arg, next := c.argument(skipBlanks(s, p), hi, depth)
		return arg, next
	case "frac", "dfrac", "tfrac":
		a, p := c.argument(end, hi, depth)
		b2, next := c.argument(skipBlanks(s, p), hi, depth)
		return a + "/" + b2, next
	case "sqrt":
		a, next := c.argument(end, hi, depth)
		return "√" + a, next
	}
	if keepArg[name] {
		if end >= hi || s[end] != '{' {
			return "", end
		}
		return c.argument(end, hi, depth)
	}
	if k, ok := dropArgs[name]; ok {
		p := end
		for range k {
			q := skipOptional(s, p)
			if q >= hi || s[q] != '{' {
				break
			}
			_, _, p = c.group(q, hi)
		}
		return "", p
	}
	// Unknown command: drop it, keep whatever follows as text.
	return "", end
}

// argument renders the next argument of a command at s[i]: a {group}, a
// command (itself with its arguments) or a single character. It returns
// the text and the offset after the argument (i when there is none).
func (c *converter) argument(i, hi, depth int) (string, int) {
	if i >= hi {
		return "", i
	}
	switch c.s[i] {
	case '{':
		lo, end, next := c.group(i, hi)
		if depth >= maxDepth {
			return stripBraces(c.s[lo:end]), next
		}
		return c.convert(lo, end, depth+1), next
	case '}':
		return "", i
	case '\\':
		if depth >= maxDepth {
			name, n := commandName(c.s[i:hi])
			return name, i + n
		}
		math := false
		return c.command(i, hi, depth+1, &math)
	}
	r, size := utf8.DecodeRuneInString(c.s[i:hi])
	return string(r), i + size
}

// applyAccent puts the combining mark on the first character of base; a
// dotless i or j takes its dotted form, as accented i is written \'\i.
func applyAccent(base string, mark rune) string {
	if base == "" {
		return ""
	}
	r, size := utf8.DecodeRuneInString(base)
	switch r {
	case 'ı':
		r = 'i'
	case 'ȷ':
		r = 'j'
	}
	return string(r) + string(mark) + base[size:]
}

// commandName returns the name of the command at the start of s (without
// the backslash) and its length including the backslash: a run of letters,
// or a single other character.
func commandName(s string) (string, int) {
	if len(s) < 2 {
		return "", len(s)
	}
	if !isLetter(s[1]) {
		_, size := utf8.DecodeRuneInString(s[1:])
		return s[1 : 1+size], 1 + size
	}
	j := 1
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	return s[1:j], j
}

// braceIndex pairs the braces of a text in one pass. Escaped braces (\{,
// \}) do not count.
type braceIndex struct {
	open  []int32 // offsets of '{', ascending
	close []int32 // offset of the matching '}', or -1
}

func indexBraces(s string) *braceIndex {
	b := &braceIndex{}
	var stack []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			stack = append(stack, len(b.open))
			b.open = append(b.open, int32(i))
			b.close = append(b.close, -1)
		case '}':
			if n := len(stack); n > 0 {
				b.close[stack[n-1]] = int32(i)
				stack = stack[:n-1]
			}
		}
	}
	return b
}

// closeOf returns the offset of the '}' matching the '{' at p, or -1.
func (b *braceIndex) closeOf(p int) int {
	k, ok := slices.BinarySearch(b.open, int32(p))
	if !ok {
		return -1
	}
	return int(b.close[k])
}

// group is rawGroup(s[p:]) for the text the index was built on, without a
// length limit.
func (b *braceIndex) group(s string, p int) (string, int) {
	if p >= len(s) || s[p] != '{' {
		return "", 0
	}
	j := b.closeOf(p)
	if j < 0 {
		return "", 0
	}
	return s[p+1 : j], j + 1 - p
}

// maxGroup bounds how far rawGroup looks for a closing brace, so that
// unbalanced input costs linear time: the arguments it reads (keys, file
// names, field values) are short.
const maxGroup = 16 << 10

// rawGroup returns the content of the balanced {group} at the start of s
// and the bytes consumed; 0 when s does not start with '{' or the group is
// not closed within maxGroup bytes. Escaped braces (\{, \}) do not count.
func rawGroup(s string) (string, int) {
	if s == "" || s[0] != '{' {
		return "", 0
	}
	depth := 0
	for i := 0; i < len(s) && i < maxGroup; i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i], i + 1
			}
		}
	}
	return "", 0
}

// maxOptional bounds the length of an [optional] argument, so that
// unclosed brackets cost linear time.
const maxOptional = 1024

// skipOptional skips blanks and one [optional] argument starting at p.
func skipOptional(s string, p int) int {
	p = skipBlanks(s, p)
	if p < len(s) && s[p] == '[' {
		if j := strings.IndexByte(s[p:min(len(s), p+maxOptional)], ']'); j >= 0 {
			return skipBlanks(s, p+j+1)
		}
	}
	return p
}

func skipBlanks(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r') {
		p++
	}
	return p
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// stripBraces removes every brace of s.
func stripBraces(s string) string {
	return strings.NewReplacer("{", "", "}", "").Replace(s)
}

// collapse trims s and replaces each run of white space (including no-break
// spaces) with one space.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == '\u00a0' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func hasSpaceRun(s string) bool {
	if s != "" && (s[0] == ' ' || s[len(s)-1] == ' ') {
		return true
	}
	return strings.Contains(s, "  ") || strings.ContainsAny(s, "\t\n\r\f\v\u00a0")
}
