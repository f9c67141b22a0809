package arxivsnap_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

// FuzzSnapshotLine checks the field scanner against encoding/json: on a
// valid JSON object both must decode the same fields (keys compared
// exactly); on anything else the
// scanner must not panic (it may accept what it does not validate, such as
// the content of skipped values).
func FuzzSnapshotLine(f *testing.F) {
	seeds, _ := genSnapshot(8, 3)
	for _, s := range seeds {
		f.Add(s)
	}
	for _, s := range []string{
		`{"id":"1","title":"\ud800\udc00 \ud800 x","versions":[{"created":"Mon, 2 Apr 2007 19:18:42 GMT"}]}`,
		`{"arxiv_id":"x","id":"y"}`, `{"title":null,"versions":null}`, `{"versions":[1,"a",{}]}`,
		`{"a":[[[[[[]]]]]],"b":{"c":{"d":-0.5e-10}}}`, "{\"title\":\"\xff\xfe\"}", `{"title":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := arxivsnap.Scan(line, true)
		var obj map[string]json.RawMessage
		if json.Unmarshal(line, &obj) != nil {
			return
		}
		// encoding/json matches keys regardless of case; the snapshot's keys
		// are lowercase and the scanner matches them exactly.
		lower := bytes.ToLower(line)
		for _, k := range []string{"id", "arxiv_id", "title", "comments", "license", "categories", "abstract", "versions", "created"} {
			q := []byte(`"` + k + `"`)
			if bytes.Count(lower, q) != bytes.Count(line, q) || bytes.Contains(line, []byte(`\u`)) {
				return
			}
		}
		want, rerr := reference(line)
		if rerr != nil {
			// Valid JSON whose fields have other types ("title": 5):
			// the scanner must refuse it too.
			if err == nil {
				if _, hasID := obj["id"]; hasID {
					if _, alsoArxiv := obj["arxiv_id"]; alsoArxiv {
						return
					}
				}
				t.Fatalf("Scan accepted %q that encoding/json rejects: %v", line, rerr)
			}
			return
		}
		if err != nil {
			t.Fatalf("Scan(%q): %v, but it is valid JSON", line, err)
		}
		if _, hasID := obj["id"]; hasID {
			if _, alsoArxiv := obj["arxiv_id"]; alsoArxiv {
				return // key order decides; the reference cannot tell
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Scan(%q) (-encoding/json +Scan):\n%s", line, diff)
		}
	})
}
