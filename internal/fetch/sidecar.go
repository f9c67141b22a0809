package fetch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// ExtractorVersion stamps the extracted content a snapshot keeps beside a
// page (its sidecar). It MUST change whenever Extract's output can change
// for some page: a new rule, a changed constant, another readability or
// html version; and whenever the sidecar's encoding of Content changes (a
// field, a JSON tag). A sidecar of another version is ignored and the page
// is extracted again. TestExtractorVersionPinned holds a digest of Extract's
// output on hand-written pages and fails, asking for a new version, when
// that output changes.
const ExtractorVersion = 1

// Extracted is the optional "extracted" key of an index line: the sidecar
// file holding the page's extracted content (File, under pages/), the
// ExtractorVersion that wrote it and the SHA-256 of the sidecar file.
type Extracted struct {
	File    string `json:"file"`
	Version int    `json:"version"`
	SHA256  string `json:"sha256"`
}

// sidecarSuffix ends a sidecar's file name: pages/<sha>.extract.json.
const sidecarSuffix = ".extract.json"

// sidecar is the file a snapshot keeps beside a page: what Extract
// returned for the page as the snapshot serves it (Input). The file is this
// header as one line of JSON, its content without the text, then the
// text's TextBytes bytes as they are (reading a page's text needs no
// unquoting).
type sidecar struct {
	Version   int          `json:"version"`
	Input     sidecarInput `json:"input"`
	Content   *Content     `json:"content"`
	TextBytes int          `json:"text_bytes"`
}

// sidecarInput is everything of a page Extract reads: the URL it resolves
// links and titles against, the status, the declared type, the body (by
// its SHA-256) and whether the body was cut.
type sidecarInput struct {
	URL         string `json:"url"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	SHA256      string `json:"sha256"`
	Truncated   bool   `json:"truncated"`
}

// inputOf returns the extraction input of p; sha is the SHA-256 of p.Body.
func inputOf(p *Page, sha string) sidecarInput {
	return sidecarInput{URL: baseURL(p), Status: p.Status, ContentType: p.ContentType, SHA256: sha, Truncated: p.Truncated}
}

// maxSidecar caps the sidecar of a body of n bytes: extracted text can
// outgrow its page (a charset decoded to UTF-8, a compressed PDF), but not
// without bound. The writer keeps no sidecar larger; the reader reads none.
func maxSidecar(n int) int64 {
	return min(8*int64(n)+1<<20, 256<<20)
}

// extractedKey ties a page's kept content to the page it was read for:
// Extract uses the content only while the page is unchanged.
type extractedKey struct {
	input sidecarInput
	err   string
	body  *byte
	n     int
}

// keyOf returns the key of p's current state.
func keyOf(p *Page, sha string) extractedKey {
	k := extractedKey{input: inputOf(p, sha), err: p.Err, n: len(p.Body)}
	if len(p.Body) > 0 {
		k.body = &p.Body[0]
	}
	return k
}

// KeptContent is a page's extracted content read from its snapshot's
// sidecar, with the page it was extracted from.
type KeptContent struct {
	content *Content
	key     extractedKey
}

// keep attaches content, extracted from p as it is now, to p.
func (p *Page) keep(content *Content, sha string) {
	p.Kept = &KeptContent{content: content, key: keyOf(p, sha)}
}

// kept returns a copy of the content a snapshot kept for p, or nil when it
// kept none or p changed since it was read.
func (p *Page) kept() *Content {
	k := p.Kept
	if k == nil || k.content == nil || k.key != keyOf(p, k.key.input.SHA256) {
		return nil
	}
	c := *k.content
	c.Meta.Authors = slices.Clone(c.Meta.Authors)
	return &c
}

// encodeSidecar extracts p (as the snapshot serves it; sha is the SHA-256
// of its body) and encodes its sidecar. It fails when the page can have
// none: Extract fails, or the content would not read back exactly as
// Extract returned it (invalid UTF-8 in a title, a date JSON cannot hold),
// or it is too large. Such a page is extracted on every run instead.
func encodeSidecar(p *Page, sha string) ([]byte, error) {
	c, err := Extract(p)
	if err != nil {
		return nil, err
	}
	head := *c
	head.Text = ""
	sc := sidecar{Version: ExtractorVersion, Input: inputOf(p, sha), Content: &head, TextBytes: len(c.Text)}
	data, err := json.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("extract %s: keep content: %w", p.URL, err)
	}
	data = append(append(data, '\n'), c.Text...)
	if limit := maxSidecar(len(p.Body)); int64(len(data)) > limit {
		return nil, fmt.Errorf("extract %s: content of %d bytes, more than %d: %w", p.URL, len(data), limit, claimtrace.ErrTooLarge)
	}
	back, err := decodeSidecar(data)
	if err != nil || back.Input != sc.Input || !sameContent(back.Content, c) {
		return nil, fmt.Errorf("extract %s: content does not read back as extracted", p.URL)
	}
	return data, nil
}

// decodeSidecar parses a sidecar file strictly.
func decodeSidecar(data []byte) (*sidecar, error) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return nil, fmt.Errorf("sidecar: no header line: %w", claimtrace.ErrInvalid)
	}
	text := data[i+1:]
	var sc sidecar
	dec := json.NewDecoder(bytes.NewReader(data[:i]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("sidecar: %w: %w", claimtrace.ErrInvalid, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("sidecar: trailing data: %w", claimtrace.ErrInvalid)
	}
	switch {
	case sc.Content == nil:
		return nil, fmt.Errorf("sidecar: no content: %w", claimtrace.ErrInvalid)
	case sc.Content.Text != "":
		return nil, fmt.Errorf("sidecar: text in the header: %w", claimtrace.ErrInvalid)
	case sc.TextBytes != len(text):
		return nil, fmt.Errorf("sidecar: %d bytes of text, header says %d: %w", len(text), sc.TextBytes, claimtrace.ErrInvalid)
	case !utf8.Valid(text):
		return nil, fmt.Errorf("sidecar: text is not UTF-8: %w", claimtrace.ErrInvalid)
	}
	sc.Content.Text = string(text)
	switch sc.Content.Kind {
	case KindHTML, KindPDF, KindText:
	default:
		return nil, fmt.Errorf("sidecar: kind %q: %w", sc.Content.Kind, claimtrace.ErrInvalid)
	}
	switch sc.Content.Wall {
	case "", WallBot, WallPaywall, WallLogin, WallError, WallEmpty:
	default:
		return nil, fmt.Errorf("sidecar: wall %q: %w", sc.Content.Wall, claimtrace.ErrInvalid)
	}
	return &sc, nil
}

// sameContent reports whether a and b are equal, their dates as instants
// with the same offset (a date read back from JSON has a location of its
// own).
func sameContent(a, b *Content) bool {
	_, ao := a.Meta.Date.Zone()
	_, bo := b.Meta.Date.Zone()
	if !a.Meta.Date.Equal(b.Meta.Date) || ao != bo || a.Meta.Date.IsZero() != b.Meta.Date.IsZero() {
		return false
	}
	x, y := *a, *b
	x.Meta.Date, y.Meta.Date = time.Time{}, time.Time{}
	return reflect.DeepEqual(x, y)
}

// sidecarName is where the sidecar data is kept: named by its content.
func sidecarName(data []byte) (name, sum string) {
	sum = hashHex(data)
	return path.Join(PagesDir, sum[:32]+sidecarSuffix), sum
}

// loadSidecar reads the sidecar x of page p (its body's SHA-256 sha) and
// returns its content, or an error saying why it cannot be used: another
// version, a file missing, too large, corrupt, or written for another
// input. Every such error means "extract the page again", never a failure.
func loadSidecar(dir string, x *Extracted, p *Page, sha string) (*Content, error) {
	if x.Version != ExtractorVersion {
		return nil, fmt.Errorf("sidecar %s: version %d, extractor %d", x.File, x.Version, ExtractorVersion)
	}
	f, fi, err := inputfile.OpenInRoot(dir, filepath.FromSlash(x.File))
	if err != nil {
		return nil, fmt.Errorf("sidecar %s: %w", x.File, err)
	}
	defer f.Close()
	limit := maxSidecar(len(p.Body))
	if fi.Size() > limit {
		return nil, fmt.Errorf("sidecar %s: %d bytes, more than %d: %w", x.File, fi.Size(), limit, claimtrace.ErrTooLarge)
	}
	data, truncated, err := readCapped(f, limit)
	switch {
	case err != nil:
		return nil, fmt.Errorf("sidecar %s: %w", x.File, err)
	case truncated:
		return nil, fmt.Errorf("sidecar %s: more than %d bytes: %w", x.File, limit, claimtrace.ErrTooLarge)
	case !strings.EqualFold(hashHex(data), x.SHA256):
		return nil, fmt.Errorf("sidecar %s: sha256 differs from the index: %w", x.File, claimtrace.ErrInvalid)
	}
	sc, err := decodeSidecar(data)
	if err != nil {
		return nil, fmt.Errorf("sidecar %s: %w", x.File, err)
	}
	switch {
	case sc.Version != ExtractorVersion:
		return nil, fmt.Errorf("sidecar %s: file says version %d: %w", x.File, sc.Version, claimtrace.ErrInvalid)
	case sc.Input != inputOf(p, sha):
		return nil, fmt.Errorf("sidecar %s: written for another page: %w", x.File, claimtrace.ErrInvalid)
	}
	return sc.Content, nil
}

// checkExtracted validates the extracted key of an index line; a key that
// is not usable is dropped (the page is extracted instead), never fatal.
func checkExtracted(x *Extracted) *Extracted {
	if x == nil || checkPagePath(x.File) != nil || !strings.HasSuffix(x.File, sidecarSuffix) || len(x.SHA256) != 64 {
		return nil
	}
	return x
}
