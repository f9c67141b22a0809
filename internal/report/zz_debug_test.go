package report

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDebugParse(t *testing.T) {
	path := os.Getenv("DBG_FILE")
	if path == "" {
		t.Skip()
	}
	var text string
	if idx := os.Getenv("DBG_IDX"); idx != "" {
		data, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var n int
		fmt.Sscan(idx, &n)
		var m map[string]any
		json.Unmarshal([]byte(lines[n]), &m)
		text = m["article"].(string)
	} else {
		var err error
		text, err = Load(path)
		if err != nil {
			t.Fatal(err)
		}
	}
	doc := Parse(text)
	for _, c := range doc.Claims {
		fmt.Printf("CLAIM %s %v %q\n", c.ID, c.Citations, c.Text)
	}
	for i, c := range doc.Citations {
		fmt.Printf("CITE %d %s %q url=%q doi=%q ax=%q title=%q\n", i, c.Kind, c.Marker, c.URL, c.DOI, c.ArXivID, c.Title)
	}
}
