package document

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

// buildDOCX writes a .docx holding the given parts (name → content), with
// the package relationships pointing at word/document.xml.
func buildDOCX(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if _, ok := parts["_rels/.rels"]; !ok {
		parts["_rels/.rels"] = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`
	}
	for name, content := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, content); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// documentXML wraps body paragraphs in a document part.
func documentXML(body string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + wNS + `><w:body>` + body + `<w:sectPr/></w:body></w:document>`
}

func run(text string) string { return `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r>` }

// TestDOCXAsWordShowsIt reads a document written for the test the way
// Word writes one: a heading style, hyperlinks as relationships, a
// HYPERLINK field (simple and complex), a tracked deletion, a text box
// with its fallback copy, a table, a "[%1]"-numbered reference list
// restarted by an override, and a footnote with a link of its own.
func TestDOCXAsWordShowsIt(t *testing.T) {
	body := `<w:p><w:pPr><w:pStyle w:val="Kop1"/></w:pPr>` + run("Grid storage in 2025") + `</w:p>` +
		`<w:p>` + run("Battery prices fell 20% in 2024 ") + `<w:hyperlink r:id="rId9">` + run("[1]") + `</w:hyperlink>` + run(".") +
		`<w:del w:id="5" w:author="A"><w:r><w:delText>Deleted claim [9].</w:delText></w:r></w:del>` +
		run(" Sodium-ion cells entered production ") +
		`<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK "https://example.org/sodium" \o "tip" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>` + run("[2]") + `<w:r><w:fldChar w:fldCharType="end"/></w:r>` +
		run(" and pumped hydro still dominates") + `<w:r><w:footnoteReference w:id="7"/></w:r>` + run(".") + `</w:p>` +
		`<w:p>` + `<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p>` + run("Box text") + `</w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p>` + run("Box text") + `</w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r>` +
		run("Flow batteries suit long durations ") + `<w:fldSimple w:instr=" HYPERLINK &quot;https://example.org/flow&quot; "><w:r><w:t>[3]</w:t></w:r></w:fldSimple>` + run(".") + `</w:p>` +
		`<w:tbl><w:tr><w:tc><w:p>` + run("Chemistry") + `</w:p></w:tc><w:tc><w:p>` + run("Cost") + `</w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:p>` + run("LFP") + `</w:p></w:tc><w:tc><w:p>` + run("$70/kWh [1]") + `</w:p></w:tc></w:tr></w:tbl>` +
		`<w:p><w:pPr><w:pStyle w:val="Kop2"/></w:pPr>` + run("References") + `</w:p>` +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="4"/></w:numPr></w:pPr>` + run("BloombergNEF. Lithium-ion battery price survey. 2024.") + `</w:p>` +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="4"/></w:numPr></w:pPr>` + run("CATL. Sodium-ion launch. https://example.org/sodium") + `</w:p>` +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="4"/></w:numPr></w:pPr>` + run("IEA. Flow batteries. https://example.org/flow") + `</w:p>`
	data := buildDOCX(t, map[string]string{
		"word/document.xml": documentXML(body),
		"word/_rels/document.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.org/prices" TargetMode="External"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
			`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>`,
		"word/styles.xml": `<?xml version="1.0"?><w:styles ` + wNS + `><w:style w:type="paragraph" w:styleId="Kop1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Kop2"><w:name w:val="heading 2"/></w:style></w:styles>`,
		"word/numbering.xml": `<?xml version="1.0"?><w:numbering ` + wNS + `><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="[%1]"/></w:lvl></w:abstractNum>` +
			`<w:num w:numId="4"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num></w:numbering>`,
		"word/footnotes.xml": `<?xml version="1.0"?><w:footnotes ` + wNS + `><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>` +
			`<w:footnote w:id="7"><w:p><w:r><w:footnoteRef/></w:r>` + run(" IHA, ") + `<w:hyperlink r:id="rId1">` + run("hydropower status report") + `</w:hyperlink>` + run(", 2024.") + `</w:p></w:footnote></w:footnotes>`,
		"word/_rels/footnotes.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.org/hydro" TargetMode="External"/></Relationships>`,
	})
	got, err := Text("grid.docx", data)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Grid storage in 2025

Battery prices fell 20% in 2024 [[1]](https://example.org/prices). Sodium-ion cells entered production [[2]](https://example.org/sodium) and pumped hydro still dominates[^1].

Flow batteries suit long durations [[3]](https://example.org/flow).

| Chemistry | Cost |
|---|---|
| LFP | $70/kWh [1] |

## References

[1] BloombergNEF. Lithium-ion battery price survey. 2024.
[2] CATL. Sodium-ion launch. https://example.org/sodium
[3] IEA. Flow batteries. https://example.org/flow

[^1]: IHA, [hydropower status report](https://example.org/hydro), 2024.
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestDOCXWriters reads documents two real writers made from Markdown
// written for the test (testdata/README.md): pandoc's (hyperlinks,
// footnotes, a table, bullets) and LibreOffice's (a numbered list counted
// through two list instances).
func TestDOCXWriters(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []string // lines the text must hold
	}{
		{"testdata/links.pandoc.docx", []string{
			"# Solid-state batteries: where the pilot lines stand",
			"Pilot lines report cell yields below 60% ([QuantumScape shareholder letter](https://ir.quantumscape.example/letters/q4-2024)). Toyota plans a first vehicle in 2027[^1], and sulfide electrolytes remain moisture-sensitive[^2].",
			"| Toyota | sulfide | [roadmap](https://global.toyota.example/en/newsroom/39241625.html) |",
			"- first bullet with a [link](https://example.org/bullet)",
			"[^2]: Kato Y. et al. High-power all-solid-state batteries using sulfide superionic conductors. Nature Energy 1, 16030 (2016). https://doi.org/10.1038/nenergy.2016.30",
		}},
		{"testdata/vancouver.libreoffice.docx", []string{
			"## References",
			"1. Rosenow J, Gibb D, Nowak T, Lowes R. Heating up the global heat pump market. Nat Energy. 2022;7:901–4. doi:10.1038/s41560-022-01104-8",
			"2. Sager J, Leroux M, Bouchard A. Field performance of cold-climate heat pumps in northern New England. Energy Build. 2023;288:113012.",
			"10. Lund JW, Toth AN. Direct utilization of geothermal energy 2020 worldwide review. Geothermics. 2021;90:101915.",
		}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Text(tt.file, data)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(got, "\n")
			for _, w := range tt.want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("no line %q in:\n%s", w, got)
				}
			}
		})
	}
}

// TestDOCXRefusesGarbage: what is not a Word document, or is built to
// exhaust the reader, fails with an error naming the file.
func TestDOCXRefusesGarbage(t *testing.T) {
	bomb := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("word/document.xml")
		io.WriteString(w, documentXML(""))
		zero := make([]byte, 1<<20)
		for range maxPart>>20 + 1 {
			w.Write(zero)
		}
		zw.Close()
		return buf.Bytes()
	}
	huge := func() []byte {
		para := `<w:p>` + run(strings.Repeat("All work and no play. ", 500)) + `</w:p>`
		return buildDOCX(t, map[string]string{"word/document.xml": documentXML(strings.Repeat(para, MaxText/len(para)+10))})
	}
	corrupt := buildDOCX(t, map[string]string{"word/document.xml": documentXML("x")})
	corrupt[bytes.Index(corrupt, []byte("word/document.xml"))+len("word/document.xml")+5] ^= 0xff // inside the deflated data
	for _, tt := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"not a zip", []byte("PK\x03\x04 this is not a zip at all"), claimtrace.ErrInvalid, "not a zip archive"},
		{"a zip of something else", buildDOCX(t, map[string]string{"xl/workbook.xml": "<workbook/>"}), claimtrace.ErrInvalid, "not a Word .docx"},
		{"broken XML", buildDOCX(t, map[string]string{"word/document.xml": documentXML("<w:p><w:r><w:t>unclosed</w:r></w:p>")}), claimtrace.ErrInvalid, "word/document.xml"},
		{"no text", buildDOCX(t, map[string]string{"word/document.xml": documentXML("<w:p/>")}), claimtrace.ErrInvalid, "holds no text"},
		{"a zip bomb", bomb(), claimtrace.ErrTooLarge, "over the"},
		{"more text than a report may hold", huge(), claimtrace.ErrTooLarge, "bytes of text"},
		{"corrupt compressed data", corrupt, claimtrace.ErrInvalid, "report.docx"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Text("report.docx", tt.data)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "report.docx") || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("err = %v, want %v naming report.docx and saying %q", err, tt.want, tt.says)
			}
		})
	}
}

// TestRefuseFormats: the document formats Text does not read are refused
// by name, with the way to one it reads.
func TestRefuseFormats(t *testing.T) {
	for _, name := range []string{"r.doc", "r.ODT", "r.rtf", "r.pages", "r.epub"} {
		_, err := Text(name, []byte("{\\rtf1 whatever"))
		if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), ".docx or PDF") && !strings.Contains(err.Error(), ".md or .txt") {
			t.Errorf("%s: err = %v", name, err)
		}
		if !Refused(name) || Readable(name) {
			t.Errorf("%s: Refused %v, Readable %v", name, Refused(name), Readable(name))
		}
	}
	for _, name := range []string{"r.md", "r.txt", "r.json"} {
		if Refused(name) || Readable(name) {
			t.Errorf("%s: neither refused nor read here", name)
		}
	}
}
