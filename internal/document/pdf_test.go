package document

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
)

// buildPDF writes a minimal PDF with one page per element of pages, each
// page's lines shown top-down in Helvetica. It is the PDF a test needs and
// nothing more: a catalog, a page tree, one font, a content stream a page
// and a correct cross-reference table.
func buildPDF(pages [][]string) []byte {
	var objs []string
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, lines := range pages {
		var cs strings.Builder
		cs.WriteString("BT /F1 11 Tf 14 TL 72 740 Td\n")
		for _, l := range lines {
			l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
			fmt.Fprintf(&cs, "(%s) Tj T*\n", l)
		}
		cs.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", cs.Len(), cs.String()))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// TestPDFText reads a two-page PDF built for the test: the lines come back
// in order, pages apart, under any file name (a PDF saved as .md is still
// a PDF).
func TestPDFText(t *testing.T) {
	data := buildPDF([][]string{
		{"Tidal power is predictable to the minute [1].", "Costs fell by a third since 2015 [2]."},
		{"References", "[1] Neill S. Tidal range energy. Renewable Energy. 2017.", "[2] https://www.example.org/tidal-costs-2024"},
	})
	for _, name := range []string{"report.pdf", "report.PDF", "report.md"} {
		got, err := Text(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, line := range []string{"Tidal power is predictable to the minute [1].", "References", "[2] https://www.example.org/tidal-costs-2024"} {
			if !strings.Contains(got, line+"\n") {
				t.Errorf("%s: no line %q in:\n%s", name, line, got)
			}
		}
		if i, j := strings.Index(got, "Costs fell"), strings.Index(got, "References"); i < 0 || j < i {
			t.Errorf("%s: pages out of order:\n%s", name, got)
		}
	}
}

// TestPDFRefusesGarbage: a PDF that cannot be read whole fails with an
// error naming the file and saying what to do.
func TestPDFRefusesGarbage(t *testing.T) {
	long := make([][]string, fetch.MaxPDFPages+1)
	for i := range long {
		long[i] = []string{fmt.Sprintf("Page %d of a long survey.", i+1)}
	}
	for _, tt := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"more pages than are read", buildPDF(long), claimtrace.ErrTooLarge, "pdftotext"},
		{"no text layer", buildPDF([][]string{{}}), claimtrace.ErrInvalid, "OCR"},
		{"not a PDF inside", []byte("%PDF-1.7\nthis is where the objects should be\n%%EOF"), claimtrace.ErrInvalid, "report.pdf"},
		{"truncated", buildPDF([][]string{{"A line."}})[:200], claimtrace.ErrInvalid, "report.pdf"},
		{"empty", nil, claimtrace.ErrInvalid, "report.pdf"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Text("report.pdf", tt.data)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "report.pdf") || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("err = %v, want %v naming report.pdf and saying %q", err, tt.want, tt.says)
			}
		})
	}
}

// TestPDFLibreOffice reads the PDF LibreOffice made of a survey written
// for the test (testdata/README.md): its reference list, glued into
// running lines, is all there.
func TestPDFLibreOffice(t *testing.T) {
	data, err := os.ReadFile("testdata/ieee.libreoffice.pdf")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Text("ieee.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"Deep-research agents plan a sequence of web searches before they write a",
		"[1] M. Okafor and L. Brandt",
		"https://zhipuai.example.cn/research/notes/glm-research-assistant-technical-notes-volume-one.html",
		"[15] Q. Sun and W. Ali",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("no %q in:\n%s", s, got)
		}
	}
}

// FuzzText: no input makes a reader panic, and a text without error is
// not empty.
func FuzzText(f *testing.F) {
	f.Add("r.pdf", buildPDF([][]string{{"One line [1].", "[1] https://a.b/c"}}))
	f.Add("r.pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Add("r.docx", buildDOCX(f, map[string]string{"word/document.xml": documentXML(`<w:p>` + run("Text [1].") + `</w:p>`)}))
	f.Add("r.docx", buildDOCX(f, map[string]string{"word/document.xml": documentXML(`<w:p><w:pPr><w:numPr><w:ilvl w:val="99"/><w:numId w:val="1"/></w:numPr></w:pPr><w:hyperlink r:id="x"><w:r><w:fldChar w:fldCharType="end"/></w:r></w:hyperlink>` + run("x") + `</w:p>`),
		"word/numbering.xml": `<w:numbering ` + wNS + `><w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="upperRoman"/><w:lvlText w:val="%1.%2)"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num></w:numbering>`}))
	for _, name := range []string{"testdata/links.pandoc.docx", "testdata/vancouver.libreoffice.docx"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add("r.docx", b)
		}
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		text, err := Text(name, data)
		if err == nil && strings.TrimSpace(text) == "" {
			t.Fatalf("Text(%q) returned no text and no error", name)
		}
	})
}
