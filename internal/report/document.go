package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claimtrace/claimtrace/internal/document"
)

// extensions are the report file extensions Load reads, in the order
// Readable's callers list them.
var extensions = []string{".json", ".md", ".txt", ".pdf", ".docx"}

// Readable reports whether a file name has the extension of a report Load
// reads: .json, .md, .txt, .pdf or .docx (case-insensitive).
func Readable(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range extensions {
		if ext == e {
			return true
		}
	}
	return false
}

// Extensions returns the report file extensions Load reads, for messages
// ("<id>.json|.md|.txt|.pdf|.docx").
func Extensions() string {
	return strings.Join(extensions, "|")
}

// Candidate reports whether a file in a reports folder is taken for a
// report: one Load reads (Readable), or one of a document format Load
// refuses (.doc, .odt, …), so that a run says why it was not scored rather
// than passing over it.
func Candidate(name string) bool {
	return Readable(name) || document.Refused(name)
}

// decodeDocument reads a report that is a document rather than text: a
// .pdf or .docx by name, a PDF or a zip by its first bytes whatever its
// name, or a document format that is refused by name. ok is false for
// text and JSON.
func decodeDocument(name string, data []byte) (text string, ok bool, err error) {
	_, sniffed := document.Sniff(data)
	if !document.Readable(name) && !sniffed && !document.Refused(name) {
		return "", false, nil
	}
	text, err = document.Text(name, data)
	if err != nil {
		return "", true, fmt.Errorf("report %w", err)
	}
	return text, true, nil
}
