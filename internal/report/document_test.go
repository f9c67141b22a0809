package report

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// TestLoadDocuments: a report exported as PDF or Word is read as the text
// it shows, and its spans index that text; a PDF named .md is still a PDF;
// formats that are not read are refused by name with what to do.
func TestLoadDocuments(t *testing.T) {
	dir := t.TempDir()
	pdf, err := os.ReadFile("../document/testdata/ieee.libreoffice.pdf")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src, err := os.ReadFile("testdata/converted/ieee.md")
	if err != nil {
		t.Fatal(err)
	}
	want := Parse(string(src))
	for _, name := range []string{"2508.15804.pdf", "2508.15804.md"} {
		text, err := Load(write(name, pdf))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc := Parse(text)
		if err := checkDocument(text, doc); err != nil {
			t.Fatal(err)
		}
		if got, w := numberedTargets(doc), numberedTargets(want); len(got) != len(w) {
			t.Errorf("%s: %d numbered markers resolve, want %d", name, len(got), len(w))
		}
		for _, c := range doc.Claims {
			if text[c.Start:c.End] != c.Text {
				t.Errorf("%s: claim span [%d,%d) does not index the extracted text", name, c.Start, c.End)
			}
		}
		if strings.Contains(text, "%PDF") {
			t.Errorf("%s: read as text: %.40q", name, text)
		}
	}

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Tidal power is predictable [1].</w:t></w:r></w:p><w:p><w:r><w:t>[1] https://example.org/tidal</w:t></w:r></w:p></w:body></w:document>`))
	zw.Close()
	text, err := Load(write("1.docx", buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if inText, _ := targets(Parse(text)); len(inText) != 1 || inText[0] != "[1]=https://example.org/tidal" {
		t.Errorf("docx citations = %v (text %q)", inText, text)
	}

	for _, name := range []string{"1.doc", "1.odt", "1.rtf"} {
		_, err := Load(write(name, []byte("{\\rtf1 not read}")))
		if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "soffice --headless --convert-to docx") {
			t.Errorf("%s: err = %v, want a refusal naming it and saying how to convert", name, err)
		}
	}
	_, err = Load(write("2.docx", []byte("not a zip")))
	if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "2.docx") {
		t.Errorf("garbage .docx: err = %v", err)
	}
	if !Readable("a.PDF") || !Readable("a.docx") || !Readable("a.md") || Readable("a.doc") || Readable("a.html") {
		t.Error("Readable: want .json .md .txt .pdf .docx only")
	}
}
