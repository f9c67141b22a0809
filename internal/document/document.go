// Package document reads the files deep-research products export a report
// as, PDF and Word (.docx), into the plain text the report parser reads,
// and refuses by name, with what to do, the document formats it does not
// read (.doc, .odt, .rtf, .pages, .epub).
//
// The text is the report: claims' and citations' byte spans index it, and
// `claimtrace parse --text FILE` prints it. A .docx becomes Markdown-like
// text (headings as "#", list items with their computed numbers or "- ",
// hyperlinks as [text](url), footnotes as [^n] with their "[^n]: …" notes
// at the end, table rows as "| … |"), so the parser reads what Word shows.
// A PDF's text layer is read with the extractor fetch uses for PDF sources
// (page order, ligatures, hyphenation).
//
// Both readers are bounded: a .docx is a zip read only through the few
// entries it needs, each decompressed under a cap (a zip bomb stops at
// it), and the text is capped at MaxText; a PDF is read up to
// fetch.MaxPDFPages pages and refused, not cut, when it has more.
package document

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// MaxText is the most text a document yields: the report size limit
// (report.MaxReportBytes), so a converted report is held to the limit a
// text report is.
const MaxText = 16 << 20

// Format names a document format by its file extension, without the dot.
type Format string

// Formats Text reads.
const (
	PDF  Format = "pdf"
	DOCX Format = "docx"
)

// Readable reports whether Text reads files named like name, by extension
// (case-insensitive): .pdf and .docx.
func Readable(name string) bool {
	_, ok := formatOf(name)
	return ok
}

// formatOf returns the format a file name's extension names.
func formatOf(name string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".pdf":
		return PDF, true
	case ".docx":
		return DOCX, true
	}
	return "", false
}

// Sniff returns the format of data by its first bytes when they are a
// PDF's or a .docx's (a zip), whatever the file is named, so a PDF saved as
// report.md is read as a PDF rather than parsed as "%PDF-1.4 …" text.
func Sniff(data []byte) (Format, bool) {
	head := bytes.TrimLeft(data[:min(len(data), 1024)], " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return PDF, true
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return DOCX, true
	}
	return "", false
}

// Text returns the text of the document data read from the file name,
// chosen by its extension (.pdf, .docx) or, for any other name, by its
// first bytes (Sniff). Errors name the file and wrap claimtrace.ErrInvalid
// (not a document of that format, no text, encrypted, a format Text does
// not read) or claimtrace.ErrTooLarge (more pages or text than it reads).
func Text(name string, data []byte) (string, error) {
	f, ok := formatOf(name)
	if !ok {
		if f, ok = Sniff(data); !ok {
			if err := Refuse(name); err != nil {
				return "", err
			}
			return "", fmt.Errorf("%s: not a PDF or a .docx document: %w", name, claimtrace.ErrInvalid)
		}
	}
	var (
		text string
		err  error
	)
	switch f {
	case PDF:
		text, err = pdfText(name, data)
	case DOCX:
		text, err = docxText(name, data)
	}
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("%s: the %s holds no text%s: %w", name, f, noTextHint[f], claimtrace.ErrInvalid)
	}
	return text, nil
}

// noTextHint says what to do with a document without text.
var noTextHint = map[Format]string{
	PDF:  " (a scanned PDF has only images: run OCR on it first, e.g. ocrmypdf in.pdf out.pdf, or give the report's text)",
	DOCX: "",
}

// refused are the document formats Text does not read, with how to make
// one it reads.
var refused = map[string]string{
	".doc":   "a Word 97–2003 document is not read: save it as .docx or PDF (soffice --headless --convert-to docx FILE)",
	".odt":   "an OpenDocument text is not read: save it as .docx or PDF (soffice --headless --convert-to docx FILE)",
	".rtf":   "an RTF document is not read: save it as .docx or PDF (soffice --headless --convert-to docx FILE)",
	".pages": "a Pages document is not read: export it as .docx or PDF (File > Export To)",
	".epub":  "an EPUB is not read: convert it to .docx or PDF, or give the report's text as .md or .txt",
}

// Refuse returns an error wrapping claimtrace.ErrInvalid, naming the file
// and what to do, when name has the extension of a document format Text
// does not read; nil otherwise.
func Refuse(name string) error {
	if why, ok := refused[strings.ToLower(filepath.Ext(name))]; ok {
		return fmt.Errorf("%s: %s: %w", name, why, claimtrace.ErrInvalid)
	}
	return nil
}

// Refused reports whether name has the extension of a document format
// Text does not read (see Refuse).
func Refused(name string) bool {
	_, ok := refused[strings.ToLower(filepath.Ext(name))]
	return ok
}
