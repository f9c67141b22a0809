package document

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ledongthuc/pdf"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
)

// pdfText reads the text layer of a PDF with fetch's extractor. A PDF with
// more pages than the extractor reads is refused rather than cut: a report
// without its last pages has lost its reference list.
func pdfText(name string, data []byte) (string, error) {
	n, err := pdfPageCount(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if n > fetch.MaxPDFPages {
		return "", fmt.Errorf("%s: %d pages, more than the %d a PDF is read to; convert it to text (pdftotext -layout %s out.txt) and give the .txt: %w",
			name, n, fetch.MaxPDFPages, name, claimtrace.ErrTooLarge)
	}
	c, err := fetch.Extract(&fetch.Page{URL: name, Status: 200, ContentType: "application/pdf", Body: data})
	if err != nil {
		return "", err
	}
	if len(c.Text) > MaxText {
		return "", fmt.Errorf("%s: more than %d bytes of text: %w", name, MaxText, claimtrace.ErrTooLarge)
	}
	return c.Text + "\n", nil
}

// pdfPageCount returns the page count a PDF's page tree declares. The pdf
// library panics on some corrupt files: a panic is an invalid PDF.
func pdfPageCount(data []byte) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, fmt.Errorf("corrupt PDF: %v: %w", r, claimtrace.ErrInvalid)
		}
	}()
	rd, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return 0, fmt.Errorf("an encrypted PDF is not read: save an unencrypted copy (qpdf --decrypt in.pdf out.pdf): %w", claimtrace.ErrInvalid)
		}
		return 0, fmt.Errorf("not a readable PDF: %v: %w", err, claimtrace.ErrInvalid)
	}
	count := rd.Trailer().Key("Root").Key("Pages").Key("Count").Int64()
	if count < 0 {
		count = 0
	}
	return int(min(count, 1<<30)), nil
}
