package latex

import (
	"strings"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// ItemField is one field of a bibliography item, named as in BibTeX.
type ItemField struct {
	Name  string
	Value string
}

// Item is one entry of a typeset bibliography: a \bibitem of a .bbl file or
// thebibliography environment, or a biblatex \entry of a .bbl file.
type Item struct {
	Key string
	// Title and Author are plain Unicode. Author is in BibTeX form
	// ("A. Name and B. Name and others"). For \bibitem entries both are
	// recovered heuristically from the formatted text (a quoted title,
	// \newblock segments, ACM's \bibinfo markup or the first sentences);
	// biblatex entries carry them as fields.
	Title  string
	Author string
	// Fields are the other fields known: year always when a year is
	// visible; for biblatex entries every \field, \list and \verb field;
	// for \bibitem entries "bibitem", the whole formatted text.
	Fields []ItemField
}

// BibItems reads the bibliography items of a .bbl file or of a text holding
// thebibliography environments (biblatex .bbl files are recognised by their
// \entry blocks). Keys defined twice keep the last item.
func BibItems(text string) []Item {
	text = StripComments(text)
	var items []Item
	if strings.Contains(text, `\entry{`) {
		items = biblatexEntries(text)
	} else {
		items = bibitems(text)
	}
	pos := make(map[string]int)
	var out []Item
	for _, it := range items {
		if i, ok := pos[it.Key]; ok {
			out[i] = it
			continue
		}
		pos[it.Key] = len(out)
		out = append(out, it)
	}
	return out
}

// bibitems splits thebibliography environments (or a bare .bbl body) at
// \bibitem.
func bibitems(text string) []Item {
	var bodies []string
	if strings.Contains(text, `\begin{thebibliography}`) {
		for rest := text; ; {
			i := strings.Index(rest, `\begin{thebibliography}`)
			if i < 0 {
				break
			}
			rest = rest[i:]
			j := strings.Index(rest, `\end{thebibliography}`)
			if j < 0 {
				bodies = append(bodies, rest)
				break
			}
			bodies = append(bodies, rest[:j])
			rest = rest[j:]
		}
	} else {
		bodies = []string{text}
	}
	var items []Item
	for _, body := range bodies {
		starts := commandOffsets(body, "bibitem")
		for n, at := range starts {
			end := len(body)
			if n+1 < len(starts) {
				end = starts[n+1]
			}
			if it, ok := bibitem(body[at:end]); ok {
				items = append(items, it)
			}
		}
	}
	return items
}

// commandOffsets returns the offsets of every \name (not a longer command
// name) in text.
func commandOffsets(text, name string) []int {
	var out []int
	needle := `\` + name
	for i := 0; ; {
		j := strings.Index(text[i:], needle)
		if j < 0 {
			return out
		}
		k := i + j + len(needle)
		if k >= len(text) || !isLetter(text[k]) {
			out = append(out, i+j)
		}
		i = k
	}
}

var (
	yearRE     = lazyregexp.New(`\b(1[89]\d\d|20\d\d)[a-z]?\b`)
	etAlRE     = lazyregexp.New(`(?i),?\s*(\bet\.?\s*al\.?|and others)\s*$`)
	initialsRE = lazyregexp.New(`^(\p{Lu}[\p{L}]?\.?[\s-]*)+$`)
	yearTailRE = lazyregexp.New(`[\s,(]*\b(1[89]\d\d|20\d\d)[a-z]?\)?[.,:]?\s*$`)
)

// bibitem reads one "\bibitem[label]{key} text" chunk.
func bibitem(chunk string) (Item, bool) {
	p := skipOptionals(chunk, len(`\bibitem`))
	key, n := rawGroup(chunk[p:])
	key = strings.TrimSpace(key)
	if n == 0 || key == "" {
		return Item{}, false
	}
	body := strings.TrimSpace(chunk[p+n:])
	it := Item{Key: key}
	raw := body
	switch {
	case strings.Contains(raw, `\bibinfo{title}`) || strings.Contains(raw, `\showarticletitle`):
		it.Title = ToUnicode(firstArg(raw, `\showarticletitle`))
		if it.Title == "" {
			it.Title = ToUnicode(bibinfo(raw, "title"))
		}
		var names []string
		for _, person := range bibinfoAll(raw, "person") {
			names = append(names, ToUnicode(person))
		}
		it.Author = strings.Join(names, " and ")
		if strings.Contains(raw, `et~al.`) || strings.Contains(raw, `et al.`) {
			if it.Author != "" {
				it.Author += " and others"
			}
		}
	default:
		it.Author, it.Title = splitFormatted(raw)
	}
	text := ToUnicode(raw)
	if ys := yearRE.FindAllString(text, -1); len(ys) > 0 {
		it.Fields = append(it.Fields, ItemField{Name: "year", Value: ys[len(ys)-1][:4]})
	}
	it.Fields = append(it.Fields, ItemField{Name: "bibitem", Value: text})
	return it, true
}

// splitFormatted recovers the author list and title of a formatted entry.
func splitFormatted(raw string) (author, title string) {
	// A quoted title: ``Title,'' (IEEE, ieeetr, many others).
	if i := strings.Index(raw, "``"); i >= 0 {
		if j := strings.Index(raw[i+2:], "''"); j >= 0 {
			title = strings.TrimRight(ToUnicode(raw[i+2:i+2+j]), ",.;: ")
			return authorList(raw[:i]), title
		}
	}
	// \newblock segments: author \newblock title \newblock venue.
	if segs := splitNewblock(raw); len(segs) >= 2 {
		return authorList(segs[0]), trimTitle(ToUnicode(segs[1]))
	}
	// Plain sentences: "Authors. Title. Venue" or "Authors (2020). Title."
	sents := sentences(ToUnicode(raw))
	switch len(sents) {
	case 0:
		return "", ""
	case 1:
		return "", trimTitle(sents[0])
	}
	return authorList(sents[0]), trimTitle(sents[1])
}

func splitNewblock(raw string) []string {
	var segs []string
	last := 0
	for _, at := range commandOffsets(raw, "newblock") {
		segs = append(segs, raw[last:at])
		last = at + len(`\newblock`)
	}
	segs = append(segs, raw[last:])
	var out []string
	for _, s := range segs {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	if len(segs) == 1 {
		return nil
	}
	return out
}

// sentences splits plain text at ". " boundaries that do not follow an
// initial ("J. Smith") or a common abbreviation. These are the fields of
// a bibliography entry ("Authors. Title. Venue"), not sentences: a field
// may start in lower case and a venue's "Proc." or "Inc." ends none, so
// lexical's sentence splitter is not used here.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '.' || s[i+1] != ' ' {
			continue
		}
		// the word before the period
		j := i
		for j > start && s[j-1] != ' ' && s[j-1] != '~' {
			j--
		}
		word := s[j:i]
		if len([]rune(word)) <= 1 || isAbbrev(word) {
			continue
		}
		out = append(out, strings.TrimSpace(s[start:i]))
		start = i + 2
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func isAbbrev(w string) bool {
	switch strings.ToLower(strings.TrimLeft(w, "(")) {
	case "al", "et", "vol", "no", "pp", "ed", "eds", "proc", "jr", "sr", "st", "dr", "inc", "ltd", "co", "vs":
		return true
	}
	// Initials glued together: "J.-P", "A.B"
	return strings.Count(w, ".") >= 1 && len(w) <= 5
}

// trimTitle removes trailing punctuation and a leading "(2020)." year.
func trimTitle(t string) string {
	t = strings.TrimSpace(t)
	t = strings.TrimRight(t, ",.;: ")
	return t
}

// authorList turns a formatted author list ("A.~Name, B.~Name, {\em et~al.},"
// or "Name, A., Name, B., and Name, C. (2020)") into BibTeX form.
func authorList(raw string) string {
	s := ToUnicode(raw)
	s = strings.TrimSpace(s)
	// Drop a trailing year "(2020)." / "2020." and punctuation.
	if loc := yearTailRE.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	s = trimAuthorEnd(s)
	others := false
	if loc := etAlRE.FindStringIndex(s); loc != nil {
		others = true
		s = trimAuthorEnd(s[:loc[0]])
	}
	s = strings.ReplaceAll(s, ", and ", ", ")
	s = strings.ReplaceAll(s, " and ", ", ")
	s = strings.ReplaceAll(s, " & ", ", ")
	var parts []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	// "Smith, J., Doe, J." lists alternate surnames and initials: join them.
	var names []string
	for i := 0; i < len(parts); i++ {
		if i+1 < len(parts) && !initialsRE.MatchString(parts[i]) && initialsRE.MatchString(parts[i+1]) {
			names = append(names, parts[i]+", "+parts[i+1])
			i++
			continue
		}
		names = append(names, parts[i])
	}
	if others {
		names = append(names, "others")
	}
	return strings.Join(names, " and ")
}

// trimAuthorEnd removes the punctuation that ends an author list, keeping
// the period of a final initial ("Roe, R.").
func trimAuthorEnd(s string) string {
	s = strings.TrimRight(s, ",;: ")
	if strings.HasSuffix(s, ".") {
		i := strings.LastIndexAny(s[:len(s)-1], " ~,")
		if last := s[i+1 : len(s)-1]; len([]rune(last)) > 1 {
			s = s[:len(s)-1]
		}
	}
	return strings.TrimRight(s, ",;: ")
}

// firstArg returns the first braced argument of the first \cmd in s.
func firstArg(s, cmd string) string {
	offs := commandOffsets(s, strings.TrimPrefix(cmd, `\`))
	if len(offs) == 0 {
		return ""
	}
	p := skipBlanks(s, offs[0]+len(cmd))
	g, _ := rawGroup(s[p:])
	return g
}

// bibinfo returns the value of the first \bibinfo{field}{value} in s.
func bibinfo(s, field string) string {
	if all := bibinfoAll(s, field); len(all) > 0 {
		return all[0]
	}
	return ""
}

func bibinfoAll(s, field string) []string {
	var out []string
	for _, at := range commandOffsets(s, "bibinfo") {
		p := skipBlanks(s, at+len(`\bibinfo`))
		name, n := rawGroup(s[p:])
		if n == 0 || strings.TrimSpace(name) != field {
			continue
		}
		p = skipBlanks(s, p+n)
		v, m := rawGroup(s[p:])
		if m > 0 {
			out = append(out, v)
		}
	}
	return out
}

// biblatexFieldNames maps biblatex field names to BibTeX ones.
var biblatexFieldNames = map[string]string{
	"journaltitle": "journal", "location": "address", "institution": "institution",
}

// biblatexEntries reads the \entry{key}{type}{…} … \endentry blocks of a
// biblatex .bbl file.
func biblatexEntries(text string) []Item {
	var items []Item
	starts := commandOffsets(text, "entry")
	ends := commandOffsets(text, "endentry")
	for n, at := range starts {
		// The block runs to the next \endentry or \entry, whichever is first.
		limit := len(text)
		if n+1 < len(starts) {
			limit = starts[n+1]
		}
		for len(ends) > 0 && ends[0] < at {
			ends = ends[1:]
		}
		if len(ends) > 0 && ends[0] < limit {
			limit = ends[0]
		}
		block := text[at+len(`\entry`) : limit]
		key, n := rawGroup(block)
		if n == 0 || strings.TrimSpace(key) == "" {
			continue
		}
		it := Item{Key: strings.TrimSpace(key)}
		body := block[n:]
		for _, at := range commandOffsets(body, "field") {
			p := skipBlanks(body, at+len(`\field`))
			name, m := rawGroup(body[p:])
			if m == 0 {
				continue
			}
			p = skipBlanks(body, p+m)
			v, m2 := rawGroup(body[p:])
			if m2 == 0 {
				continue
			}
			name = strings.TrimSpace(name)
			if alias, ok := biblatexFieldNames[name]; ok {
				name = alias
			}
			v = ToUnicode(v)
			switch name {
			case "title":
				it.Title = v
			case "labelyear", "labelmonth", "labeltitlesource", "labelnamesource", "labelalpha",
				"extraname", "extradate", "sortinit", "sortinithash", "extraalpha":
			default:
				it.Fields = append(it.Fields, ItemField{Name: name, Value: v})
			}
		}
		for _, at := range commandOffsets(body, "list") {
			p := skipBlanks(body, at+len(`\list`))
			name, m := rawGroup(body[p:])
			if m == 0 {
				continue
			}
			p = skipBlanks(body, p+m)
			_, m2 := rawGroup(body[p:]) // count
			p = skipBlanks(body, p+m2)
			v, m3 := rawGroup(body[p:])
			if m3 == 0 {
				continue
			}
			var vals []string
			for q := 0; q < len(v); {
				q = skipBlanks(v, q)
				g, k := rawGroup(v[q:])
				if k == 0 {
					break
				}
				vals = append(vals, ToUnicode(g))
				q += k
			}
			name = strings.TrimSpace(name)
			if alias, ok := biblatexFieldNames[name]; ok {
				name = alias
			}
			it.Fields = append(it.Fields, ItemField{Name: name, Value: strings.Join(vals, " and ")})
		}
		for _, at := range commandOffsets(body, "name") {
			p := skipBlanks(body, at+len(`\name`))
			role, m := rawGroup(body[p:])
			if m == 0 {
				continue
			}
			p = skipBlanks(body, p+m)
			for range 2 { // count and options
				_, k := rawGroup(body[p:])
				p = skipBlanks(body, p+k)
			}
			v, k := rawGroup(body[p:])
			if k == 0 {
				continue
			}
			names := biblatexNames(v)
			if strings.TrimSpace(role) == "author" {
				it.Author = strings.Join(names, " and ")
			} else {
				it.Fields = append(it.Fields, ItemField{Name: strings.TrimSpace(role), Value: strings.Join(names, " and ")})
			}
		}
		for _, at := range commandOffsets(body, "verb") {
			p := skipBlanks(body, at+len(`\verb`))
			name, m := rawGroup(body[p:])
			if m == 0 {
				continue
			}
			rest := body[p+m:]
			endv := strings.Index(rest, `\endverb`)
			if endv < 0 {
				continue
			}
			v := strings.TrimSpace(rest[:endv])
			v = strings.TrimSpace(strings.TrimPrefix(v, `\verb`))
			it.Fields = append(it.Fields, ItemField{Name: strings.TrimSpace(name), Value: v})
		}
		if _, ok := itemField(it, "year"); !ok {
			if d, ok := itemField(it, "date"); ok && len(d) >= 4 {
				it.Fields = append(it.Fields, ItemField{Name: "year", Value: d[:4]})
			}
		}
		if it.Title != "" || it.Author != "" || len(it.Fields) > 0 {
			items = append(items, it)
		}
	}
	return items
}

func itemField(it Item, name string) (string, bool) {
	for _, f := range it.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// biblatexNames reads "{{hash=…}{family={Doe},given={Jane},…}}…" into
// "Doe, Jane" names.
func biblatexNames(v string) []string {
	var out []string
	for q := 0; q < len(v); {
		q = skipBlanks(v, q)
		g, k := rawGroup(v[q:])
		if k == 0 {
			break
		}
		q += k
		// g = {hash=…}{family={Doe},familyi={D\bibinitperiod},given=…}
		var parts map[string]string
		for r := 0; r < len(g); {
			r = skipBlanks(g, r)
			h, n := rawGroup(g[r:])
			if n == 0 {
				break
			}
			r += n
			if strings.Contains(h, "family=") || strings.Contains(h, "given=") {
				parts = nameParts(h)
			}
		}
		if parts == nil {
			continue
		}
		name := ToUnicode(strings.TrimSpace(parts["prefix"] + " " + parts["family"]))
		if given := ToUnicode(parts["given"]); given != "" {
			name += ", " + given
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// nameParts reads "family={Doe},familyi={D.},given={Jane}" into a map.
func nameParts(h string) map[string]string {
	m := make(map[string]string)
	for i := 0; i < len(h); {
		eq := strings.IndexByte(h[i:], '=')
		if eq < 0 {
			break
		}
		key := strings.Trim(strings.TrimSpace(h[i:i+eq]), ",")
		p := i + eq + 1
		var val string
		if p < len(h) && h[p] == '{' {
			g, n := rawGroup(h[p:])
			val, p = g, p+n
		} else {
			end := strings.IndexByte(h[p:], ',')
			if end < 0 {
				end = len(h) - p
			}
			val, p = h[p:p+end], p+end
		}
		m[key] = val
		i = p
		for i < len(h) && (h[i] == ',' || h[i] == ' ') {
			i++
		}
	}
	return m
}
