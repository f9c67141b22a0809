package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/encoding/charmap"
)

// extractorCorpus is a fixed set of pages covering each kind of content
// and each wall, read as a snapshot serves them.
func extractorCorpus(t testing.TB) []*Page {
	t.Helper()
	html := func(file, url string, status int) *Page {
		return &Page{URL: url, Status: status, ContentType: "text/html; charset=utf-8", Body: fixture(t, file)}
	}
	cp1252, err := charmap.Windows1252.NewEncoder().Bytes([]byte(`<html><head><title>Über die Straßenbahn – Stadtwerke</title></head>` +
		`<body><nav>Startseite | Kontakt</nav><article><h1>Über die Straßenbahn</h1><p>Die Linie 4 fährt seit März wieder im Zehn-Minuten-Takt, ` +
		`nachdem die Gleise zwischen Hauptbahnhof und Zoo erneuert wurden. Fahrgäste müssen an den Wochenenden mit Ersatzbussen rechnen.</p></article></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	return []*Page{
		html("arxiv_abs.html", "https://arxiv.org/abs/1706.03762", 200),
		html("acm_dl.html", "https://dl.acm.org/doi/10.1145/3442188.3445922", 200),
		html("ieee_xplore.html", "https://ieeexplore.ieee.org/document/7780459", 200),
		html("jsonld_scholarly.html", "https://www.nature.com/articles/s41586-021-03819-2", 200),
		html("wikipedia.html", "https://en.wikipedia.org/wiki/Transformer_(deep_learning_architecture)", 200),
		html("blog.html", "https://labnotes.example.org/posts/rag-still-hallucinates", 200),
		html("cloudflare.html", "https://www.sciencedirect.com/science/article/pii/S0893608014002135", 403),
		html("paywall.html", "https://ledger.example.com/tech/ai-energy", 200),
		html("soft404.html", "https://northwind.example.org/2023/05/old-post", 200),
		html("login.html", "https://kb.acme.example/articles/4711", 200),
		{URL: "https://tram.example.de/linie-4", Status: 200, ContentType: "text/html; charset=windows-1252", Body: cp1252},
		{URL: "https://arxiv.org/pdf/1706.03762", Status: 200, ContentType: "application/pdf", Body: paperPDF("Attention Is All You Need")},
		{URL: "https://notes.example.net/readme.txt", Status: 200, ContentType: "text/plain",
			Body: []byte("# Field notes\r\n\r\nThe  pump at   station 3 was\treplaced on 4 May.\r\n\r\n\r\nFlow rose from 12 to 19 litres a second.\r\n")},
		{URL: "https://api.example.net/v2/items", Status: 200, ContentType: "application/json", Body: []byte(`{"items": [{"id": 7, "name": "valve"}]}`)},
	}
}

// extractorDigest is the SHA-256 of Extract's output on extractorCorpus,
// pinned with the ExtractorVersion it belongs to.
const (
	pinnedExtractorVersion = 1
	pinnedExtractorDigest  = "9651fd554a981180a70e41cff273c60ebfde57d9c6c5f14f4e7a4ed2d411124f"
)

// TestExtractorVersionPinned fails when Extract's output changes without
// a new ExtractorVersion: snapshots would otherwise keep serving content
// the extractor no longer produces.
func TestExtractorVersionPinned(t *testing.T) {
	h := sha256.New()
	for _, p := range extractorCorpus(t) {
		c, err := Extract(p)
		if err != nil {
			t.Fatalf("Extract(%s): %v", p.URL, err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(p.URL + "\x00"))
		h.Write(b)
		h.Write([]byte("\n"))
	}
	got := hex.EncodeToString(h.Sum(nil))
	switch {
	case ExtractorVersion == pinnedExtractorVersion && got != pinnedExtractorDigest:
		t.Fatalf("Extract's output or its JSON encoding changed (digest %s, pinned %s for version %d): snapshots keep the old output in their sidecars. "+
			"Bump fetch.ExtractorVersion, then set pinnedExtractorVersion to it and pinnedExtractorDigest to %s",
			got, pinnedExtractorDigest, pinnedExtractorVersion, got)
	case ExtractorVersion != pinnedExtractorVersion:
		t.Fatalf("ExtractorVersion is %d, pinned %d: set pinnedExtractorVersion = %d and pinnedExtractorDigest = %q",
			ExtractorVersion, pinnedExtractorVersion, ExtractorVersion, got)
	}
}

// writeSnapshot adds pages to a new snapshot in dir and opens it.
func writeSnapshot(t testing.TB, dir string, skipText bool, pages ...*Page) *Snapshot {
	t.Helper()
	w, err := CreateSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if skipText {
		w.SkipText()
	}
	for _, p := range pages {
		if err := w.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// fresh is p without its kept content: what Extract made of it before.
func fresh(p *Page) *Page {
	q := *p
	q.Kept = nil
	return &q
}

func TestSidecarServesWhatExtractGives(t *testing.T) {
	dir := t.TempDir()
	pages := extractorCorpus(t)
	snap := writeSnapshot(t, dir, false, pages...)
	c := New(Options{Snapshot: snap, Offline: true})
	for _, want := range pages {
		got, err := c.Fetch(context.Background(), want.URL)
		if err != nil {
			t.Fatalf("Fetch(%s): %v", want.URL, err)
		}
		if got.Kept == nil {
			t.Errorf("Fetch(%s): no kept content", want.URL)
			continue
		}
		kept, err := Extract(got)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Extract(fresh(got))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(again, kept); diff != "" {
			t.Errorf("%s: kept content differs from extraction (-extracted +kept):\n%s", want.URL, diff)
		}
		// Callers own what Extract returns.
		kept.Meta.Authors = append(kept.Meta.Authors[:0:0], "Somebody Else")
		kept.Text = "changed"
		if k2, _ := Extract(got); k2.Text == "changed" || (len(k2.Meta.Authors) > 0 && k2.Meta.Authors[0] == "Somebody Else") {
			t.Errorf("%s: Extract hands out the kept content itself", want.URL)
		}
	}
}

func TestKeptContentOnlyForThePageItWasKeptFor(t *testing.T) {
	dir := t.TempDir()
	orig := &Page{URL: "https://harbour.example.org/report", Status: 200, ContentType: "text/plain",
		Body: []byte("Harbour report\n\nThe ferry to the island runs twice a day in winter.")}
	snap := writeSnapshot(t, dir, false, orig)
	c := New(Options{Snapshot: snap, Offline: true})
	for _, tt := range []struct {
		name   string
		change func(p *Page)
	}{
		{"body", func(p *Page) { p.Body = []byte("Other news\n\nThe bridge is closed for repairs.") }},
		{"final url", func(p *Page) { p.FinalURL = "https://mirror.example.net/report" }},
		{"status", func(p *Page) { p.Status = 503 }},
		{"content type", func(p *Page) { p.ContentType = "text/html" }},
		{"truncated", func(p *Page) { p.Truncated = true }},
		{"error", func(p *Page) { p.Status, p.Err = 0, "connection reset" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := c.Fetch(context.Background(), orig.URL)
			if err != nil || p.Kept == nil {
				t.Fatalf("Fetch: kept %v, %v", p != nil && p.Kept != nil, err)
			}
			tt.change(p)
			got, gerr := Extract(p)
			want, werr := Extract(fresh(p))
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("Extract of the changed page: %v, without kept content: %v", gerr, werr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Extract used the kept content of another page (-fresh +got):\n%s", diff)
			}
		})
	}
}

// rewriteIndex replaces the snapshot's index with entries, changed by fn.
func rewriteIndex(t testing.TB, dir string, fn func(e *Entry)) {
	t.Helper()
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, e := range snap.Entries() {
		fn(&e)
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// putSidecar writes data as the sidecar of every entry.
func putSidecar(t testing.TB, dir string, data []byte, version int) {
	t.Helper()
	name, sum := sidecarName(data)
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	rewriteIndex(t, dir, func(e *Entry) { e.Extracted = &Extracted{File: name, Version: version, SHA256: sum} })
}

func TestUnusableSidecarFallsBackToExtraction(t *testing.T) {
	page := &Page{URL: "https://river.example.org/levels", Status: 200, ContentType: "text/html",
		Body: []byte(`<html><head><title>River levels</title></head><body><article><h1>River levels</h1>` +
			`<p>The river at the old mill stood at 2.4 metres on Tuesday, up from 1.9 metres a week earlier, after three days of rain upstream.</p></article></body></html>`)}
	other := &Page{URL: "https://other.example.org/", Status: 200, ContentType: "text/plain", Body: []byte("Other page\n\nNothing about rivers here.")}
	want, err := Extract(page)
	if err != nil {
		t.Fatal(err)
	}
	sidecarOf := func(t *testing.T, p *Page) []byte {
		data, err := encodeSidecar(p, hashHex(p.Body))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, tt := range []struct {
		name  string
		spoil func(t *testing.T, dir string, x *Extracted)
	}{
		{"missing", func(t *testing.T, dir string, x *Extracted) {
			os.Remove(filepath.Join(dir, x.File))
		}},
		{"garbage", func(t *testing.T, dir string, x *Extracted) {
			os.WriteFile(filepath.Join(dir, x.File), []byte("\x00\x01not json at all"), 0o644)
		}},
		{"cut short", func(t *testing.T, dir string, x *Extracted) {
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			os.WriteFile(filepath.Join(dir, x.File), b[:len(b)/2], 0o644)
		}},
		{"index version", func(t *testing.T, dir string, x *Extracted) {
			rewriteIndex(t, dir, func(e *Entry) { e.Extracted.Version = ExtractorVersion + 1 })
		}},
		{"file version", func(t *testing.T, dir string, x *Extracted) {
			var sc map[string]any
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			head, text, _ := bytes.Cut(b, []byte("\n"))
			if err := json.Unmarshal(head, &sc); err != nil {
				t.Fatal(err)
			}
			sc["version"] = ExtractorVersion + 1
			head, _ = json.Marshal(sc)
			putSidecar(t, dir, append(append(head, '\n'), text...), ExtractorVersion)
		}},
		{"another page's", func(t *testing.T, dir string, x *Extracted) {
			putSidecar(t, dir, sidecarOf(t, other), ExtractorVersion)
		}},
		{"same body, another url", func(t *testing.T, dir string, x *Extracted) {
			moved := *page
			moved.URL = "https://mirror.example.com/levels"
			putSidecar(t, dir, sidecarOf(t, &moved), ExtractorVersion)
		}},
		{"unknown kind", func(t *testing.T, dir string, x *Extracted) {
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			putSidecar(t, dir, bytes.Replace(b, []byte(`"kind":"html"`), []byte(`"kind":"video"`), 1), ExtractorVersion)
		}},
		{"text cut", func(t *testing.T, dir string, x *Extracted) {
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			putSidecar(t, dir, b[:len(b)-3], ExtractorVersion)
		}},
		{"text not UTF-8", func(t *testing.T, dir string, x *Extracted) {
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			b[len(b)-1] = 0xff
			putSidecar(t, dir, b, ExtractorVersion)
		}},
		{"text in the header", func(t *testing.T, dir string, x *Extracted) {
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			putSidecar(t, dir, bytes.Replace(b, []byte(`"kind":"html"`), []byte(`"kind":"html","text":"River levels fell"`), 1), ExtractorVersion)
		}},
		{"unknown field", func(t *testing.T, dir string, x *Extracted) {
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			putSidecar(t, dir, bytes.Replace(b, []byte(`{"version"`), []byte(`{"extra":1,"version"`), 1), ExtractorVersion)
		}},
		{"no content", func(t *testing.T, dir string, x *Extracted) {
			putSidecar(t, dir, []byte(`{"version":1,"input":{}}`+"\n"), ExtractorVersion)
		}},
		{"oversized", func(t *testing.T, dir string, x *Extracted) {
			b, _ := os.ReadFile(filepath.Join(dir, x.File))
			pad := bytes.Repeat([]byte(" "), int(maxSidecar(len(page.Body))))
			putSidecar(t, dir, append(b, pad...), ExtractorVersion)
		}},
		{"a directory", func(t *testing.T, dir string, x *Extracted) {
			os.Remove(filepath.Join(dir, x.File))
			os.Mkdir(filepath.Join(dir, x.File), 0o755)
		}},
		{"escaping path", func(t *testing.T, dir string, x *Extracted) {
			rewriteIndex(t, dir, func(e *Entry) { e.Extracted.File = "pages/../../secret.extract.json" })
		}},
		{"not a sidecar name", func(t *testing.T, dir string, x *Extracted) {
			rewriteIndex(t, dir, func(e *Entry) { e.Extracted.File = e.File })
		}},
		{"sha differs", func(t *testing.T, dir string, x *Extracted) {
			rewriteIndex(t, dir, func(e *Entry) { e.Extracted.SHA256 = strings.Repeat("0", 64) })
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			snap := writeSnapshot(t, dir, false, page)
			e, _ := snap.Lookup(page.URL)
			if e.Extracted == nil {
				t.Fatal("the snapshot keeps no content for the page")
			}
			tt.spoil(t, dir, e.Extracted)
			snap, err := OpenSnapshot(dir)
			if err != nil {
				t.Fatalf("OpenSnapshot: %v", err)
			}
			p, err := New(Options{Snapshot: snap, Offline: true}).Fetch(context.Background(), page.URL)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if p.Kept != nil {
				t.Errorf("the spoilt sidecar was used")
			}
			got, err := Extract(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("content (-extracted +got):\n%s", diff)
			}
		})
	}
}

// TestSnapshotWithoutSidecars reads snapshots as older claimtraces and
// people write them: no "extracted" key, only the four keys of the
// contract.
func TestSnapshotWithoutSidecars(t *testing.T) {
	dir := t.TempDir()
	body := "Parish notes\n\nThe bell tower was restored in 1987 with funds raised by the village."
	os.MkdirAll(filepath.Join(dir, PagesDir), 0o755)
	os.WriteFile(filepath.Join(dir, "pages", "notes.txt"), []byte(body), 0o644)
	os.WriteFile(filepath.Join(dir, IndexFile), []byte(`{"url": "https://parish.example.org/notes", "status": 200, "content_type": "text/plain", "file": "pages/notes.txt"}`+"\n"), 0o644)
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Snapshot: snap, Offline: true}).Fetch(context.Background(), "https://parish.example.org/notes")
	if err != nil {
		t.Fatal(err)
	}
	if p.Kept != nil {
		t.Fatal("content kept for a page without sidecar")
	}
	c, err := Extract(p)
	if err != nil || !strings.Contains(c.Text, "restored in 1987") {
		t.Fatalf("Extract = %+v, %v", c, err)
	}

	// A writer told to skip the text writes lines an older claimtrace wrote.
	dir2 := t.TempDir()
	snap2 := writeSnapshot(t, dir2, true, &Page{URL: "https://parish.example.org/notes", Status: 200, ContentType: "text/plain", Body: []byte(body)})
	if e, _ := snap2.Lookup("https://parish.example.org/notes"); e.Extracted != nil {
		t.Errorf("SkipText: entry %+v keeps content", e)
	}
	if idx, _ := os.ReadFile(filepath.Join(dir2, IndexFile)); bytes.Contains(idx, []byte("extracted")) {
		t.Errorf("SkipText: index %s", idx)
	}
}

// TestContentReadsBack fills every field of Content by reflection, so that
// a field added later without a way through the sidecar's JSON fails here
// rather than disappearing from snapshots.
func TestContentReadsBack(t *testing.T) {
	var c Content
	fill(t, reflect.ValueOf(&c).Elem(), "f")
	c.Kind, c.Wall = KindPDF, WallPaywall
	p := &Page{URL: "https://fill.example.org/", Status: 200, ContentType: "text/plain", Body: []byte("x")}
	sha := hashHex(p.Body)
	p.keep(&c, sha)
	data, err := encodeSidecar(p, sha)
	if err != nil {
		t.Fatalf("encodeSidecar: %v", err)
	}
	sc, err := decodeSidecar(data)
	if err != nil {
		t.Fatal(err)
	}
	if !sameContent(&c, sc.Content) {
		t.Fatalf("content does not read back:\n%+v\n%+v", c, *sc.Content)
	}
	// No authors and an empty list of them stay what they were.
	for _, authors := range [][]string{nil, {}} {
		e := Content{Title: "t", Text: "x", Kind: KindHTML, Meta: Meta{Authors: authors}}
		p.keep(&e, sha)
		data, err := encodeSidecar(p, sha)
		if err != nil {
			t.Fatalf("authors %#v: %v", authors, err)
		}
		if sc, err := decodeSidecar(data); err != nil || (sc.Content.Meta.Authors == nil) != (authors == nil) {
			t.Errorf("authors %#v read back as %#v, %v", authors, sc.Content.Meta.Authors, err)
		}
	}
	p.keep(&c, sha)
	// A date kept with its offset reads back at the same instant and offset.
	if sc.Content.Meta.Date.Format(time.RFC3339) != c.Meta.Date.Format(time.RFC3339) {
		t.Errorf("date %v, want %v", sc.Content.Meta.Date, c.Meta.Date)
	}
}

// fill sets every field of v to a value that is not its zero.
func fill(t *testing.T, v reflect.Value, name string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("value of " + name)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), name)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2022, 3, 4, 5, 6, 7, 0, time.FixedZone("", 2*3600))))
			return
		}
		for i := range v.NumField() {
			fill(t, v.Field(i), name+"."+v.Type().Field(i).Name)
		}
	default:
		t.Fatalf("field %s of kind %s: teach fill (and the sidecar) about it", name, v.Kind())
	}
}

func TestEncodeSidecarRefusesWhatWouldNotReadBack(t *testing.T) {
	p := &Page{URL: "https://bad.example.org/", Status: 200, ContentType: "text/plain", Body: []byte("x")}
	sha := hashHex(p.Body)
	for _, c := range []*Content{
		{Title: "caf\xe9", Text: "ok", Kind: KindText},
		{Title: "ok", Text: "ok", Kind: KindText, Meta: Meta{Date: time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{Title: "ok", Text: "ok", Kind: KindText, Meta: Meta{Authors: []string{"A\xffB"}}},
	} {
		p.keep(c, sha)
		if data, err := encodeSidecar(p, sha); err == nil {
			t.Errorf("encodeSidecar(%+v) = %s, want an error", c, data)
		}
	}
}

func TestIndexText(t *testing.T) {
	dir := t.TempDir()
	pages := extractorCorpus(t)[:4]
	pages = append(pages,
		&Page{URL: "https://img.example.org/cat.png", Status: 200, ContentType: "image/png", Body: []byte("\x89PNG\r\n\x1a\nnot really")},
		&Page{URL: "https://gone.example.org/", Status: 404},
	)
	writeSnapshot(t, dir, true, pages...)
	// A line written by hand, with a key claimtrace does not know.
	os.WriteFile(filepath.Join(dir, "pages", "hand.txt"), []byte("Hand notes\n\nThe well was dug in 1902."), 0o644)
	hand := `{"file":"pages/hand.txt","url":"https://hand.example.org/","note":"copied from a USB stick","status":200,"content_type":"text/plain"}` + "\n"
	f, _ := os.OpenFile(filepath.Join(dir, IndexFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(hand)
	f.Close()
	before, _ := os.ReadFile(filepath.Join(dir, IndexFile))

	var progress atomic.Int32 // called from several goroutines
	res, err := IndexText(context.Background(), dir, IndexTextOptions{Concurrency: 3, Progress: func() { progress.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages != 6 || res.Written != 5 || res.Current != 0 || len(res.Unreadable) != 1 || progress.Load() != 6 {
		t.Fatalf("IndexText = %+v (progress %d), want 6 pages, 5 written, the image unreadable", res, progress.Load())
	}
	if why := res.Unreadable["https://img.example.org/cat.png"]; !strings.Contains(why, "unsupported content type") {
		t.Errorf("unreadable image: %q", why)
	}
	after, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	oldLines, newLines := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	if len(oldLines) != len(newLines) {
		t.Fatalf("index went from %d to %d lines", len(oldLines), len(newLines))
	}
	for i := range oldLines {
		var o, n map[string]json.RawMessage
		if oldLines[i] == "" {
			continue
		}
		json.Unmarshal([]byte(oldLines[i]), &o)
		json.Unmarshal([]byte(newLines[i]), &n)
		_, had := o["extracted"]
		x, has := n["extracted"]
		delete(n, "extracted")
		if diff := cmp.Diff(o, n); diff != "" || had {
			t.Errorf("line %d: keys changed (-old +new):\n%s", i+1, diff)
		}
		if strings.Contains(oldLines[i], "cat.png") || strings.Contains(oldLines[i], "gone.example") {
			if has {
				t.Errorf("line %d: %s got a sidecar", i+1, newLines[i])
			}
			continue
		}
		if !has || !strings.Contains(string(x), `"version":1`) {
			t.Errorf("line %d: no sidecar: %s", i+1, newLines[i])
		}
	}
	if !strings.HasPrefix(newLines[len(newLines)-2], `{"file":"pages/hand.txt","url":"https://hand.example.org/","note":"copied from a USB stick",`) {
		t.Errorf("hand-written line reordered: %s", newLines[len(newLines)-2])
	}

	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Snapshot: snap, Offline: true})
	for _, u := range []string{pages[0].URL, pages[3].URL, "https://hand.example.org/"} {
		p, err := c.Fetch(context.Background(), u)
		if err != nil || p.Kept == nil {
			t.Fatalf("Fetch(%s): kept %v, %v", u, p != nil && p.Kept != nil, err)
		}
		kept, _ := Extract(p)
		again, _ := Extract(fresh(p))
		if diff := cmp.Diff(again, kept); diff != "" {
			t.Errorf("%s (-extracted +kept):\n%s", u, diff)
		}
	}

	// Run again: nothing to do, index untouched.
	res, err = IndexText(context.Background(), dir, IndexTextOptions{Concurrency: 1})
	if err != nil || res.Written != 0 || res.Current != 5 {
		t.Fatalf("second IndexText = %+v, %v; want 5 current", res, err)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, IndexFile)); !bytes.Equal(again, after) {
		t.Errorf("second run rewrote the index")
	}
}

// TestIndexTextRemovesUnusedSidecars: the sidecar of an older extractor a
// line pointed to, and one no line points to, are deleted once the index
// is written; the sidecars in use, the page files, and whatever is not a
// regular sidecar file stay.
func TestIndexTextRemovesUnusedSidecars(t *testing.T) {
	dir := t.TempDir()
	pages := extractorCorpus(t)[:3]
	writeSnapshot(t, dir, false, pages...) // with their sidecars
	idx := filepath.Join(dir, IndexFile)
	data, _ := os.ReadFile(idx)
	lines := strings.SplitAfter(string(data), "\n")
	// The first page's line points to a sidecar of version 0.
	old := path.Join(PagesDir, "0123456789abcdef0123456789abcdef"+sidecarSuffix)
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(old)), []byte(`{"version":0}`), 0o600)
	raw, err := setKey([]byte(lines[0]), "extracted", &Extracted{File: old, Version: 0, SHA256: strings.Repeat("0", 64)})
	if err != nil {
		t.Fatal(err)
	}
	lines[0] = string(raw)
	os.WriteFile(idx, []byte(strings.Join(lines, "")), 0o644)
	stray := filepath.Join(dir, PagesDir, "fedcba9876543210fedcba9876543210"+sidecarSuffix)
	os.WriteFile(stray, []byte(`{}`), 0o600)
	notFile := filepath.Join(dir, PagesDir, "subdir"+sidecarSuffix)
	os.Mkdir(notFile, 0o700)
	link := filepath.Join(dir, PagesDir, "link"+sidecarSuffix)
	os.Symlink(stray, link)
	inUse := map[string]bool{}
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range snap.Entries()[1:] {
		inUse[e.Extracted.File] = true
	}

	res, err := IndexText(context.Background(), dir, IndexTextOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != 1 || res.Current != 2 || res.Removed != 2 {
		t.Fatalf("IndexText = %+v, want 1 written, 2 current, 2 removed", res)
	}
	for _, gone := range []string{filepath.Join(dir, filepath.FromSlash(old)), stray} {
		if _, err := os.Lstat(gone); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: still there (%v)", gone, err)
		}
	}
	for _, kept := range []string{notFile, link} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s: %v, want it left alone", kept, err)
		}
	}
	snap, err = OpenSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range snap.Entries() {
		if _, err := os.Stat(filepath.Join(dir, e.File)); err != nil {
			t.Errorf("page file of %s: %v", e.URL, err)
		}
		if e.Extracted == nil || e.Extracted.Version != ExtractorVersion {
			t.Fatalf("%s: sidecar %+v", e.URL, e.Extracted)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(e.Extracted.File))); err != nil {
			t.Errorf("sidecar of %s: %v", e.URL, err)
		}
	}
	for f := range inUse {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			t.Errorf("sidecar in use %s: %v", f, err)
		}
	}

	// Nothing left to remove: a second run deletes nothing.
	if res, err = IndexText(context.Background(), dir, IndexTextOptions{Concurrency: 1}); err != nil || res.Removed != 0 || res.Current != 3 {
		t.Errorf("second IndexText = %+v, %v; want 3 current, none removed", res, err)
	}
}

func TestIndexTextRefusesAnIndexChangedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	writeSnapshot(t, dir, true, extractorCorpus(t)[:3]...)
	late := `{"url":"https://late.example.org/","status":404}` + "\n"
	appended := false
	_, err := IndexText(context.Background(), dir, IndexTextOptions{Concurrency: 1, Progress: func() {
		if !appended {
			appended = true
			f, _ := os.OpenFile(filepath.Join(dir, IndexFile), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(late)
			f.Close()
		}
	}})
	if err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("IndexText = %v, want an error saying the index changed", err)
	}
	idx, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if !strings.HasSuffix(string(idx), late) || bytes.Contains(idx, []byte("extracted")) {
		t.Errorf("index after the refused run:\n%s", idx)
	}
}

func TestIndexTextBadInput(t *testing.T) {
	if _, err := IndexText(context.Background(), filepath.Join(t.TempDir(), "none"), IndexTextOptions{}); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing snapshot: %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, IndexFile), []byte("{\"url\":\"u\",\"status\":200}\n"), 0o644)
	if _, err := IndexText(context.Background(), dir, IndexTextOptions{}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad index: %v", err)
	}
	// A page file gone or altered: the page has no sidecar, the rest goes on.
	dir = t.TempDir()
	pages := extractorCorpus(t)[:2]
	writeSnapshot(t, dir, true, pages...)
	snap, _ := OpenSnapshot(dir)
	e, _ := snap.Lookup(pages[0].URL)
	os.WriteFile(filepath.Join(dir, e.File), []byte("<html>altered</html>"), 0o644)
	res, err := IndexText(context.Background(), dir, IndexTextOptions{})
	if err != nil || res.Written != 1 || !strings.Contains(res.Unreadable[pages[0].URL], "sha256") {
		t.Errorf("altered page: %+v, %v", res, err)
	}
}

func FuzzSidecar(f *testing.F) {
	page := &Page{URL: "https://fuzz.example.org/a", Status: 200, ContentType: "text/html",
		Body: []byte(`<html><head><title>Tide table</title></head><body><main><p>High water at 06:12 and 18:40.</p></main></body></html>`)}
	good, err := encodeSidecar(page, hashHex(page.Body))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(bytes.Replace(good, []byte(`"kind":"html"`), []byte(`"kind":"pdf"`), 1))
	f.Add([]byte(`{"version":1,"input":{"url":"https://fuzz.example.org/a","status":200,"content_type":"text/html"},"content":{"kind":"text","text":"x"},"text_bytes":1}` + "\nx"))
	f.Add([]byte(`{"version":1,"content":{"kind":"text"},"text_bytes":2}` + "\n\xff\xfe"))
	f.Add([]byte(`{"version":1}{"version":1}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	snap := writeSnapshot(f, dir, false, page)
	want, err := Extract(page)
	if err != nil {
		f.Fatal(err)
	}
	e, _ := snap.Lookup(page.URL)
	f.Fuzz(func(t *testing.T, data []byte) {
		if sc, err := decodeSidecar(data); err == nil {
			if sc.Content == nil {
				t.Fatal("accepted a sidecar without content")
			}
		}
		p := entryPage(page.URL, e)
		p.Body = page.Body
		sha := hashHex(p.Body)
		name := filepath.Join(dir, "pages", "fuzz"+sidecarSuffix)
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		x := &Extracted{File: "pages/fuzz" + sidecarSuffix, Version: ExtractorVersion, SHA256: hashHex(data)}
		c, err := loadSidecar(dir, x, p, sha)
		if err != nil {
			return
		}
		// Accepted: it was written for this very page, and it is either
		// what Extract gives or another content with a known kind.
		switch c.Kind {
		case KindHTML, KindPDF, KindText:
		default:
			t.Fatalf("accepted kind %q", c.Kind)
		}
		if bytes.Equal(data, good) && !sameContent(c, want) {
			t.Fatalf("the good sidecar reads as %+v", c)
		}
	})
}

func FuzzSetKey(f *testing.F) {
	f.Add([]byte(`{"url":"https://a.example/","status":200,"file":"pages/a.html"}` + "\n"))
	f.Add([]byte(`{"url":"u","extracted":{"file":"old"},"extracted":3,"status":200}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"a":[1,{"b":"}"}],"c":"\u003c"}`))
	f.Add([]byte(`[1]`))
	val := &Extracted{File: "pages/x" + sidecarSuffix, Version: 3, SHA256: strings.Repeat("a", 64)}
	f.Fuzz(func(t *testing.T, line []byte) {
		out, err := setKey(line, "extracted", val)
		if err != nil {
			return
		}
		var in map[string]json.RawMessage
		if err := json.Unmarshal(line, &in); err != nil {
			// setKey reads an object token by token and may accept
			// what Unmarshal refuses (trailing data); its output must
			// still be one valid object.
			in = nil
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("setKey(%q) = %q: not an object: %v", line, out, err)
		}
		var x Extracted
		if err := json.Unmarshal(got["extracted"], &x); err != nil || x != *val {
			t.Fatalf("setKey(%q) = %q: extracted %+v, %v", line, out, x, err)
		}
		if in == nil {
			return
		}
		delete(in, "extracted")
		delete(got, "extracted")
		for k, v := range in {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) && !jsonEqual(got[k], v) {
				t.Fatalf("setKey(%q): key %q went from %s to %s", line, k, v, got[k])
			}
		}
		if len(in) != len(got) {
			t.Fatalf("setKey(%q) = %q: keys %d → %d", line, out, len(in), len(got))
		}
	})
}

// jsonEqual compares two JSON values by meaning.
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
