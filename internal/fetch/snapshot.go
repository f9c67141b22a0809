package fetch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// Snapshot directory layout (docs/design.md, "Snapshot directory").
const (
	IndexFile = "index.jsonl"
	PagesDir  = "pages"
	// maxIndexLine caps one index.jsonl line.
	maxIndexLine = 1 << 20
)

// Entry is one line of a snapshot's index.jsonl. File is relative to the
// snapshot directory and lies under pages/; it is empty for dead (404, 410)
// and unreachable (status 0) links. Fields after File are extensions.
type Entry struct {
	URL         string    `json:"url"`
	Status      int       `json:"status"`
	ContentType string    `json:"content_type,omitempty"`
	File        string    `json:"file,omitempty"`
	FinalURL    string    `json:"final_url,omitempty"`
	SHA256      string    `json:"sha256,omitempty"`
	Truncated   bool      `json:"truncated,omitempty"`
	FetchedAt   time.Time `json:"fetched_at,omitzero"`
	Err         string    `json:"error,omitempty"`
	// Extracted points to the page's extracted content, kept so that
	// a run does not extract the page again (sidecar.go). Optional: a
	// line without it, or with one of another ExtractorVersion, is
	// extracted as before.
	Extracted *Extracted `json:"extracted,omitempty"`
}

// Snapshot is a frozen set of pages, read from a snapshot directory.
type Snapshot struct {
	dir     string
	entries []Entry
	byURL   map[string]int
}

// OpenSnapshot reads dir/index.jsonl. Every line must be a valid entry; a
// file path that escapes the directory (absolute, "..", outside pages/) is
// rejected. When a URL appears twice, the later line wins. An unterminated
// last line that does not parse is a write torn by a crash and is ignored.
func OpenSnapshot(dir string) (*Snapshot, error) {
	f, _, err := inputfile.Open(filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, fmt.Errorf("open snapshot %s: %w", dir, err)
	}
	defer f.Close()
	entries, _, err := readIndex(f)
	if err != nil {
		return nil, fmt.Errorf("open snapshot %s: %w", dir, err)
	}
	s := &Snapshot{dir: dir, byURL: make(map[string]int, len(entries))}
	for _, e := range entries {
		if i, ok := s.byURL[e.URL]; ok {
			s.entries[i] = e
			continue
		}
		s.byURL[e.URL] = len(s.entries)
		s.entries = append(s.entries, e)
	}
	return s, nil
}

// readIndex parses index lines. good is the byte length of the well-formed
// prefix (everything but a torn last line).
func readIndex(r io.Reader) (entries []Entry, good int64, err error) {
	good, err = scanIndex(r, func(_ []byte, e *Entry) {
		if e != nil {
			entries = append(entries, *e)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	return entries, good, nil
}

// scanIndex calls fn with each line of the well-formed prefix of an index
// (its newline included) and its entry, nil for a blank line. good is the
// byte length of that prefix (everything but a torn last line).
func scanIndex(r io.Reader, fn func(line []byte, e *Entry)) (good int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, rerr := readLine(br)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return 0, fmt.Errorf("%s line %d: %w", IndexFile, lineNo, rerr)
		}
		var entry *Entry
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			e, perr := parseEntry(trimmed)
			if perr != nil {
				if !bytes.HasSuffix(line, []byte("\n")) && !json.Valid(trimmed) {
					return good, nil // torn final write
				}
				return 0, fmt.Errorf("%s line %d: %w", IndexFile, lineNo, perr)
			}
			entry = &e
		}
		if len(line) > 0 {
			fn(line, entry)
		}
		good += int64(len(line))
		if errors.Is(rerr, io.EOF) {
			return good, nil
		}
	}
}

// readLine reads one line including its newline, failing on lines longer
// than maxIndexLine instead of buffering them.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxIndexLine {
			return nil, fmt.Errorf("line longer than %d bytes: %w", maxIndexLine, claimtrace.ErrTooLarge)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

// parseEntry decodes and validates one index line.
func parseEntry(line []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&e); err != nil {
		return Entry{}, fmt.Errorf("%w: %w", claimtrace.ErrInvalid, err)
	}
	if dec.More() {
		return Entry{}, fmt.Errorf("trailing data after entry: %w", claimtrace.ErrInvalid)
	}
	if strings.TrimSpace(e.URL) == "" {
		return Entry{}, fmt.Errorf("entry without url: %w", claimtrace.ErrInvalid)
	}
	if e.Status < 0 || e.Status > 999 {
		return Entry{}, fmt.Errorf("url %s: status %d: %w", e.URL, e.Status, claimtrace.ErrInvalid)
	}
	if e.File != "" {
		if err := checkPagePath(e.File); err != nil {
			return Entry{}, fmt.Errorf("url %s: %w", e.URL, err)
		}
	} else if e.Status >= 200 && e.Status < 300 {
		return Entry{}, fmt.Errorf("url %s: status %d without file: %w", e.URL, e.Status, claimtrace.ErrInvalid)
	}
	if e.File == "" || e.Status == 0 {
		e.Extracted = nil
	}
	e.Extracted = checkExtracted(e.Extracted)
	return e, nil
}

// checkPagePath accepts only slash-separated relative paths under pages/.
func checkPagePath(p string) error {
	clean := path.Clean(p)
	switch {
	case strings.ContainsRune(p, '\\') || strings.ContainsRune(p, 0):
		return fmt.Errorf("file %q: invalid characters: %w", p, claimtrace.ErrInvalid)
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return fmt.Errorf("file %q: absolute path escapes the snapshot: %w", p, claimtrace.ErrInvalid)
	case !filepath.IsLocal(filepath.FromSlash(clean)) || clean != p:
		return fmt.Errorf("file %q: path escapes the snapshot or is not clean: %w", p, claimtrace.ErrInvalid)
	case !strings.HasPrefix(clean, PagesDir+"/") || clean == PagesDir+"/":
		return fmt.Errorf("file %q: not under %s/: %w", p, PagesDir, claimtrace.ErrInvalid)
	}
	return nil
}

// Dir returns the snapshot directory.
func (s *Snapshot) Dir() string { return s.dir }

// Len returns the number of URLs in the snapshot.
func (s *Snapshot) Len() int { return len(s.entries) }

// Lookup returns the entry of url exactly as cited.
func (s *Snapshot) Lookup(url string) (Entry, bool) {
	i, ok := s.byURL[url]
	if !ok {
		return Entry{}, false
	}
	return s.entries[i], true
}

// Entries returns a copy of the snapshot's entries in index order.
func (s *Snapshot) Entries() []Entry {
	return append([]Entry(nil), s.entries...)
}

// lookupSnapshot finds rawURL in the snapshot as cited, then canonically.
func (c *Client) lookupSnapshot(rawURL string) (Entry, bool) {
	s := c.opts.Snapshot
	if s == nil {
		return Entry{}, false
	}
	if e, ok := s.Lookup(rawURL); ok {
		return e, true
	}
	e, ok := c.canonIndex[c.canon(rawURL)]
	return e, ok
}

// snapshotPage turns a snapshot entry into a Page (or an unreachable error).
func (c *Client) snapshotPage(rawURL string, e Entry) (*Page, error) {
	p := entryPage(rawURL, e)
	if e.Status == 0 {
		why := e.Err
		if why == "" {
			why = "recorded as unreachable"
		}
		p.Err = fmt.Sprintf("snapshot: %s", why)
		return p, fmt.Errorf("fetch %s: snapshot: %s: %w", rawURL, why, claimtrace.ErrUnreachable)
	}
	if e.File == "" {
		p.SHA256 = hashHex(nil)
		return p, nil
	}
	body, truncated, err := readSnapshotFile(c.opts.Snapshot.dir, e.File, c.opts.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: snapshot: %w", rawURL, err)
	}
	p.Body = body
	p.Truncated = p.Truncated || truncated
	p.SHA256 = hashHex(body)
	if e.SHA256 != "" && !truncated && !strings.EqualFold(e.SHA256, p.SHA256) {
		return nil, fmt.Errorf("fetch %s: snapshot file %s: sha256 %s, index says %s: %w", rawURL, e.File, p.SHA256, e.SHA256, claimtrace.ErrInvalid)
	}
	if e.Extracted != nil {
		// A sidecar that cannot be used is no error: Extract reads the
		// page itself.
		if content, err := loadSidecar(c.opts.Snapshot.dir, e.Extracted, p, p.SHA256); err == nil {
			p.keep(content, p.SHA256)
		}
	}
	return p, nil
}

// entryPage is the page a snapshot entry describes, served as rawURL,
// without its body.
func entryPage(rawURL string, e Entry) *Page {
	return &Page{
		URL:          rawURL,
		FinalURL:     e.FinalURL,
		Status:       e.Status,
		ContentType:  e.ContentType,
		Truncated:    e.Truncated,
		FetchedAt:    e.FetchedAt,
		FromSnapshot: true,
	}
}

// readSnapshotFile reads name inside dir without following links out of it.
func readSnapshotFile(dir, name string, max int64) ([]byte, bool, error) {
	// A named pipe among the pages is refused, never opened for reading
	// (which would wait for a writer).
	f, _, err := inputfile.OpenInRoot(dir, filepath.FromSlash(name))
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	body, truncated, err := readCapped(f, max)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", name, err)
	}
	return body, truncated, nil
}

// SnapshotWriter appends pages to a snapshot directory. It is resumable:
// opening an existing snapshot keeps its entries, and URLs already present
// are skipped. Page files are named by content hash, never by URL. It is
// safe for concurrent use.
type SnapshotWriter struct {
	mu    sync.Mutex
	dir   string
	index *os.File
	seen  map[string]bool
	// noText: Add keeps no extracted content (SkipText).
	noText bool
}

// CreateSnapshot creates (or reopens for appending) the snapshot in dir.
// A torn last line left by a crash is cut off.
func CreateSnapshot(dir string) (*SnapshotWriter, error) {
	if err := os.MkdirAll(filepath.Join(dir, PagesDir), 0o755); err != nil {
		return nil, fmt.Errorf("create snapshot %s: %w", dir, err)
	}
	index := filepath.Join(dir, IndexFile)
	if err := inputfile.Regular(index); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("create snapshot %s: %w", dir, err)
	}
	f, err := os.OpenFile(index, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create snapshot %s: %w", dir, err)
	}
	entries, good, err := readIndex(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("create snapshot %s: %w", dir, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("create snapshot %s: %w", dir, err)
	}
	if fi.Size() != good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, fmt.Errorf("create snapshot %s: cut torn line: %w", dir, err)
		}
	}
	if good > 0 {
		// A last line without newline is complete but unterminated.
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, good-1); err == nil && last[0] != '\n' {
			if _, err := f.WriteAt([]byte("\n"), good); err != nil {
				f.Close()
				return nil, fmt.Errorf("create snapshot %s: %w", dir, err)
			}
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("create snapshot %s: %w", dir, err)
	}
	w := &SnapshotWriter{dir: dir, index: f, seen: make(map[string]bool, len(entries))}
	for _, e := range entries {
		w.seen[e.URL] = true
	}
	return w, nil
}

// Has reports whether url is already in the snapshot.
func (w *SnapshotWriter) Has(url string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[url]
}

// SkipText makes Add keep pages without their extracted content, as
// snapshots written before ExtractorVersion 1 are (benchmarks and tests
// of that case).
func (w *SnapshotWriter) SkipText() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noText = true
}

// Add writes p's body under pages/ and appends its index line. A page whose
// URL is already present is skipped. Pages with Status 0 (unreachable) and
// dead links without a body are recorded without a file. A page with a
// file that Extract can read also gets its extracted content beside it (a
// sidecar, the line's "extracted" key), unless SkipText was called.
func (w *SnapshotWriter) Add(p *Page) error {
	if p == nil || strings.TrimSpace(p.URL) == "" {
		return fmt.Errorf("snapshot add: page without url: %w", claimtrace.ErrInvalid)
	}
	w.mu.Lock()
	seen, closed, noText := w.seen[p.URL], w.index == nil, w.noText
	w.mu.Unlock()
	if closed {
		return fmt.Errorf("snapshot add %s: writer closed: %w", p.URL, fs.ErrClosed)
	}
	if seen {
		return nil
	}
	e := Entry{
		URL:         p.URL,
		Status:      p.Status,
		ContentType: p.ContentType,
		FinalURL:    p.FinalURL,
		Truncated:   p.Truncated,
		FetchedAt:   p.FetchedAt,
		Err:         p.Err,
	}
	if e.FinalURL == e.URL {
		e.FinalURL = ""
	}
	var text []byte // the sidecar, extracted outside the lock
	if p.Status != 0 && (len(p.Body) > 0 || (p.Status >= 200 && p.Status < 300)) {
		e.SHA256 = hashHex(p.Body)
		e.File = path.Join(PagesDir, e.SHA256[:32]+extension(p.ContentType))
		if !noText {
			// The page as a reader of the snapshot will see it.
			back := entryPage(e.URL, e)
			back.Body = p.Body
			text, _ = encodeSidecar(back, e.SHA256) // none: extracted on every run
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.index == nil {
		return fmt.Errorf("snapshot add %s: writer closed: %w", p.URL, fs.ErrClosed)
	}
	if w.seen[p.URL] {
		return nil
	}
	if e.File != "" {
		if err := w.writePage(e.File, p.Body); err != nil {
			return fmt.Errorf("snapshot add %s: %w", p.URL, err)
		}
	}
	if text != nil {
		x, err := w.writeSidecar(text)
		if err != nil {
			return fmt.Errorf("snapshot add %s: %w", p.URL, err)
		}
		e.Extracted = x
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("snapshot add %s: %w", p.URL, err)
	}
	if _, err := w.index.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("snapshot add %s: %w", p.URL, err)
	}
	w.seen[p.URL] = true
	return nil
}

// writePage writes body to name atomically; identical content is shared.
func (w *SnapshotWriter) writePage(name string, body []byte) error {
	return writeShared(w.dir, name, body)
}

// writeShared writes body to name in the snapshot dir atomically, unless
// a file of that (content-derived) name and size is there already.
func writeShared(dir, name string, body []byte) error {
	dst := filepath.Join(dir, filepath.FromSlash(name))
	if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(body)) {
		return nil
	}
	return atomicfile.Write(dst, body, 0o600)
}

// writeSidecar writes a sidecar under its content's name.
func (w *SnapshotWriter) writeSidecar(data []byte) (*Extracted, error) {
	name, sum := sidecarName(data)
	if err := w.writePage(name, data); err != nil {
		return nil, err
	}
	return &Extracted{File: name, Version: ExtractorVersion, SHA256: sum}, nil
}

// Close flushes the index to disk and closes it.
func (w *SnapshotWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.index == nil {
		return nil
	}
	f := w.index
	w.index = nil
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("close snapshot %s: %w", w.dir, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close snapshot %s: %w", w.dir, err)
	}
	return nil
}

// extension returns a file extension for a content type.
func extension(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(contentType))
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return ".html"
	case mt == "application/pdf" || mt == "application/x-pdf":
		return ".pdf"
	case mt == "text/plain" || mt == "text/markdown":
		return ".txt"
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return ".json"
	case mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml"):
		return ".xml"
	}
	return ".bin"
}
