package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

// buildPDF writes a valid PDF: objs are numbered from 1, object 1 must be
// the catalog, and info (if not 0) is the number of the Info dictionary.
// Offsets in the xref table are computed, so the library reads it as is.
func buildPDF(objs []string, info int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
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
	trailer := fmt.Sprintf("/Size %d /Root 1 0 R", len(objs)+1)
	if info > 0 {
		trailer += fmt.Sprintf(" /Info %d 0 R", info)
	}
	fmt.Fprintf(&b, "trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n", trailer, xref)
	return b.Bytes()
}

func stream(content string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}

// widths returns a /Widths array for codes 1..126: letters 500, space 250.
func widths() string {
	var w []string
	for c := 1; c <= 126; c++ {
		switch {
		case c == ' ':
			w = append(w, "250")
		case c < ' ':
			w = append(w, "550")
		default:
			w = append(w, "500")
		}
	}
	return "[" + strings.Join(w, " ") + "]"
}

// paperPDF is a two-page paper as pdfTeX would lay it out: a 24 pt title,
// TJ arrays whose kerning gaps are the word spaces, a ligature through the
// font's /Differences (U+FB01), private-use ligatures through a ToUnicode
// CMap (U+F001, U+F002), a word hyphenated across lines and the rotated
// arXiv stamp in the margin.
func paperPDF(infoTitle string) []byte {
	page1 := strings.Join([]string{
		"BT /F1 24 Tf 1 0 0 1 90 700 Tm (Attention Is All You Need) Tj ET",
		"BT /F1 11 Tf 1 0 0 1 160 660 Tm (Ashish Vaswani) Tj 120 0 Td (Noam Shazeer) Tj ET",
		"BT /F1 12 Tf 1 0 0 1 72 620 Tm (Abstract) Tj ET",
		"BT /F1 10 Tf 12 TL 1 0 0 1 72 600 Tm",
		"[(The)-250(dominant)-250(sequence)-250(transduction)-250(models)-250(are)] TJ T*",
		"[(ef\\001cient)-250(and)-250(the)-250(Transformer)-250(is)-250(an)-250(exam-)] TJ T*",
		"[(ple)-250(of)-250(attention.)] TJ T*",
		"/F2 10 Tf (\\001nal results \\002ow from it.) Tj",
		"ET",
		"BT /F1 20 Tf 0 1 -1 0 30 250 Tm (arXiv:1706.03762v7  [cs.CL]  2 Aug 2023) Tj ET",
	}, "\n")
	page2 := "BT /F1 10 Tf 1 0 0 1 72 700 Tm [(Results)-250(improve)-250(by)-250(2)-250(BLEU.)] TJ ET"
	cmap := strings.Join([]string{
		"/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
		"/CMapName /Custom def 1 begincodespacerange <00> <FF> endcodespacerange",
		"2 beginbfchar <01> <F001> <02> <F002> endbfchar",
		"1 beginbfrange <20> <7E> <0020> endbfrange",
		"endcmap CMapName currentdict /CMap defineresource pop end end",
	}, "\n")
	fonts := "/Font << /F1 5 0 R /F2 6 0 R >>"
	info := "<< /Producer (pdfTeX-1.40.17) /CreationDate (D:20170612173457Z) /Author (Ashish Vaswani; Noam Shazeer)"
	if infoTitle != "" {
		info += " /Title (" + infoTitle + ")"
	}
	info += " >>"
	return buildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>",
		"<< /Type /Page /Parent 2 0 R /Resources << " + fonts + " >> /Contents 7 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Resources << " + fonts + " >> /Contents 8 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /CMR10 /Encoding << /Type /Encoding /Differences [1 /fi 2 /fl] >> /FirstChar 1 /LastChar 126 /Widths " + widths() + " >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /CMR10 /ToUnicode 9 0 R /FirstChar 1 /LastChar 126 /Widths " + widths() + " >>",
		stream(page1),
		stream(page2),
		stream(cmap),
		info,
	}, 10)
}

func TestExtractPDF(t *testing.T) {
	tests := []struct {
		name      string
		infoTitle string
	}{
		{"info title", "Attention Is All You Need"},
		{"junk info title, first-page heuristic", "Microsoft Word - draft7.docx"},
		{"no info title", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Extract(&Page{URL: "https://arxiv.org/pdf/1706.03762", Status: 200, ContentType: "application/pdf", Body: paperPDF(tt.infoTitle)})
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			wantMeta := Meta{
				Title:     "Attention Is All You Need",
				Authors:   []string{"Ashish Vaswani", "Noam Shazeer"},
				ArXivID:   "1706.03762",
				Date:      time.Date(2017, 6, 12, 17, 34, 57, 0, time.UTC),
				Type:      "pdf",
				Scholarly: true,
			}
			if diff := cmp.Diff(wantMeta, c.Meta); diff != "" {
				t.Errorf("Meta (-want +got):\n%s", diff)
			}
			if c.Kind != KindPDF || c.Wall != "" || c.Title != wantMeta.Title {
				t.Errorf("Kind=%q Wall=%q Title=%q", c.Kind, c.Wall, c.Title)
			}
			for _, want := range []string{
				"Attention Is All You Need\nAshish Vaswani Noam Shazeer\n\nAbstract\n",
				"The dominant sequence transduction models are\nefficient and the Transformer is an example of attention.\n",
				"final results flow from it.",
				"arXiv:1706.03762v7 [cs.CL] 2 Aug 2023",
				"\n\nResults improve by 2 BLEU.",
			} {
				if !strings.Contains(c.Text, want) {
					t.Errorf("text lacks %q; text:\n%s", want, c.Text)
				}
			}
			if strings.ContainsAny(c.Text, "\uFB01\uFB02\uF001\uF002") {
				t.Errorf("ligature code points survived: %q", c.Text)
			}
		})
	}
}

func TestExtractPDFCorrupt(t *testing.T) {
	good := paperPDF("A Title Here")
	cyclic := buildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 5 >>",
		"<< /Parent 3 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		stream("BT /F1 12 Tf (loop) Tj ET"),
	}, 0)
	scanned := buildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
		stream("q 612 0 0 792 0 0 cm /Im1 Do Q"),
	}, 0)
	badOps := buildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [<< /W [1 [500 600] 3 2000000000 700 5] >>] >>",
		stream("BT /F1 Tf Tj TJ 1 2 Tm (x) ' [(a) (b)] TJ /F1 12 Tf <00410042> Tj ET Q Q Q"),
	}, 0)
	tests := []struct {
		name string
		body []byte
		want error // nil: extraction must succeed
		wall string
	}{
		{"truncated", good[:len(good)/2], claimtrace.ErrInvalid, ""},
		{"garbage after header", []byte("%PDF-1.7\n\x00\x01\x02 not a pdf at all"), claimtrace.ErrInvalid, ""},
		{"cyclic page tree", cyclic, nil, ""},
		{"scanned, no text layer", scanned, nil, WallEmpty},
		{"malformed operators", badOps, nil, WallEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var (
				c   *Content
				err error
			)
			go func() {
				defer close(done)
				c, err = Extract(&Page{URL: "https://example.org/x.pdf", Status: 200, ContentType: "application/pdf", Body: tt.body})
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Extract did not return within 10s")
			}
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("error = %v, want %v", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if n := strings.Count(c.Text, "loop"); n > maxPDFPages {
				t.Errorf("cyclic tree yielded %d pages, over the %d cap", n, maxPDFPages)
			}
			if c.Wall != tt.wall {
				t.Errorf("Wall = %q, want %q (text %q)", c.Wall, tt.wall, c.Text)
			}
		})
	}
	truncated := &Page{URL: "u", Status: 200, ContentType: "application/pdf", Body: good, Truncated: true}
	if _, err := Extract(truncated); !errors.Is(err, claimtrace.ErrTooLarge) {
		t.Errorf("truncated page: error = %v, want ErrTooLarge", err)
	}
}

func TestPDFHelpers(t *testing.T) {
	authors := []struct {
		in   string
		want []string
	}{
		{"Ashish Vaswani; Noam Shazeer", []string{"Ashish Vaswani", "Noam Shazeer"}},
		{"Ashish Vaswani, Noam Shazeer and Niki Parmar", []string{"Ashish Vaswani", "Noam Shazeer", "Niki Parmar"}},
		{"Vaswani, Ashish", []string{"Ashish Vaswani"}},
		{"", nil},
	}
	for _, tt := range authors {
		if diff := cmp.Diff(tt.want, splitPDFAuthors(tt.in)); diff != "" {
			t.Errorf("splitPDFAuthors(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	junk := map[string]bool{
		"Attention Is All You Need": false, "": true, "untitled": true, "Microsoft Word - paper.docx": true,
		"main.pdf": true, "paper": true, "arXiv:1706.03762v7": true, "Deep Residual Learning": false,
	}
	for in, want := range junk {
		if got := junkPDFTitle(in); got != want {
			t.Errorf("junkPDFTitle(%q) = %v, want %v", in, got, want)
		}
	}
	dates := map[string]string{
		"D:20170612173457Z":       "2017-06-12T17:34:57Z",
		"D:20170612173457+02'00'": "2017-06-12T17:34:57Z",
		"D:2017":                  "2017-01-01T00:00:00Z",
		"20230101":                "2023-01-01T00:00:00Z",
	}
	for in, want := range dates {
		got, ok := parsePDFDate(in)
		if !ok || got.Format(time.RFC3339) != want {
			t.Errorf("parsePDFDate(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "D:", "yesterday", "D:17"} {
		if _, ok := parsePDFDate(bad); ok {
			t.Errorf("parsePDFDate(%q) succeeded", bad)
		}
	}
	if got := fixPDFText("e\uFB03cient \uF001nal \uFB02ow state-of-\nthe-art exam-\nple Self-\nAttention"); got != "efficient final flow state-of-the-art example Self-\nAttention" {
		t.Errorf("fixPDFText = %q", got)
	}
	// A URL broken at one of its own hyphens keeps it.
	if got := fixPDFText("Available: https://zhipuai.example.cn/notes/glm-\nresearch-notes.html and www.example.org/heat-\npumps, an exam-\nple"); got != "Available: https://zhipuai.example.cn/notes/glm-research-notes.html and www.example.org/heat-pumps, an example" {
		t.Errorf("fixPDFText = %q", got)
	}
}

func FuzzPDF(f *testing.F) {
	f.Add(paperPDF("Attention Is All You Need"))
	f.Add(paperPDF(""))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Add([]byte("%PDF-"))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := extractWithin(t, &Page{URL: "https://example.org/f.pdf", Status: 200, ContentType: "application/pdf", Body: body}, 10*time.Second)
		if err != nil {
			return
		}
		if c.Kind != KindPDF {
			t.Fatalf("Kind = %q", c.Kind)
		}
		if !validUTF8(c.Text) || !validUTF8(c.Title) {
			t.Fatalf("invalid UTF-8 in text or title")
		}
	})
}

// TestPDFParagraphs: a step down clearly wider than the page's usual line
// advance ends a paragraph (a blank line in the text); a double-spaced
// page has none, and a jump to the top of the next column is a line break.
func TestPDFParagraphs(t *testing.T) {
	page := func(lines ...string) []byte {
		content := "BT /F1 10 Tf 1 0 0 1 72 700 Tm\n" + strings.Join(lines, "\n") + "\nET"
		return buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 1 /LastChar 126 /Widths " + widths() + " >>",
			stream(content),
		}, 0)
	}
	for _, tt := range []struct {
		name string
		pdf  []byte
		want string
	}{
		{"single spacing with paragraph gaps", page(
			"(First paragraph, line one) Tj 0 -12 Td (line two.) Tj 0 -12 Td (line three.) Tj",
			"0 -22 Td (Second paragraph starts) Tj 0 -12 Td (and ends.) Tj",
			"0 -22 Td ([1] A. Author, 2020.) Tj 0 -12 Td ([2] B. Author, 2021.) Tj"),
			"First paragraph, line one\nline two.\nline three.\n\nSecond paragraph starts\nand ends.\n\n[1] A. Author, 2020.\n[2] B. Author, 2021."},
		{"double spacing", page(
			"(Line one of a) Tj 0 -24 Td (double-spaced) Tj 0 -24 Td (manuscript) Tj 0 -24 Td (page.) Tj"),
			"Line one of a\ndouble-spaced\nmanuscript\npage."},
		{"a jump to the next column", page(
			"(Column one, line one) Tj 0 -12 Td (line two) Tj 0 -12 Td (line three) Tj",
			"1 0 0 1 320 700 Tm (column two goes on) Tj 0 -12 Td (and ends.) Tj"),
			"Column one, line one\nline two\nline three\ncolumn two goes on\nand ends."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Extract(&Page{URL: "https://example.org/p.pdf", Status: 200, ContentType: "application/pdf", Body: tt.pdf})
			if err != nil {
				t.Fatal(err)
			}
			if c.Text != tt.want {
				t.Errorf("text:\n%q\nwant\n%q", c.Text, tt.want)
			}
		})
	}
}
