package fetch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/claimtrace/claimtrace"
)

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestSnapshotRoundTrip(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2025, 7, 1, 8, 0, 0, 0, time.UTC)
	pdfBody := []byte("%PDF-1.4 fake body")
	pages := []*Page{
		{URL: "https://arxiv.org/abs/1706.03762", FinalURL: "https://arxiv.org/abs/1706.03762v7", Status: 200, ContentType: "text/html; charset=utf-8", Body: []byte(articleHTML), FetchedAt: at},
		{URL: "https://arxiv.org/pdf/1706.03762", Status: 200, ContentType: "application/pdf", Body: pdfBody, FetchedAt: at},
		{URL: "https://arxiv.org/pdf/1706.03762v7", Status: 200, ContentType: "application/pdf", Body: pdfBody, FetchedAt: at},
		{URL: "https://example.org/../../etc/passwd?x=<script>", Status: 200, ContentType: "text/plain", Body: []byte("plain"), FetchedAt: at},
		{URL: "https://example.org/gone", Status: 410, FetchedAt: at},
		{URL: "https://example.org/forbidden", Status: 403, ContentType: "text/html", Body: []byte("<title>Access Denied</title>"), FetchedAt: at},
		{URL: "https://down.example/", Err: "dial tcp 203.0.113.9:443: i/o timeout", FetchedAt: at},
	}
	w, err := CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if err := w.Add(p); err != nil {
			t.Fatalf("Add(%s): %v", p.URL, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	lines := readLines(t, filepath.Join(dir, IndexFile))
	if len(lines) != len(pages) {
		t.Fatalf("index has %d lines, want %d", len(lines), len(pages))
	}
	files, _ := os.ReadDir(filepath.Join(dir, PagesDir))
	// Same PDF bytes under two URLs share one file; 404/410/0 have none.
	// The pages Extract reads have their content beside them; the fake
	// PDF, which it cannot read, has none.
	if len(files) != 7 {
		t.Errorf("pages/ holds %d files, want 7 (html, pdf, txt, 403 html, and the sidecars of html, txt, 403 html)", len(files))
	}
	name := regexp.MustCompile(`^pages/[0-9a-f]{32}\.(html|pdf|txt)$`)
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range snap.Entries() {
		if e.File != "" && !name.MatchString(e.File) {
			t.Errorf("entry %s has file %q, want a hash-named file under pages/", e.URL, e.File)
		}
	}

	c := New(Options{Snapshot: snap, Offline: true})
	for _, want := range pages {
		got, err := c.Fetch(context.Background(), want.URL)
		if want.Err != "" {
			if !errors.Is(err, claimtrace.ErrUnreachable) || !strings.Contains(err.Error(), "i/o timeout") {
				t.Errorf("Fetch(%s) error = %v, want ErrUnreachable with the recorded cause", want.URL, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Fetch(%s): %v", want.URL, err)
		}
		w := *want
		w.FromSnapshot = true
		w.SHA256 = hashHex(want.Body)
		if w.FinalURL == "" {
			w.FinalURL = ""
		}
		if diff := cmp.Diff(&w, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Page{}, "Kept")); diff != "" {
			t.Errorf("Fetch(%s) (-want +got):\n%s", want.URL, diff)
		}
		if wantKept := len(want.Body) > 0 && want.ContentType != "application/pdf"; (got.Kept != nil) != wantKept {
			t.Errorf("Fetch(%s): kept content %v, want %v", want.URL, got.Kept != nil, wantKept)
		}
	}
}

func TestSnapshotResume(t *testing.T) {
	dir := t.TempDir()
	w, err := CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Add(&Page{URL: "https://a.example/", Status: 200, ContentType: "text/html", Body: []byte("a")})
	w.Add(&Page{URL: "https://b.example/", Status: 404})
	w.Close()

	// A crash mid-write leaves a torn last line.
	f, _ := os.OpenFile(filepath.Join(dir, IndexFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"url":"https://c.example/","sta`)
	f.Close()
	if snap, err := OpenSnapshot(dir); err != nil || snap.Len() != 2 {
		t.Fatalf("OpenSnapshot with torn tail = %v, %v; want 2 entries", snap, err)
	}

	w, err = CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !w.Has("https://a.example/") || w.Has("https://c.example/") {
		t.Errorf("Has: a=%v c=%v, want true false", w.Has("https://a.example/"), w.Has("https://c.example/"))
	}
	w.Add(&Page{URL: "https://a.example/", Status: 200, ContentType: "text/html", Body: []byte("changed")}) // skipped
	w.Add(&Page{URL: "https://c.example/", Status: 200, ContentType: "text/html", Body: []byte("c")})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(&Page{URL: "https://d.example/"}); err == nil {
		t.Error("Add after Close succeeded")
	}
	lines := readLines(t, filepath.Join(dir, IndexFile))
	if len(lines) != 3 {
		t.Fatalf("index after resume:\n%s\nwant 3 lines", strings.Join(lines, "\n"))
	}
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Snapshot: snap, Offline: true}).Fetch(context.Background(), "https://a.example/")
	if err != nil || string(p.Body) != "a" {
		t.Errorf("resumed snapshot a = %v, %v; want the first body", p, err)
	}
}

func TestOpenSnapshotRejectsHostileIndex(t *testing.T) {
	tests := []struct {
		name  string
		index string
		want  error
	}{
		{"parent dir", `{"url":"u","status":200,"file":"../secret.txt"}`, claimtrace.ErrInvalid},
		{"absolute", `{"url":"u","status":200,"file":"/etc/passwd"}`, claimtrace.ErrInvalid},
		{"escape after pages", `{"url":"u","status":200,"file":"pages/../../secret"}`, claimtrace.ErrInvalid},
		{"index itself", `{"url":"u","status":200,"file":"pages/../index.jsonl"}`, claimtrace.ErrInvalid},
		{"outside pages", `{"url":"u","status":200,"file":"other/x.html"}`, claimtrace.ErrInvalid},
		{"backslashes", `{"url":"u","status":200,"file":"pages\\..\\..\\x"}`, claimtrace.ErrInvalid},
		{"windows drive", `{"url":"u","status":200,"file":"C:/x"}`, claimtrace.ErrInvalid},
		{"unclean", `{"url":"u","status":200,"file":"pages//x.html"}`, claimtrace.ErrInvalid},
		{"nul byte", `{"url":"u","status":200,"file":"pages/x\u0000.html"}`, claimtrace.ErrInvalid},
		{"no url", `{"status":200,"file":"pages/x.html"}`, claimtrace.ErrInvalid},
		{"bad status", `{"url":"u","status":-1}`, claimtrace.ErrInvalid},
		{"200 without file", `{"url":"u","status":200}`, claimtrace.ErrInvalid},
		{"not json", "{\"url\":\"u\"\n", claimtrace.ErrInvalid},
		{"two objects", `{"url":"u","status":404}{"url":"v","status":404}`, claimtrace.ErrInvalid},
		{"wrong type", `{"url":"u","status":"200"}`, claimtrace.ErrInvalid},
		{"huge line", `{"url":"` + strings.Repeat("a", 2<<20) + `","status":404}`, claimtrace.ErrTooLarge},
		{"bad line among good", `{"url":"a","status":404}` + "\n" + `{"url":"b","status":200,"file":"../b"}` + "\n" + `{"url":"c","status":404}`, claimtrace.ErrInvalid},
		{"unterminated but escaping", `{"url":"u","status":200,"file":"../x"}`, claimtrace.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, IndexFile), []byte(tt.index+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.name == "unterminated but escaping" {
				os.WriteFile(filepath.Join(dir, IndexFile), []byte(tt.index), 0o644)
			}
			_, err := OpenSnapshot(dir)
			if !errors.Is(err, tt.want) {
				t.Fatalf("OpenSnapshot error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "line") {
				t.Errorf("error %q should name the snapshot and the line", err)
			}
			if _, err := CreateSnapshot(dir); err == nil {
				t.Error("CreateSnapshot accepted the hostile index")
			}
		})
	}
	if _, err := OpenSnapshot(t.TempDir()); err == nil {
		t.Error("OpenSnapshot of a directory without index succeeded")
	}
}

func TestSnapshotFileIntegrity(t *testing.T) {
	t.Run("symlink out of the snapshot", func(t *testing.T) {
		dir := t.TempDir()
		secret := filepath.Join(t.TempDir(), "secret.txt")
		os.WriteFile(secret, []byte("top secret"), 0o644)
		os.MkdirAll(filepath.Join(dir, PagesDir), 0o755)
		if err := os.Symlink(secret, filepath.Join(dir, PagesDir, "evil.html")); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
		os.WriteFile(filepath.Join(dir, IndexFile), []byte(`{"url":"https://x.example/","status":200,"content_type":"text/html","file":"pages/evil.html"}`+"\n"), 0o644)
		snap, err := OpenSnapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(Options{Snapshot: snap, Offline: true}).Fetch(context.Background(), "https://x.example/")
		if err == nil {
			t.Fatalf("Fetch followed a symlink out of the snapshot: %q", p.Body)
		}
	})
	t.Run("hash mismatch", func(t *testing.T) {
		dir := t.TempDir()
		w, _ := CreateSnapshot(dir)
		w.Add(&Page{URL: "https://x.example/", Status: 200, ContentType: "text/html", Body: []byte("original")})
		w.Close()
		snap, _ := OpenSnapshot(dir)
		e, _ := snap.Lookup("https://x.example/")
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(e.File)), []byte("tampered"), 0o644)
		_, err := New(Options{Snapshot: snap, Offline: true}).Fetch(context.Background(), "https://x.example/")
		if !errors.Is(err, claimtrace.ErrInvalid) {
			t.Fatalf("error = %v, want ErrInvalid for a tampered file", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, IndexFile), []byte(`{"url":"https://x.example/","status":200,"file":"pages/none.html"}`+"\n"), 0o644)
		snap, err := OpenSnapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(Options{Snapshot: snap}).Fetch(context.Background(), "https://x.example/"); err == nil || !strings.Contains(err.Error(), "pages/none.html") {
			t.Fatalf("error = %v, want one naming the missing file", err)
		}
	})
}

func FuzzSnapshotIndex(f *testing.F) {
	f.Add([]byte(`{"url":"https://a.example/","status":200,"content_type":"text/html","file":"pages/0123.html"}` + "\n"))
	f.Add([]byte(`{"url":"https://b.example/","status":404}` + "\n" + `{"url":"https://c.example/","status":0,"error":"timeout"}`))
	f.Add([]byte(`{"url":"u","status":200,"file":"../../etc/passwd"}`))
	f.Add([]byte(`{"url":"u","status":200,"file":"pages/../x"}` + "\n"))
	f.Add([]byte("\n\n{\"url\":\"u\",\"sta"))
	f.Add([]byte(`{"url":"u","status":200,"file":"pages/a.html","extracted":{"file":"pages/b.extract.json","version":1,"sha256":"` + strings.Repeat("ab", 32) + `"}}` + "\n"))
	f.Add([]byte(`{"url":"u","status":200,"file":"pages/a.html","extracted":{"file":"../b.extract.json","version":1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, good, err := readIndex(bytes.NewReader(data))
		if err != nil {
			return
		}
		if good > int64(len(data)) {
			t.Fatalf("good prefix %d > input %d", good, len(data))
		}
		for _, e := range entries {
			if e.URL == "" {
				t.Fatalf("accepted entry without url: %+v", e)
			}
			if x := e.Extracted; x != nil && (e.File == "" || checkPagePath(x.File) != nil || !strings.HasSuffix(x.File, sidecarSuffix)) {
				t.Fatalf("accepted sidecar %+v of entry %+v", x, e)
			}
			if e.File == "" {
				continue
			}
			if err := checkPagePath(e.File); err != nil {
				t.Fatalf("accepted file %q: %v", e.File, err)
			}
			if !filepath.IsLocal(filepath.FromSlash(e.File)) || !strings.HasPrefix(e.File, PagesDir+"/") {
				t.Fatalf("accepted escaping file %q", e.File)
			}
		}
	})
}
