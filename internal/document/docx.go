package document

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// maxPart bounds the decompressed bytes read from one part of a .docx
// (document, footnotes, numbering, styles, relationships): a zip bomb stops
// there, whatever the zip's headers claim.
const maxPart = 64 << 20

// errTooMuchText stops a walk whose text passed MaxText.
var errTooMuchText = errors.New("too much text")

// docxText reads a Word document: the main part that the package's
// relationships name (word/document.xml in every writer seen), with its
// hyperlinks, list numbering, heading styles and footnotes.
func docxText(name string, data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("%s: not a .docx (not a zip archive): %v: %w", name, err, claimtrace.ErrInvalid)
	}
	pkg := docxPackage{files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		pkg.files[path.Clean(strings.TrimPrefix(f.Name, "/"))] = f
	}
	main := "word/document.xml"
	if rels, err := pkg.rels("_rels/.rels"); err == nil {
		for _, r := range rels {
			if strings.HasSuffix(r.Type, "/officeDocument") && !r.external() {
				main = path.Clean(strings.TrimPrefix(r.Target, "/"))
			}
		}
	}
	if pkg.files[main] == nil {
		return "", fmt.Errorf("%s: no %s: not a Word .docx (an .xlsx, a .pptx, an .odt renamed?): %w", name, main, claimtrace.ErrInvalid)
	}
	d := &docx{links: map[string]string{}, headings: map[string]int{}, styleNum: map[string]numRef{},
		lists: map[string]*numDef{}, counters: map[string][]int{}, notes: map[string]int{}}
	if err := d.load(&pkg, main); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var out strings.Builder
	if err := pkg.walk(main, func(dec *xml.Decoder) error { return d.body(dec, &out, "body") }); err != nil {
		return "", fmt.Errorf("%s: %s: %w", name, main, err)
	}
	if err := d.appendNotes(&pkg, main, &out); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return strings.TrimSpace(out.String()) + "\n", nil
}

// docxPackage is the zip of a .docx, its parts by name.
type docxPackage struct {
	files map[string]*zip.File
}

// read returns a part's bytes, reading at most maxPart of them.
func (p *docxPackage) read(name string) ([]byte, error) {
	f := p.files[name]
	if f == nil {
		return nil, fmt.Errorf("%s: %w", name, errNoPart)
	}
	if f.UncompressedSize64 > maxPart {
		return nil, fmt.Errorf("%s: %d bytes uncompressed, over the %d-byte limit of a part: %w", name, f.UncompressedSize64, maxPart, claimtrace.ErrTooLarge)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", name, err, claimtrace.ErrInvalid)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxPart+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", name, err, claimtrace.ErrInvalid)
	}
	if len(b) > maxPart {
		return nil, fmt.Errorf("%s: over the %d-byte limit of a part: %w", name, maxPart, claimtrace.ErrTooLarge)
	}
	return b, nil
}

// errNoPart reports a part the package does not hold.
var errNoPart = errors.New("no such part")

// walk decodes a part with fn.
func (p *docxPackage) walk(name string, fn func(*xml.Decoder) error) error {
	b, err := p.read(name)
	if err != nil {
		return err
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	if err := fn(dec); err != nil {
		if errors.Is(err, errTooMuchText) {
			return fmt.Errorf("more than %d bytes of text: %w", MaxText, claimtrace.ErrTooLarge)
		}
		return err
	}
	return nil
}

// relationship is one entry of a part's .rels.
type relationship struct {
	ID         string `xml:"Id,attr"`
	Type       string `xml:"Type,attr"`
	Target     string `xml:"Target,attr"`
	TargetMode string `xml:"TargetMode,attr"`
}

func (r relationship) external() bool { return strings.EqualFold(r.TargetMode, "External") }

// rels reads a relationships part.
func (p *docxPackage) rels(name string) ([]relationship, error) {
	b, err := p.read(name)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rels []relationship `xml:"Relationship"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v: %w", name, err, claimtrace.ErrInvalid)
	}
	return doc.Rels, nil
}

// relsOf returns the name of the relationships part of a part, and the
// folder its relative targets start from.
func relsOf(part string) (string, string) {
	dir, file := path.Split(part)
	return path.Join(dir, "_rels", file+".rels"), dir
}

// numRef is a paragraph's list membership: numbering id and level.
type numRef struct {
	id    string
	level int
}

// numLevel is one level of a list definition.
type numLevel struct {
	start int
	fmt   string // decimal, bullet, lowerLetter, upperLetter, lowerRoman, upperRoman, …
	text  string // "%1.", "[%1]", "%1.%2."
}

// numDef is a list definition (an abstractNum) as a w:num uses it.
// Counting belongs to the abstract list: two w:num of one abstractNum go
// on counting from each other (LibreOffice numbers a list's first item
// through one and the rest through another), except that a w:num with a
// start override restarts the count where it is first used.
type numDef struct {
	abstract string
	levels   [9]numLevel
	starts   map[int]int // the w:num's startOverride by level
	used     bool
}

// docx is what reading a document needs besides the document: hyperlink
// targets, heading styles, list definitions, and the state of the walk
// (list counters, the footnotes referenced in order).
type docx struct {
	links    map[string]string // relationship id → external URL (the main part's)
	headings map[string]int    // style id → heading level 1–6
	styleNum map[string]numRef // style id → the list its paragraphs belong to
	lists    map[string]*numDef
	counters map[string][]int // abstractNum id → count by level
	notes    map[string]int   // "f3", "e1" → its number, in order of reference
	order    []string
	size     int
}

// load reads the parts the main one relies on. Missing optional parts are
// no error; corrupt ones are.
func (d *docx) load(p *docxPackage, main string) error {
	relsName, dir := relsOf(main)
	rels, err := p.rels(relsName)
	if err != nil && !errors.Is(err, errNoPart) {
		return err
	}
	parts := map[string]string{}
	for _, r := range rels {
		if r.external() {
			d.links[r.ID] = r.Target
			continue
		}
		kind := r.Type[strings.LastIndexByte(r.Type, '/')+1:]
		parts[kind] = path.Join(dir, r.Target)
	}
	if name := cmpOr(parts["styles"], path.Join(dir, "styles.xml")); p.files[name] != nil {
		if err := p.walk(name, d.readStyles); err != nil {
			return err
		}
	}
	if name := cmpOr(parts["numbering"], path.Join(dir, "numbering.xml")); p.files[name] != nil {
		if err := p.walk(name, d.readNumbering); err != nil {
			return err
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// attr returns the value of the attribute with the given local name.
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// relAttr returns the value of an r:id attribute (the relationships
// namespace's "id", not w:id).
func relAttr(se xml.StartElement) string {
	for _, a := range se.Attr {
		if a.Name.Local == "id" && strings.Contains(a.Name.Space, "relationships") {
			return a.Value
		}
	}
	return ""
}

// readStyles finds the heading styles (named "heading N" or "Title", or
// with an outline level) and the styles that number their paragraphs.
func (d *docx) readStyles(dec *xml.Decoder) error {
	var id, name string
	outline := -1
	var num numRef
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("styles: %v: %w", err, claimtrace.ErrInvalid)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				id, name, outline, num = attr(t, "styleId"), "", -1, numRef{}
			case "name":
				name = strings.ToLower(attr(t, "val"))
			case "outlineLvl":
				if v, err := strconv.Atoi(attr(t, "val")); err == nil {
					outline = v
				}
			case "numId":
				num.id = attr(t, "val")
			case "ilvl":
				num.level, _ = strconv.Atoi(attr(t, "val"))
			}
		case xml.EndElement:
			if t.Name.Local != "style" || id == "" {
				continue
			}
			switch {
			case name == "title":
				d.headings[id] = 1
			case strings.HasPrefix(name, "heading "):
				if v, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && v >= 1 {
					d.headings[id] = min(v, 6)
				}
			case outline >= 0 && outline < 9:
				d.headings[id] = min(outline+1, 6)
			}
			if num.id != "" && num.id != "0" {
				d.styleNum[id] = num
			}
		}
	}
}

// readNumbering reads the list definitions: each w:num's abstract list,
// its levels' start, format and label text, and start overrides.
func (d *docx) readNumbering(dec *xml.Decoder) error {
	abstract := map[string]*numDef{}
	type numUse struct {
		abstract string
		starts   map[int]int
	}
	uses := map[string]*numUse{}
	var curAbs *numDef
	var curNum *numUse
	level := -1
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("numbering: %v: %w", err, claimtrace.ErrInvalid)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "abstractNum":
				curAbs = &numDef{}
				abstract[attr(t, "abstractNumId")] = curAbs
			case "num":
				if len(uses) < 10000 {
					curNum = &numUse{starts: map[int]int{}}
					uses[attr(t, "numId")] = curNum
				}
			case "abstractNumId":
				if curNum != nil {
					curNum.abstract = attr(t, "val")
				}
			case "lvl", "lvlOverride":
				level = -1
				if v, err := strconv.Atoi(attr(t, "ilvl")); err == nil && v >= 0 && v < 9 {
					level = v
				}
			case "start":
				if v, err := strconv.Atoi(attr(t, "val")); err == nil && curAbs != nil && level >= 0 {
					curAbs.levels[level].start = v
				}
			case "startOverride":
				if v, err := strconv.Atoi(attr(t, "val")); err == nil && curNum != nil && level >= 0 {
					curNum.starts[level] = v
				}
			case "numFmt":
				if curAbs != nil && level >= 0 {
					curAbs.levels[level].fmt = attr(t, "val")
				}
			case "lvlText":
				if curAbs != nil && level >= 0 {
					curAbs.levels[level].text = attr(t, "val")
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "abstractNum":
				curAbs = nil
			case "num":
				curNum = nil
			}
		}
	}
	for id, u := range uses {
		if a := abstract[u.abstract]; a != nil {
			def := *a
			def.abstract, def.starts = u.abstract, u.starts
			d.lists[id] = &def
		}
	}
	return nil
}

// para is a paragraph being read.
type para struct {
	text    strings.Builder
	style   string
	num     numRef
	hasNum  bool
	inTable bool
}

// field is a hyperlink or a complex field being read: where its shown
// text starts in the paragraph, and its URL.
type field struct {
	url     string
	instr   strings.Builder
	start   int
	shown   bool // past the field's "separate": its text is shown
	complex bool
}

// body walks a document body (or a footnote's), writing its text to out.
// until is the element that ends the walk ("body", "footnote").
func (d *docx) body(dec *xml.Decoder, out *strings.Builder, until string) error {
	var (
		p       *para
		fields  []*field
		skip    int // depth inside content not shown: deletions, fallbacks, text boxes, instructions
		inText  bool
		row     []string
		cell    strings.Builder
		tables  int
		lastEnd string // "list", "row", "para": what the previous block was
	)
	emit := func(block, kind string) {
		if block == "" {
			return
		}
		if out.Len() > 0 {
			if kind == lastEnd && (kind == "list" || kind == "row") {
				out.WriteString("\n")
			} else {
				out.WriteString("\n\n")
			}
		}
		out.WriteString(block)
		lastEnd = kind
	}
	write := func(s string) error {
		if p == nil || s == "" {
			return nil
		}
		d.size += len(s)
		if d.size > MaxText {
			return errTooMuchText
		}
		p.text.WriteString(s)
		return nil
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%v: %w", err, claimtrace.ErrInvalid)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if skip > 0 {
				switch name {
				case "del", "Fallback", "txbxContent", "instrText", "delText":
					skip++
				}
				continue
			}
			switch name {
			case "del", "Fallback", "txbxContent", "delText":
				skip++
			case "instrText":
				if n := len(fields); n > 0 && fields[n-1].complex && !fields[n-1].shown {
					if s, err := charData(dec); err == nil {
						fields[n-1].instr.WriteString(s)
					}
					continue
				}
				skip++
			case "tbl":
				tables++
			case "tr":
				if tables == 1 {
					row = row[:0]
				}
			case "tc":
				if tables == 1 {
					cell.Reset()
				}
			case "p":
				p = &para{inTable: tables > 0}
				fields = fields[:0]
			case "pStyle":
				if p != nil {
					p.style = attr(t, "val")
				}
			case "numId":
				if p != nil {
					p.num.id, p.hasNum = attr(t, "val"), true
				}
			case "ilvl":
				if p != nil {
					p.num.level, _ = strconv.Atoi(attr(t, "val"))
				}
			case "t":
				inText = true
			case "tab", "ptab":
				if err := write("\t"); err != nil {
					return err
				}
			case "br", "cr":
				if err := write("\n"); err != nil {
					return err
				}
			case "noBreakHyphen":
				if err := write("-"); err != nil {
					return err
				}
			case "footnoteReference", "endnoteReference":
				if err := write(d.noteMarker(name, attr(t, "id"))); err != nil {
					return err
				}
			case "hyperlink":
				if p != nil {
					fields = append(fields, &field{url: d.links[relAttr(t)], start: p.text.Len(), shown: true})
				}
			case "fldSimple":
				if p != nil {
					fields = append(fields, &field{url: hyperlinkOf(attr(t, "instr")), start: p.text.Len(), shown: true})
				}
			case "fldChar":
				if p == nil {
					continue
				}
				switch attr(t, "fldCharType") {
				case "begin":
					fields = append(fields, &field{complex: true})
				case "separate":
					if n := len(fields); n > 0 && fields[n-1].complex {
						f := fields[n-1]
						f.shown, f.start, f.url = true, p.text.Len(), hyperlinkOf(f.instr.String())
					}
				case "end":
					if n := len(fields); n > 0 && fields[n-1].complex {
						fields = closeField(p, fields)
					}
				}
			}
		case xml.CharData:
			if inText && skip == 0 {
				if n := len(fields); n > 0 && fields[n-1].complex && !fields[n-1].shown {
					continue // a field's instruction, not its text
				}
				if err := write(string(t)); err != nil {
					return err
				}
			}
		case xml.EndElement:
			name := t.Name.Local
			if skip > 0 {
				switch name {
				case "del", "Fallback", "txbxContent", "instrText", "delText":
					skip--
				}
				continue
			}
			switch name {
			case "t":
				inText = false
			case "hyperlink", "fldSimple":
				if p != nil && len(fields) > 0 {
					fields = closeField(p, fields)
				}
			case "p":
				if p == nil {
					continue
				}
				for len(fields) > 0 {
					fields = closeField(p, fields)
				}
				text := strings.TrimRight(p.text.String(), " \t\n")
				if p.inTable {
					if tables == 1 && strings.TrimSpace(text) != "" {
						if cell.Len() > 0 {
							cell.WriteString(" ")
						}
						cell.WriteString(strings.Join(strings.Fields(text), " "))
					}
					p = nil
					continue
				}
				block, kind := d.paragraph(p, text)
				emit(block, kind)
				p = nil
			case "tc":
				if tables == 1 {
					row = append(row, strings.ReplaceAll(cell.String(), "|", "\\|"))
				}
			case "tr":
				if tables == 1 && len(row) > 0 {
					line := "| " + strings.Join(row, " | ") + " |"
					if lastEnd != "row" {
						// The first row heads a Markdown table.
						line += "\n|" + strings.Repeat("---|", len(row))
					}
					emit(line, "row")
				}
			case "tbl":
				tables--
			case until:
				return nil
			}
		}
	}
}

// charData reads the text of the element just opened, up to its end.
func charData(dec *xml.Decoder) (string, error) {
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return b.String(), err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if b.Len() < 4096 {
				b.Write(t)
			}
		case xml.EndElement:
			return b.String(), nil
		}
	}
}

// closeField ends the innermost field: a hyperlink's shown text becomes a
// Markdown link [text](url); other fields leave their text as it is.
func closeField(p *para, fields []*field) []*field {
	f := fields[len(fields)-1]
	fields = fields[:len(fields)-1]
	if f.url == "" || !f.shown {
		return fields
	}
	all := p.text.String()
	if f.start > len(all) {
		return fields
	}
	shown := all[f.start:]
	if strings.TrimSpace(shown) == "" {
		return fields
	}
	p.text.Reset()
	p.text.WriteString(all[:f.start])
	if !balanced(shown) {
		shown = strings.NewReplacer("[", "\\[", "]", "\\]").Replace(shown)
	}
	p.text.WriteString("[" + shown + "](" + strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(f.url) + ")")
	return fields
}

// balanced reports whether the brackets of s pair up, so that s can be a
// Markdown link's text as it is ("[1]" makes "[[1]](url)").
func balanced(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// hyperlinkOf returns the URL of a HYPERLINK field instruction
// (`HYPERLINK "https://…" \o "tip"`), or "".
func hyperlinkOf(instr string) string {
	f := strings.Fields(instr)
	if len(f) < 2 || !strings.EqualFold(f[0], "HYPERLINK") {
		return ""
	}
	for _, w := range f[1:] {
		if strings.HasPrefix(w, `\`) {
			if w == `\l` {
				return "" // a link inside the document
			}
			continue
		}
		return strings.Trim(w, `"`)
	}
	return ""
}

// paragraph renders a finished paragraph as a Markdown-like block: a
// heading, a list item with the label Word shows ("3.", "[3]", "-"), or
// plain text.
func (d *docx) paragraph(p *para, text string) (string, string) {
	if strings.TrimSpace(text) == "" {
		return "", ""
	}
	if lvl := d.headings[p.style]; lvl > 0 {
		return strings.Repeat("#", lvl) + " " + strings.Join(strings.Fields(text), " "), "heading"
	}
	num, ok := p.num, p.hasNum
	if !ok {
		num, ok = d.styleNum[p.style]
	}
	if ok && num.id != "" && num.id != "0" {
		if label := d.label(num); label != "" {
			return strings.Repeat("  ", min(max(num.level, 0), 8)) + label + " " + text, "list"
		}
	}
	return text, "para"
}

// label advances the list counter of num and returns the label Word shows
// for it; "" when the list is not defined.
func (d *docx) label(num numRef) string {
	def := d.lists[num.id]
	lvl := min(max(num.level, 0), 8)
	if def == nil {
		return "-"
	}
	c := d.counters[def.abstract]
	if c == nil {
		c = make([]int, 9)
		for i := range c {
			c[i] = def.start(i) - 1
		}
		d.counters[def.abstract] = c
	}
	if !def.used {
		def.used = true
		for l, v := range def.starts {
			if l >= 0 && l < 9 {
				c[l] = v - 1
			}
		}
	}
	c[lvl]++
	for i := lvl + 1; i < 9; i++ {
		c[i] = def.start(i) - 1
	}
	l := def.levels[lvl]
	if l.fmt == "bullet" || l.fmt == "none" || l.fmt == "" && !strings.Contains(l.text, "%") {
		return "-"
	}
	text := l.text
	if text == "" {
		text = "%" + strconv.Itoa(lvl+1) + "."
	}
	for i := 0; i <= lvl; i++ {
		text = strings.ReplaceAll(text, "%"+strconv.Itoa(i+1), formatNumber(c[i], def.levels[i].fmt))
	}
	return strings.TrimSpace(text)
}

// start returns the first number of a level (1 unless set).
func (n *numDef) start(level int) int {
	if s, ok := n.starts[level]; ok {
		return s
	}
	if s := n.levels[level].start; s > 0 {
		return s
	}
	return 1
}

// formatNumber writes n in a list's number format.
func formatNumber(n int, format string) string {
	switch format {
	case "lowerLetter", "upperLetter":
		s := ""
		for k := n; k > 0 && len(s) < 8; k = (k - 1) / 26 {
			s = string(rune('a'+(k-1)%26)) + s
		}
		if format == "upperLetter" {
			s = strings.ToUpper(s)
		}
		return s
	case "lowerRoman", "upperRoman":
		s := roman(n)
		if format == "upperRoman" {
			s = strings.ToUpper(s)
		}
		return s
	}
	return strconv.Itoa(n)
}

// roman writes 1–3999 in lower-case Roman numerals (other numbers in
// digits).
func roman(n int) string {
	if n <= 0 || n >= 4000 {
		return strconv.Itoa(n)
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

// noteMarker returns the marker of a footnote or endnote reference, "[^3]"
// (endnotes "[^e3]"), numbering notes in the order the text refers to them,
// as Word shows them.
func (d *docx) noteMarker(kind, id string) string {
	prefix := "f"
	if kind == "endnoteReference" {
		prefix = "e"
	}
	key := prefix + id
	n, ok := d.notes[key]
	if !ok {
		count := 0
		for _, k := range d.order {
			if k[0] == prefix[0] {
				count++
			}
		}
		n = count + 1
		d.notes[key] = n
		d.order = append(d.order, key)
	}
	if prefix == "e" {
		return "[^e" + strconv.Itoa(n) + "]"
	}
	return "[^" + strconv.Itoa(n) + "]"
}

// appendNotes writes the footnotes and endnotes the text refers to, in
// order, as "[^n]: …" definitions after the text.
func (d *docx) appendNotes(p *docxPackage, main string, out *strings.Builder) error {
	if len(d.order) == 0 {
		return nil
	}
	_, dir := relsOf(main)
	texts := map[string]string{}
	for _, part := range []struct{ name, elem, prefix string }{
		{path.Join(dir, "footnotes.xml"), "footnote", "f"},
		{path.Join(dir, "endnotes.xml"), "endnote", "e"},
	} {
		if p.files[part.name] == nil {
			continue
		}
		// A note's hyperlinks are in the notes part's own relationships.
		saved := d.links
		d.links = map[string]string{}
		relsName, _ := relsOf(part.name)
		if rels, err := p.rels(relsName); err == nil {
			for _, r := range rels {
				if r.external() {
					d.links[r.ID] = r.Target
				}
			}
		}
		err := p.walk(part.name, func(dec *xml.Decoder) error {
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return fmt.Errorf("%v: %w", err, claimtrace.ErrInvalid)
				}
				se, ok := tok.(xml.StartElement)
				if !ok || se.Name.Local != part.elem {
					continue
				}
				key := part.prefix + attr(se, "id")
				var b strings.Builder
				if err := d.body(dec, &b, part.elem); err != nil {
					return err
				}
				if _, used := d.notes[key]; used {
					texts[key] = strings.Join(strings.Fields(b.String()), " ")
				}
			}
		})
		d.links = saved
		if err != nil {
			return fmt.Errorf("%s: %w", part.name, err)
		}
	}
	out.WriteString("\n")
	for _, key := range d.order {
		marker := "[^" + strconv.Itoa(d.notes[key]) + "]"
		if key[0] == 'e' {
			marker = "[^e" + strconv.Itoa(d.notes[key]) + "]"
		}
		fmt.Fprintf(out, "\n%s: %s\n", marker, texts[key])
	}
	return nil
}
