package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// Limits that keep PDF extraction bounded on large or hostile files.
const (
	maxPDFPages     = 100       // pages whose text is extracted
	maxPDFNodes     = 10000     // page-tree nodes visited (cycles, bombs)
	maxPDFOps       = 2_000_000 // content-stream operators per page
	maxPDFRunes     = 4_000_000 // text kept per document
	maxPDFWidthsLen = 65536     // entries read from a font's width arrays
)

// MaxPDFPages is the number of pages whose text a PDF yields; a caller that
// must not lose a document's end (a report and its reference list) refuses
// a longer PDF instead of reading part of it.
const MaxPDFPages = maxPDFPages

// errPDFLimit aborts a page that exceeds a limit; text so far is kept.
var errPDFLimit = errors.New("pdf limit reached")

// extractPDF reads the text layer, the Info dictionary and the first page
// of a PDF. The pdf library panics on corrupt input, so every call into it
// is guarded and a panic becomes an error wrapping claimtrace.ErrInvalid.
func extractPDF(p *Page) (c *Content, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("extract %s: corrupt pdf: %v: %w", p.URL, r, claimtrace.ErrInvalid)
		}
	}()
	if p.Truncated {
		return nil, fmt.Errorf("extract %s: pdf truncated at %d bytes: %w", p.URL, len(p.Body), claimtrace.ErrTooLarge)
	}
	rd, err := pdf.NewReader(bytes.NewReader(p.Body), int64(len(p.Body)))
	if err != nil {
		return nil, fmt.Errorf("extract %s: read pdf: %w: %w", p.URL, claimtrace.ErrInvalid, err)
	}
	pages := pdfPages(rd)
	var (
		texts     []string
		firstRuns []pdfRun
		top       float64
		total     int
	)
	for i, pg := range pages {
		runs := pageRuns(pg)
		if i == 0 {
			firstRuns = runs
			top = mediaTop(pg)
		}
		t := assembleRuns(runs)
		total += utf8.RuneCountInString(t)
		texts = append(texts, t)
		if total > maxPDFRunes {
			break
		}
	}
	text := cleanText(fixPDFText(strings.Join(texts, "\n\n")))
	first := ""
	if len(texts) > 0 {
		first = fixPDFText(texts[0])
	}

	var m Meta
	m.Type = "pdf"
	info := rd.Trailer().Key("Info")
	if t := collapseSpaces(fixPDFText(safeText(info.Key("Title")))); !junkPDFTitle(t) {
		m.Title = t
	}
	if m.Title == "" {
		m.Title = firstPageTitle(firstRuns, top)
	}
	m.Authors = splitPDFAuthors(safeText(info.Key("Author")))
	if d, ok := parsePDFDate(safeText(info.Key("CreationDate"))); ok {
		m.Date = d
	}
	if mm := arXivInText.FindStringSubmatch(first); mm != nil {
		m.ArXivID = arXivFromString(mm[1])
	}
	if d := doiInText(first); d != "" {
		m.DOI = d
		if m.ArXivID == "" {
			m.ArXivID = arXivFromDOI(d)
		}
	}
	m.Scholarly = m.ArXivID != "" || m.DOI != "" || abstractHeading.MatchString(first)

	c = &Content{Title: m.Title, Text: text, Meta: m, Kind: KindPDF}
	c.Wall = detectWall(wallInput{status: p.Status, title: m.Title, text: text, main: text})
	if c.Wall == WallError && p.Status < 400 {
		c.Wall = "" // phrases like "not found" are content in a PDF
	}
	return c, nil
}

// safeText reads a PDF string value (PDFDocEncoding or UTF-16).
func safeText(v pdf.Value) string {
	if v.Kind() != pdf.String {
		return ""
	}
	return strings.ToValidUTF8(v.Text(), "")
}

// pdfPages walks the page tree itself, with a node budget, because the
// library's Page(i) loops forever on cyclic trees.
func pdfPages(rd *pdf.Reader) []pdf.Page {
	var out []pdf.Page
	visited := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if len(out) >= maxPDFPages || depth > 32 || visited >= maxPDFNodes || v.Kind() != pdf.Dict {
			return
		}
		visited++
		kids := v.Key("Kids")
		switch {
		case v.Key("Type").Name() == "Page" || (kids.Kind() != pdf.Array && v.Key("Contents").Kind() != pdf.Null):
			out = append(out, pdf.Page{V: v})
		case kids.Kind() == pdf.Array:
			for i := 0; i < kids.Len() && len(out) < maxPDFPages && visited < maxPDFNodes; i++ {
				walk(kids.Index(i), depth+1)
			}
		}
	}
	walk(rd.Trailer().Key("Root").Key("Pages"), 0)
	return out
}

// mediaTop returns the top edge of a page's MediaBox, or 0.
func mediaTop(pg pdf.Page) (top float64) {
	defer func() {
		if recover() != nil {
			top = 0
		}
	}()
	mb := inherited(pg.V, "MediaBox")
	if mb.Kind() == pdf.Array && mb.Len() == 4 {
		return mb.Index(3).Float64()
	}
	return 0
}

// inherited looks key up on a page and its ancestors, with a depth cap
// because the library's own lookup loops forever on cyclic Parent links.
func inherited(v pdf.Value, key string) pdf.Value {
	for range 32 {
		if v.IsNull() {
			break
		}
		if r := v.Key(key); !r.IsNull() {
			return r
		}
		v = v.Key("Parent")
	}
	return pdf.Value{}
}

// pdfRun is one shown string with its start and end points in device space.
type pdfRun struct {
	x0, y0, x1, y1 float64
	size           float64
	rotated        bool
	text           string
}

// pdfFont is what text extraction needs of a font: its decoder and widths.
type pdfFont struct {
	enc     pdf.TextEncoding
	twoByte bool
	first   int
	widths  []float64
	dw      float64
	cidW    map[int]float64
}

func loadPDFFont(pg pdf.Page, name string) (pf *pdfFont) {
	defer func() {
		if recover() != nil {
			pf = &pdfFont{enc: identityEncoding{}}
		}
	}()
	f := pdf.Font{V: inherited(pg.V, "Resources").Key("Font").Key(name)}
	pf = &pdfFont{enc: f.Encoder()}
	if f.V.Key("Subtype").Name() == "Type0" {
		pf.twoByte = true
		pf.dw = 1000
		pf.cidW = make(map[int]float64)
		d := f.V.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			pf.dw = dw.Float64()
		}
		w := d.Key("W")
		for i := 0; i+1 < w.Len() && len(pf.cidW) < maxPDFWidthsLen; {
			c := int(w.Index(i).Int64())
			next := w.Index(i + 1)
			if next.Kind() == pdf.Array {
				for j := 0; j < next.Len() && len(pf.cidW) < maxPDFWidthsLen; j++ {
					pf.cidW[c+j] = next.Index(j).Float64()
				}
				i += 2
				continue
			}
			if i+2 >= w.Len() {
				break
			}
			c2, wv := int(next.Int64()), w.Index(i+2).Float64()
			for k := c; k <= c2 && len(pf.cidW) < maxPDFWidthsLen; k++ {
				pf.cidW[k] = wv
			}
			i += 3
		}
		return pf
	}
	pf.first = f.FirstChar()
	ws := f.V.Key("Widths")
	for i := 0; i < ws.Len() && i < maxPDFWidthsLen; i++ {
		pf.widths = append(pf.widths, ws.Index(i).Float64())
	}
	return pf
}

// identityEncoding passes bytes through; used when a font cannot be read.
type identityEncoding struct{}

func (identityEncoding) Decode(raw string) string { return raw }

// width returns the advance of a character code in glyph space (1/1000 em).
func (f *pdfFont) width(code int) float64 {
	if f.twoByte {
		if w, ok := f.cidW[code]; ok {
			return w
		}
		return f.dw
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return 0
}

// matrix is a PDF affine matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(tx, ty float64) matrix { return matrix{1, 0, 0, 1, tx, ty} }

// textState is the graphics and text state the extractor tracks.
type textState struct {
	ctm                          matrix
	font                         *pdfFont
	size, cs, ws, scale, leading float64
	rise                         float64
}

// pageRuns interprets a page's content stream and returns its text runs in
// stream order (which follows reading order in most producers, columns
// included). A page that exceeds a limit or is corrupt yields what was
// read before the problem.
func pageRuns(pg pdf.Page) (runs []pdfRun) {
	defer func() {
		if recover() != nil {
			return // keep the runs read so far
		}
	}()
	contents := pg.V.Key("Contents")
	if contents.Kind() == pdf.Null {
		return nil
	}
	fonts := make(map[string]*pdfFont)
	st := textState{ctm: identity, scale: 1}
	var stack []textState
	tm, tlm := identity, identity
	ops, kept := 0, 0

	show := func(raw string) {
		if st.font == nil {
			st.font = &pdfFont{enc: identityEncoding{}}
		}
		trm := matrix{st.size * st.scale, 0, 0, st.size, 0, st.rise}.mul(tm).mul(st.ctm)
		var adv float64
		step := 1
		if st.font.twoByte {
			step = 2
		}
		for i := 0; i+step <= len(raw); i += step {
			code := int(raw[i])
			if step == 2 {
				code = code<<8 | int(raw[i+1])
			}
			w := st.font.width(code)/1000*st.size + st.cs
			if step == 1 && code == ' ' {
				w += st.ws
			}
			adv += w * st.scale
		}
		tm = translate(adv, 0).mul(tm)
		end := matrix{st.size * st.scale, 0, 0, st.size, 0, st.rise}.mul(tm).mul(st.ctm)
		text := st.font.enc.Decode(raw)
		size := math.Hypot(trm[2], trm[3])
		runs = append(runs, pdfRun{
			x0: trm[4], y0: trm[5], x1: end[4], y1: end[5],
			size:    size,
			rotated: math.Abs(trm[1]) > 0.1*math.Abs(trm[0])+1e-9,
			text:    text,
		})
		kept += len(text)
		if kept > 4*maxPDFRunes {
			panic(errPDFLimit)
		}
	}
	nums := func(args []pdf.Value) []float64 {
		out := make([]float64, len(args))
		for i, a := range args {
			out[i] = a.Float64()
		}
		return out
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		ops++
		if ops > maxPDFOps {
			panic(errPDFLimit)
		}
		n := stk.Len()
		if n > 64 {
			n = 64
		}
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		for stk.Len() > 0 {
			stk.Pop()
		}
		switch op {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, st)
			}
		case "Q":
			if len(stack) > 0 {
				st = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if len(args) == 6 {
				v := nums(args)
				st.ctm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}.mul(st.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				f, ok := fonts[name]
				if !ok {
					f = loadPDFFont(pg, name)
					fonts[name] = f
				}
				st.font, st.size = f, args[1].Float64()
			}
		case "Tc":
			if len(args) == 1 {
				st.cs = args[0].Float64()
			}
		case "Tw":
			if len(args) == 1 {
				st.ws = args[0].Float64()
			}
		case "Tz":
			if len(args) == 1 {
				st.scale = args[0].Float64() / 100
			}
		case "TL":
			if len(args) == 1 {
				st.leading = args[0].Float64()
			}
		case "Ts":
			if len(args) == 1 {
				st.rise = args[0].Float64()
			}
		case "Td", "TD":
			if len(args) == 2 {
				tx, ty := args[0].Float64(), args[1].Float64()
				if op == "TD" {
					st.leading = -ty
				}
				tlm = translate(tx, ty).mul(tlm)
				tm = tlm
			}
		case "Tm":
			if len(args) == 6 {
				v := nums(args)
				tlm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}
				tm = tlm
			}
		case "T*":
			tlm = translate(0, -st.leading).mul(tlm)
			tm = tlm
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "'", "\"":
			if op == "\"" && len(args) == 3 {
				st.ws, st.cs = args[0].Float64(), args[1].Float64()
				args = args[2:]
			}
			tlm = translate(0, -st.leading).mul(tlm)
			tm = tlm
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) == 1 {
				a := args[0]
				for i := 0; i < a.Len(); i++ {
					x := a.Index(i)
					if x.Kind() == pdf.String {
						show(x.RawString())
					} else {
						tm = translate(-x.Float64()/1000*st.size*st.scale, 0).mul(tm)
					}
				}
			}
		}
	})
	return runs
}

// assembleRuns joins runs into lines: a vertical jump starts a new line, a
// horizontal gap wider than a fraction of the font size is a space, and a
// step down clearly wider than the page's usual line advance is a
// paragraph's end (a blank line), so the text keeps the paragraphs a
// report's reader sees (the parser splits blocks, lists and reference
// entries at blank lines). Jumps up or far down (a new column, a figure)
// are plain line breaks.
func assembleRuns(runs []pdfRun) string {
	advance := lineAdvance(runs)
	var b strings.Builder
	var prev *pdfRun
	for i := range runs {
		r := &runs[i]
		t := printable(r.text)
		if t == "" {
			continue
		}
		if prev != nil {
			h := math.Max(math.Max(r.size, prev.size), 1)
			dy := math.Abs(r.y0 - prev.y1)
			gap := r.x0 - prev.x1
			last, _ := utf8.DecodeLastRuneInString(b.String())
			first, _ := utf8.DecodeRuneInString(t)
			switch {
			case dy > 0.5*h:
				b.WriteByte('\n')
				if down := (prev.y1 - r.y0) / h; advance > 0 && down > 1.35*advance && down < 4*advance {
					b.WriteByte('\n')
				}
			case (gap > 0.15*h || gap < -h) && !unicode.IsSpace(last) && !unicode.IsSpace(first):
				b.WriteByte(' ')
			}
		}
		b.WriteString(t)
		prev = r
	}
	return b.String()
}

// lineAdvance returns the page's usual step from one line down to the
// next, in font sizes (the median of its line breaks), or 0 when it has
// too few lines to tell.
func lineAdvance(runs []pdfRun) float64 {
	var steps []float64
	var prev *pdfRun
	for i := range runs {
		r := &runs[i]
		if r.rotated || strings.TrimSpace(r.text) == "" {
			continue
		}
		if prev != nil {
			h := math.Max(math.Max(r.size, prev.size), 1)
			if down := prev.y1 - r.y0; down > 0.5*h {
				steps = append(steps, down/h)
			}
		}
		prev = r
	}
	if len(steps) < 3 {
		return 0
	}
	sort.Float64s(steps)
	return steps[len(steps)/2]
}

// printable drops control characters other than spaces and tabs.
func printable(s string) string {
	if s == "" {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
}

// ligatures maps ligature code points, including the private-use ones some
// fonts (and the pdf library) emit for "fi" and "fl", to letters.
var ligatures = strings.NewReplacer(
	"\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl",
	"\uFB05", "st", "\uFB06", "st", "\uF001", "fi", "\uF002", "fl",
)

// hyphenBreak is a word hyphenated across a line break: "exam-\nple".
var hyphenBreak = lazyregexp.New(`[\p{L}-]*\p{Ll}-\n\p{Ll}`)

// fixPDFText maps ligatures and rejoins words hyphenated at line ends:
// "exam-\nple" becomes "example", while a compound that already has a
// hyphen keeps it ("state-of-\nthe-art" becomes "state-of-the-art"), and
// so does a URL, which a line broke at one of its own hyphens
// ("…/glm-\nresearch-notes" becomes "…/glm-research-notes").
func fixPDFText(s string) string {
	s = ligatures.Replace(s)
	locs := hyphenBreak.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, l := range locs {
		m := s[l[0]:l[1]]
		head, tail, _ := strings.Cut(m, "-\n")
		b.WriteString(s[prev:l[0]])
		if strings.Contains(head, "-") || inURL(s, l[0]) {
			b.WriteString(head + "-" + tail)
		} else {
			b.WriteString(head + tail)
		}
		prev = l[1]
	}
	b.WriteString(s[prev:])
	return b.String()
}

// inURL reports whether offset i of s is inside a URL: the run of
// non-space text holding it starts with a scheme or "www.".
func inURL(s string, i int) bool {
	start := strings.LastIndexAny(s[:i], " \t\n") + 1
	tok := strings.ToLower(s[start:i])
	return strings.Contains(tok, "://") || strings.HasPrefix(tok, "www.")
}

var abstractHeading = lazyregexp.New(`(?im)^\s*(abstract|a b s t r a c t)\b`)

// doiInText finds the first DOI in text (first-page headers and footers).
func doiInText(s string) string {
	m := doiPattern.FindString(s)
	if m == "" {
		return ""
	}
	return strings.TrimRight(m, ".,;:)]}")
}

// junkPDFTitle reports Info titles that are not the work's title: empty,
// file names, "Untitled", word-processor defaults, single tokens.
func junkPDFTitle(t string) bool {
	low := strings.ToLower(strings.TrimSpace(t))
	switch {
	case low == "" || low == "untitled" || strings.HasPrefix(low, "untitled "):
		return true
	case strings.HasPrefix(low, "microsoft word") || strings.HasPrefix(low, "microsoft powerpoint"):
		return true
	case strings.HasPrefix(low, "arxiv:"):
		return true
	case len(strings.Fields(low)) < 2:
		return true
	}
	for _, ext := range []string{".pdf", ".doc", ".docx", ".dvi", ".tex", ".ps", ".indd", ".odt"} {
		if strings.HasSuffix(low, ext) {
			return true
		}
	}
	return false
}

// firstPageTitle returns the largest-font text in the top half of the first
// page when it stands out from the body text.
func firstPageTitle(runs []pdfRun, top float64) string {
	if top <= 0 {
		for _, r := range runs {
			top = math.Max(top, r.y0)
		}
	}
	var sizes []float64
	maxSize := 0.0
	for _, r := range runs {
		if r.rotated || strings.TrimSpace(r.text) == "" {
			continue
		}
		for range utf8.RuneCountInString(r.text) {
			sizes = append(sizes, r.size)
		}
		if r.y0 >= top*0.5 && r.size > maxSize && !arXivInText.MatchString(r.text) {
			maxSize = r.size
		}
	}
	if len(sizes) == 0 || maxSize == 0 {
		return ""
	}
	sort.Float64s(sizes)
	median := sizes[len(sizes)/2]
	if maxSize < 1.15*median {
		return ""
	}
	var title []pdfRun
	for _, r := range runs {
		big := !r.rotated && r.size >= 0.9*maxSize && r.y0 >= top*0.5
		switch {
		case big:
			title = append(title, r)
		case len(title) > 0 && strings.TrimSpace(r.text) != "":
			return pdfTitle(title)
		}
	}
	return pdfTitle(title)
}

func pdfTitle(runs []pdfRun) string {
	t := collapseSpaces(strings.ReplaceAll(fixPDFText(assembleRuns(runs)), "\n", " "))
	if n := len(strings.Fields(t)); n < 2 || n > 40 {
		return ""
	}
	return t
}

// splitPDFAuthors splits an Info Author value ("A. Vaswani; N. Shazeer",
// "Ashish Vaswani, Noam Shazeer and Niki Parmar", "Vaswani, Ashish").
func splitPDFAuthors(s string) []string {
	s = collapseSpaces(s)
	if s == "" {
		return nil
	}
	var parts []string
	switch {
	case strings.Contains(s, ";"):
		parts = strings.Split(s, ";")
	default:
		parts = strings.Split(strings.ReplaceAll(s, " and ", ","), ",")
		single := true
		for _, p := range parts {
			if len(strings.Fields(p)) > 1 {
				single = false
			}
		}
		if single && len(parts) == 2 {
			parts = []string{s} // "Vaswani, Ashish"
		}
	}
	return cleanAuthors(parts)
}

// parsePDFDate parses "D:YYYYMMDDHHmmSS…" with any suffix left off.
func parsePDFDate(s string) (time.Time, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	digits := 0
	for digits < len(s) && digits < 14 && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	layouts := map[int]string{4: "2006", 6: "200601", 8: "20060102", 10: "2006010215", 12: "200601021504", 14: "20060102150405"}
	l, ok := layouts[digits]
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(l, s[:digits])
	if err != nil || t.Year() < 1900 || t.Year() > 2200 {
		return time.Time{}, false
	}
	return t.UTC(), true
}
