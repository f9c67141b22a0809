# twocol.py IN.docx OUT.docx: the same document in two justified columns (US letter,
# 0.75 in margins), by rewriting word/document.xml: how the tests' two-column PDFs were made.
import sys, zipfile, re
src, dst = sys.argv[1], sys.argv[2]
zin = zipfile.ZipFile(src)
zout = zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED)
for item in zin.infolist():
    data = zin.read(item.filename)
    if item.filename == 'word/document.xml':
        s = data.decode('utf-8')
        cols = '<w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1080" w:right="1080" w:bottom="1080" w:left="1080" w:header="720" w:footer="720" w:gutter="0"/><w:cols w:num="2" w:space="360"/>'
        s2 = re.sub(r'<w:sectPr\s*/>', '<w:sectPr>' + cols + '</w:sectPr>', s)
        if s2 == s:
            s2 = re.sub(r'(<w:sectPr[^>]*>)', r'\1' + cols, s, count=1)
        # justify paragraphs
        s2 = s2.replace('<w:pPr>', '<w:pPr><w:jc w:val="both"/>')
        data = s2.encode('utf-8')
    zout.writestr(item, data)
zout.close()
