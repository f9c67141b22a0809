package report

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/claimtrace/claimtrace"
)

func TestDebugShared(t *testing.T) {
	mode := os.Getenv("DBG_MODE")
	if mode == "" {
		t.Skip()
	}
	re := regexp.MustCompile(`\[\[\d+\]\]\(https?://`)
	for _, r := range loadSharedReports(t) {
		doc := Parse(r.text)
		switch mode {
		case "onyx":
			if r.corpus != "onyx" {
				continue
			}
			got := map[int]bool{}
			for _, c := range doc.Citations {
				if c.Kind == claimtrace.KindLink {
					got[c.Start] = true
				}
			}
			for _, m := range re.FindAllStringIndex(r.text, -1) {
				if !got[m[0]] {
					fmt.Printf("%s MISS %q\n", r.name, r.text[m[0]:min(len(r.text), m[0]+160)])
				}
			}
			for _, c := range doc.Citations {
				if c.Kind == claimtrace.KindListEntry {
					fmt.Printf("%s LIST %q\n", r.name, r.text[c.Start:c.End])
				}
			}
		case "dangling":
			if os.Getenv("DBG_CORPUS") != "" && r.corpus != os.Getenv("DBG_CORPUS") {
				continue
			}
			for _, c := range doc.Citations {
				if c.Kind == claimtrace.KindNumbered && !c.HasTarget() {
					fmt.Printf("%s DANGLING %q ctx=%q\n", r.name, c.Marker, r.text[max(0, c.Start-60):min(len(r.text), c.End+20)])
				}
			}
		}
	}
}
