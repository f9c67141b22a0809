package report

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// convertedDir, when set, makes TestMeasureConverted count how many
// numbered markers resolve in reports converted to PDF and read back
// (docs/parsing.md, "Reports read from PDF"):
//
//	go test ./internal/report -run TestMeasureConverted -converted DIR -v
//
// DIR/md/NAME.md are the reports as written, DIR/txt/NAME[_2col].CONVERTER.txt
// the text each converter read from NAME's PDF (one or two columns).
var convertedDir = flag.String("converted", "", "count resolved numbered markers in the converted reports of this directory")

func TestMeasureConverted(t *testing.T) {
	if *convertedDir == "" {
		t.Skip("no -converted directory")
	}
	numbered := func(text string) (n, resolved int) {
		for _, c := range Parse(text).Citations {
			if c.Kind == claimtrace.KindNumbered {
				n++
				if c.HasTarget() {
					resolved++
				}
			}
		}
		return n, resolved
	}
	source := map[string]int{} // report → numbered markers resolved in its Markdown
	mds, _ := filepath.Glob(filepath.Join(*convertedDir, "md", "*.md"))
	for _, p := range mds {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		_, source[strings.TrimSuffix(filepath.Base(p), ".md")] = numbered(string(b))
	}
	type row struct{ docs, markers, resolved, src int }
	rows := map[string]*row{}
	txts, _ := filepath.Glob(filepath.Join(*convertedDir, "txt", "*.txt"))
	for _, p := range txts {
		name, conv, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".txt"), ".")
		cols := "1col"
		if base, ok := strings.CutSuffix(name, "_2col"); ok {
			name, cols = base, "2col"
		}
		if source[name] == 0 {
			continue // no resolved marker to recover
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		corpus, _, _ := strings.Cut(name, "_")
		key := fmt.Sprintf("%-9s %s %-10s", corpus, cols, conv)
		r := rows[key]
		if r == nil {
			r = &row{}
			rows[key] = r
		}
		n, res := numbered(string(b))
		r.docs++
		r.markers += n
		r.resolved += res
		r.src += source[name]
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%-25s %5s %8s %9s %7s %12s", "corpus cols converter", "docs", "numbered", "resolving", "to none", "of source's")
	for _, k := range keys {
		r := rows[k]
		t.Logf("%-25s %5d %8d %9d %6.1f%% %11.1f%%", k, r.docs, r.markers, r.resolved, 100*float64(r.markers-r.resolved)/float64(max(r.markers, 1)), 100*float64(r.resolved)/float64(max(r.src, 1)))
	}
}
