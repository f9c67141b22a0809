package construct

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/bibtex"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/latex"
)

// MetaField is one entry of a reference's meta_info, kept in order.
type MetaField struct {
	Name  string
	Value string
}

// Ref is one ground-truth reference as released in
// ReportBench_v1.1_GT/<arxiv_id>.jsonl. Unlike claimtrace.Reference it keeps
// the order of meta_info, so the file can be written byte for byte in the
// released layout.
type Ref struct {
	BibID  string
	Title  string
	Author string
	Meta   []MetaField
}

// Reference returns r as the domain type.
func (r Ref) Reference() claimtrace.Reference {
	meta := make(map[string]string, len(r.Meta))
	for _, f := range r.Meta {
		meta[f.Name] = f.Value
	}
	return claimtrace.Reference{BibID: r.BibID, Title: r.Title, Author: r.Author, Meta: meta}
}

// verbatimFields hold identifiers and paths, not text: they are copied as
// written (white space collapsed) instead of being converted from LaTeX.
var verbatimFields = map[string]bool{
	"url": true, "doi": true, "file": true, "pdf": true, "eprint": true, "urldate": true,
	"isbn": true, "issn": true, "lccn": true, "arxivid": true, "pmid": true, "mrnumber": true,
	"zmnumber": true, "biburl": true, "bibsource": true, "timestamp": true,
}

// RefFromEntry converts a BibTeX entry the way ReportBench's ground truth
// was cleaned: title and author become plain Unicode (accents composed,
// {{Braces}} removed, \textendash and -- turned into dashes; "and others"
// kept), and every other field goes into meta_info under its lowercased
// name, in reverse order of the source as in the released files. Page
// ranges keep "--" as released; identifiers (doi, url, file, isbn, …) are
// copied verbatim.
func RefFromEntry(e *bibtex.Entry) Ref {
	r := Ref{BibID: e.Key}
	for i := len(e.Fields) - 1; i >= 0; i-- {
		f := e.Fields[i]
		switch f.Name {
		case "title":
			r.Title = latex.ToUnicode(f.Value)
			continue
		case "author":
			r.Author = latex.ToUnicode(f.Value)
			continue
		}
		r.Meta = append(r.Meta, MetaField{Name: f.Name, Value: cleanField(f.Name, f.Value)})
	}
	return r
}

// cleanField converts one meta_info value.
func cleanField(name, value string) string {
	switch {
	case verbatimFields[name]:
		return value
	case strings.HasSuffix(name, "pages"):
		return latex.ToUnicodeWith(value, latex.UnicodeOptions{KeepDashes: true})
	}
	return latex.ToUnicode(value)
}

// refFromItem converts a typeset bibliography item (from a .bbl file or a
// thebibliography environment).
func refFromItem(it latex.Item) Ref {
	r := Ref{BibID: it.Key, Title: it.Title, Author: it.Author}
	for i := len(it.Fields) - 1; i >= 0; i-- {
		r.Meta = append(r.Meta, MetaField{Name: it.Fields[i].Name, Value: it.Fields[i].Value})
	}
	return r
}

// RefsOptions configures ExtractRefs.
type RefsOptions struct {
	// Main is the main .tex file relative to the source folder; empty means
	// find it (the file with \documentclass).
	Main string
}

// RefsResult is the ground truth of one source tree and how it was found.
type RefsResult struct {
	// Main is the main file used.
	Main string `json:"main"`
	// Refs are the cited references in order of first citation.
	Refs []Ref `json:"-"`
	// Cited counts the distinct keys cited in the main text (\nocite
	// excluded).
	Cited int `json:"cited"`
	// Missing are cited keys found in no bibliography.
	Missing []string `json:"missing,omitempty"`
	// Files are the .tex files read, main first.
	Files []string `json:"files"`
	// BibFiles are the databases read; BBL the .bbl files read.
	BibFiles []string `json:"bib_files,omitempty"`
	BBL      []string `json:"bbl_files,omitempty"`
	// Source says where the references came from: "bib", "bbl",
	// "thebibliography" or a "+"-joined mix.
	Source string `json:"source"`
	// Warnings are non-fatal problems: missing \input targets, missing
	// databases, BibTeX syntax errors.
	Warnings []string `json:"warnings,omitempty"`
}

// ExtractRefs reads the LaTeX source folder dir and returns the references
// cited in its main text: main file found by \documentclass (or given),
// inclusions expanded, comments stripped, every citation command
// collected, keys resolved against the \bibliography / \addbibresource
// databases (later files win on duplicate keys, and a key defined twice in
// one file keeps its last definition), crossrefs inherited, and keys
// missing there taken from the .bbl file or thebibliography environment.
func ExtractRefs(ctx context.Context, dir string, opt RefsOptions) (*RefsResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tree, err := latex.OpenTree(dir)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	main := opt.Main
	if main == "" {
		if main, err = tree.FindMain(); err != nil {
			return nil, err
		}
	}
	doc, err := tree.Expand(path.Clean(main))
	if err != nil {
		return nil, fmt.Errorf("refs %s: %w", dir, err)
	}
	res := &RefsResult{Main: doc.Main, Files: doc.Files}
	for _, m := range doc.Missing {
		res.Warnings = append(res.Warnings, fmt.Sprintf("included file %q not found", m))
	}
	keys := latex.CitedKeys(doc.Text)
	res.Cited = len(keys)

	db := &bibtex.Database{}
	for _, name := range latex.BibResources(doc.Text, doc.Jobname()) {
		file := findFile(tree, name, path.Dir(doc.Main))
		if file == "" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("bibliography %q not found", name))
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src, err := tree.ReadFile(file)
		if err != nil {
			res.Warnings = append(res.Warnings, err.Error())
			continue
		}
		part, err := bibtex.Parse(file, src)
		var list bibtex.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				res.Warnings = append(res.Warnings, e.Error())
			}
		}
		db.Merge(part)
		res.BibFiles = append(res.BibFiles, file)
	}
	db.ResolveCrossrefs()

	var items map[string]typesetItem
	sources := map[string]bool{}
	seen := make(map[string]bool)
	for _, k := range keys {
		if e := db.Lookup(k); e != nil {
			if !seen[e.Key] {
				seen[e.Key] = true
				res.Refs = append(res.Refs, RefFromEntry(e))
				sources["bib"] = true
			}
			continue
		}
		if items == nil {
			items = typesetItems(tree, doc, res)
		}
		if it, ok := items[k]; ok {
			if !seen[it.Key] {
				seen[it.Key] = true
				res.Refs = append(res.Refs, refFromItem(it.Item))
				sources[it.origin] = true
			}
			continue
		}
		res.Missing = append(res.Missing, k)
	}
	for _, s := range []string{"bib", "bbl", "thebibliography"} {
		if sources[s] {
			res.Source = strings.TrimPrefix(res.Source+"+"+s, "+")
		}
	}
	return res, nil
}

// typesetItem is a fallback bibliography item and where it was read:
// "bbl" or "thebibliography".
type typesetItem struct {
	latex.Item
	origin string
}

// typesetItems reads the fallback bibliographies: the .bbl files of the
// tree (the main file's own last, so that it wins) and thebibliography
// environments of the text (which win over both).
func typesetItems(tree *latex.Tree, doc *latex.Document, res *RefsResult) map[string]typesetItem {
	items := make(map[string]typesetItem)
	var bbls []string
	want := path.Join(path.Dir(doc.Main), doc.Jobname()+".bbl")
	for _, f := range tree.Files() {
		if strings.EqualFold(path.Ext(f), ".bbl") {
			bbls = append(bbls, f)
		}
	}
	// The main file's own .bbl is read last so that it wins.
	slices.SortStableFunc(bbls, func(a, b string) int {
		switch {
		case a == want:
			return 1
		case b == want:
			return -1
		}
		return 0
	})
	for _, f := range bbls {
		src, err := tree.ReadFile(f)
		if err != nil {
			res.Warnings = append(res.Warnings, err.Error())
			continue
		}
		res.BBL = append(res.BBL, f)
		for _, it := range latex.BibItems(string(src)) {
			items[it.Key] = typesetItem{it, "bbl"}
		}
	}
	if strings.Contains(doc.Text, `\begin{thebibliography}`) {
		for _, it := range latex.BibItems(doc.Text) {
			items[it.Key] = typesetItem{it, "thebibliography"}
		}
	}
	return items
}

// findFile resolves a database name against the main file's folder and the
// tree root, then by base name anywhere in the tree (arXiv flattens
// folders), ignoring case as a last resort.
func findFile(tree *latex.Tree, name, mainDir string) string {
	name = strings.TrimSpace(name)
	if name == "" || strings.HasPrefix(name, "/") {
		return ""
	}
	files := tree.Files()
	for _, p := range []string{path.Join(mainDir, name), path.Clean(name)} {
		if p != ".." && !strings.HasPrefix(p, "../") && slices.Contains(files, p) {
			return p
		}
	}
	base := path.Base(name)
	for _, f := range files {
		if path.Base(f) == base {
			return f
		}
	}
	for _, f := range files {
		if strings.EqualFold(path.Base(f), base) {
			return f
		}
	}
	return ""
}
