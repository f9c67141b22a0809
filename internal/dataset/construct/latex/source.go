package latex

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// Limits that keep a hostile source tree (an \input bomb, a huge file) from
// exhausting memory.
const (
	maxFileBytes     = 16 << 20 // one .tex/.bib/.bbl file
	maxExpandedBytes = 64 << 20 // the whole expanded document
	maxIncludeDepth  = 16
	maxIncludes      = 4000
)

// Tree is a LaTeX source folder opened for reading. Every access goes
// through an os.Root, so paths, "..", absolute names and symbolic links
// cannot reach outside it.
type Tree struct {
	dir   string
	root  *os.Root
	files []string // regular files, slash-separated, relative to dir, sorted
}

// OpenTree opens dir and lists its regular files.
func OpenTree(dir string) (*Tree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open source tree %s: %w", dir, err)
	}
	t := &Tree{dir: dir, root: root}
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			t.files = append(t.files, p)
		}
		return nil
	})
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("list source tree %s: %w", dir, err)
	}
	slices.Sort(t.files)
	return t, nil
}

// Close releases the tree's directory handle.
func (t *Tree) Close() error { return t.root.Close() }

// Dir returns the folder the tree was opened on.
func (t *Tree) Dir() string { return t.dir }

// Files returns the regular files of the tree, slash-separated and relative
// to its folder, sorted.
func (t *Tree) Files() []string { return t.files }

// has reports whether name is a regular file of the tree.
func (t *Tree) has(name string) bool {
	_, ok := slices.BinarySearch(t.files, name)
	return ok
}

// ReadFile returns the content of the regular file name (relative,
// slash-separated), refusing files over 16 MiB.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	if !t.has(name) {
		return nil, fmt.Errorf("read %s in %s: %w", name, t.dir, fs.ErrNotExist)
	}
	f, err := t.root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s in %s: %w", name, t.dir, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s in %s: %w", name, t.dir, err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("read %s in %s: over %d bytes: %w", name, t.dir, maxFileBytes, claimtrace.ErrTooLarge)
	}
	return b, nil
}

// ErrNoMain reports a source tree without a main LaTeX file.
var ErrNoMain = fmt.Errorf("no .tex file with \\documentclass: %w", claimtrace.ErrNotFound)

// FindMain returns the main file of the tree: the .tex file with a
// \documentclass (or LaTeX 2.09 \documentstyle). When several have one,
// files that others \input are dropped, standalone and subfiles documents
// lose, and a \begin{document}, a bibliography, a top-level position and a
// conventional name (main, ms, paper) win, then the larger file.
func (t *Tree) FindMain() (string, error) {
	type cand struct {
		name  string
		score int
		size  int
	}
	var cands []cand
	included := make(map[string]bool)
	for _, name := range t.files {
		if !strings.EqualFold(path.Ext(name), ".tex") {
			continue
		}
		b, err := t.ReadFile(name)
		if err != nil {
			if errors.Is(err, claimtrace.ErrTooLarge) {
				continue
			}
			return "", err
		}
		text := StripComments(string(b))
		for _, inc := range includes(text) {
			for _, p := range t.candidates(inc, path.Dir(name), ".") {
				included[p] = true
			}
		}
		class, ok := documentClass(text)
		if !ok {
			continue
		}
		c := cand{name: name, size: len(b)}
		if class == "subfiles" || class == "standalone" {
			c.score -= 8
		}
		if strings.Contains(text, `\begin{document}`) {
			c.score += 4
		}
		if strings.Contains(text, `\bibliography`) || strings.Contains(text, `\addbibresource`) ||
			strings.Contains(text, `\begin{thebibliography}`) || strings.Contains(text, `\printbibliography`) {
			c.score += 2
		}
		if !strings.Contains(name, "/") {
			c.score++
		}
		switch strings.TrimSuffix(path.Base(name), path.Ext(name)) {
		case "main", "ms", "paper", "article", "manuscript", "root":
			c.score++
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return "", fmt.Errorf("%s: %w", t.dir, ErrNoMain)
	}
	for i := range cands {
		if included[cands[i].name] {
			cands[i].score -= 16
		}
	}
	best := slices.MaxFunc(cands, func(a, b cand) int {
		if a.score != b.score {
			return a.score - b.score
		}
		if a.size != b.size {
			return a.size - b.size
		}
		return strings.Compare(b.name, a.name)
	})
	return best.name, nil
}

// documentClass returns the class named by the first \documentclass (or
// \documentstyle) of a comment-stripped text.
func documentClass(text string) (string, bool) {
	for _, cmd := range []string{`\documentclass`, `\documentstyle`} {
		i := strings.Index(text, cmd)
		if i < 0 {
			continue
		}
		p := skipOptionals(text, i+len(cmd))
		group, n := rawGroup(text[p:])
		if n == 0 {
			return "", true
		}
		return strings.TrimSpace(group), true
	}
	return "", false
}

// Document is a main file with its inclusions expanded.
type Document struct {
	// Main is the main file, relative to the tree.
	Main string
	// Text is the expanded text with comments stripped.
	Text string
	// Files are the files read, main first, in inclusion order.
	Files []string
	// Missing are inclusion targets that were not found, refused (outside
	// the tree, cyclic, too deep) or unreadable.
	Missing []string
}

// Jobname returns the main file's name without directory and extension,
// what LaTeX calls \jobname.
func (d *Document) Jobname() string {
	return strings.TrimSuffix(path.Base(d.Main), path.Ext(d.Main))
}

// Expand reads main and replaces every \input, \include, \subfile,
// \import and \subimport by the included file's text (comments stripped),
// recursively. Targets are looked up relative to the main file's folder and
// to the including file's folder, with and without ".tex". Text after
// \endinput is dropped.
func (t *Tree) Expand(main string) (*Document, error) {
	d := &Document{Main: main}
	e := &expander{t: t, doc: d, mainDir: path.Dir(main)}
	text, err := e.file(main, 0, nil)
	if err != nil {
		return nil, err
	}
	d.Text = text
	return d, nil
}

type expander struct {
	t        *Tree
	doc      *Document
	mainDir  string
	size     int
	includes int
}

func (e *expander) file(name string, depth int, stack []string) (string, error) {
	b, err := e.t.ReadFile(name)
	if err != nil {
		return "", err
	}
	text := StripComments(string(b))
	if i := endInput(text); i >= 0 {
		text = text[:i]
	}
	e.doc.Files = append(e.doc.Files, name)
	e.size += len(text)
	stack = append(stack, name)
	var out strings.Builder
	last := 0
	for _, inc := range includeCommands(text) {
		out.WriteString(text[last:inc.start])
		last = inc.end
		target, ok := e.resolve(inc, path.Dir(name), stack, depth)
		if !ok {
			e.doc.Missing = append(e.doc.Missing, inc.arg)
			continue
		}
		sub, err := e.file(target, depth+1, stack)
		if err != nil {
			e.doc.Missing = append(e.doc.Missing, inc.arg)
			continue
		}
		out.WriteString("\n")
		out.WriteString(sub)
		out.WriteString("\n")
	}
	out.WriteString(text[last:])
	return out.String(), nil
}

// resolve finds the file an inclusion names, refusing cycles and runaway
// inclusion.
func (e *expander) resolve(inc include, curDir string, stack []string, depth int) (string, bool) {
	if depth >= maxIncludeDepth || e.includes >= maxIncludes || e.size >= maxExpandedBytes {
		return "", false
	}
	// LaTeX reads the first file that exists; when that one is already
	// being expanded, the inclusion is a cycle and is refused.
	cands := e.t.candidates(inc.arg, curDir, e.mainDir)
	if len(cands) == 0 || slices.Contains(stack, cands[0]) {
		return "", false
	}
	e.includes++
	return cands[0], true
}

// candidates returns the existing files an inclusion argument may name, in
// LaTeX's order of preference.
func (t *Tree) candidates(arg, curDir, mainDir string) []string {
	arg = strings.TrimSpace(arg)
	arg = strings.Trim(arg, `"`)
	if arg == "" || strings.HasPrefix(arg, "/") || strings.Contains(arg, `\`) || strings.Contains(arg, "#") ||
		(len(arg) > 1 && arg[1] == ':') {
		return nil
	}
	var out []string
	for _, dir := range []string{mainDir, curDir} {
		for _, name := range []string{arg + ".tex", arg} {
			p := path.Clean(path.Join(dir, name))
			if p == ".." || strings.HasPrefix(p, "../") {
				continue
			}
			if t.has(p) && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// include is one inclusion command in a text.
type include struct {
	start, end int    // span of the command in the text
	arg        string // the file named, joined with the folder of \import
}

// includeCmds are the inclusion commands and whether they take a folder
// argument first (\import{dir/}{file}).
var includeCmds = map[string]bool{
	"input": false, "include": false, "subfile": false, "InputIfFileExists": false,
	"import": true, "subimport": true, "inputfrom": true, "includefrom": true,
	"subinputfrom": true, "subincludefrom": true,
}

// includes returns the file arguments of every inclusion command in text.
func includes(text string) []string {
	var out []string
	for _, inc := range includeCommands(text) {
		out = append(out, inc.arg)
	}
	return out
}

// includeCommands finds the inclusion commands of a comment-stripped text.
func includeCommands(text string) []include {
	braces := indexBraces(text)
	var out []include
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		name, n := commandName(text[i:])
		withDir, ok := includeCmds[name]
		if !ok || !isLetter(text[i+1]) {
			i += max(n, 1)
			continue
		}
		p := skipBlanks(text, i+n)
		if p < len(text) && text[p] == '*' {
			p = skipBlanks(text, p+1)
		}
		dir := ""
		if withDir {
			g, m := braces.group(text, p)
			if m == 0 {
				i = p
				continue
			}
			dir = strings.TrimSpace(g)
			p = skipBlanks(text, p+m)
		}
		var arg string
		if p < len(text) && text[p] == '{' {
			g, m := braces.group(text, p)
			arg, p = g, p+m
		} else if name == "input" {
			// TeX primitive syntax: \input file
			q := p
			for q < len(text) && !strings.ContainsRune(" \t\r\n{}\\%", rune(text[q])) {
				q++
			}
			arg, p = text[p:q], q
		}
		if name == "InputIfFileExists" {
			// \InputIfFileExists{file}{then}{else}: keep the branches as text.
			out = append(out, include{start: i, end: p, arg: arg})
			i = p
			continue
		}
		if arg != "" {
			if dir != "" {
				arg = path.Join(dir, arg)
			}
			out = append(out, include{start: i, end: p, arg: arg})
		}
		i = max(p, i+n)
	}
	return out
}

// endInput returns the offset of \endinput in text, or -1.
func endInput(text string) int {
	for i := 0; ; {
		j := strings.Index(text[i:], `\endinput`)
		if j < 0 {
			return -1
		}
		k := i + j + len(`\endinput`)
		if k >= len(text) || !isLetter(text[k]) {
			return i + j
		}
		i = k
	}
}
